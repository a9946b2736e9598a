// The vendor product registry and capability resolution by firmware
// (https://lan.developer.lifx.com/docs/product-registry).
// caps = defaults, overlaid by the product's features, then by every upgrade (in array order) whose
// (major, minor) is <= the device firmware, compared as a tuple, as the vendor's StateHostFirmware
// docs say (the products README's `>=` on each part is wrong).

import { LightwireError } from '../errors.js';
import { PRODUCTS_DATA } from './products-data.js';

export interface FeatureSet {
  readonly hev?: boolean;
  readonly color?: boolean;
  readonly chain?: boolean;
  readonly matrix?: boolean;
  readonly relays?: boolean;
  readonly buttons?: boolean;
  readonly infrared?: boolean;
  readonly multizone?: boolean;
  readonly temperature_range?: readonly [number, number] | null;
  readonly extended_multizone?: boolean;
}

export interface ProductEntry {
  readonly pid: number;
  readonly name: string;
  readonly features: FeatureSet;
  readonly upgrades: readonly { readonly major: number; readonly minor: number; readonly features: FeatureSet }[];
}

export interface VendorEntry {
  readonly vid: number;
  readonly name: string;
  readonly defaults: FeatureSet;
  readonly products: readonly ProductEntry[];
}

export type VendorRegistry = readonly VendorEntry[];

export interface FirmwareVersion {
  readonly major: number;
  readonly minor: number;
}

export interface KelvinRange {
  readonly minK: number;
  readonly maxK: number;
}

export interface Capabilities {
  readonly color: boolean;
  /** temperature_range present with min != max (photons' has_variable_color_temp). */
  readonly variableColorTemp: boolean;
  /** null for non-lights (the Switch). */
  readonly kelvinRange: KelvinRange | null;
  readonly infrared: boolean;
  readonly multizone: boolean;
  readonly extendedMultizone: boolean;
  readonly matrix: boolean;
  readonly chain: boolean;
  readonly hev: boolean;
  readonly relays: boolean;
  readonly buttons: boolean;
  /** Answers StateUnhandled for messages it does not support (only the Switch, per photons). */
  readonly unhandled: boolean;
  /** Not a light at all (no kelvin range: the Switch). */
  readonly isLight: boolean;
}

export interface Product {
  readonly vendorId: number;
  readonly productId: number;
  readonly name: string;
  readonly vendorName: string;
  /** False when the id is not in the registry; the capabilities are then a plain light's defaults. */
  readonly known: boolean;
  readonly capabilities: Capabilities;
  /** The firmware the capabilities were resolved for, if one was given. */
  readonly firmware: FirmwareVersion | null;
}

/** What an unknown product is assumed to be: a plain colour light (new pids appear before the registry knows them). */
export const UNKNOWN_PRODUCT_FEATURES: Required<FeatureSet> = Object.freeze({
  hev: false,
  color: true,
  chain: false,
  matrix: false,
  relays: false,
  buttons: false,
  infrared: false,
  multizone: false,
  temperature_range: [1500, 9000] as const,
  extended_multizone: false,
});

const FEATURE_KEYS = Object.keys(UNKNOWN_PRODUCT_FEATURES) as (keyof FeatureSet)[];

export function compareFirmware(a: FirmwareVersion, b: FirmwareVersion): number {
  return a.major !== b.major ? a.major - b.major : a.minor - b.minor;
}

/**
 * Extended multizone is the multizone messages' newer form (https://lan.developer.lifx.com/docs/multizone-messages):
 * a product without multizone has no zones for it. The vendor file grants it to at least one product that has no
 * multizone (pid 72, by an upgrade entry); such a light must not be sent multizone messages, so the flag goes with
 * multizone.
 */
function hasExtendedMultizone(f: FeatureSet): boolean {
  return f.extended_multizone === true && f.multizone === true;
}

function toCapabilities(f: FeatureSet): Capabilities {
  const range = f.temperature_range ?? null;
  const relays = f.relays === true;
  return Object.freeze({
    color: f.color === true,
    variableColorTemp: range !== null && range[0] !== range[1],
    kelvinRange: range === null ? null : Object.freeze({ minK: range[0], maxK: range[1] }),
    infrared: f.infrared === true,
    multizone: f.multizone === true,
    extendedMultizone: hasExtendedMultizone(f),
    matrix: f.matrix === true,
    chain: f.chain === true,
    hev: f.hev === true,
    relays,
    buttons: f.buttons === true,
    unhandled: relays,
    isLight: range !== null,
  });
}

/**
 * Capabilities from products.json-style features laid over a plain colour light's (UNKNOWN_PRODUCT_FEATURES): for
 * products the registry does not know, whose features were found out otherwise (probed, or a simulator's file).
 */
export function capabilitiesFromFeatures(features: FeatureSet): Capabilities {
  return toCapabilities({ ...UNKNOWN_PRODUCT_FEATURES, ...features });
}

/** Resolves features for a product at a firmware version (no firmware: base features, no upgrades). */
export function resolveFeatures(
  defaults: FeatureSet,
  product: ProductEntry,
  firmware: FirmwareVersion | null,
): Required<FeatureSet> {
  const caps: Record<string, unknown> = { ...UNKNOWN_PRODUCT_FEATURES, temperature_range: null };
  for (const key of FEATURE_KEYS) if (defaults[key] !== undefined) caps[key] = defaults[key];
  for (const key of FEATURE_KEYS) if (product.features[key] !== undefined) caps[key] = product.features[key];
  if (firmware !== null) {
    for (const upgrade of product.upgrades) {
      if (compareFirmware(firmware, upgrade) < 0) continue;
      for (const key of FEATURE_KEYS) if (upgrade.features[key] !== undefined) caps[key] = upgrade.features[key];
    }
  }
  caps.extended_multizone = hasExtendedMultizone(caps);
  return caps as Required<FeatureSet>;
}

export class ProductRegistry {
  private readonly vendors = new Map<number, VendorEntry>();
  /** Each product with the defaults of the vendor entry it came from (a file laid over keeps its own defaults). */
  private readonly products = new Map<string, { readonly entry: ProductEntry; readonly defaults: FeatureSet }>();

  constructor(registry: VendorRegistry, base?: ProductRegistry) {
    if (base !== undefined) {
      for (const [vid, vendor] of base.vendors) this.vendors.set(vid, vendor);
      for (const [key, product] of base.products) this.products.set(key, product);
    }
    for (const vendor of registry) {
      this.vendors.set(vendor.vid, vendor);
      for (const product of vendor.products) this.products.set(`${vendor.vid}:${product.pid}`, { entry: product, defaults: vendor.defaults });
    }
  }

  /**
   * This registry with a newer vendor file laid over it: the file's products replace ours of the same (vid, pid),
   * the others stay. A new registry; this one is unchanged (each service has its own).
   */
  extendedWith(registry: VendorRegistry): ProductRegistry {
    return new ProductRegistry(registry, this);
  }

  get size(): number {
    return this.products.size;
  }

  /** Every product of the registry with its base capabilities, by vendor and product id. */
  all(): Product[] {
    return [...this.products.keys()]
      .map((key) => key.split(':').map(Number) as [number, number])
      .sort((a, b) => a[0] - b[0] || a[1] - b[1])
      .map(([vid, pid]) => this.get(vid, pid));
  }

  get(vendorId: number, productId: number, firmware: FirmwareVersion | null = null): Product {
    const vendor = this.vendors.get(vendorId);
    const found = this.products.get(`${vendorId}:${productId}`);
    if (vendor === undefined || found === undefined) {
      return Object.freeze({
        vendorId,
        productId,
        name: `Unknown product ${vendorId}:${productId}`,
        vendorName: vendor?.name ?? `Vendor ${vendorId}`,
        known: false,
        capabilities: toCapabilities(UNKNOWN_PRODUCT_FEATURES),
        firmware,
      });
    }
    return Object.freeze({
      vendorId,
      productId,
      name: found.entry.name,
      vendorName: vendor.name,
      known: true,
      capabilities: toCapabilities(resolveFeatures(found.defaults, found.entry, firmware)),
      firmware,
    });
  }
}

// ---- validation of registry data (the generator and anyone loading a newer products.json use it) ----

function fail(reason: string): never {
  throw new LightwireError('PRODUCT_DATA_INVALID', { reason });
}

function parseFeatures(raw: unknown, where: string): FeatureSet {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(`${where}: features must be an object`);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'temperature_range') {
      const ok =
        value === null ||
        (Array.isArray(value) && value.length === 2 && value.every((k) => Number.isInteger(k) && k > 0 && k <= 0xffff));
      if (!ok) fail(`${where}: temperature_range must be null or [min, max] kelvin`);
      out[key] = value === null ? null : [value[0], value[1]];
    } else if ((FEATURE_KEYS as string[]).includes(key)) {
      if (typeof value !== 'boolean') fail(`${where}: ${key} must be true or false`);
      out[key] = value;
    }
    // Legacy keys (min_ext_mz_firmware, min_ext_mz_firmware_components) are superseded by upgrades (since Feb 2021).
  }
  return out;
}

/** Checks and normalises a products.json document; throws PRODUCT_DATA_INVALID naming the bad entry. */
export function parseVendorRegistry(raw: unknown): VendorEntry[] {
  if (!Array.isArray(raw)) fail('top level must be an array of vendors');
  return raw.map((vendor: unknown, vi) => {
    if (typeof vendor !== 'object' || vendor === null) fail(`vendor #${vi} must be an object`);
    const v = vendor as Record<string, unknown>;
    if (!Number.isInteger(v.vid)) fail(`vendor #${vi}: vid must be an integer`);
    if (!Array.isArray(v.products)) fail(`vendor ${String(v.vid)}: products must be an array`);
    return {
      vid: v.vid as number,
      name: typeof v.name === 'string' ? v.name : `Vendor ${String(v.vid)}`,
      defaults: parseFeatures(v.defaults ?? {}, `vendor ${String(v.vid)} defaults`),
      products: (v.products as unknown[]).map((product, pi) => {
        if (typeof product !== 'object' || product === null) fail(`vendor ${String(v.vid)} product #${pi} must be an object`);
        const p = product as Record<string, unknown>;
        const where = `product ${String(v.vid)}:${String(p.pid)}`;
        if (!Number.isInteger(p.pid)) fail(`vendor ${String(v.vid)} product #${pi}: pid must be an integer`);
        if (typeof p.name !== 'string') fail(`${where}: name must be a string`);
        const upgrades = p.upgrades ?? [];
        if (!Array.isArray(upgrades)) fail(`${where}: upgrades must be an array`);
        return {
          pid: p.pid as number,
          name: p.name,
          features: parseFeatures(p.features ?? {}, where),
          upgrades: upgrades.map((u: unknown, ui) => {
            const up = u as Record<string, unknown>;
            if (!Number.isInteger(up?.major) || !Number.isInteger(up?.minor)) {
              fail(`${where} upgrade #${ui}: major and minor must be integers`);
            }
            return { major: up.major as number, minor: up.minor as number, features: parseFeatures(up.features, `${where} upgrade #${ui}`) };
          }),
        };
      }),
    };
  });
}

/** The registry shipped with this package. */
export const PRODUCTS = new ProductRegistry(PRODUCTS_DATA);
