// The Set State planner: a desired change x a light's current state x its capabilities -> an ordered list of
// LAN messages (https://api.developer.lifx.com/docs/set-state). Pure: no I/O, no clock, no randomness.
// Payloads are wire units, produced only through core/protocol/units. The helpers at the bottom (validation,
// capability-aware colour resolution, message builders) are shared with effects.ts and delta.ts.

import { LightwireError, quoted } from '../errors.js';
import { DURATION_MAX_S } from '../protocol/limits.js';
import { MAX_ZONE_INDEX } from './selectors.js';
import {
  ENUMS,
  fractionToWire,
  hsbkToWire,
  powerToWire,
  sameHsbk,
  secondsToMs,
  skewRatioToWire,
  type Capabilities,
  type Hsbk,
  type KelvinRange,
  type MessageName,
  type Payload,
  type PowerState,
  type WireHsbk,
} from '../protocol/index.js';
import type { CheckedChange } from './requests.js';
import type { LightView, PartialHsbk, Plan, PlannedMessage, ZoneRange } from './types.js';

export interface SetStateOptions {
  /** Fast mode: end-state messages only, one step, no state read assumed. */
  readonly fast: boolean;
  /** Zones to paint (multizone lights only); null, undefined or empty = the whole light. */
  readonly zones?: readonly ZoneRange[] | null;
  /**
   * The colour change of each zone from its own colour (State Delta: +60° turns a red zone yellow and a blue one
   * magenta), used for a strip whose zones are known when zones are selected or differ. Otherwise the change's colour.
   */
  readonly perZone?: ((zone: Hsbk) => PartialHsbk) | undefined;
}

const U32_MAX = 0xffffffff;
/** Legacy SetColorZones carries u8 zone indices. */
const MAX_LEGACY_ZONE_INDEX = 0xff;
/** SetExtendedColorZones holds 82 colours; longer strips take several messages. */
export const ZONES_PER_EXTENDED_MESSAGE = 82;

/**
 * The colour a strip's zone is assumed to have when neither its zones nor its colour were ever read and the
 * request does not name every component: photons' defaults for an unspecified colour (hue 0, saturation 0,
 * brightness 1, kelvin 3500; colour.py `make_hsbk`). Only reachable in fast mode or after a failed read.
 */
const UNKNOWN_ZONE_BASE: Hsbk = Object.freeze({ hue: 0, saturation: 0, brightness: 1, kelvin: 3500 });

const EMPTY_PLAN: Plan = Object.freeze({ steps: Object.freeze([]) });

/**
 * Plans `PUT /lights/:selector/state` for one light.
 *
 * Without fast mode the executor has just read the light, so `light.power`, `light.color` and `light.zones`
 * are fresh:
 * - off and asked for `on` with a colour: step 1 paints the colour with duration 0 while the light is dark,
 *   step 2 powers on over the duration, so the old colour never shows (the docs' off-and-red -> on-and-blue);
 * - already on and asked for `on` with a colour: one step, the colour over the duration, no power message;
 * - `off` with a colour: the colour and the power-off in one step, both over the duration;
 * - power alone: SetLightPower over the duration (sent even when the light already has that power, so the
 *   result reflects an ack from the light).
 * Fast mode sends the end state in one step and never relies on the light's colour being known.
 */
export function planSetState(change: CheckedChange, light: LightView, options: SetStateOptions): Plan {
  const zones = validateZones(options.zones ?? null);
  const caps = light.capabilities;
  // Non-lights (the Switch: temperature_range null) get no light messages at all.
  if (caps.kelvinRange === null) return EMPTY_PLAN;

  const durationMs = durationToWire(change.durationS);
  const wanted = requestedColor(change.color, change.brightness, caps);
  const hasColor = hasComponent(wanted);
  const useZones = caps.multizone && zones !== null && zones.length > 0;
  const colorMessages = (ms: number): PlannedMessage[] => {
    if (!hasColor) return [];
    const perZone = options.perZone;
    if (useZones) return zoneColorMessages(light, perZone ?? wanted, zones, ms, options.fast);
    // A strip whose zones are known, asked for part of a colour (brightness alone, a hue without a brightness) or a
    // change from each zone's own colour (perZone): the zones are what it shows. Its one colour, as a read reports
    // it, can lag behind zone writes, so it is no base here (Set State: what is not given is left as is).
    const known = caps.multizone && light.zones !== null && light.zones.length > 0 ? light.zones : null;
    if (known !== null && (perZone !== undefined || (!options.fast && !isWholeColor(wanted)))) {
      // Every zone ends in one colour (what the change leaves out is alike in every zone, kelvin say): one SetColor,
      // which sets every zone and the device's own colour (https://lan.developer.lifx.com/docs/changing-a-device).
      const alike = options.fast ? null : sameEnd(known, perZone ?? wanted, caps);
      if (alike !== null) return [message('SetColor', { color: hsbkToWire(alike), durationMs: ms })];
      // Zones that differ: each keeps what the change leaves out, as when its zones are selected.
      if (!allSame(known)) return zoneColorMessages(light, perZone ?? wanted, [{ start: 0, end: known.length - 1 }], ms, options.fast);
      // Zones alike: one colour for the whole strip, over theirs.
      const base = known[0]!;
      return [colorChangeMessage(perZone ? perZone(base) : wanted, options.fast ? null : base, caps, ms)];
    }
    // Fast mode assumes no state read: a partial colour becomes SetWaveformOptional, never a merge with a
    // possibly stale cache. Without fast mode an unknown colour (a failed read) takes the same road.
    return [colorChangeMessage(wanted, options.fast ? null : light.color, caps, ms)];
  };
  // IR has no transition; lights without IR ignore it.
  const infrared =
    change.infrared !== undefined && caps.infrared ? [message('SetInfrared', { brightness: fractionToWire(change.infrared) })] : [];
  const power = change.power;
  const powerMessage = (ms: number): PlannedMessage[] => (power === undefined ? [] : [setLightPower(power, ms)]);

  if (options.fast) return plan([[...colorMessages(durationMs), ...infrared, ...powerMessage(durationMs)]]);

  if (power === 'on' && hasColor && light.power === 'off') {
    return plan([[...colorMessages(0), ...infrared], powerMessage(durationMs)]);
  }
  if (power === 'on' && hasColor && light.power === 'on') {
    return plan([[...colorMessages(durationMs), ...infrared]]);
  }
  // Everything else is one step, all over the duration: off with a colour, no power, power alone, and on with
  // a colour when the power is unknown (a failed read), which cannot know whether the light is dark.
  return plan([[...colorMessages(durationMs), ...infrared, ...powerMessage(durationMs)]]);
}

// ---- zones (selector `|` zone suffixes; https://lan.developer.lifx.com/docs/multizone-light-control) ----

/**
 * The colour for some zones of a strip; power stays whole-device.
 * - Zones known, extended multizone, not fast: one SetExtendedColorZones per 82 zones carrying the full zone
 *   array (current zones with the selected ones replaced), NO_APPLY on all but the last, APPLY on the last.
 * - Zones known otherwise: SetColorZones per run of consecutive selected zones that end in the same colour, so
 *   each zone keeps its own unsupplied components. Fast mode takes this road on extended strips too: with a
 *   cached (maybe stale) zone array it only touches the selected zones.
 * - Zones unknown: one SetColorZones per requested range (in the given order), light.color as the base.
 * Ranges are clipped to the strip (or to the u8 indices of SetColorZones when its length is unknown).
 */
function zoneColorMessages(
  light: LightView,
  change: PartialHsbk | ((zone: Hsbk) => PartialHsbk),
  ranges: readonly ZoneRange[],
  durationMs: number,
  fast: boolean,
): PlannedMessage[] {
  const caps = light.capabilities;
  const current = light.zones;
  const wantedFor = typeof change === 'function' ? change : (): PartialHsbk => change;
  if (current === null || current.length === 0) {
    const base = light.color ?? UNKNOWN_ZONE_BASE;
    const wanted = wantedFor(base);
    const color = hsbkToWire(resolveColor(wanted, base, caps) ?? base);
    const clipped = ranges
      .filter((r) => r.start <= MAX_LEGACY_ZONE_INDEX)
      .map((r) => ({ start: r.start, end: Math.min(r.end, MAX_LEGACY_ZONE_INDEX) }));
    return clipped.map((r, i) =>
      message('SetColorZones', {
        startIndex: r.start,
        endIndex: r.end,
        color,
        durationMs,
        apply: i === clipped.length - 1 ? APPLY : NO_APPLY,
      }),
    );
  }

  const count = current.length;
  const selected = new Array<boolean>(count).fill(false);
  for (const r of ranges) for (let i = r.start; i <= Math.min(r.end, count - 1); i++) selected[i] = true;
  if (!selected.includes(true)) return [];
  // Every zone passes through resolveColor so kelvin is clamped to the product's range even for untouched ones.
  const target = current.map((zone, i) => hsbkToWire(resolveColor(selected[i] ? wantedFor(zone) : {}, zone, caps) ?? zone));

  if (caps.extendedMultizone && !fast) {
    const out: PlannedMessage[] = [];
    for (let index = 0; index < count; index += ZONES_PER_EXTENDED_MESSAGE) {
      const colors = target.slice(index, index + ZONES_PER_EXTENDED_MESSAGE);
      const last = index + ZONES_PER_EXTENDED_MESSAGE >= count;
      out.push(message('SetExtendedColorZones', { durationMs, apply: last ? APPLY : NO_APPLY, index, colorsCount: colors.length, colors }));
    }
    return out;
  }

  const runs: { start: number; end: number; color: WireHsbk }[] = [];
  for (let i = 0; i < Math.min(count, MAX_LEGACY_ZONE_INDEX + 1); i++) {
    if (!selected[i]) continue;
    const color = target[i]!;
    const previous = runs.at(-1);
    if (previous !== undefined && previous.end === i - 1 && sameHsbk(previous.color, color)) previous.end = i;
    else runs.push({ start: i, end: i, color });
  }
  return runs.map((r, i) =>
    message('SetColorZones', {
      startIndex: r.start,
      endIndex: r.end,
      color: r.color,
      durationMs,
      apply: i === runs.length - 1 ? APPLY : NO_APPLY,
    }),
  );
}

// ---- shared: colour resolution against capabilities ----

/**
 * The colour components a request really changes on this light:
 * - an explicit `brightness` overrides the colour string's brightness;
 * - white-only lights (no `color` capability) ignore hue and saturation;
 * - lights with a fixed kelvin (min == max) ignore kelvin; others clamp it to the product's range.
 */
export function requestedColor(color: PartialHsbk | undefined, brightness: number | undefined, caps: Capabilities): PartialHsbk {
  const range = caps.kelvinRange;
  const out: { hue?: number; saturation?: number; brightness?: number; kelvin?: number } = {};
  if (caps.color && color?.hue !== undefined) out.hue = color.hue;
  if (caps.color && color?.saturation !== undefined) out.saturation = color.saturation;
  const b = brightness ?? color?.brightness;
  if (b !== undefined) out.brightness = b;
  if (range !== null && caps.variableColorTemp && color?.kelvin !== undefined) out.kelvin = clampKelvin(color.kelvin, range);
  return out;
}

/**
 * Whether planning `change` for this light outside fast mode uses its zones: part of a colour for a strip (each
 * zone keeps what the change leaves out), so they are read first rather than taken from the cache.
 */
export function usesZones(change: CheckedChange, light: LightView): boolean {
  if (!light.capabilities.multizone || light.capabilities.kelvinRange === null) return false;
  const wanted = requestedColor(change.color, change.brightness, light.capabilities);
  return hasComponent(wanted) && !isWholeColor(wanted);
}

/** Every component given: the colour is the same whatever the light showed. */
function isWholeColor(c: PartialHsbk): boolean {
  return c.hue !== undefined && c.saturation !== undefined && c.brightness !== undefined && c.kelvin !== undefined;
}

function allSame(zones: readonly Hsbk[]): boolean {
  return zones.every((z) => sameHsbk(z, zones[0]!));
}

/** The colour every zone ends in under `change`, when they all end alike; otherwise (or when one is unknown) null. */
function sameEnd(zones: readonly Hsbk[], change: PartialHsbk | ((zone: Hsbk) => PartialHsbk), caps: Capabilities): Hsbk | null {
  let first: Hsbk | null = null;
  for (const zone of zones) {
    const end = resolveColor(typeof change === 'function' ? change(zone) : change, zone, caps);
    if (end === null) return null;
    if (first === null) first = end;
    else if (!sameHsbk(end, first)) return null;
  }
  return first;
}

export function hasComponent(c: PartialHsbk): boolean {
  return c.hue !== undefined || c.saturation !== undefined || c.brightness !== undefined || c.kelvin !== undefined;
}

/**
 * The full colour the light ends in: `wanted` over `base`, with the components the product cannot change
 * pinned (white-only: saturation 0, hue kept or 0; fixed kelvin: the product's kelvin) and kelvin clamped.
 * Null when a component is neither requested, pinned nor known from `base`.
 */
export function resolveColor(wanted: PartialHsbk, base: Hsbk | null, caps: Capabilities): Hsbk | null {
  const range = caps.kelvinRange;
  if (range === null) return null;
  const hue = caps.color ? (wanted.hue ?? base?.hue) : (base?.hue ?? 0);
  const saturation = caps.color ? (wanted.saturation ?? base?.saturation) : 0;
  const brightness = wanted.brightness ?? base?.brightness;
  const kelvin = caps.variableColorTemp ? (wanted.kelvin ?? base?.kelvin) : range.minK;
  if (hue === undefined || saturation === undefined || brightness === undefined || kelvin === undefined) return null;
  return { hue, saturation, brightness, kelvin: clampKelvin(kelvin, range) };
}

export function clampKelvin(kelvin: number, range: KelvinRange): number {
  return Math.round(Math.min(range.maxK, Math.max(range.minK, kelvin)));
}

/**
 * One message moving the whole light to `wanted` over `durationMs`: SetColor when the end colour is fully
 * known (requested, pinned by the product, or merged over `base`); otherwise SetWaveformOptional so the device
 * keeps its own value for every unsupplied component: transient false, one cycle,
 * period = duration, SAW (a straight ramp from the current colour to the target that stays there), set_* flags
 * for the supplied components. Photons builds the same message for a partial colour (colour.py `msg`) with
 * skew 0; the forum reports SAW ignores skew, and where firmware honours it (SINE, TRIANGLE) it places the
 * peak, so we send skew 1 (peak at the end of the period): the ramp ends on the target either way.
 */
export function colorChangeMessage(wanted: PartialHsbk, base: Hsbk | null, caps: Capabilities, durationMs: number): PlannedMessage {
  const full = resolveColor(wanted, base, caps);
  if (full !== null) return message('SetColor', { color: hsbkToWire(full), durationMs });
  return message('SetWaveformOptional', {
    ...waveformPayload(wanted, caps, { transient: false, periodMs: durationMs, cycles: 1, skewRatio: SKEW_END, waveform: WAVEFORM.SAW }),
  });
}

interface WaveformShape {
  readonly transient: boolean;
  readonly periodMs: number;
  readonly cycles: number;
  readonly skewRatio: number;
  readonly waveform: number;
}

/**
 * SetWaveformOptional's payload for a partial colour: unsupplied components are sent as 0 with their set_*
 * flag false (photons does the same). Kelvin, when supplied, is already clamped by requestedColor.
 */
export function waveformPayload(wanted: PartialHsbk, caps: Capabilities, shape: WaveformShape): Payload<'SetWaveformOptional'> {
  const kelvin = wanted.kelvin !== undefined && caps.kelvinRange !== null ? clampKelvin(wanted.kelvin, caps.kelvinRange) : 0;
  return {
    ...shape,
    color: hsbkToWire({
      hue: wanted.hue ?? 0,
      saturation: wanted.saturation ?? 0,
      brightness: wanted.brightness ?? 0,
      kelvin,
    }),
    setHue: wanted.hue !== undefined,
    setSaturation: wanted.saturation !== undefined,
    setBrightness: wanted.brightness !== undefined,
    setKelvin: wanted.kelvin !== undefined,
  };
}

// ---- shared: message builders and enum values ----

/** Builds one planned message; the name picks the payload type. */
export function message<N extends MessageName>(name: N, payload: Payload<N>): PlannedMessage {
  return { name, payload } as PlannedMessage;
}

export function setLightPower(power: PowerState, durationMs: number): PlannedMessage {
  return message('SetLightPower', { level: powerToWire(power), durationMs });
}

/** A plan from steps, dropping empty ones. */
export function plan(steps: readonly (readonly PlannedMessage[])[]): Plan {
  const kept = steps.filter((s) => s.length > 0);
  return kept.length === 0 ? EMPTY_PLAN : { steps: kept };
}

/** An enum's number by its name in the message tables' ENUMS (one source per fact). */
export function enumValue<T extends Readonly<Record<number, string>>>(table: T, name: T[keyof T]): number {
  for (const [value, n] of Object.entries(table)) if (n === name) return Number(value);
  throw new Error(`enum has no ${String(name)}`);
}

export const WAVEFORM = Object.freeze({
  SAW: enumValue(ENUMS.LightWaveform, 'SAW'),
  SINE: enumValue(ENUMS.LightWaveform, 'SINE'),
  PULSE: enumValue(ENUMS.LightWaveform, 'PULSE'),
});
const NO_APPLY = enumValue(ENUMS.MultiZoneApplicationRequest, 'NO_APPLY');
const APPLY = enumValue(ENUMS.MultiZoneApplicationRequest, 'APPLY');
const SKEW_END = skewRatioToWire(1);

// ---- shared: the zones of a selector (parsed by selectors.ts; the planner still never emits what the codec rejects) ----

function invalid(field: string, reason: string): never {
  throw new LightwireError('PARAMETER_INVALID', { field, reason });
}

function validateZones(zones: readonly ZoneRange[] | null): readonly ZoneRange[] | null {
  if (zones === null) return null;
  if (!Array.isArray(zones)) invalid('zones', 'must be a list of zone ranges');
  for (const r of zones as readonly ZoneRange[]) {
    const ok =
      typeof r === 'object' && r !== null &&
      Number.isInteger(r.start) && Number.isInteger(r.end) &&
      r.start >= 0 && r.start <= r.end && r.end <= MAX_ZONE_INDEX;
    if (!ok) invalid('zones', `must be ranges start-end with 0 <= start <= end <= ${MAX_ZONE_INDEX} (got ${quoted(r)})`);
  }
  return zones;
}

/**
 * Seconds -> wire milliseconds. The HTTP API allows 100 years but the u32 ms fields hold 49.7 days; longer
 * transitions are capped there rather than refused.
 */
export function durationToWire(seconds: number): number {
  return Math.min(secondsToMs(seconds), U32_MAX);
}
