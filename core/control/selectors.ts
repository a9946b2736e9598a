// The v1 selector grammar (https://api.developer.lifx.com/docs/selectors): text -> Selector[] and
// Selector[] x lights -> ResolvedLight[].
// Pure: no I/O; randomness comes in through an option.
//
// Rules where the docs are silent, chosen here:
// * The text is percent-decoded once, before splitting on `,` and `|`; a label holding `,` or `|`
//   cannot be addressed. Selectors that never went through a URL (JSON bodies, stored scenes) pass
//   `{ percentDecode: false }`.
// * Whitespace around a list item is dropped (`label:A, label:B`); inside a value it is kept.
// * Types are lowercase, as documented (`Label:x` is an unknown type).
// * `:random` is recognised only as the final suffix of all/group/group_id/location/location_id/scene_id
//   (as documented). On `label:` it is part of the label (`label:x:random` is the light labelled "x:random"); on `id:`
//   it makes the id invalid.
// * The legacy bare `random` (v1beta1) is accepted as `all:random`.
// * `id:` is 12 hex digits and `group_id:`/`location_id:` are 32 hex digits (GroupRef.id), any case, stored
//   lowercase. `scene_id:` is any non-empty value, looked up as given.
// * Zones: `|n` or `|a-b` (inclusive, a <= b), any number of them, indices 0-65535 (the widest zone index
//   field on the wire is a u16, SetExtendedColorZones).
// * Parts (ours, beside the zones; parts.ts): `|name`, one, alone after the base (`label:Ceiling|uplight`), where the
//   name is a letter and 1-31 more letters, digits or `_`; so every v1 zone suffix keeps its meaning and `|a` or
//   `|a-b` is still a bad zone. A part the light does not have is PART_UNKNOWN, naming the parts it has.

import { LightwireError, quoted } from '../errors.js';
import { findPart, PART_NAME } from './parts.js';
import type { LightView, PartDef, ResolvedLight, SceneSelectors, Selector, SelectorKind, ZoneRange } from './types.js';

/** At most this many selectors may be combined with `,` (documented: 25). */
export const MAX_SELECTORS = 25;
/** Highest zone index a selector or a zone range may name (extended multizone messages carry u16 indices). */
export const MAX_ZONE_INDEX = 0xffff;

const RANDOM_SUFFIX = ':random';
const RANDOM_KINDS: ReadonlySet<SelectorKind> = new Set(['all', 'group', 'group_id', 'location', 'location_id', 'scene_id']);
const VALUE_KINDS: ReadonlySet<string> = new Set(['id', 'label', 'group', 'group_id', 'location', 'location_id', 'scene_id']);
const SERIAL = /^[0-9a-f]{12}$/i;
const GROUP_ID = /^[0-9a-f]{32}$/i;
const ZONE = /^(\d+)(?:-(\d+))?$/;

export interface ParseSelectorsOptions {
  /** Percent-decode the text first (default true: the text comes from a URL path segment). */
  readonly percentDecode?: boolean;
}

export interface ResolveSelectorsOptions {
  /** Stored selectors of a scene, for `scene_id:`. Without it `scene_id:` matches nothing. */
  readonly sceneSelectors?: SceneSelectors;
  /** A number in [0, 1) for `:random` (default Math.random). */
  readonly random?: () => number;
  /** A light's parts, for `|part` (parts.ts); without it a light has none. */
  readonly partsOf?: (light: LightView) => readonly PartDef[];
}

function invalid(selector: string, part: string, reason: string): never {
  throw new LightwireError('SELECTOR_INVALID', { selector, part, reason });
}

function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // Name the first escape that does not decode: a `%` without two hex digits, or bytes that are not UTF-8.
    const bad =
      /%(?![0-9a-f]{2})[^%]{0,2}/i.exec(text)?.[0] ??
      (text.match(/(?:%[0-9a-f]{2})+/gi) ?? []).find((run) => {
        try {
          decodeURIComponent(run);
          return false;
        } catch {
          return true;
        }
      }) ??
      text;
    return invalid(text, bad, 'malformed percent-escape');
  }
}

function parseZones(whole: string, item: string, specs: readonly string[]): readonly ZoneRange[] | null {
  if (specs.length === 0) return null;
  const zones = specs.map((spec): ZoneRange => {
    const m = ZONE.exec(spec);
    if (m === null) {
      return invalid(whole, item, `zone ${JSON.stringify(spec)} is not a zone index (n) or range (a-b)`);
    }
    const start = Number(m[1]);
    const end = m[2] === undefined ? start : Number(m[2]);
    if (start > MAX_ZONE_INDEX || end > MAX_ZONE_INDEX) {
      return invalid(whole, item, `zone ${JSON.stringify(spec)} is above ${MAX_ZONE_INDEX}`);
    }
    if (start > end) return invalid(whole, item, `zone range ${JSON.stringify(spec)} starts after it ends`);
    return Object.freeze({ start, end });
  });
  return Object.freeze(zones);
}

function parseOne(whole: string, item: string, position: number): Selector {
  if (item === '') return invalid(whole, item, `selector ${position} of the list is empty`);
  const [base = '', ...zoneSpecs] = item.split('|');
  const part = zoneSpecs.length === 1 && PART_NAME.test(zoneSpecs[0]!) ? zoneSpecs[0]! : undefined;
  const zones = part === undefined ? parseZones(whole, item, zoneSpecs) : null;
  const make = (kind: SelectorKind, value: string, random: boolean): Selector =>
    Object.freeze({ kind, value, random, zones, ...(part !== undefined ? { part } : {}), text: item });

  if (base === 'all') return make('all', '', false);
  if (base === 'all:random' || base === 'random') return make('all', '', true);
  const colon = base.indexOf(':');
  const kind = colon < 0 ? base : base.slice(0, colon);
  if (kind === 'all') return invalid(whole, item, '`all` takes no value; only `all:random`');
  if (!VALUE_KINDS.has(kind)) {
    const reason =
      colon < 0
        ? `${JSON.stringify(base)} is not a selector (all, label:..., id:..., group:..., ...)`
        : `unknown selector type ${JSON.stringify(kind)}`;
    return invalid(whole, item, reason);
  }
  const selectorKind = kind as SelectorKind;
  let value = base.slice(colon + 1);
  let random = false;
  if (RANDOM_KINDS.has(selectorKind) && value.endsWith(RANDOM_SUFFIX)) {
    random = true;
    value = value.slice(0, -RANDOM_SUFFIX.length);
  }
  if (value === '') return invalid(whole, item, `${kind}: needs a value`);
  if (selectorKind === 'id') {
    if (!SERIAL.test(value)) {
      return invalid(
        whole,
        item,
        value.endsWith(RANDOM_SUFFIX) ? 'id: takes no :random suffix' : 'id: must be 12 hex digits (like d073d5001337)',
      );
    }
    value = value.toLowerCase();
  } else if (selectorKind === 'group_id' || selectorKind === 'location_id') {
    if (!GROUP_ID.test(value)) return invalid(whole, item, `${kind}: must be 32 hex digits`);
    value = value.toLowerCase();
  }
  return make(selectorKind, value, random);
}

/**
 * Parses a selector list such as `label:Bedroom,group:Upstairs:random,id:d073d5001337|0-5`.
 * Throws SELECTOR_INVALID (naming the offending part) or SELECTOR_TOO_MANY.
 */
export function parseSelectors(text: string, options: ParseSelectorsOptions = {}): readonly Selector[] {
  // A JavaScript caller may pass anything: only text is a selector.
  if (typeof text !== 'string') throw new LightwireError('SELECTOR_INVALID', { selector: quoted(text), part: quoted(text), reason: 'a selector is a string, like "all" or "id:d073d5000001"' });
  const decoded = options.percentDecode === false ? text : percentDecode(text);
  const items = decoded.split(',').map((item) => item.trim());
  if (items.length > MAX_SELECTORS) {
    throw new LightwireError('SELECTOR_TOO_MANY', { count: items.length, max: MAX_SELECTORS });
  }
  return Object.freeze(items.map((item, i) => parseOne(decoded, item, i + 1)));
}

/** The canonical (decoded) text of one selector; `encodeURIComponent` it to put it in a URL path. */
export function formatSelector(selector: Selector): string {
  const base = selector.kind === 'all' ? 'all' : `${selector.kind}:${selector.value}`;
  const random = selector.random ? RANDOM_SUFFIX : '';
  const zones = (selector.zones ?? []).map((z) => (z.start === z.end ? `|${z.start}` : `|${z.start}-${z.end}`)).join('');
  return `${base}${random}${zones}${selector.part !== undefined ? `|${selector.part}` : ''}`;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Stable order of results and of `:random` candidates: by label, then id (our choice). */
function compareLights(a: LightView, b: LightView): number {
  return compareText(a.label, b.label) || compareText(a.serial.toLowerCase(), b.serial.toLowerCase());
}

/** Exact match first; if nothing matches exactly, case-insensitive; never substring (the docs are silent on case). */
function byName(lights: readonly LightView[], value: string, nameOf: (light: LightView) => string | undefined): LightView[] {
  const exact = lights.filter((l) => nameOf(l) === value);
  if (exact.length > 0) return exact;
  const folded = value.toLowerCase();
  return lights.filter((l) => nameOf(l)?.toLowerCase() === folded);
}

function matchPart(
  selector: Selector,
  lights: readonly LightView[],
  options: ResolveSelectorsOptions,
  inScene: boolean,
): LightView[] {
  switch (selector.kind) {
    case 'all':
      return [...lights];
    case 'id':
      return lights.filter((l) => l.serial.toLowerCase() === selector.value);
    case 'label':
      return byName(lights, selector.value, (l) => l.label);
    case 'group':
      return byName(lights, selector.value, (l) => l.group?.name);
    case 'location':
      return byName(lights, selector.value, (l) => l.location?.name);
    case 'group_id':
      return lights.filter((l) => l.group?.id.toLowerCase() === selector.value);
    case 'location_id':
      return lights.filter((l) => l.location?.id.toLowerCase() === selector.value);
    case 'scene_id': {
      // A scene's own selectors cannot name another scene: that nesting matches nothing, so no loops.
      if (inScene) return [];
      const stored = options.sceneSelectors?.(selector.value);
      // Anything but a list (no such scene, or a lookup that hit something else) names no light.
      if (!Array.isArray(stored)) return [];
      const found = new Map<string, LightView>();
      for (const text of stored) {
        let parts: readonly Selector[];
        try {
          // Stored selectors are JSON strings, not URL segments.
          parts = parseSelectors(text, { percentDecode: false });
        } catch {
          continue; // a stored selector that no longer parses names no lights
        }
        for (const part of parts) {
          for (const light of pick(part, lights, options, true)) found.set(light.serial.toLowerCase(), light);
        }
      }
      return [...found.values()];
    }
  }
}

/**
 * The order sortedByLight last made: each entry's key and label in the order the entries came (found's), and where
 * each one went. A fleet-wide call names the same lights with the same labels, in the same order, call after call.
 */
let lastOrder: { readonly keys: readonly string[]; readonly labels: readonly string[]; readonly sorted: readonly number[] } | undefined;

/**
 * The entries in compareLights' order (label, then lower-case serial: the map's keys). Sorted as strings
 * `label NUL key` by the built-in sort, which orders by UTF-16 code units as compareText does, and without a
 * comparison call per pair (a fleet-wide call sorts a thousand lights before its first datagram); the same keys and
 * labels in the same order as last time take the last order without sorting again. NUL sorts before every other
 * character, so a label that is a prefix of another still comes first; a label holding a NUL itself (never sent by a
 * device, whose labels end at the first one) takes the comparator.
 */
function sortedByLight<T extends { readonly light: LightView }>(found: ReadonlyMap<string, T>): T[] {
  // One light (id:...) keeps the order of the fleet-wide calls in between.
  if (found.size <= 1) return [...found.values()];
  const entries: T[] = [];
  const last = lastOrder;
  let same = last !== undefined && last.keys.length === found.size;
  for (const [key, entry] of found) {
    const label = entry.light.label;
    if (same && (last!.keys[entries.length] !== key || last!.labels[entries.length] !== label)) same = false;
    entries.push(entry);
  }
  if (same) return last!.sorted.map((i) => entries[i]!);
  const keys = [...found.keys()];
  const labels = entries.map((e) => e.light.label);
  if (labels.some((label) => label.includes('\0'))) return entries.sort((a, b) => compareLights(a.light, b.light));
  const sortKeys = keys.map((key, i) => `${labels[i]!}\0${key}`);
  const position = new Map(sortKeys.map((k, i) => [k, i]));
  const sorted = sortKeys.sort().map((k) => position.get(k)!);
  lastOrder = { keys, labels, sorted };
  return sorted.map((i) => entries[i]!);
}

/**
 * The whole fleet (a lone `all`) in the order sortedByLight made last time, when `lights` are the lights it ordered
 * then, with the same labels, in the same order; undefined otherwise. A fleet-wide call made again builds no map.
 */
function wholeFleetAgain(lights: readonly LightView[]): ResolvedLight[] | undefined {
  const last = lastOrder;
  if (last === undefined || last.keys.length !== lights.length) return undefined;
  for (let i = 0; i < lights.length; i++) {
    const light = lights[i]!;
    // Serials are read lower-case: the key is the serial itself, and toLowerCase() is for the odd one given otherwise.
    const key = last.keys[i];
    if (light.label !== last.labels[i] || (light.serial !== key && light.serial.toLowerCase() !== key)) return undefined;
  }
  return last.sorted.map((i): ResolvedLight => ({ light: lights[i]!, zones: null }));
}

/** The lights one selector names, `:random` applied. */
function pick(selector: Selector, lights: readonly LightView[], options: ResolveSelectorsOptions, inScene: boolean): LightView[] {
  const set = matchPart(selector, lights, options, inScene);
  if (!selector.random || set.length === 0) return set;
  // One light of the set; online lights are preferred, so `all:random` lights something up when it can.
  const online = set.filter((l) => l.online);
  const candidates = (online.length > 0 ? online : set).sort(compareLights);
  const r = (options.random ?? Math.random)();
  const index = Number.isFinite(r) ? Math.min(candidates.length - 1, Math.max(0, Math.floor(r * candidates.length))) : 0;
  return [candidates[index] as LightView];
}

/** Sorted, overlapping and adjacent ranges joined. */
function mergeZones(ranges: readonly ZoneRange[]): readonly ZoneRange[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: { start: number; end: number }[] = [];
  for (const r of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && r.start <= last.end + 1) last.end = Math.max(last.end, r.end);
    else merged.push({ start: r.start, end: r.end });
  }
  return Object.freeze(merged.map((r) => Object.freeze(r)));
}

/**
 * The lights a parsed selector list names: the union of every selector's set, without duplicates, ordered
 * by label then id. A light keeps the zones of the selectors that matched it (null = the whole light, as soon
 * as one matching selector had no zones); zones apply only to multizone lights.
 * Throws LIGHTS_NOT_FOUND when nothing matches.
 */
export function resolveSelectors(
  selectors: readonly Selector[],
  lights: readonly LightView[],
  options: ResolveSelectorsOptions = {},
): ResolvedLight[] {
  const only = selectors.length === 1 ? selectors[0]! : undefined;
  if (only !== undefined && only.kind === 'all' && !only.random && only.zones === null && only.part === undefined) {
    const again = wholeFleetAgain(lights);
    if (again !== undefined) return again;
  }
  // zones and parts made on first use: a fleet-wide call names a thousand whole lights.
  const found = new Map<string, { light: LightView; whole: boolean; zones: ZoneRange[] | undefined; parts: PartDef[] | undefined }>();
  for (const selector of selectors) {
    for (const light of pick(selector, lights, options, false)) {
      const key = light.serial.toLowerCase();
      let entry = found.get(key);
      if (entry === undefined) {
        entry = { light, whole: false, zones: undefined, parts: undefined };
        found.set(key, entry);
      }
      if (selector.part !== undefined) (entry.parts ??= []).push(findPart(light, options.partsOf?.(light) ?? [], selector.part, selector.text));
      else if (selector.zones === null) entry.whole = true;
      else (entry.zones ??= []).push(...selector.zones);
    }
  }
  if (found.size === 0) {
    throw new LightwireError('LIGHTS_NOT_FOUND', { selector: selectors.map((s) => s.text).join(',') });
  }
  return sortedByLight(found).map(({ light, whole, zones = [], parts }): ResolvedLight => {
    if (whole || (parts === undefined && !light.capabilities.multizone)) return { light, zones: null };
    if (parts === undefined) return { light, zones: mergeZones(zones) };
    return { light, zones: null, part: joinParts(parts, zones) };
  });
}

/** Several parts of one light (and zone ranges beside them) named together act as one part. */
function joinParts(parts: readonly PartDef[], zones: readonly ZoneRange[]): PartDef {
  const unique = [...new Set(parts)];
  if (unique.length === 1 && zones.length === 0) return unique[0]!;
  return {
    name: [...unique.map((p) => p.name), ...zones.map((z) => `${z.start}-${z.end}`)].join('+'),
    zonesOf: (count) => mergeZones([...unique.flatMap((p) => p.zonesOf(count)), ...zones]),
  };
}
