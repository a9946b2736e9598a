// Light namespace (101-122) and HEV (142-149): lights only; infrared and HEV only where the product has them.

import { POWER_OFF_LEVEL, waveformReturns } from '../../protocol/units.js';
import { HEV_RESULT } from '../model.js';
import { asSent, before, reply, type HandlerContext, type HandlerTable, type Reply } from './types.js';

const MAX_WAVEFORM_MS = 0x7fffffff;

const lightState = ({ model, nowMs }: HandlerContext): Reply =>
  reply('LightState', { color: model.color.at(nowMs), power: model.power.at(nowMs), label: model.label }, asSent('label', model.labelBytes));
const lightPower = ({ model, nowMs }: HandlerContext): Reply => reply('StateLightPower', { level: model.power.at(nowMs) });
const infrared = ({ model }: HandlerContext): Reply => reply('StateInfrared', { brightness: model.infrared });

const hevCycle = ({ model, nowMs }: HandlerContext): Reply => {
  const remainingS = model.hevRemainingS(nowMs);
  const cycle = model.hevCycle;
  return reply('StateHevCycle', {
    durationS: cycle === null ? 0 : cycle.durationS,
    remainingS,
    lastPower: cycle === null ? false : cycle.lastPower,
  });
};
const hevConfig = ({ model }: HandlerContext): Reply => reply('StateHevCycleConfiguration', { ...model.hevConfig });

/**
 * Waveforms are approximated by their end state: a transient waveform, and a SINE or TRIANGLE one, leaves the
 * colour as it was; any other moves to the waveform colour over period x cycles (SetWaveformOptional only changes
 * the chosen components).
 */
function waveform(
  ctx: HandlerContext,
  p: {
    transient: boolean;
    color: { hue: number; saturation: number; brightness: number; kelvin: number };
    periodMs: number;
    cycles: number;
    waveform: number;
  },
  use: { hue: boolean; saturation: boolean; brightness: boolean; kelvin: boolean },
): void {
  // A waveform that returns ends where it began; one that sets no component changes nothing (on a strip, no zone).
  if (waveformReturns(p.transient, p.waveform) || !(use.hue || use.saturation || use.brightness || use.kelvin)) return;
  const now = ctx.model.color.at(ctx.nowMs);
  const target = {
    hue: use.hue ? p.color.hue : now.hue,
    saturation: use.saturation ? p.color.saturation : now.saturation,
    brightness: use.brightness ? p.color.brightness : now.brightness,
    kelvin: use.kelvin ? p.color.kelvin : now.kelvin,
  };
  const cycles = Number.isFinite(p.cycles) ? Math.max(0, p.cycles) : 0;
  ctx.model.setColor(target, ctx.nowMs, Math.min(MAX_WAVEFORM_MS, Math.round(p.periodMs * cycles)));
}

const ALL = { hue: true, saturation: true, brightness: true, kelvin: true };

export const LIGHT_HANDLERS: HandlerTable = {
  GetColor: { family: 'light', run: (ctx) => [lightState(ctx)] },
  SetColor: {
    family: 'light',
    run: (ctx, p) => before(ctx, () => [lightState(ctx)], () => ctx.model.setColor(p.color, ctx.nowMs, p.durationMs)),
  },
  SetWaveform: {
    family: 'light',
    run: (ctx, p) => before(ctx, () => [lightState(ctx)], () => waveform(ctx, p, ALL)),
  },
  SetWaveformOptional: {
    family: 'light',
    run: (ctx, p) =>
      before(ctx, () => [lightState(ctx)], () =>
        waveform(ctx, p, { hue: p.setHue, saturation: p.setSaturation, brightness: p.setBrightness, kelvin: p.setKelvin }),
      ),
  },
  GetLightPower: { family: 'light', run: (ctx) => [lightPower(ctx)] },
  SetLightPower: {
    family: 'light',
    run: (ctx, p) => before(ctx, () => [lightPower(ctx)], () => ctx.model.setPower(p.level, ctx.nowMs, p.durationMs)),
  },
  GetInfrared: { family: 'infrared', run: (ctx) => [infrared(ctx)] },
  // IR has no transition.
  SetInfrared: {
    family: 'infrared',
    run: (ctx, p) => before(ctx, () => [infrared(ctx)], () => { ctx.model.infrared = p.brightness; }),
  },
  GetHevCycle: { family: 'hev', run: (ctx) => [hevCycle(ctx)] },
  SetHevCycle: {
    family: 'hev',
    run: (ctx, p) =>
      before(ctx, () => [hevCycle(ctx)], () => {
        const { model, nowMs } = ctx;
        const running = model.hevRemainingS(nowMs) > 0;
        if (p.enable) {
          // duration_s 0 = the configured default.
          const durationS = p.durationS === 0 ? model.hevConfig.durationS : p.durationS;
          model.hevCycle = { startMs: nowMs, durationS, lastPower: model.power.at(nowMs) !== POWER_OFF_LEVEL };
        } else if (running) {
          model.hevCycle = null;
          model.hevLastResult = HEV_RESULT.INTERRUPTED_BY_LAN;
        }
      }),
  },
  GetHevCycleConfiguration: { family: 'hev', run: (ctx) => [hevConfig(ctx)] },
  SetHevCycleConfiguration: {
    family: 'hev',
    run: (ctx, p) =>
      before(ctx, () => [hevConfig(ctx)], () => {
        ctx.model.hevConfig = { indication: p.indication, durationS: p.durationS };
      }),
  },
  GetLastHevCycleResult: {
    family: 'hev',
    run: ({ model, nowMs }) => {
      model.settleHev(nowMs);
      return [reply('StateLastHevCycleResult', { result: model.hevLastResult })];
    },
  },
};
