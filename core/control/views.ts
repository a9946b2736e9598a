// Views of the client's registry for the light service: LightView (what selectors and the planner read)
// and the HTTP API's light record (List Lights, https://lifx.readme.io/docs/list-lights), built in one place for every
// face.

import { nodeCrypto } from '../builtins.js';
import type { FirmwareInfo, LightRegistry, LightRecord, TileFact } from '../discovery/registry.js';
import { PRODUCTS, type Hsbk, type Product } from '../protocol/index.js';
import type { LightView, MatrixView } from './types.js';

/** What a light whose product is not known yet is assumed to be: a plain colour light. */
const UNKNOWN_CAPABILITIES = PRODUCTS.get(0, 0).capabilities;

/**
 * Group and location names resolved once for many views (the newest label per id,
 * https://lan.developer.lifx.com/docs/groups-and-locations).
 */
export interface GroupNames {
  readonly group: ReadonlyMap<string, string>;
  readonly location: ReadonlyMap<string, string>;
}

export function groupNames(registry: LightRegistry): GroupNames {
  return { group: registry.labels('group'), location: registry.labels('location') };
}

/**
 * What a view shows of facts many lights share (the registry holds one copy of a tile chain, of a firmware build): one
 * frozen view part per copy, not one per light.
 */
const matrixViews = new WeakMap<readonly TileFact[], MatrixView>();
const firmwareViews = new WeakMap<FirmwareInfo, NonNullable<LightView['firmware']>>();

function matrixView(tiles: readonly TileFact[]): MatrixView {
  let view = matrixViews.get(tiles);
  if (view === undefined) matrixViews.set(tiles, (view = Object.freeze({ tiles, zoneCount: tiles.reduce((sum, t) => sum + t.width * t.height, 0) })));
  return view;
}

function firmwareView(firmware: FirmwareInfo): NonNullable<LightView['firmware']> {
  let view = firmwareViews.get(firmware);
  if (view === undefined) firmwareViews.set(firmware, (view = Object.freeze({ major: firmware.major, minor: firmware.minor })));
  return view;
}

/** How many group and location names viewNames keeps (then it starts afresh): more than a LAN has. */
const NAMES_KEPT = 1024;
/** A group's or location's id and resolved name as views show them, by id: one frozen copy while the name holds. */
const viewNames = new Map<string, { readonly id: string; readonly name: string }>();

function viewName(id: string, name: string): { readonly id: string; readonly name: string } {
  const known = viewNames.get(id);
  if (known !== undefined && known.name === name) return known;
  if (known === undefined && viewNames.size >= NAMES_KEPT) viewNames.clear();
  const made = Object.freeze({ id, name });
  viewNames.set(id, made);
  return made;
}

/** One light as the service sees it; `names` from groupNames(registry), built once per call for many lights. */
export function lightView(record: LightRecord, names: GroupNames): LightView {
  const f = record.facts;
  const product = f.product?.value ?? null;
  const group = f.group?.value;
  const location = f.location?.value;
  return Object.freeze({
    serial: record.serial,
    label: f.label?.value ?? '',
    online: record.online,
    group: group ? viewName(group.id, names.group.get(group.id) ?? group.label) : null,
    location: location ? viewName(location.id, names.location.get(location.id) ?? location.label) : null,
    product,
    capabilities: product?.capabilities ?? UNKNOWN_CAPABILITIES,
    power: f.power?.value ?? null,
    color: f.color?.value ?? null,
    infrared: f.infrared?.value ?? null,
    zones: f.zones?.value ?? null,
    matrix: f.tiles ? matrixView(f.tiles.value) : null,
    pixels: f.pixels?.value ?? null,
    lastSeenAt: record.lastSeenAt,
    address: record.address,
    effect: f.effect?.value ?? 'OFF',
    relays: f.relays?.value ?? null,
    firmware: f.firmware ? firmwareView(f.firmware.value) : null,
    wifi: f.wifi && f.wifi.value.signal > 0 ? { rssi: f.wifi.value.rssi, quality: f.wifi.value.quality } : null,
    ambientLux: f.ambientLux?.value ?? null,
    buttons: f.buttons?.value ?? null,
  });
}

// ---- the HTTP API v1 light record ----

export interface V1Capabilities {
  has_color: boolean;
  has_variable_color_temp: boolean;
  has_ir: boolean;
  has_hev: boolean;
  has_chain: boolean;
  has_matrix: boolean;
  has_multizone: boolean;
  min_kelvin: number;
  max_kelvin: number;
}

export interface V1Light {
  id: string;
  uuid: string;
  label: string;
  connected: boolean;
  power: 'on' | 'off';
  color: { hue: number; saturation: number; kelvin: number };
  infrared?: number;
  brightness: number;
  zones?: { count: number; zones: { brightness: number; hue: number; kelvin: number; saturation: number; zone: number }[] };
  effect: string;
  group: { id: string; name: string };
  location: { id: string; name: string };
  product: {
    name: string;
    identifier: string;
    company: string;
    vendor_id: number;
    product_id: number;
    capabilities: V1Capabilities;
  };
  last_seen: string;
  seconds_since_seen: number;
}

// A fixed namespace so a light's uuid is stable across restarts and machines (UUIDv5 of its serial).
const UUID_NAMESPACE = Buffer.from('6c1f0e3a4b2d4e8f9a7c5d3e2f1a0b9c', 'hex');

const uuids = new Map<string, string>();

export function uuidFromSerial(serial: string): string {
  let uuid = uuids.get(serial);
  if (uuid === undefined) {
    uuid = computeUuid(serial);
    // Bounded: a LAN has at most a few thousand lights; bogus serials cannot grow it forever.
    if (uuids.size < 10_000) uuids.set(serial, uuid);
  }
  return uuid;
}

function computeUuid(serial: string): string {
  const hash = nodeCrypto().createHash('sha1').update(UUID_NAMESPACE).update(serial.toLowerCase()).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  // Written out flat, from bytes: joined pieces of a string would stay a chain of them (five nodes, 260 bytes a light).
  return Buffer.from(`${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`, 'latin1').toString('latin1');
}

/** `LIFX Color 1000` -> `lifx_color_1000`: the cloud's identifiers are not in the product registry. */
export function productIdentifier(product: Product | null): string {
  if (!product) return 'lifx_unknown';
  return product.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
}

const NO_GROUP = Object.freeze({ id: '0'.repeat(32), name: '' });
const DEFAULT_COLOR: Hsbk = Object.freeze({ hue: 0, saturation: 0, brightness: 0, kelvin: 3500 });

/** The product part of a record depends only on the (shared, frozen) product: built once per product, frozen. */
const productRecords = new WeakMap<object, V1Light['product']>();

function productRecord(view: LightView): V1Light['product'] {
  const key = view.product ?? view.capabilities;
  let record = productRecords.get(key);
  if (record === undefined) {
    const caps = view.capabilities;
    const range = caps.kelvinRange;
    record = {
      name: view.product?.name ?? 'Unknown',
      identifier: productIdentifier(view.product),
      company: view.product?.vendorName ?? 'LIFX',
      vendor_id: view.product?.vendorId ?? 0,
      product_id: view.product?.productId ?? 0,
      capabilities: {
        has_color: caps.color,
        has_variable_color_temp: caps.variableColorTemp,
        has_ir: caps.infrared,
        has_hev: caps.hev,
        has_chain: caps.chain,
        has_matrix: caps.matrix,
        has_multizone: caps.multizone,
        min_kelvin: range?.minK ?? 0,
        max_kelvin: range?.maxK ?? 0,
      },
    };
    Object.freeze(record.capabilities);
    productRecords.set(key, Object.freeze(record));
  }
  return record;
}

/** `2019-02-25T23:40:40Z`: whole seconds, as the cloud sends it; the last few are remembered (pollers repeat). */
const isoSeconds = new Map<number, string>();

function lastSeen(epochMs: number): string {
  let text = isoSeconds.get(epochMs);
  if (text === undefined) {
    text = new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
    if (isoSeconds.size >= 4096) isoSeconds.clear();
    isoSeconds.set(epochMs, text);
  }
  return text;
}

export function v1Light(view: LightView, nowMs: number, effect = view.effect): V1Light {
  const caps = view.capabilities;
  const color = view.color ?? DEFAULT_COLOR;
  // Key order follows the docs' examples: infrared before brightness, zones after it.
  const record: Record<string, unknown> = {
    id: view.serial,
    uuid: uuidFromSerial(view.serial),
    label: view.label,
    connected: view.online,
    power: view.power ?? 'off',
    color: { hue: color.hue, saturation: color.saturation, kelvin: color.kelvin },
  };
  if (caps.infrared) record.infrared = view.infrared ?? 0;
  record.brightness = color.brightness;
  if (caps.multizone && view.zones) {
    record.zones = {
      count: view.zones.length,
      zones: view.zones.map((z, zone) => ({ brightness: z.brightness, hue: z.hue, kelvin: z.kelvin, saturation: z.saturation, zone })),
    };
  }
  record.effect = effect;
  record.group = view.group ? { id: view.group.id, name: view.group.name } : { ...NO_GROUP };
  record.location = view.location ? { id: view.location.id, name: view.location.name } : { ...NO_GROUP };
  record.product = productRecord(view);
  // Never an empty string (a C# client, Lifx.Api, crashed on one).
  record.last_seen = lastSeen(view.lastSeenAt);
  record.seconds_since_seen = Math.max(0, Math.floor((nowMs - view.lastSeenAt) / 1000));
  return record as unknown as V1Light;
}
