// The v1 colour-string grammar (as the HTTP API documents it): text -> PartialHsbk, the Validate Color shape, and the
// merge rules the service applies. Pure: no I/O; `random` takes its generator from an option.
//
// Rules where the docs are silent, chosen here:
// * The whole string is case-insensitive: names, keys (`Kelvin:2700`) and hex digits.
// * Whitespace (any run of `\s`) separates components; after `hue:`, `saturation:`, `brightness:`, `kelvin:`
//   and `rgb:` optional whitespace may precede the value (the docs' own
//   example `kelvin:2700 brightness: 0.5`). Nowhere else.
// * Numbers are plain decimals (`0.5`, `.5`, `1.`, `120`): no sign, exponent or percent (negatives are
//   unparsable, as in photons). Kelvin and rgb channels are whole numbers.
// * Only the documented forms: `#RRGGBB` with exactly six digits; no `hex:`, bare `RRGGBB`, `hsb:` or `%`
//   (photons-only extensions).
// * Values are not rounded: `#674322` gives hue 28.695652..., as colorsys would.

import { LightwireError, quoted } from '../errors.js';
import { KELVIN_MAX, KELVIN_MIN } from '../protocol/limits.js';
import type { PartialHsbk } from './types.js';

export interface ParseColorOptions {
  /** A number in [0, 1) for `random` (default Math.random). */
  readonly random?: () => number;
}

/** The body of Validate Color: null for what the string does not set. */
export interface ValidatedColor {
  readonly hue: number | null;
  readonly saturation: number | null;
  readonly brightness: number | null;
  readonly kelvin: number | null;
}

/**
 * The server's table, quoted by LIFX staff, who say the list is complete:
 * https://community.lifx.com/t/comprehensive-list-of-recognized-color-names/1067
 */
export const NAMED_COLORS: Readonly<Record<string, PartialHsbk>> = Object.freeze({
  white: Object.freeze({ saturation: 0 }),
  red: Object.freeze({ hue: 0, saturation: 1 }),
  orange: Object.freeze({ hue: 36, saturation: 1 }),
  yellow: Object.freeze({ hue: 60, saturation: 1 }),
  cyan: Object.freeze({ hue: 180, saturation: 1 }),
  green: Object.freeze({ hue: 120, saturation: 1 }),
  blue: Object.freeze({ hue: 250, saturation: 1 }),
  purple: Object.freeze({ hue: 280, saturation: 1 }),
  pink: Object.freeze({ hue: 325, saturation: 1 }),
});

/** Inclusive ranges (hue 0-360, saturation and brightness 0-1, kelvin 1500-9000, rgb 0-255). */
export const COLOR_RANGES = Object.freeze({
  hue: Object.freeze({ min: 0, max: 360 }),
  saturation: Object.freeze({ min: 0, max: 1 }),
  brightness: Object.freeze({ min: 0, max: 1 }),
  kelvin: Object.freeze({ min: KELVIN_MIN, max: KELVIN_MAX }),
  rgb: Object.freeze({ min: 0, max: 255 }),
});

const KEYED = /^(hue|saturation|brightness|kelvin|rgb):(.*)$/i;
const KEY_ALONE = /^(hue|saturation|brightness|kelvin|rgb):$/i;
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;
const WHOLE = /^\d+$/;
const HEX = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i;

type MutableHsbk = { hue?: number; saturation?: number; brightness?: number; kelvin?: number };

function invalid(color: string, reason: string): never {
  throw new LightwireError('COLOR_INVALID', { color, reason });
}

function inRange(color: string, component: string, raw: string, whole: boolean, min: number, max: number): number {
  if (!(whole ? WHOLE : DECIMAL).test(raw)) {
    return invalid(color, `${component} ${quoted(raw)} is not ${whole ? 'a whole number' : 'a number'} from ${min} to ${max}`);
  }
  const value = Number(raw);
  if (value < min || value > max) return invalid(color, `${component} ${raw} is not between ${min} and ${max}`);
  return value;
}

/** Standard RGB -> HSV (colorsys.rgb_to_hsv): hue in degrees [0, 360), saturation = S, brightness = V. */
export function rgbToHsb(red: number, green: number, blue: number): { hue: number; saturation: number; brightness: number } {
  const r = red / 255;
  const g = green / 255;
  const b = blue / 255;
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const delta = max - min;
  let hue = 0;
  if (delta > 0) {
    if (max === r) hue = ((g - b) / delta + 6) % 6;
    else if (max === g) hue = (b - r) / delta + 2;
    else hue = (r - g) / delta + 4;
  }
  return { hue: hue * 60, saturation: max === 0 ? 0 : delta / max, brightness: max };
}

function isName(word: string): boolean {
  return Object.hasOwn(NAMED_COLORS, word.toLowerCase());
}

function component(color: string, token: string, random: () => number): MutableHsbk {
  const lower = token.toLowerCase();
  const named = NAMED_COLORS[lower];
  if (named !== undefined && isName(lower)) return named;
  if (lower === 'random') {
    // Not in the docs: random hue 0-359, saturation 1 (photons' `randrange(0, 360)`).
    const r = random();
    const hue = Number.isFinite(r) ? Math.min(359, Math.max(0, Math.floor(r * 360))) : 0;
    return { hue, saturation: 1 };
  }
  const hex = HEX.exec(token);
  if (hex !== null) {
    return rgbToHsb(parseInt(hex[1] as string, 16), parseInt(hex[2] as string, 16), parseInt(hex[3] as string, 16));
  }
  if (token.startsWith('#')) return invalid(color, `hex colour ${quoted(token)} must be # and exactly 6 hex digits`);
  const keyed = KEYED.exec(token);
  if (keyed === null) return invalid(color, `${quoted(token)} is not a colour name or component`);
  const key = (keyed[1] as string).toLowerCase() as 'hue' | 'saturation' | 'brightness' | 'kelvin' | 'rgb';
  const raw = keyed[2] as string;
  if (raw === '') return invalid(color, `${key}: needs a value`);
  switch (key) {
    case 'hue':
    case 'saturation':
    case 'brightness': {
      const { min, max } = COLOR_RANGES[key];
      return { [key]: inRange(color, key, raw, false, min, max) };
    }
    case 'kelvin': {
      const { min, max } = COLOR_RANGES.kelvin;
      // The docs: `kelvin:` forces saturation to 0.
      return { kelvin: inRange(color, 'kelvin', raw, true, min, max), saturation: 0 };
    }
    case 'rgb': {
      const channels = raw.split(',');
      if (channels.length !== 3) return invalid(color, `rgb ${quoted(raw)} must be three numbers r,g,b`);
      const { min, max } = COLOR_RANGES.rgb;
      const [r, g, b] = channels.map((c, i) => inRange(color, `rgb ${'rgb'[i]}`, c, true, min, max)) as [number, number, number];
      return rgbToHsb(r, g, b);
    }
  }
}

/** Components of a colour string, `key: value` joined back into `key:value`. */
function tokens(text: string): string[] {
  const words = text.trim().split(/\s+/).filter((w) => w !== '');
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] as string;
    const next = words[i + 1];
    if (KEY_ALONE.test(word) && next !== undefined && !KEYED.test(next) && !isName(next)) {
      out.push(word + next);
      i += 1;
    } else {
      out.push(word);
    }
  }
  return out;
}

/**
 * Parses a v1 colour string: components applied left to right, a later one overriding the fields an
 * earlier one set. Throws COLOR_INVALID with a reason naming the component.
 */
export function parseColor(text: string, options: ParseColorOptions = {}): PartialHsbk {
  const parts = tokens(text);
  if (parts.length === 0) return invalid(text, 'the colour string is empty');
  const random = options.random ?? Math.random;
  const out: MutableHsbk = {};
  for (const part of parts) Object.assign(out, component(text, part, random));
  return Object.freeze(out);
}

/** Validate Color: what the string sets, null for the rest. Throws COLOR_INVALID. */
export function validateColor(text: string, options: ParseColorOptions = {}): ValidatedColor {
  const c = parseColor(text, options);
  return Object.freeze({
    hue: c.hue ?? null,
    saturation: c.saturation ?? null,
    brightness: c.brightness ?? null,
    kelvin: c.kelvin ?? null,
  });
}

/** Field by field, `over` wins where it sets a value. */
export function mergeColor(base: PartialHsbk, over: PartialHsbk): PartialHsbk {
  const out: MutableHsbk = {};
  for (const key of ['hue', 'saturation', 'brightness', 'kelvin'] as const) {
    const value = over[key] ?? base[key];
    if (value !== undefined) out[key] = value;
  }
  return Object.freeze(out);
}

/**
 * An explicit `brightness` parameter overrides the brightness inside the colour string
 * (https://api.developer.lifx.com/docs/set-state). Undefined when neither is given. Both arrive checked (requests.ts).
 */
export function withBrightness(color: PartialHsbk | undefined, brightness: number | undefined): PartialHsbk | undefined {
  if (brightness === undefined) return color;
  return mergeColor(color ?? {}, { brightness });
}
