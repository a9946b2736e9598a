// The effect planners (the HTTP API's effect and clean endpoints, https://api.developer.lifx.com/): one pure
// function per endpoint, each turning a validated request x a light's current state x its capabilities into a Plan
// of LAN messages (wire units, via core/protocol/units). A light the effect does not apply to gets an empty plan;
// the service decides what status to report for it.
//
// Requests are in user units (seconds, 0-1 fractions, degrees). Colours arrive parsed: colour strings are the
// caller's (colors.ts), so `color`, `fromColor` and `palette` are PartialHsbk. Omitted fields take the
// defaults of the HTTP API's parameter tables, applied here (EFFECT_DEFAULTS).
//
// Firmware effects carry an `instanceid` (u32) that StateMultiZoneEffect / StateTileEffect echo back. Photons
// picks a random one per effect; a plan must be deterministic, so the caller passes `instanceId` (the service
// should pass a fresh random u32) and it defaults to 0.

import { LightwireError } from '../errors.js';
import {
  ENUMS,
  hsbkToWire,
  secondsToMs,
  secondsToNs,
  skewRatioToWire,
  type Hsbk,
  type Payload,
} from '../protocol/index.js';
import {
  MAX_DURATION_S,
  WAVEFORM,
  checkBoolean,
  checkColor,
  checkDuration,
  checkOptionalNumber,
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
import type { LightView, PartialHsbk, Plan, PlannedMessage } from './types.js';

/** Defaults from the HTTP API's parameter tables (and Home Assistant's SKY speed). */
export const EFFECT_DEFAULTS = Object.freeze({
  waveformPeriodS: 1, // breathe/pulse `period`
  waveformCycles: 1, // breathe/pulse `cycles`
  persist: false,
  powerOn: true, // every effect's `power_on`
  peak: 0.5, // breathe `peak`
  movePeriodS: 1, // Move
  direction: 'forward' as MoveDirection,
  morphPeriodS: 5, // Morph
  flamePeriodS: 5, // Flame
  // Clouds, Sunrise and Sunset: a maintained client knows only `duration` and `power_on`; Home Assistant's
  // effect_sky defaults speed to 50 s.
  skyPeriodS: 50,
  powerOff: false, // Effects Off
  stop: false, // Clean
});

/** Waveform `period` is u32 ms on the wire, so at most 4294967.295 s. */
const MAX_PERIOD_S = 0xffffffff / 1000;
/** f32 `cycles`: any finite non-negative value below float32's maximum. */
const MAX_CYCLES = 3.4e38;
const MAX_PALETTE = 16;
const U32_MAX = 0xffffffff;

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

export interface WaveformEffectRequest {
  /** Required: the colour the waveform moves to. */
  readonly color: PartialHsbk;
  /** Start colour; default the current colour (nothing sent). */
  readonly fromColor?: PartialHsbk;
  readonly periodS?: number;
  readonly cycles?: number;
  /** false -> return to the previous colour at the end (transient); true -> keep the effect colour. */
  readonly persist?: boolean;
  readonly powerOn?: boolean;
}

export interface BreatheRequest extends WaveformEffectRequest {
  /** Where in the period the colour peaks, 0-1. */
  readonly peak?: number;
}

/**
 * Breathe: one SINE waveform. transient = !persist, period in ms, cycles as given, skew_ratio = peak
 * (units.skewRatioToWire). SetWaveform when the colour is complete for this light (components the product
 * cannot change count as given), else SetWaveformOptional with set_* flags for the supplied components.
 * Step 1 (only when needed): SetColor(from_color) with duration 0, and SetLightPower on with duration 0 when
 * `power_on` and the light is not known to be on. Step 2: the waveform.
 */
export function planBreathe(request: BreatheRequest, light: LightView): Plan {
  const peak = checkOptionalNumber('peak', request.peak, 0, 1) ?? EFFECT_DEFAULTS.peak;
  return waveformEffect(request, light, WAVEFORM.SINE, skewRatioToWire(peak));
}

/** Pulse: as breathe with waveform PULSE and skew 0.5 (half of each period on each colour). */
export function planPulse(request: WaveformEffectRequest, light: LightView): Plan {
  return waveformEffect(request, light, WAVEFORM.PULSE, skewRatioToWire(0.5));
}

function waveformEffect(request: WaveformEffectRequest, light: LightView, waveform: number, skewRatio: number): Plan {
  if (typeof request !== 'object' || request === null) invalid('body', 'must be an object');
  if (request.color === undefined) throw new LightwireError('PARAMETER_MISSING', { field: 'color' });
  checkColor('color', request.color);
  checkColor('from_color', request.fromColor);
  const periodS = checkOptionalNumber('period', request.periodS, 0, MAX_PERIOD_S) ?? EFFECT_DEFAULTS.waveformPeriodS;
  const cycles = checkOptionalNumber('cycles', request.cycles, 0, MAX_CYCLES) ?? EFFECT_DEFAULTS.waveformCycles;
  const persist = checkBoolean('persist', request.persist) ?? EFFECT_DEFAULTS.persist;
  const powerOn = checkBoolean('power_on', request.powerOn) ?? EFFECT_DEFAULTS.powerOn;
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

export interface MoveRequest {
  readonly direction?: MoveDirection;
  readonly periodS?: number;
  /** Omitted = run until stopped; 0 = switch the effect off. */
  readonly cycles?: number;
  readonly powerOn?: boolean;
  readonly instanceId?: number;
}

/**
 * Move, multizone lights only: SetMultiZoneEffect type MOVE, speed = period (ms), duration =
 * cycles x period (ns; omitted -> 0 = forever), direction in parameters[1] (MOVE_DIRECTION). cycles 0 sends
 * type OFF instead (and no power-on: stopping an effect does not switch a light on).
 */
export function planMove(request: MoveRequest, light: LightView): Plan {
  const direction = request.direction ?? EFFECT_DEFAULTS.direction;
  if (!Object.hasOwn(MOVE_DIRECTION, direction)) invalid('direction', `must be "forward" or "backward" (got ${String(direction)})`);
  const periodS = checkOptionalNumber('period', request.periodS, 0, MAX_PERIOD_S) ?? EFFECT_DEFAULTS.movePeriodS;
  const cycles = checkOptionalNumber('cycles', request.cycles, 0, MAX_CYCLES);
  const powerOn = checkBoolean('power_on', request.powerOn) ?? EFFECT_DEFAULTS.powerOn;
  const instanceid = checkInstanceId(request.instanceId);
  const runS = cycles === undefined ? 0 : cycles * periodS;
  if (runS > MAX_DURATION_S) invalid('cycles', `x period must be at most ${MAX_DURATION_S} seconds (got ${runS})`);
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

export interface MorphRequest {
  readonly periodS?: number;
  /** Omitted = run until stopped; 0 = switch the effect off. */
  readonly durationS?: number;
  /** Up to 16 colours; unspecified components become hue 0, saturation 0, brightness 1, kelvin 3500. */
  readonly palette?: readonly PartialHsbk[];
  readonly powerOn?: boolean;
  readonly instanceId?: number;
}

/**
 * Morph, matrix lights only: SetTileEffect type MORPH, speed = period (ms), duration (ns; omitted ->
 * 0 = forever; 0 -> type OFF), palette of at most 16 colours (default DEFAULT_MORPH_PALETTE).
 */
export function planMorph(request: MorphRequest, light: LightView): Plan {
  const palette = request.palette ?? DEFAULT_MORPH_PALETTE;
  if (!Array.isArray(palette) || palette.length < 1 || palette.length > MAX_PALETTE) {
    invalid('palette', `must hold 1 to ${MAX_PALETTE} colours (got ${Array.isArray(palette) ? palette.length : String(palette)})`);
  }
  palette.forEach((c, i) => checkColor(`palette[${i}]`, c));
  const caps = light.capabilities;
  return tileEffect(request, light, EFFECT_DEFAULTS.morphPeriodS, TILE_MORPH, zeros(8), () =>
    palette.map((c) => hsbkToWire(resolveColor(requestedColor(c, undefined, caps), PALETTE_BASE, caps) ?? PALETTE_BASE)),
  );
}

export interface FlameRequest {
  readonly periodS?: number;
  readonly durationS?: number;
  readonly powerOn?: boolean;
  readonly instanceId?: number;
}

/** Flame, matrix lights only: SetTileEffect type FLAME (colours fixed by firmware), speed, duration. */
export function planFlame(request: FlameRequest, light: LightView): Plan {
  return tileEffect(request, light, EFFECT_DEFAULTS.flamePeriodS, TILE_FLAME, zeros(8), () => []);
}

export interface SkyRequest {
  /** Omitted = run until stopped; 0 = switch the effect off. Sunrise/sunset: also how long the sun takes. */
  readonly durationS?: number;
  /** The firmware's speed; not an HTTP parameter of Clouds, Sunrise or Sunset, kept for other faces. */
  readonly periodS?: number;
  readonly powerOn?: boolean;
  readonly instanceId?: number;
}

/**
 * Clouds, matrix lights only: SetTileEffect type SKY, sky type CLOUDS (2) in parameters[0], cloud
 * saturation min/max (51/178, photons) in parameters[1]/[2]; speed = period (default 50 s).
 */
export function planClouds(request: SkyRequest, light: LightView): Plan {
  const parameters = [SKY_CLOUDS, SKY_CLOUD_SATURATION_MIN, SKY_CLOUD_SATURATION_MAX, 0, 0, 0, 0, 0];
  return tileEffect(request, light, EFFECT_DEFAULTS.skyPeriodS, TILE_SKY, parameters, () => []);
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
  const durationS = request?.durationS === undefined ? undefined : checkDuration('duration', request.durationS);
  // The speed is a u32 of ms: a sunrise longer than 49.7 days rises at that pace and then holds.
  const periodS = request?.periodS ?? (durationS !== undefined && durationS > 0 ? Math.min(durationS, MAX_PERIOD_S) : undefined);
  const parameters = [skyType, 0, 0, 0, 0, 0, 0, 0];
  return tileEffect({ ...request, periodS }, light, EFFECT_DEFAULTS.skyPeriodS, TILE_SKY, parameters, () => []);
}

interface TileEffectRequest {
  readonly periodS?: number | undefined;
  readonly durationS?: number | undefined;
  readonly powerOn?: boolean | undefined;
  readonly instanceId?: number | undefined;
}

/** SetTileEffect for matrix lights; duration 0 turns into type OFF with nothing else set. */
function tileEffect(
  request: TileEffectRequest,
  light: LightView,
  defaultPeriodS: number,
  type: number,
  parameters: number[],
  palette: () => Payload<'SetTileEffect'>['settings']['palette'],
): Plan {
  if (typeof request !== 'object' || request === null) invalid('body', 'must be an object');
  const periodS = checkOptionalNumber('period', request.periodS, 0, MAX_PERIOD_S) ?? defaultPeriodS;
  const durationS = request.durationS === undefined ? undefined : checkDuration('duration', request.durationS);
  const powerOn = checkBoolean('power_on', request.powerOn) ?? EFFECT_DEFAULTS.powerOn;
  const instanceid = checkInstanceId(request.instanceId);
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

export interface EffectsOffRequest {
  readonly powerOff?: boolean;
}

/**
 * Effects off, one step: SetMultiZoneEffect OFF on multizone lights, SetTileEffect OFF on matrix
 * lights, and on every light a colour message that replaces a running waveform: SetColor to the current colour
 * with duration 0, or, when the colour is unknown or the light has zones (a strip, a matrix), a SetWaveformOptional
 * that sets nothing (period 0, one cycle, not transient). A SetColor would paint every zone one colour
 * (https://lan.developer.lifx.com/docs/changing-a-device), and stopping effects must leave a strip's zones as they
 * are. `power_off` adds SetLightPower off (duration 0).
 */
export function planEffectsOff(request: EffectsOffRequest, light: LightView): Plan {
  const powerOff = checkBoolean('power_off', request?.powerOff) ?? EFFECT_DEFAULTS.powerOff;
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

export interface CleanRequest {
  readonly stop?: boolean;
  /** Seconds; omitted or 0 = the device's configured default. Ignored when stopping. */
  readonly durationS?: number;
}

/** Clean, HEV lights only: SetHevCycle {enable: !stop, durationS: duration ?? 0 (0 = default)}. */
export function planClean(request: CleanRequest, light: LightView): Plan {
  const stop = checkBoolean('stop', request?.stop) ?? EFFECT_DEFAULTS.stop;
  // duration_s is u32 whole seconds on the wire (SetHevCycle).
  const durationS = checkOptionalNumber('duration', request?.durationS, 0, U32_MAX) ?? 0;
  if (!light.capabilities.hev) return plan([]);
  return plan([[message('SetHevCycle', { enable: !stop, durationS: stop ? 0 : Math.round(durationS) })]]);
}

// ---- helpers ----

function zeros(n: number): number[] {
  return new Array<number>(n).fill(0);
}

function checkInstanceId(value: number | undefined): number {
  if (value === undefined) return 0;
  if (!Number.isInteger(value) || value < 0 || value > U32_MAX) invalid('instanceId', `must be an integer from 0 to ${U32_MAX}`);
  return value;
}

function invalid(field: string, reason: string): never {
  throw new LightwireError('PARAMETER_INVALID', { field, reason });
}
