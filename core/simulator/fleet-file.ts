// The declarative fleet file and its strict validation. A fleet file is JSON; every key is checked and every
// mistake is a FLEET_INVALID error naming the path, like `lights[3].color.hue`. See examples/fleet.json.
//
// {
//   "description": "optional free text",
//   "lights": [
//     {
//       "serial": "d073d5000001",            // required: 12 hex digits, unique in the fleet
//       "product": 91,                        // required: product id in the registry (core/protocol/products)
//       "vendor": 1,                          // default 1 (LIFX)
//       "features": { "multizone": true },    // only for a product the registry does not know (then required):
//                                             // what it can do, products.json keys (color, infrared, hev,
//                                             // multizone, extended_multizone, matrix, chain, relays, buttons,
//                                             // temperature_range [min, max] or null) over a plain colour light
//       "label": "Kitchen",                   // <= 32 UTF-8 bytes; default "<product name> <last 6 serial digits>"
//       "firmware": { "major": 3, "minor": 70 },   // default 3.70; capabilities are resolved for it
//       "group":    { "id": "<32 hex>", "label": "Kitchen" },   // id defaults to a hash of the label, so equal
//       "location": { "id": "<32 hex>", "label": "Home" },      // labels share one id; optional "updatedAtNs"
//                                             // (decimal string) defaults to the time the file is loaded
//       "power": "on",                        // "on" | "off", default "on"
//       "color": { "hue": 120, "saturation": 1, "brightness": 0.5, "kelvin": 3500 },
//                                             // user units: degrees 0-360, fractions 0-1, kelvin 1500-9000;
//                                             // missing parts default to 0, 0, 1, 3500 (kelvin brought
//                                             // inside the product's temperature_range)
//       "infrared": 0.5,                      // 0-1, infrared products only, default 0
//       "zoneCount": 16,                      // multizone products only: 1-255, default 16
//       "zoneCount" defaults to the product's own (product-specs.ts: a Beam 80, a Neon 24; else 16)
//       "tileCount": 5,                       // matrix products only: 1-16 for chains (the Tile), else 1
//       "tileWidth": 5, "tileHeight": 6,      // matrix products only, 1-64 each: zones of each tile; default the
//                                             // product's own (Candle 5x6, Tube 5x11, Luna 7x5, Capsule 16x8, …)
//       "buttonCount": 4,                     // button products only (Switch, Dimmer Switch, Luna, Mirror), 1-32
//       "relayCount": 4,                      // relay products only (Switch 4, Dimmer Switch 2), 1-8
//       "wifiSignal": 1e-5,                   // StateWifiInfo.signal, default 1e-5 (-50 dBm)
//       "lux": 120,                           // lights only: an ambient light sensor reading this many lux (raw,
//                                             // 0-1e6), answered to SensorGetAmbientLight (401); absent: the light
//                                             // has no sensor and stays silent on 401, as real ones without it do
//       "faults": {                           // all optional; applied per datagram as faults.ts describes
//         "lossInProbability": 0.1,           // 0-1: datagrams arriving at the light dropped before it sees them
//         "lossOutProbability": 0.1,          // 0-1: each reply datagram dropped after the light acted on the
//                                             // message (a Set takes effect, its ack is lost)
//         "lossProbability": 0.1,             // shorthand for lossInProbability (its meaning before loss had a
//                                             // direction); giving both with different values is an error
//         "latencyMs": 40,                    // added before every reply
//         "reorderProbability": 0.1,          // 0-1: each reply datagram held back, so it arrives after later ones
//         "reorderDelayMs": 100,              // how much longer a held-back reply waits, default 100
//         "duplicateReplies": false,          // send each reply datagram twice
//         "malformedReplies": "off",          // "off" | "instead" | "also" (true = "also"); see faults.ts
//         "unresponsive": false,              // answers GetService only
//         "offline": false                    // answers nothing
//       }
//     }
//   ]
// }

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { PRODUCTS, capabilitiesFromFeatures, type FeatureSet, type FirmwareVersion, type Product } from '../protocol/products.js';
import type { Hsbk, PowerState } from '../protocol/units.js';
import { KELVIN_MAX, KELVIN_MIN } from '../protocol/limits.js';
import { NO_FAULTS, type Faults, type MalformedMode } from './faults.js';
import { invalid, describe, object, join, number, boolean, string, labelText, power, parseSerial, parseHsbk, mergeHsbk, updatedAt } from './fleet-values.js';
import { DEFAULT_BUTTON_COUNT, DEFAULT_RELAY_COUNT, DEFAULT_TILE, productSpec } from './product-specs.js';

// ---- input shapes (what a file or a PATCH body may contain) ----

export interface HsbkInput {
  readonly hue?: number;
  readonly saturation?: number;
  readonly brightness?: number;
  readonly kelvin?: number;
}

export interface GroupInput {
  /** 32 hex digits (16 bytes); default: derived from the label. */
  readonly id?: string;
  readonly label: string;
  /** ns since the epoch, as a decimal string or a safe integer; default: when the fleet was built. */
  readonly updatedAtNs?: string | number;
}

export interface FaultsInput {
  readonly lossInProbability?: number;
  readonly lossOutProbability?: number;
  /** Shorthand for lossInProbability. */
  readonly lossProbability?: number;
  readonly latencyMs?: number;
  readonly reorderProbability?: number;
  readonly reorderDelayMs?: number;
  readonly duplicateReplies?: boolean;
  readonly malformedReplies?: MalformedMode | boolean;
  readonly unresponsive?: boolean;
  readonly offline?: boolean;
}

export interface LightInput {
  readonly serial: string;
  readonly product: number;
  readonly vendor?: number;
  /** What a product the registry does not know can do (products.json feature keys); required for one. */
  readonly features?: FeatureSet;
  readonly label?: string;
  readonly firmware?: { readonly major: number; readonly minor: number };
  readonly group?: GroupInput;
  readonly location?: GroupInput;
  readonly power?: PowerState;
  readonly color?: HsbkInput;
  readonly infrared?: number;
  readonly zoneCount?: number;
  readonly tileCount?: number;
  readonly tileWidth?: number;
  readonly tileHeight?: number;
  readonly buttonCount?: number;
  readonly relayCount?: number;
  readonly wifiSignal?: number;
  /** Ambient light sensor reading (lux); absent: no sensor. */
  readonly lux?: number;
  readonly faults?: FaultsInput;
}

export interface FleetInput {
  readonly description?: string;
  readonly lights: readonly LightInput[];
}

// ---- validated shapes ----

export interface GroupSpec {
  readonly id: string;
  readonly label: string;
  readonly updatedAtNs: bigint;
}

export interface LightSpec {
  readonly serial: string;
  readonly product: Product;
  readonly label: string;
  readonly firmware: FirmwareVersion;
  readonly group: GroupSpec;
  readonly location: GroupSpec;
  readonly power: PowerState;
  readonly color: Hsbk;
  /** 0-1. */
  readonly infrared: number;
  /** 0 unless multizone. */
  readonly zoneCount: number;
  /** 0 unless matrix. */
  readonly tileCount: number;
  /** Zones across and down each tile (StateDeviceChain); 0 unless matrix. */
  readonly tileWidth: number;
  readonly tileHeight: number;
  /** 0 unless the product has buttons. */
  readonly buttonCount: number;
  /** 0 unless the product has relays. */
  readonly relayCount: number;
  readonly wifiSignal: number;
  /** Ambient light sensor reading (lux); null: no sensor (401 goes unanswered). */
  readonly lux: number | null;
  readonly faults: Faults;
}

export interface FleetSpec {
  readonly lights: readonly LightSpec[];
}

/** A change to a running light (PATCH /lights/:serial `state`, VirtualLight.setState). */
export interface LightStatePatch {
  readonly power?: PowerState;
  /** Merged with the current colour. */
  readonly color?: HsbkInput;
  readonly label?: string;
  readonly infrared?: number;
  readonly group?: GroupInput;
  readonly location?: GroupInput;
  /** Multizone: colours for zones 0, 1, … (each merged with the zone's current colour). */
  readonly zones?: readonly HsbkInput[];
  /** Switch: relay levels from relay 0. */
  readonly relays?: readonly PowerState[];
  readonly wifiSignal?: number;
  /** Lights with a sensor (a fleet entry's `lux`): its new reading. */
  readonly lux?: number;
}

export const DEFAULT_FIRMWARE: FirmwareVersion = Object.freeze({ major: 3, minor: 70 });
export const DEFAULT_ZONE_COUNT = 16;
export const DEFAULT_CHAIN_LENGTH = 5;
export const DEFAULT_WIFI_SIGNAL = 1e-5;
/** The most lux a fleet file may give (direct sunlight is about 1e5). */
export const MAX_LUX = 1e6;
export const DEFAULT_COLOR: Hsbk = Object.freeze({ hue: 0, saturation: 0, brightness: 1, kelvin: 3500 });

/**
 * DEFAULT_COLOR with its kelvin brought inside the product's temperature_range (product registry): a
 * fixed 2700 K Mini White or a 2200-6500 K Candle White to Warm never reports a temperature it cannot show.
 */
function defaultColor(caps: Product['capabilities']): Hsbk {
  const range = caps.kelvinRange;
  if (range === null) return DEFAULT_COLOR;
  return { ...DEFAULT_COLOR, kelvin: Math.min(range.maxK, Math.max(range.minK, DEFAULT_COLOR.kelvin)) };
}
export const MAX_ZONES = 255;
export const MAX_TILES = 16;
/** StateDeviceChain gives each tile's width and height as a byte; 64 keeps a row inside one Set64. */
export const MAX_TILE_SIDE = 64;
export const MAX_BUTTONS = 32;
export const MAX_RELAYS = 8;

// ---- the validator (value checks in fleet-values.ts) ----

export { parseSerial, parseHsbk, mergeHsbk } from './fleet-values.js';

/** The 16-byte id every light with this label shares when the file gives none (one id is one group). */
export function idFromLabel(kind: 'group' | 'location', label: string): string {
  return createHash('sha256').update(`lightwire ${kind}\0${label}`).digest('hex').slice(0, 32);
}

export function parseGroup(raw: unknown, path: string, kind: 'group' | 'location', nowNs: bigint): GroupSpec {
  const o = object(raw, path, ['id', 'label', 'updatedAtNs']);
  if (o.label === undefined) invalid(join(path, 'label'), 'is required');
  const label = labelText(o.label, join(path, 'label'));
  let id: string;
  if (o.id === undefined) id = idFromLabel(kind, label);
  else {
    const text = string(o.id, join(path, 'id'));
    if (!/^[0-9a-fA-F]{32}$/.test(text)) invalid(join(path, 'id'), 'must be 32 hex digits (16 bytes)');
    id = text.toLowerCase();
  }
  const at = o.updatedAtNs === undefined ? nowNs : updatedAt(o.updatedAtNs, join(path, 'updatedAtNs'));
  return { id, label, updatedAtNs: at };
}

const FAULT_KEYS = [
  'lossInProbability', 'lossOutProbability', 'lossProbability', 'latencyMs', 'reorderProbability', 'reorderDelayMs',
  'duplicateReplies', 'malformedReplies', 'unresponsive', 'offline',
] as const;
export const MAX_LATENCY_MS = 60_000;

/** A partial fault set, range-checked; merge it over the current faults. */
export function parseFaults(raw: unknown, path: string): Partial<Faults> {
  const o = object(raw, path, FAULT_KEYS);
  const out: { -readonly [K in keyof Faults]?: Faults[K] } = {};
  const lossIn = o.lossInProbability === undefined ? undefined : number(o.lossInProbability, join(path, 'lossInProbability'), 0, 1);
  const shorthand = o.lossProbability === undefined ? undefined : number(o.lossProbability, join(path, 'lossProbability'), 0, 1);
  if (lossIn !== undefined && shorthand !== undefined && lossIn !== shorthand) {
    invalid(join(path, 'lossProbability'), `is shorthand for lossInProbability (${lossIn}) and cannot differ from it, got ${shorthand}`);
  }
  const inbound = lossIn ?? shorthand;
  // The shorthand and the field it stands for never disagree: setting either sets both.
  if (inbound !== undefined) out.lossInProbability = out.lossProbability = inbound;
  if (o.lossOutProbability !== undefined) out.lossOutProbability = number(o.lossOutProbability, join(path, 'lossOutProbability'), 0, 1);
  if (o.latencyMs !== undefined) out.latencyMs = number(o.latencyMs, join(path, 'latencyMs'), 0, MAX_LATENCY_MS);
  if (o.reorderProbability !== undefined) out.reorderProbability = number(o.reorderProbability, join(path, 'reorderProbability'), 0, 1);
  if (o.reorderDelayMs !== undefined) out.reorderDelayMs = number(o.reorderDelayMs, join(path, 'reorderDelayMs'), 0, MAX_LATENCY_MS);
  if (o.duplicateReplies !== undefined) out.duplicateReplies = boolean(o.duplicateReplies, join(path, 'duplicateReplies'));
  if (o.malformedReplies !== undefined) {
    const m = o.malformedReplies;
    if (m === true) out.malformedReplies = 'also';
    else if (m === false) out.malformedReplies = 'off';
    else if (m === 'off' || m === 'instead' || m === 'also') out.malformedReplies = m;
    else invalid(join(path, 'malformedReplies'), `must be "off", "instead", "also" or a boolean, got ${describe(m)}`);
  }
  if (o.unresponsive !== undefined) out.unresponsive = boolean(o.unresponsive, join(path, 'unresponsive'));
  if (o.offline !== undefined) out.offline = boolean(o.offline, join(path, 'offline'));
  return out;
}

const LIGHT_KEYS = [
  'serial', 'product', 'vendor', 'features', 'label', 'firmware', 'group', 'location', 'power', 'color', 'infrared',
  'zoneCount', 'tileCount', 'tileWidth', 'tileHeight', 'buttonCount', 'relayCount', 'wifiSignal', 'lux', 'faults',
] as const;

function parseLight(raw: unknown, path: string, nowNs: bigint): LightSpec {
  const o = object(raw, path, LIGHT_KEYS);
  if (o.serial === undefined) invalid(join(path, 'serial'), 'is required');
  if (o.product === undefined) invalid(join(path, 'product'), 'is required');
  const serial = parseSerial(o.serial, join(path, 'serial'));
  const vendorId = o.vendor === undefined ? 1 : number(o.vendor, join(path, 'vendor'), 0, 0xffffffff, true);
  const productId = number(o.product, join(path, 'product'), 0, 0xffffffff, true);
  let firmware = DEFAULT_FIRMWARE;
  if (o.firmware !== undefined) {
    const f = object(o.firmware, join(path, 'firmware'), ['major', 'minor']);
    if (f.major === undefined || f.minor === undefined) invalid(join(path, 'firmware'), 'needs major and minor');
    firmware = {
      major: number(f.major, join(path, 'firmware.major'), 0, 0xffff, true),
      minor: number(f.minor, join(path, 'firmware.minor'), 0, 0xffff, true),
    };
  }
  const registered = PRODUCTS.get(vendorId, productId, firmware);
  if (registered.known && o.features !== undefined) {
    invalid(join(path, 'features'), `is only for products the registry does not know; ${registered.name} is in it`);
  }
  if (!registered.known && o.features === undefined) {
    invalid(join(path, 'product'), `${vendorId}:${productId} is not in the product registry (give "features" to simulate an unknown product)`);
  }
  // An unknown product: the registry's name for it, with the capabilities the file gives.
  const product: Product = registered.known
    ? registered
    : Object.freeze({ ...registered, capabilities: capabilitiesFromFeatures(parseFeatures(o.features, join(path, 'features'))) });
  const caps = product.capabilities;
  const onlyFor = (key: string, what: string): never => invalid(join(path, key), `is only for ${what} products; ${product.name} is not one`);

  const label = o.label === undefined ? defaultLabel(product.name, serial) : labelText(o.label, join(path, 'label'));
  const group = o.group === undefined ? { id: idFromLabel('group', ''), label: '', updatedAtNs: nowNs } : parseGroup(o.group, join(path, 'group'), 'group', nowNs);
  const location =
    o.location === undefined ? { id: idFromLabel('location', ''), label: '', updatedAtNs: nowNs } : parseGroup(o.location, join(path, 'location'), 'location', nowNs);
  if (o.color !== undefined && !caps.isLight) onlyFor('color', 'light');
  const color = mergeHsbk(defaultColor(caps), o.color === undefined ? {} : parseHsbk(o.color, join(path, 'color')));
  if (o.infrared !== undefined && !caps.infrared) onlyFor('infrared', 'infrared');
  const infrared = o.infrared === undefined ? 0 : number(o.infrared, join(path, 'infrared'), 0, 1);
  if (o.zoneCount !== undefined && !caps.multizone) onlyFor('zoneCount', 'multizone');
  // The product's own build (product-specs.ts) unless the file says otherwise.
  const spec = productSpec(product);
  const counted = (key: 'tileWidth' | 'tileHeight' | 'buttonCount' | 'relayCount', has: boolean, what: string, fallback: number, max: number): number => {
    if (o[key] !== undefined && !has) onlyFor(key, what);
    return !has ? 0 : o[key] === undefined ? fallback : number(o[key], join(path, key), 1, max, true);
  };
  const zoneCount = !caps.multizone ? 0 : o.zoneCount === undefined ? (spec.zoneCount ?? DEFAULT_ZONE_COUNT) : number(o.zoneCount, join(path, 'zoneCount'), 1, MAX_ZONES, true);
  if (o.tileCount !== undefined && !caps.matrix) onlyFor('tileCount', 'matrix');
  const maxTiles = caps.chain ? MAX_TILES : 1;
  const tileCount = !caps.matrix
    ? 0
    : o.tileCount === undefined
      ? (caps.chain ? (spec.tileCount ?? DEFAULT_CHAIN_LENGTH) : 1)
      : number(o.tileCount, join(path, 'tileCount'), 1, maxTiles, true);
  const tileWidth = counted('tileWidth', caps.matrix, 'matrix', spec.tileWidth ?? DEFAULT_TILE.width, MAX_TILE_SIDE);
  const tileHeight = counted('tileHeight', caps.matrix, 'matrix', spec.tileHeight ?? DEFAULT_TILE.height, MAX_TILE_SIDE);
  const buttonCount = counted('buttonCount', caps.buttons, 'button', spec.buttonCount ?? DEFAULT_BUTTON_COUNT, MAX_BUTTONS);
  const relayCount = counted('relayCount', caps.relays, 'relay', spec.relayCount ?? DEFAULT_RELAY_COUNT, MAX_RELAYS);
  const wifiSignal = o.wifiSignal === undefined ? DEFAULT_WIFI_SIGNAL : number(o.wifiSignal, join(path, 'wifiSignal'), 0, 1e6);
  if (o.lux !== undefined && !caps.isLight) onlyFor('lux', 'light');
  const lux = o.lux === undefined ? null : number(o.lux, join(path, 'lux'), 0, MAX_LUX);
  const faults = { ...NO_FAULTS, ...(o.faults === undefined ? {} : parseFaults(o.faults, join(path, 'faults'))) };
  return {
    serial,
    product,
    label,
    firmware,
    group,
    location,
    power: o.power === undefined ? 'on' : power(o.power, join(path, 'power')),
    color,
    infrared,
    zoneCount,
    tileCount,
    tileWidth,
    tileHeight,
    buttonCount,
    relayCount,
    wifiSignal,
    lux,
    faults,
  };
}

const FEATURE_FLAGS = ['hev', 'color', 'chain', 'matrix', 'relays', 'buttons', 'infrared', 'multizone', 'extended_multizone'] as const;

/** products.json-style features of an unknown product, each key checked. */
function parseFeatures(raw: unknown, path: string): FeatureSet {
  const o = object(raw, path, [...FEATURE_FLAGS, 'temperature_range']);
  const out: { -readonly [K in keyof FeatureSet]?: FeatureSet[K] } = {};
  for (const key of FEATURE_FLAGS) if (o[key] !== undefined) out[key] = boolean(o[key], join(path, key));
  const range = o.temperature_range;
  if (range === null) out.temperature_range = null;
  else if (range !== undefined) {
    if (!Array.isArray(range) || range.length !== 2) invalid(join(path, 'temperature_range'), `must be [min, max] kelvin or null, got ${describe(range)}`);
    const min = number(range[0], join(path, 'temperature_range[0]'), KELVIN_MIN, KELVIN_MAX, true);
    const max = number(range[1], join(path, 'temperature_range[1]'), min, KELVIN_MAX, true);
    out.temperature_range = [min, max];
  }
  return out;
}

function defaultLabel(productName: string, serial: string): string {
  const text = `${productName.replace(/^LIFX /, '')} ${serial.slice(-6)}`;
  return Buffer.byteLength(text) <= 32 ? text : serial;
}

/** Validates a fleet document (already parsed from JSON). Throws FLEET_INVALID naming the first bad path. */
export function parseFleet(raw: unknown, nowNs: bigint = BigInt(Date.now()) * 1_000_000n): FleetSpec {
  const o = object(raw, '', ['description', 'lights']);
  if (o.description !== undefined) string(o.description, 'description');
  if (!Array.isArray(o.lights)) invalid('lights', `must be an array of lights, got ${describe(o.lights)}`);
  if (o.lights.length === 0) invalid('lights', 'must hold at least one light');
  const seen = new Map<string, number>();
  const lights = o.lights.map((entry: unknown, i) => {
    const light = parseLight(entry, `lights[${i}]`, nowNs);
    const first = seen.get(light.serial);
    if (first !== undefined) invalid(`lights[${i}].serial`, `${light.serial} is already used by lights[${first}]`);
    seen.set(light.serial, i);
    return light;
  });
  return { lights };
}

/** Reads and validates a fleet file; unreadable files and bad JSON are FLEET_INVALID too. */
export async function loadFleetFile(file: string, nowNs?: bigint): Promise<FleetSpec> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    invalid('', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let raw: unknown;
  try {
    // A byte-order mark (Windows editors write one) is not part of the JSON.
    raw = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch (err) {
    invalid('', `${file} is not valid JSON: ${(err as Error).message}`);
  }
  return parseFleet(raw, nowNs);
}

const PATCH_KEYS = ['power', 'color', 'label', 'infrared', 'group', 'location', 'zones', 'relays', 'wifiSignal', 'lux'] as const;

/** Validates a state change for a running light (the capability checks happen in the light). */
export function parseStatePatch(raw: unknown, path: string): LightStatePatch {
  const o = object(raw, path, PATCH_KEYS);
  const out: { -readonly [K in keyof LightStatePatch]?: LightStatePatch[K] } = {};
  if (o.power !== undefined) out.power = power(o.power, join(path, 'power'));
  if (o.color !== undefined) out.color = parseHsbk(o.color, join(path, 'color'));
  if (o.label !== undefined) out.label = labelText(o.label, join(path, 'label'));
  if (o.infrared !== undefined) out.infrared = number(o.infrared, join(path, 'infrared'), 0, 1);
  // The group and location ids/labels are checked here; updatedAtNs defaults to "now" in the light.
  if (o.group !== undefined) out.group = groupInput(o.group, join(path, 'group'));
  if (o.location !== undefined) out.location = groupInput(o.location, join(path, 'location'));
  if (o.zones !== undefined) {
    if (!Array.isArray(o.zones)) invalid(join(path, 'zones'), `must be an array of colours, got ${describe(o.zones)}`);
    if (o.zones.length > MAX_ZONES) invalid(join(path, 'zones'), `must hold at most ${MAX_ZONES} colours`);
    out.zones = o.zones.map((z: unknown, i) => parseHsbk(z, `${join(path, 'zones')}[${i}]`));
  }
  if (o.relays !== undefined) {
    if (!Array.isArray(o.relays)) invalid(join(path, 'relays'), `must be an array of "on"/"off", got ${describe(o.relays)}`);
    out.relays = o.relays.map((r: unknown, i) => power(r, `${join(path, 'relays')}[${i}]`));
  }
  if (o.wifiSignal !== undefined) out.wifiSignal = number(o.wifiSignal, join(path, 'wifiSignal'), 0, 1e6);
  if (o.lux !== undefined) out.lux = number(o.lux, join(path, 'lux'), 0, MAX_LUX);
  return out;
}

function groupInput(raw: unknown, path: string): GroupInput {
  const spec = parseGroup(raw, path, 'group', 0n);
  const o = raw as Record<string, unknown>;
  return {
    label: spec.label,
    ...(o.id === undefined ? {} : { id: spec.id }),
    ...(o.updatedAtNs === undefined ? {} : { updatedAtNs: spec.updatedAtNs.toString() }),
  };
}
