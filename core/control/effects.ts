// The effect planners (the HTTP API's effect and clean endpoints, https://api.developer.lifx.com/): one pure
// function per endpoint, each turning a validated request x a light's current state x its capabilities into a Plan
// of LAN messages (wire units, via core/protocol/units). A light the effect does not apply to gets an empty plan;
// the service decides what status to report for it.
//
// Requests arrive checked (requests.ts, from the catalogue's declarations): in user units, colours parsed, the
// defaults of the HTTP API's parameter tables filled in. Planners never check them again.
//
// Firmware effects carry an `instanceid` (u32) that StateMultiZoneEffect / StateTileEffect echo back. Photons
// picks a random one per effect; a plan must be deterministic, so the caller passes `instanceId` (the service
// should pass a fresh random u32) and it defaults to 0.

import {
  ENUMS,
  hsbkToWire,
  secondsToMs,
  secondsToNs,
  skewRatioToWire,
  type Hsbk,
  type Payload,
} from '../protocol/index.js';
import { MAX_PERIOD_S } from './catalogue.js';
import {
  WAVEFORM,
  colorChangeMessage,
  enumValue,
  hasComponent,
  message,
  plan,
  requestedColor,
  resolveColor,
  setLightPower,
  waveformPayload,
} from './planner.js';
import type { Checked, CheckedValues } from './requests.js';
import type { LightView, PartialHsbk, Plan, PlannedMessage } from './types.js';

/**
 * The speed of Clouds, Sunrise and Sunset when no duration sets it: not an HTTP parameter (a maintained client knows
 * only `duration` and `power_on`); Home Assistant's effect_sky defaults it to 50 s. Every other default is the
 * catalogue's, filled in by the parser.
 */
const SKY_PERIOD_S = 50;

const MZ_OFF = enumValue(ENUMS.MultiZoneEffectType, 'OFF');
const MZ_MOVE = enumValue(ENUMS.MultiZoneEffectType, 'MOVE');
const TILE_OFF = enumValue(ENUMS.TileEffectType, 'OFF');
const TILE_MORPH = enumValue(ENUMS.TileEffectType, 'MORPH');
const TILE_FLAME = enumValue(ENUMS.TileEffectType, 'FLAME');
const TILE_SKY = enumValue(ENUMS.TileEffectType, 'SKY');
const SKY_SUNRISE = enumValue(ENUMS.TileEffectSkyType, 'SUNRISE');
const SKY_SUNSET = enumValue(ENUMS.TileEffectSkyType, 'SUNSET');
const SKY_CLOUDS = enumValue(ENUMS.TileEffectSkyType, 'CLOUDS');
/** Photons' defaults for the clouds' saturation bounds (photons' fields.py), u8 0-255. */
export const SKY_CLOUD_SATURATION_MIN = 51;
export const SKY_CLOUD_SATURATION_MAX = 178;

/**
 * MOVE direction in parameters[1]: photons names 0 RIGHT / BACKWARD and
 * 1 LEFT / FORWARD; lifx-lan-client names 0 "towards the controller" and 1 "away". Both agree: `forward` = 1
 * (the pattern moves away from the controller, from zone 0 upwards), `backward` = 0 (towards the controller).
 */
export const MOVE_DIRECTION = Object.freeze({ forward: 1, backward: 0 });
export type MoveDirection = keyof typeof MOVE_DIRECTION;

/**
 * The morph palette when none is given. The docs only say "seven colours spread over the spectrum" (the
 * exact list is unknown): we take the API's named colours in rainbow order, fully saturated.
 */
export const DEFAULT_MORPH_PALETTE: readonly PartialHsbk[] = Object.freeze(
  [0, 36, 60, 120, 180, 250, 280].map((hue) => Object.freeze({ hue, saturation: 1, brightness: 1 })),
);
/**
 * What an unspecified palette component becomes: photons' defaults for a colour (colour.py `make_hsbk`).
 * Brightness barely matters: a morph takes its brightness from the device.
 */
const PALETTE_BASE: Hsbk = Object.freeze({ hue: 0, saturation: 0, brightness: 1, kelvin: 3500 });

// ---- breathe and pulse: one waveform (https://lan.developer.lifx.com/docs/waveforms) ----

/** A firmware effect's instance id (u32): the service gives each run a fresh one (photons does the same). */
export interface Instance {
  readonly instanceId: number;
}

/**
 * Breathe: one SINE waveform. transient = !persist, period in ms, cycles as given, skew_ratio = peak
 * (units.skewRatioToWire). SetWaveform when the colour is complete for this light (components the product
 * cannot change count as given), else SetWaveformOptional with set_* flags for the supplied components.
 * Step 1 (only when needed): SetColor(from_color) with duration 0, and SetLightPower on with duration 0 when
 * `power_on` and the light is not known to be on. Step 2: the waveform.
 */
export function planBreathe(request: Checked<'breathe'>, light: LightView): Plan {
  return waveformEffect(request, light, WAVEFORM.SINE, skewRatioToWire(request.peak));
}

/** Pulse: as breathe with waveform PULSE and skew 0.5 (half of each period on each colour). */
export function planPulse(request: Checked<'pulse'>, light: LightView): Plan {
  return waveformEffect(request, light, WAVEFORM.PULSE, skewRatioToWire(0.5));
}

function waveformEffect(request: CheckedValues<'pulse'>, light: LightView, waveform: number, skewRatio: number): Plan {
  const { periodS, cycles, persist, powerOn } = request;
  const caps = light.capabilities;
  if (caps.kelvinRange === null) return plan([]);

  const first: PlannedMessage[] = [];
  if (request.fromColor !== undefined) {
    const from = requestedColor(request.fromColor, undefined, caps);
    if (hasComponent(from)) first.push(colorChangeMessage(from, light.color, caps, 0));
  }
  if (powerOn && light.power !== 'on') first.push(setLightPower('on', 0));

  // A colour this light cannot show any part of (e.g. a hue on a white-only bulb) sends no waveform.
  const wanted = requestedColor(request.color, undefined, caps);
  if (!hasComponent(wanted)) return plan([first]);
  const shape = { transient: !persist, periodMs: secondsToMs(periodS), cycles, skewRatio, waveform };
  const complete = resolveColor(wanted, null, caps);
  const wave =
    complete !== null
      ? message('SetWaveform', { ...shape, color: hsbkToWire(complete) })
      : message('SetWaveformOptional', waveformPayload(wanted, caps, shape));
  return plan([first, [wave]]);
}

// ---- firmware effects: MOVE (multizone), MORPH / FLAME / SKY (matrix) ----

/**
 * Move, multizone lights only: SetMultiZoneEffect type MOVE, speed = period (ms), duration =
 * cycles x period (ns; omitted -> 0 = forever), direction in parameters[1] (MOVE_DIRECTION). cycles 0 sends
 * type OFF instead (and no power-on: stopping an effect does not switch a light on).
 */
export function planMove(request: Checked<'move'> & Instance, light: LightView): Plan {
  const { direction, periodS, cycles, powerOn, instanceId: instanceid } = request;
  // At most DURATION_MAX_S (requests.ts checks cycles x period).
  const runS = cycles === undefined ? 0 : cycles * periodS;
  if (!light.capabilities.multizone) return plan([]);

  const off = cycles === 0;
  const settings: Payload<'SetMultiZoneEffect'>['settings'] = off
    ? { instanceid, type: MZ_OFF, speedMs: 0, durationNs: 0n, parameters: zeros(8) }
    : {
        instanceid,
        type: MZ_MOVE,
        speedMs: secondsToMs(periodS),
        durationNs: secondsToNs(runS),
        parameters: [0, MOVE_DIRECTION[direction], 0, 0, 0, 0, 0, 0],
      };
  return withPowerOn(light, powerOn && !off, message('SetMultiZoneEffect', { settings }));
}

/**
 * Morph, matrix lights only: SetTileEffect type MORPH, speed = period (ms), duration (ns; omitted ->
 * 0 = forever; 0 -> type OFF), palette of at most 16 colours (default DEFAULT_MORPH_PALETTE).
 */
export function planMorph(request: Checked<'morph'> & Instance, light: LightView): Plan {
  const palette = request.palette ?? DEFAULT_MORPH_PALETTE;
  const caps = light.capabilities;
  return tileEffect(request, light, TILE_MORPH, zeros(8), () =>
    palette.map((c) => hsbkToWire(resolveColor(requestedColor(c, undefined, caps), PALETTE_BASE, caps) ?? PALETTE_BASE)),
  );
}

/** Flame, matrix lights only: SetTileEffect type FLAME (colours fixed by firmware), speed, duration. */
export function planFlame(request: Checked<'flame'> & Instance, light: LightView): Plan {
  return tileEffect(request, light, TILE_FLAME, zeros(8), () => []);
}

/** Clouds, Sunrise and Sunset take the same parameters. */
export type SkyRequest = CheckedValues<'clouds'> & Instance;

/**
 * Clouds, matrix lights only: SetTileEffect type SKY, sky type CLOUDS (2) in parameters[0], cloud
 * saturation min/max (51/178, photons) in parameters[1]/[2]; speed 50 s (Home Assistant's default).
 */
export function planClouds(request: SkyRequest, light: LightView): Plan {
  const parameters = [SKY_CLOUDS, SKY_CLOUD_SATURATION_MIN, SKY_CLOUD_SATURATION_MAX, 0, 0, 0, 0, 0];
  return tileEffect(request, light, TILE_SKY, parameters, () => []);
}

/**
 * Sunrise: SKY with sky type SUNRISE (0). Home Assistant documents the speed of sunrise/sunset as how
 * long the effect takes to complete, so a given duration is also the speed unless a period is given.
 */
export function planSunrise(request: SkyRequest, light: LightView): Plan {
  return sunEffect(request, light, SKY_SUNRISE);
}

/** Sunset: as sunrise with sky type SUNSET (1). */
export function planSunset(request: SkyRequest, light: LightView): Plan {
  return sunEffect(request, light, SKY_SUNSET);
}

function sunEffect(request: SkyRequest, light: LightView, skyType: number): Plan {
  const durationS = request.durationS;
  // The speed is a u32 of ms: a sunrise longer than 49.7 days rises at that pace and then holds.
  const periodS = durationS !== undefined && durationS > 0 ? Math.min(durationS, MAX_PERIOD_S) : undefined;
  const parameters = [skyType, 0, 0, 0, 0, 0, 0, 0];
  return tileEffect({ ...request, periodS }, light, TILE_SKY, parameters, () => []);
}

interface TileEffectRequest {
  readonly periodS?: number | undefined;
  readonly durationS?: number | undefined;
  readonly powerOn: boolean;
  readonly instanceId: number;
}

/** SetTileEffect for matrix lights; duration 0 turns into type OFF with nothing else set. */
function tileEffect(
  request: TileEffectRequest,
  light: LightView,
  type: number,
  parameters: number[],
  palette: () => Payload<'SetTileEffect'>['settings']['palette'],
): Plan {
  // Morph and Flame always carry a period (the catalogue's default); the sky effects, one set by their duration.
  const periodS = request.periodS ?? SKY_PERIOD_S;
  const { durationS, powerOn, instanceId: instanceid } = request;
  if (!light.capabilities.matrix || light.capabilities.kelvinRange === null) return plan([]);

  const off = durationS === 0;
  const colors = off ? [] : palette();
  const settings: Payload<'SetTileEffect'>['settings'] = off
    ? { instanceid, type: TILE_OFF, speedMs: 0, durationNs: 0n, parameters: zeros(8), paletteCount: 0, palette: [] }
    : {
        instanceid,
        type,
        speedMs: secondsToMs(periodS),
        durationNs: secondsToNs(durationS ?? 0),
        parameters,
        paletteCount: colors.length,
        palette: colors,
      };
  return withPowerOn(light, powerOn && !off, message('SetTileEffect', { settings }));
}

/** Step 1 powers on (duration 0) a light not known to be on; the effect follows once that is acked. */
function withPowerOn(light: LightView, powerOn: boolean, effect: PlannedMessage): Plan {
  return plan([powerOn && light.power !== 'on' ? [setLightPower('on', 0)] : [], [effect]]);
}

// ---- effects off ----

/**
 * Effects off, one step: SetMultiZoneEffect OFF on multizone lights, SetTileEffect OFF on matrix
 * lights, and on every light a colour message that replaces a running waveform: SetColor to the current colour
 * with duration 0, or, when the colour is unknown or the light has zones (a strip, a matrix), a SetWaveformOptional
 * that sets nothing (period 0, one cycle, not transient). A SetColor would paint every zone one colour
 * (https://lan.developer.lifx.com/docs/changing-a-device), and stopping effects must leave a strip's zones as they
 * are. `power_off` adds SetLightPower off (duration 0).
 */
export function planEffectsOff(request: Checked<'effectsOff'>, light: LightView): Plan {
  const { powerOff } = request;
  const caps = light.capabilities;
  if (caps.kelvinRange === null) return plan([]);
  const step: PlannedMessage[] = [];
  if (caps.multizone) {
    step.push(message('SetMultiZoneEffect', { settings: { instanceid: 0, type: MZ_OFF, speedMs: 0, durationNs: 0n, parameters: zeros(8) } }));
  }
  if (caps.matrix) {
    step.push(
      message('SetTileEffect', {
        settings: { instanceid: 0, type: TILE_OFF, speedMs: 0, durationNs: 0n, parameters: zeros(8), paletteCount: 0, palette: [] },
      }),
    );
  }
  step.push(colorChangeMessage({}, caps.multizone || caps.matrix ? null : light.color, caps, 0));
  if (powerOff) step.push(setLightPower('off', 0));
  return plan([step]);
}

// ---- clean ----

/** Clean, HEV lights only: SetHevCycle {enable: !stop, durationS: duration ?? 0 (0 = default)}. */
export function planClean(request: Checked<'clean'>, light: LightView): Plan {
  const stop = request.stop;
  // duration_s is u32 whole seconds on the wire (SetHevCycle); omitted is 0, the device's own setting.
  const durationS = request.durationS ?? 0;
  if (!light.capabilities.hev) return plan([]);
  return plan([[message('SetHevCycle', { enable: !stop, durationS: stop ? 0 : Math.round(durationS) })]]);
}

// ---- helpers ----

function zeros(n: number): number[] {
  return new Array<number>(n).fill(0);
}
