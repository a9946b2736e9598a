// User units <-> wire units, with every rounding rule in one place (LIFX LAN docs: representing-color-with-hsbk,
// waveforms and information-messages under https://lan.developer.lifx.com/docs/).
// Above core/protocol everything speaks degrees, 0-1 fractions, seconds and kelvin.

import type { FieldSpec, FieldType, StructType, WireUnit } from './field-types.js';
import type { Header } from './header.js';
import { ENUMS, MESSAGES, type MessageName, type MessageSpec } from './messages/index.js';

export const POWER_ON_LEVEL = 0xffff;
export const POWER_OFF_LEVEL = 0;
const U16_STEPS = 0x10000;
const U16_MAX = 0xffff;

const roundTo = (value: number, decimals: number): number => {
  const f = 10 ** decimals;
  const r = Math.round(value * f) / f;
  return r === 0 ? 0 : r; // never -0
};
const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

/** Degrees -> u16, scaled by 65536 with wrap, so 360 deg is 0 (the vendor's rule, not lifx-lan-client's 65535). */
export function hueDegreesToWire(degrees: number): number {
  const wrapped = ((degrees % 360) + 360) % 360;
  return Math.round((wrapped * U16_STEPS) / 360) % U16_STEPS;
}

export function hueWireToDegrees(wire: number): number {
  return roundTo((wire * 360) / U16_STEPS, 2);
}

/** 0-1 -> u16 (clamped). */
export function fractionToWire(fraction: number): number {
  return Math.round(clamp(fraction, 0, 1) * U16_MAX);
}

export function fractionFromWire(wire: number): number {
  return roundTo(wire / U16_MAX, 4);
}

export function secondsToMs(seconds: number): number {
  return Math.round(seconds * 1000);
}

export function msToSeconds(ms: number): number {
  return roundTo(ms / 1000, 3);
}

export function secondsToNs(seconds: number): bigint {
  return BigInt(Math.round(seconds * 1e9));
}

export function nsToSeconds(ns: bigint): number {
  return roundTo(Number(ns) / 1e9, 3);
}

export function nsToDate(ns: bigint): Date {
  return new Date(Number(ns / 1_000_000n));
}

export function dateToNs(date: Date): bigint {
  return BigInt(date.getTime()) * 1_000_000n;
}

export type PowerState = 'on' | 'off';

/** Firmware only uses 0 and 65535; anything non-zero is shown as on. */
export function powerFromWire(level: number): PowerState {
  return level === 0 ? 'off' : 'on';
}

export function powerToWire(power: PowerState): number {
  return power === 'on' ? POWER_ON_LEVEL : POWER_OFF_LEVEL;
}

/** Waveform skew 0..1 -> signed int16 following the docs table (-32768 -> 0, 0 -> 0.5, 32767 -> 1). */
export function skewRatioToWire(ratio: number): number {
  const wire = Math.round(clamp(ratio, 0, 1) * U16_MAX - 0x8000);
  return wire === 0 ? 0 : clamp(wire, -0x8000, 0x7fff);
}

export function skewRatioFromWire(wire: number): number {
  return roundTo((wire + 0x8000) / U16_MAX, 4);
}

export function kelvinToMireds(kelvin: number): number {
  return Math.round(1_000_000 / kelvin);
}

export function miredsToKelvin(mireds: number): number {
  return Math.round(1_000_000 / mireds);
}

/** A colour in user units. */
export interface Hsbk {
  readonly hue: number;
  readonly saturation: number;
  readonly brightness: number;
  readonly kelvin: number;
}

/** Two colours alike component by component (by name: a keyed load of a fractional field boxes it). Wire colours too. */
export function sameHsbk(a: Hsbk, b: Hsbk): boolean {
  return a === b || (a.hue === b.hue && a.saturation === b.saturation && a.brightness === b.brightness && a.kelvin === b.kelvin);
}

/**
 * Whether a waveform (SetWaveform, SetWaveformOptional) leaves the light where it began: a transient one, and a SINE
 * or TRIANGLE whatever `transient` says (the current waveforms page; an older one let only `transient` decide).
 * Breathe with persist is a SINE.
 */
export function waveformReturns(transient: boolean, waveform: number): boolean {
  const shape = ENUMS.LightWaveform[waveform as keyof typeof ENUMS.LightWaveform];
  return transient || shape === 'SINE' || shape === 'TRIANGLE';
}

export interface WireHsbk {
  hue: number;
  saturation: number;
  brightness: number;
  kelvin: number;
}

export function hsbkToWire(color: Hsbk): WireHsbk {
  return {
    hue: hueDegreesToWire(color.hue),
    saturation: fractionToWire(color.saturation),
    brightness: fractionToWire(color.brightness),
    kelvin: Math.round(clamp(color.kelvin, 0, U16_MAX)),
  };
}

export function hsbkFromWire(color: WireHsbk): Hsbk {
  return {
    hue: hueWireToDegrees(color.hue),
    saturation: fractionFromWire(color.saturation),
    brightness: fractionFromWire(color.brightness),
    kelvin: color.kelvin,
  };
}

export type SignalQuality = 'none' | 'very bad' | 'somewhat bad' | 'alright' | 'good';

/** rssi = floor(10 log10(signal) + 0.5), as on the vendor's StateWifiInfo page. */
export function signalToRssi(signal: number): number {
  return Math.floor(10 * Math.log10(signal) + 0.5);
}

/**
 * The reading of StateWifiInfo.signal by our rule (the vendor's, but for two boundaries): dBm-style products give
 * rssi < 0 (200 = none, <= -80 very bad, <= -70 somewhat bad, < -60 alright, -60 and above good), SNR-style
 * ones rssi >= 0 (4-5 very bad, 7-11 somewhat bad, 12-16 alright, above 16 good, anything else none). The vendor's
 * web page puts -60 in "alright" and 6 in "very bad"; we deliberately do not.
 */
export function signalQuality(signal: number): SignalQuality {
  if (!(signal > 0)) return 'none';
  const rssi = signalToRssi(signal);
  if (rssi < 0 || rssi === 200) {
    if (rssi === 200) return 'none';
    if (rssi <= -80) return 'very bad';
    if (rssi <= -70) return 'somewhat bad';
    if (rssi < -60) return 'alright';
    return 'good';
  }
  // 6 is not "very bad": our rule lists only 4 and 5 (the vendor page adds 6), so 6 falls to "no signal" with 0-3.
  if (rssi === 4 || rssi === 5) return 'very bad';
  if (rssi >= 7 && rssi <= 11) return 'somewhat bad';
  if (rssi >= 12 && rssi <= 16) return 'alright';
  if (rssi > 16) return 'good';
  return 'none';
}

// ---- A whole message in user units (for the CLI's `decode` and logs) ----

export type UserValue = string | number | boolean | null | UserValue[] | { [key: string]: UserValue };

const UNIT_SUFFIX: Partial<Record<WireUnit, [string, string]>> = {
  ms: ['Ms', 'S'],
};

function unitValue(unit: WireUnit | undefined, type: FieldType<unknown>, value: unknown): UserValue {
  switch (unit) {
    case 'hue':
      return hueWireToDegrees(value as number);
    case 'fraction':
      return fractionFromWire(value as number);
    case 'power':
      return powerFromWire(value as number);
    case 'skew':
      return skewRatioFromWire(value as number);
    case 'ms':
      return msToSeconds(value as number);
    case 'ns':
      return nsToSeconds(value as bigint);
    case 'epochNs':
      return value === 0n ? null : nsToDate(value as bigint).toISOString();
    default:
      return plainValue(type, value);
  }
}

function plainValue(type: FieldType<unknown>, value: unknown): UserValue {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  if ('fields' in type) return structToUser(type as StructType<readonly FieldSpec[]>, value as Record<string, unknown>);
  if ('names' in type) {
    const names = (type as { names: Record<number, string> }).names;
    return names[value as number] ?? (value as number);
  }
  if (Array.isArray(value)) {
    const element = (type as { element?: FieldType<unknown> }).element;
    return value.map((v) => (element ? plainValue(element, v) : (v as UserValue)));
  }
  return value as UserValue;
}

function structToUser(type: StructType<readonly FieldSpec[]>, value: Record<string, unknown>): { [key: string]: UserValue } {
  const out: { [key: string]: UserValue } = {};
  for (const spec of type.fields) {
    if (spec.name === undefined) continue;
    const suffix = spec.unit ? UNIT_SUFFIX[spec.unit] : undefined;
    const key = suffix && spec.name.endsWith(suffix[0]) ? spec.name.slice(0, -suffix[0].length) + suffix[1] : spec.name;
    const raw = value[spec.name];
    out[key] = Array.isArray(raw) && spec.unit === undefined ? plainValue(spec.type, raw) : unitValue(spec.unit, spec.type, raw);
  }
  return out;
}

/** A decoded payload with hue in degrees, fractions 0-1, durations in seconds, ids as hex, enums by name. */
export function payloadToUserUnits(name: MessageName, payload: object): { [key: string]: UserValue } {
  const spec = MESSAGES[name] as MessageSpec;
  return structToUser(spec.payload as StructType<readonly FieldSpec[]>, payload as Record<string, unknown>);
}

export function headerToUser(header: Header): { [key: string]: UserValue } {
  return { ...header, target: header.target === '000000000000' ? 'all' : header.target };
}

