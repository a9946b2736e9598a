// A light's parts: what people see as separate lights in one fixture. Each part is a set of the light's zones: the
// zones of a strip, or the pixels of a matrix light (its tiles in chain order, each row by row from the top left,
// as Get64 reads them). The zones are computed from the light's real geometry (the zones or the StateDeviceChain it
// reported), never from an assumed size.
// * Products (data, PRODUCT_PARTS):
//   - LIFX Ceiling (8x8, the 13x26" Capsule 16x8, the 13"): the uplight is the last zone (63 of 64, 127 of 128) and the
//     downlight every zone before it. Source: lifx-async src/lifx/products/quirks.py CEILING_LAYOUTS and
//     src/lifx/devices/ceiling.py (https://github.com/Djelibeybi/lifx-async, commit 42c9ad21937c8b787feb71c5caf5c2489289446d).
//   - LIFX Mirror: front and rear rings. ASSUMPTION: no public source says which pixels light which ring. lifx-emulator's
//     products/specs.yml (https://github.com/Djelibeybi/lifx-emulator, commit 03bf8dcab55915cab92c9bc63ed093191cdc0a5f)
//     calls its 5 x 10 geometry provisional and splits it "zones 0-24 front, 25-49 rear" (uplight_zone_count 25), and
//     lifx-async says nothing of rings; so here the front is the first half of the pixels and the rear the second half,
//     whatever size the Mirror reports. Change MIRROR below when LIFX documents the rings.
// * Users: segments of any strip (or matrix light), named in the service option `parts`, by serial or label: a list of
//   names cuts the light into that many equal segments (the last ones one zone shorter when it does not divide), or
//   names with zone ranges ("0-9"). A user's part of the same name replaces the product's.

import { LightwireError, quoted } from '../errors.js';
import type { Hsbk, PowerState } from '../protocol/index.js';
import type { LightView, PartDef, ZoneRange } from './types.js';

/** A part's zones on a light of `count` zones (the last zone is count - 1). */
export type PartZones = PartDef['zonesOf'];
export type { PartDef };

/** The user's parts of one light: equal segments by name, or names with zone ranges ("a-b" or "n"). */
export type UserParts = readonly string[] | Readonly<Record<string, string>>;
/** Service option `parts`: each light's parts by its serial (12 hex digits) or its label. */
export type PartsConfig = Readonly<Record<string, UserParts>>;

/**
 * A part name: a letter, then 1-31 letters, digits or `_`; no `-`, so what looks like a zone range (`|a`, `|a-b`) stays a
 * bad zone range, as in v1.
 */
export const PART_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_]{1,31}$';
export const PART_NAME = new RegExp(PART_NAME_PATTERN);

const everything = (count: number): ZoneRange[] => (count > 0 ? [{ start: 0, end: count - 1 }] : []);
/** All zones but the last `n`, and the last `n` (n = a function of the light's size). */
const leading = (n: (count: number) => number): PartZones => (count) => everything(Math.max(0, count - n(count)));
const trailing = (n: (count: number) => number): PartZones => (count) => {
  const size = Math.min(count, n(count));
  return size > 0 ? [{ start: count - size, end: count - 1 }] : [];
};

const CEILING: readonly PartDef[] = Object.freeze([
  { name: 'downlight', zonesOf: leading(() => 1) },
  { name: 'uplight', zonesOf: trailing(() => 1) },
]);
/** ASSUMPTION (see the top of this file): front = the first half of the pixels, rear = the second half. */
const half = (count: number): number => Math.floor(count / 2);
const MIRROR: readonly PartDef[] = Object.freeze([
  { name: 'front', zonesOf: leading(half) },
  { name: 'rear', zonesOf: trailing(half) },
]);

/** The parts of each product (LIFX vendor 1) by product id (the registry's, core/protocol/products-data.ts). */
export const PRODUCT_PARTS: ReadonlyMap<number, readonly PartDef[]> = new Map([
  [176, CEILING], [177, CEILING], [201, CEILING], [202, CEILING], [265, CEILING], [266, CEILING],
  [267, MIRROR], [268, MIRROR],
]);

function configInvalid(reason: string): LightwireError<'OPTIONS_INVALID'> {
  return new LightwireError('OPTIONS_INVALID', { option: 'parts', reason });
}

const RANGE = /^(\d+)(?:-(\d+))?$/;

/** Checks the service option `parts` once (OPTIONS_INVALID naming what is wrong) and turns it into definitions. */
export function partsFromConfig(config: unknown): ReadonlyMap<string, readonly PartDef[]> {
  const out = new Map<string, readonly PartDef[]>();
  if (config === undefined) return out;
  if (typeof config !== 'object' || config === null || Array.isArray(config)) throw configInvalid('must be an object: { "label or serial": ["left", "right"] }');
  for (const [key, parts] of Object.entries(config)) {
    const where = `parts[${quoted(key)}]`;
    const names = Array.isArray(parts) ? (parts as unknown[]) : typeof parts === 'object' && parts !== null ? Object.keys(parts) : null;
    if (names === null || names.length === 0) throw configInvalid(`${where} must be a non-empty list of names or an object of names and zone ranges`);
    const seen = new Set<string>();
    for (const name of names) {
      if (typeof name !== 'string' || !PART_NAME.test(name)) throw configInvalid(`${where}: ${quoted(name)} is not a part name (a letter, then 1-31 letters, digits or _)`);
      if (seen.has(name.toLowerCase())) throw configInvalid(`${where}: ${quoted(name)} is named twice`);
      seen.add(name.toLowerCase());
    }
    const defs = Array.isArray(parts)
      ? (parts as string[]).map((name, i, all): PartDef => ({ name, zonesOf: segment(i, all.length) }))
      : Object.entries(parts as Record<string, unknown>).map(([name, range]): PartDef => {
          const m = typeof range === 'string' ? RANGE.exec(range.trim()) : null;
          const start = Number(m?.[1]);
          const end = m?.[2] === undefined ? start : Number(m[2]);
          if (m === null || start > end) throw configInvalid(`${where}.${name}: ${quoted(range)} is not a zone range ("a-b" with a <= b, or "n")`);
          return { name, zonesOf: (count) => (start < count ? [{ start, end: Math.min(end, count - 1) }] : []) };
        });
    out.set(/^[0-9a-f]{12}$/i.test(key) ? key.toLowerCase() : key, Object.freeze(defs));
  }
  return out;
}

/** Segment `i` of `n` equal segments (the first ones take the remainder). */
function segment(i: number, n: number): PartZones {
  return (count) => {
    const size = Math.floor(count / n);
    const extra = count % n;
    const start = i * size + Math.min(i, extra);
    const end = start + size + (i < extra ? 1 : 0) - 1;
    return end >= start ? [{ start, end }] : [];
  };
}

/** A light's parts: its product's, then the user's (by serial, else by label), a user's name replacing the product's. */
export function partsOf(light: LightView, user: ReadonlyMap<string, readonly PartDef[]>): readonly PartDef[] {
  const product = light.product !== null && light.product.vendorId === 1 ? (PRODUCT_PARTS.get(light.product.productId) ?? []) : [];
  const own = user.get(light.serial.toLowerCase()) ?? user.get(light.label) ?? [];
  if (own.length === 0) return product;
  const names = new Set(own.map((p) => p.name.toLowerCase()));
  return [...product.filter((p) => !names.has(p.name.toLowerCase())), ...own];
}

/** A part by name: exact first, else ignoring case (as labels are matched). PART_UNKNOWN names the parts the light has. */
export function findPart(light: LightView, parts: readonly PartDef[], name: string, selector: string): PartDef {
  const found = parts.find((p) => p.name === name) ?? parts.find((p) => p.name.toLowerCase() === name.toLowerCase());
  if (found !== undefined) return found;
  throw new LightwireError('PART_UNKNOWN', { selector, label: light.label, part: name, parts: parts.length === 0 ? 'none' : parts.map((p) => p.name).join(', ') });
}

// ---- what a light shows, zone by zone ----

/** The colour of every zone of a light as last read: a strip's zones, or a matrix light's pixels in chain order. Null when not read. */
export function zonesShown(light: LightView): readonly Hsbk[] | null {
  if (light.capabilities.matrix) return light.pixels === null ? null : light.pixels.flat();
  if (light.capabilities.multizone) return light.zones;
  return null;
}

/** How many zones the light has, from its geometry as reported: a strip's zones, or its tiles' pixels. Null when not read. */
export function zoneCount(light: LightView): number | null {
  if (light.capabilities.matrix) {
    const tiles = light.matrix?.tiles ?? [];
    return tiles.length === 0 ? null : tiles.reduce((n, t) => n + t.width * t.height, 0);
  }
  if (light.capabilities.multizone) return light.zones === null ? null : light.zones.length;
  return null;
}

/** Every zone index of the ranges, each once, in order, within the light. */
export function indicesOf(ranges: readonly ZoneRange[], count: number): number[] {
  const set = new Set<number>();
  for (const r of ranges) for (let i = r.start; i <= Math.min(r.end, count - 1); i++) set.add(i);
  return [...set].sort((a, b) => a - b);
}

/** A part as the faces show it: lit or not, and its colour. */
export interface PartView {
  readonly name: string;
  /** Its zones, from the light's geometry (empty while that is not read). */
  readonly zones: readonly ZoneRange[];
  /** On while the light is on and any of its zones is lit (brightness above 0). Null while the light's power is not read. */
  readonly power: PowerState | null;
  /** The colour of its brightest zone (the first of them); the light's colour while its zones are not read. */
  readonly color: Hsbk | null;
}

export function partView(light: LightView, part: PartDef): PartView {
  const count = zoneCount(light);
  const zones = count === null ? [] : part.zonesOf(count);
  const shown = zonesShown(light);
  // Zones not read yet: the light's own colour and power stand for the part's.
  if (shown === null) return Object.freeze({ name: part.name, zones, power: light.power, color: light.color });
  let color: Hsbk | null = null;
  for (const i of indicesOf(zones, shown.length)) if (color === null || shown[i]!.brightness > color.brightness) color = shown[i]!;
  const lit = color !== null && color.brightness > 0;
  const power: PowerState | null = light.power === null ? null : light.power === 'on' && lit ? 'on' : 'off';
  return Object.freeze({ name: part.name, zones, power, color });
}
