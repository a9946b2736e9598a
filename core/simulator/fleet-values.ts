// The fleet file's value checks: each takes a raw JSON value and the path it sits at (`lights[3].color.hue`) and
// gives the value, or throws FLEET_INVALID naming that path. core/simulator/fleet-file.ts builds the file's shapes
// from them.

import { LightwireError } from '../errors.js';
import type { Hsbk, PowerState } from '../protocol/units.js';
import { KELVIN_MAX, KELVIN_MIN } from '../protocol/limits.js';
import type { HsbkInput } from './fleet-file.js';

export function invalid(path: string, reason: string): never {
  throw new LightwireError('FLEET_INVALID', { path, reason });
}

export const describe = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? JSON.stringify(v) : typeof v === 'object' ? 'an object' : String(v);

export function object(raw: unknown, path: string, allowed: readonly string[]): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) invalid(path, `must be an object, got ${describe(raw)}`);
  for (const key of Object.keys(raw)) {
    if (!allowed.includes(key)) invalid(join(path, key), `unknown key (allowed: ${allowed.join(', ')})`);
  }
  return raw as Record<string, unknown>;
}

export const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);

export function number(raw: unknown, path: string, min: number, max: number, integer = false): number {
  if (typeof raw !== 'number' || !Number.isFinite(raw)) invalid(path, `must be a number, got ${describe(raw)}`);
  if (integer && !Number.isInteger(raw)) invalid(path, `must be an integer, got ${raw}`);
  if (raw < min || raw > max) invalid(path, `must be from ${min} to ${max}, got ${raw}`);
  return raw;
}

export function boolean(raw: unknown, path: string): boolean {
  if (typeof raw !== 'boolean') invalid(path, `must be true or false, got ${describe(raw)}`);
  return raw;
}

export function string(raw: unknown, path: string): string {
  if (typeof raw !== 'string') invalid(path, `must be a string, got ${describe(raw)}`);
  return raw;
}

export function labelText(raw: unknown, path: string): string {
  const text = string(raw, path);
  if (Buffer.byteLength(text, 'utf8') > 32) invalid(path, 'must be at most 32 bytes of UTF-8');
  return text;
}

export function power(raw: unknown, path: string): PowerState {
  if (raw !== 'on' && raw !== 'off') invalid(path, `must be "on" or "off", got ${describe(raw)}`);
  return raw;
}

export function parseSerial(raw: unknown, path: string): string {
  const text = string(raw, path);
  if (!/^[0-9a-fA-F]{12}$/.test(text)) invalid(path, `must be 12 hex digits (like d073d5000001), got ${describe(raw)}`);
  return text.toLowerCase();
}

const HSBK_KEYS = ['hue', 'saturation', 'brightness', 'kelvin'] as const;

/** A partial colour in user units, each part range-checked. */
export function parseHsbk(raw: unknown, path: string): HsbkInput {
  const o = object(raw, path, HSBK_KEYS);
  const out: { hue?: number; saturation?: number; brightness?: number; kelvin?: number } = {};
  if (o.hue !== undefined) out.hue = number(o.hue, join(path, 'hue'), 0, 360);
  if (o.saturation !== undefined) out.saturation = number(o.saturation, join(path, 'saturation'), 0, 1);
  if (o.brightness !== undefined) out.brightness = number(o.brightness, join(path, 'brightness'), 0, 1);
  if (o.kelvin !== undefined) out.kelvin = number(o.kelvin, join(path, 'kelvin'), KELVIN_MIN, KELVIN_MAX, true);
  return out;
}

export function mergeHsbk(base: Hsbk, patch: HsbkInput): Hsbk {
  return {
    hue: patch.hue ?? base.hue,
    saturation: patch.saturation ?? base.saturation,
    brightness: patch.brightness ?? base.brightness,
    kelvin: patch.kelvin ?? base.kelvin,
  };
}

export function updatedAt(raw: unknown, path: string): bigint {
  if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) return BigInt(raw);
  if (typeof raw === 'string' && /^\d{1,20}$/.test(raw) && BigInt(raw) < 1n << 64n) return BigInt(raw);
  invalid(path, `must be ns since the epoch as a decimal string or a safe integer, got ${describe(raw)}`);
}

