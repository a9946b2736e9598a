// The HomeKit face of one light as data (the way HAP-NodeJS declares its definitions): one row per
// characteristic says which lights get it, its range on this light, how it reads from the service's cached
// LightView and what a write asks for. The accessory code only walks these tables.
//
// Units change here and only here: HomeKit speaks percent (0-100), degrees and mireds; the service speaks
// 0-1 fractions, degrees and kelvin.

import type { CharacteristicValue } from 'homebridge';
import { KELVIN_MAX, KELVIN_MIN, kelvinToMireds, miredsToKelvin, type Capabilities, type KelvinRange, type LightView } from '../core/index.js';

/** The characteristics Lightwire maps, by their HAP-NodeJS names (hap.Characteristic[name]). */
export type MappedCharacteristic = 'On' | 'Brightness' | 'Hue' | 'Saturation' | 'ColorTemperature' | 'CurrentAmbientLightLevel';

/**
 * What HomeKit asked of one light since the last change went out, in service units. The writes of one turn (one
 * HAP request), and those made while a change is on its way, are folded into one of these, then sent as one setState
 * (the planner sets the colour while the light is off, then powers it on): writer.ts.
 */
export interface Patch {
  readonly power?: 'on' | 'off';
  /** 0-1. */
  readonly brightness?: number;
  /** Degrees 0-360. */
  readonly hue?: number;
  /** 0-1. */
  readonly saturation?: number;
  readonly kelvin?: number;
  /** 0-1, night-vision level. */
  readonly infrared?: number;
  /** The night-vision tile's On without a level: on at the last level, or off. */
  readonly infraredOn?: boolean;
}

export interface NumericProps {
  readonly minValue: number;
  readonly maxValue: number;
  readonly minStep: number;
}

export interface Mapping {
  readonly characteristic: MappedCharacteristic;
  /** Whether a light with these capabilities gets the characteristic. */
  readonly applies: (caps: Capabilities) => boolean;
  /** Its range on this light, when it differs from HAP's default. */
  readonly props?: (caps: Capabilities) => NumericProps;
  /** Its value from the cache. A light not read yet reads as HAP's neutral value. */
  readonly read: (view: LightView) => CharacteristicValue;
  /** What a write asks of the light. */
  readonly write: (value: CharacteristicValue, caps: Capabilities) => Patch;
  /** The `changed` fields that can move its value. */
  readonly fields: readonly string[];
}

// ---- conversions ----

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

/** 0-1 -> whole percent. */
export const toPercent = (fraction: number): number => clamp(Math.round(fraction * 100), 0, 100);
/** Percent -> 0-1. */
export const fromPercent = (percent: number): number => clamp(percent, 0, 100) / 100;

/** HomeKit's 1500-9000 K widest range: 111-667 mireds (HAP's own default is 140-500, 2000-7143 K). */
export function miredsRange(range: KelvinRange): NumericProps {
  return { minValue: kelvinToMireds(range.maxK), maxValue: kelvinToMireds(range.minK), minStep: 1 };
}

/** A kelvin value as mireds within this light's range. */
export function kelvinToLightMireds(kelvin: number, range: KelvinRange): number {
  const { minValue, maxValue } = miredsRange(range);
  return clamp(kelvinToMireds(kelvin), minValue, maxValue);
}

/** Mireds from HomeKit as kelvin this light can show. */
export function miredsToLightKelvin(mireds: number, range: KelvinRange): number {
  return clamp(miredsToKelvin(mireds), range.minK, range.maxK);
}

const num = (value: CharacteristicValue): number => (typeof value === 'number' ? value : Number(value));
const bool = (value: CharacteristicValue): boolean => value === true || value === 1 || value === '1' || value === 'true';

/** The range used when a product reports none (never for the lights that get ColorTemperature). */
const FALLBACK_RANGE: KelvinRange = { minK: KELVIN_MIN, maxK: KELVIN_MAX };

// ---- the tables ----

const isLight = (caps: Capabilities): boolean => caps.isLight;

/** The main Lightbulb service. */
export const LIGHTBULB: readonly Mapping[] = Object.freeze([
  {
    characteristic: 'On',
    applies: isLight,
    read: (v) => v.power === 'on',
    write: (value) => ({ power: bool(value) ? 'on' : 'off' }),
    fields: ['power'],
  },
  {
    characteristic: 'Brightness',
    applies: isLight,
    read: (v) => (v.color === null ? 0 : toPercent(v.color.brightness)),
    write: (value) => ({ brightness: fromPercent(num(value)) }),
    fields: ['color'],
  },
  {
    characteristic: 'Hue',
    applies: (caps) => caps.isLight && caps.color,
    read: (v) => (v.color === null ? 0 : clamp(Math.round(v.color.hue), 0, 360)),
    write: (value) => ({ hue: clamp(num(value), 0, 360) }),
    fields: ['color'],
  },
  {
    characteristic: 'Saturation',
    applies: (caps) => caps.isLight && caps.color,
    read: (v) => (v.color === null ? 0 : toPercent(v.color.saturation)),
    write: (value) => ({ saturation: fromPercent(num(value)) }),
    fields: ['color'],
  },
  {
    characteristic: 'ColorTemperature',
    applies: (caps) => caps.isLight && caps.variableColorTemp && caps.kelvinRange !== null,
    props: (caps) => miredsRange(caps.kelvinRange ?? FALLBACK_RANGE),
    read: (v) => {
      const range = v.capabilities.kelvinRange ?? FALLBACK_RANGE;
      return kelvinToLightMireds(v.color?.kelvin ?? 3500, range);
    },
    // A colour temperature in HomeKit is white light: the saturation goes to 0 with it.
    write: (value, caps) => ({ kelvin: miredsToLightKelvin(num(value), caps.kelvinRange ?? FALLBACK_RANGE), saturation: 0 }),
    fields: ['color'],
  },
]);

/** The second Lightbulb of night-vision lights: its brightness is the infrared level. */
export const NIGHT_VISION: readonly Mapping[] = Object.freeze([
  {
    characteristic: 'On',
    applies: (caps) => caps.infrared,
    read: (v) => (v.infrared ?? 0) > 0,
    write: (value) => ({ infraredOn: bool(value) }),
    fields: ['infrared'],
  },
  {
    characteristic: 'Brightness',
    applies: (caps) => caps.infrared,
    read: (v) => toPercent(v.infrared ?? 0),
    write: (value) => ({ infrared: fromPercent(num(value)) }),
    fields: ['infrared'],
  },
]);

/** HAP's CurrentAmbientLightLevel range, in lux: it cannot show 0 (darkness reads as its minimum). */
export const AMBIENT_LUX_MIN = 0.0001;
export const AMBIENT_LUX_MAX = 100000;

/**
 * The LightSensor service of a light with an ambient light sensor (the `ambientLight` option): the sensor's raw
 * reading, not calibrated, which reads best with the light off. Read-only, so a write asks nothing.
 */
export const LIGHT_SENSOR: readonly Mapping[] = Object.freeze([
  {
    characteristic: 'CurrentAmbientLightLevel',
    applies: isLight,
    props: () => ({ minValue: AMBIENT_LUX_MIN, maxValue: AMBIENT_LUX_MAX, minStep: AMBIENT_LUX_MIN }),
    read: (v) => clamp(v.ambientLux ?? 0, AMBIENT_LUX_MIN, AMBIENT_LUX_MAX),
    write: () => ({}),
    fields: ['ambientLux'],
  },
]);

/** Folds a later write into what is pending: the later value of a field wins. */
export function mergePatch(pending: Patch, next: Patch): Patch {
  const merged: { -readonly [K in keyof Patch]: Patch[K] } = { ...pending };
  for (const [key, value] of Object.entries(next) as [keyof Patch, Patch[keyof Patch]][]) {
    if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  // Night vision: a level outranks a bare On whichever came first; a later Off outranks an earlier level.
  if (next.infraredOn === false) delete merged.infrared;
  if (next.infraredOn === true && merged.infrared !== undefined) delete merged.infraredOn;
  if (next.infrared !== undefined) delete merged.infraredOn;
  return merged;
}

export function isEmptyPatch(patch: Patch): boolean {
  return Object.values(patch).every((v) => v === undefined);
}
