// Light namespace, types 101-122, and HEV (LIFX Clean), 142-149
// (https://lan.developer.lifx.com/docs/changing-a-device).

import { message } from './message.js';
import { ENUMS, Hsbk, Label, bool, enumOf, f32, field, i16, reserved, u16, u32, u8 } from './structs.js';

const waveform = [
  reserved(1),
  field('transient', bool),
  field('color', Hsbk),
  field('periodMs', u32, 'ms'),
  field('cycles', f32),
  // Signed: -32768 -> 0, 0 -> 0.5, 32767 -> 1 (https://lan.developer.lifx.com/docs/waveforms).
  field('skewRatio', i16, 'skew'),
  field('waveform', enumOf(u8, ENUMS.LightWaveform)),
] as const;

export const LIGHT = {
  GetColor: message(101, [], { reply: 'LightState' }),
  SetColor: message(102, [reserved(1), field('color', Hsbk), field('durationMs', u32, 'ms')], { reply: 'LightState' }),
  SetWaveform: message(103, waveform, { reply: 'LightState' }),
  LightState: message(107, [
    field('color', Hsbk),
    reserved(2),
    field('power', u16, 'power'),
    field('label', Label),
    reserved(8),
  ]),
  GetLightPower: message(116, [], { reply: 'StateLightPower' }),
  SetLightPower: message(117, [field('level', u16, 'power'), field('durationMs', u32, 'ms')], { reply: 'StateLightPower' }),
  StateLightPower: message(118, [field('level', u16, 'power')]),
  SetWaveformOptional: message(
    119,
    [
      ...waveform,
      field('setHue', bool),
      field('setSaturation', bool),
      field('setBrightness', bool),
      field('setKelvin', bool),
    ],
    { reply: 'LightState' },
  ),
  GetInfrared: message(120, [], { reply: 'StateInfrared' }),
  StateInfrared: message(121, [field('brightness', u16, 'fraction')]),
  SetInfrared: message(122, [field('brightness', u16, 'fraction')], { reply: 'StateInfrared' }),
  GetHevCycle: message(142, [], { reply: 'StateHevCycle' }),
  // durationS = 0 means "use the configured default" (photons' and Home Assistant's convention).
  SetHevCycle: message(143, [field('enable', bool), field('durationS', u32, 's')], { reply: 'StateHevCycle' }),
  StateHevCycle: message(144, [field('durationS', u32, 's'), field('remainingS', u32, 's'), field('lastPower', bool)]),
  GetHevCycleConfiguration: message(145, [], { reply: 'StateHevCycleConfiguration' }),
  SetHevCycleConfiguration: message(146, [field('indication', bool), field('durationS', u32, 's')], {
    reply: 'StateHevCycleConfiguration',
  }),
  StateHevCycleConfiguration: message(147, [field('indication', bool), field('durationS', u32, 's')]),
  GetLastHevCycleResult: message(148, [], { reply: 'StateLastHevCycleResult' }),
  StateLastHevCycleResult: message(149, [field('result', enumOf(u8, ENUMS.LightLastHevCycleResult))]),
} as const;
