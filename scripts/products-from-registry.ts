// Builds a products.json-shaped registry (the input of `npm run gen:products`) from the facts of a Python product
// registry generated from the vendor's products.json (lifx-async's src/lifx/products/registry.py, or
// lifx-emulator's), laid over an older products.json for what such a registry does not keep.
//
// Usage: node --import tsx scripts/products-from-registry.ts OLD_PRODUCTS_JSON REGISTRY_PY [CHECK_REGISTRY_PY...] > out.json
//
// What carries over from where (test/fixtures/vendor/README.md says which commits were used):
// * from REGISTRY_PY: every product id, its name, its capability flags and its base temperature range, and the
//   firmware from which extended multizone comes (min_ext_mz_firmware, major << 16 | minor);
// * from OLD_PRODUCTS_JSON: the other upgrades (kelvin range widened by firmware), kept only where the product's
//   base range is still the one they widen (a flattened registry cannot say whether an upgrade still exists);
// * CHECK_REGISTRY_PY files are compared and every disagreement is printed to stderr (the script does not guess).
// This is a tool for maintainers, kept out of the package (package.json `files` leaves scripts/ out).

import { readFileSync } from 'node:fs';
import { parseVendorRegistry, type FeatureSet, type ProductEntry, type VendorEntry } from '../core/protocol/products.js';

/** One product as the generated Python registry lists it. */
export interface RegistryFacts {
  readonly pid: number;
  readonly name: string;
  readonly vendor: number;
  readonly capabilities: readonly string[];
  readonly temperatureRange: readonly [number, number] | null;
  /** (major << 16) | minor, or null when extended multizone (if any) needs no firmware. */
  readonly minExtMzFirmware: number | null;
}

const ENTRY =
  /ProductInfo\(\s*pid=(\d+),\s*name=(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'),\s*vendor=(\d+),\s*capabilities=([^,]*),\s*temperature_range=(None|TemperatureRange\(min=(\d+), max=(\d+)\)),\s*min_ext_mz_firmware=(None|\d+),/g;

/** The products of a generated registry.py, in file order; the fallback entry for unknown ids (pid 0) is not one. */
export function parseRegistryPy(text: string): RegistryFacts[] {
  const out: RegistryFacts[] = [];
  const seen = new Set<number>();
  for (const m of text.matchAll(ENTRY)) {
    const pid = Number(m[1]);
    if (pid === 0 || seen.has(pid)) continue;
    seen.add(pid);
    out.push({
      pid,
      name: (m[2] ?? m[3]!).replace(/\\(.)/g, '$1'),
      vendor: Number(m[4]),
      capabilities: m[5]!
        .split('|')
        .map((s) => s.trim().replace('ProductCapability.', ''))
        .filter((s) => s !== '0' && s !== '')
        .sort(),
      temperatureRange: m[6] === 'None' ? null : [Number(m[7]), Number(m[8])],
      minExtMzFirmware: m[9] === 'None' ? null : Number(m[9]),
    });
  }
  return out;
}

const FLAG_OF: Readonly<Record<string, keyof FeatureSet>> = {
  COLOR: 'color',
  INFRARED: 'infrared',
  MULTIZONE: 'multizone',
  CHAIN: 'chain',
  MATRIX: 'matrix',
  RELAYS: 'relays',
  BUTTONS: 'buttons',
  HEV: 'hev',
  EXTENDED_MULTIZONE: 'extended_multizone',
};

type Upgrade = ProductEntry['upgrades'][number];

/** One product in the vendor file's own style: the five flags every entry names, the others only when set. */
function productEntry(facts: RegistryFacts, old: ProductEntry | undefined): Record<string, unknown> {
  const has = (flag: string): boolean => facts.capabilities.includes(flag);
  for (const flag of facts.capabilities) if (FLAG_OF[flag] === undefined) throw new Error(`pid ${facts.pid}: unknown capability ${flag}`);
  const features: Record<string, unknown> = {};
  if (has('HEV')) features.hev = true;
  features.color = has('COLOR');
  features.chain = has('CHAIN');
  features.matrix = has('MATRIX');
  if (has('RELAYS')) features.relays = true;
  if (has('BUTTONS')) features.buttons = true;
  features.infrared = has('INFRARED');
  features.multizone = has('MULTIZONE');
  if (facts.temperatureRange !== null) features.temperature_range = [...facts.temperatureRange];
  // Extended multizone from the start, or from a firmware (an upgrade, as the vendor file writes it).
  if (has('EXTENDED_MULTIZONE') && facts.minExtMzFirmware === null) features.extended_multizone = true;
  const upgrades: Upgrade[] = [];
  if (has('EXTENDED_MULTIZONE') && facts.minExtMzFirmware !== null) {
    upgrades.push({ major: facts.minExtMzFirmware >>> 16, minor: facts.minExtMzFirmware & 0xffff, features: { extended_multizone: true } });
  }
  const oldRange = old?.features.temperature_range ?? null;
  const sameBase = JSON.stringify(oldRange) === JSON.stringify(facts.temperatureRange);
  for (const u of old?.upgrades ?? []) {
    if (u.features.extended_multizone !== undefined) continue;
    if (u.features.temperature_range !== undefined && !sameBase) continue;
    upgrades.push(u);
  }
  upgrades.sort((a, b) => a.major - b.major || a.minor - b.minor);
  return { pid: facts.pid, name: facts.name, features, upgrades };
}

export function buildProductsJson(oldVendors: readonly VendorEntry[], facts: readonly RegistryFacts[]): unknown[] {
  const vendorIds = [...new Set(facts.map((f) => f.vendor))].sort((a, b) => a - b);
  return vendorIds.map((vid) => {
    const oldVendor = oldVendors.find((v) => v.vid === vid);
    const oldProducts = new Map(oldVendor?.products.map((p) => [p.pid, p]));
    return {
      vid,
      name: oldVendor?.name ?? `Vendor ${vid}`,
      defaults: oldVendor?.defaults ?? {},
      products: facts
        .filter((f) => f.vendor === vid)
        .sort((a, b) => a.pid - b.pid)
        .map((f) => productEntry(f, oldProducts.get(f.pid))),
    };
  });
}

/** Where two generated registries disagree on a product, one line each. */
export function disagreements(a: readonly RegistryFacts[], b: readonly RegistryFacts[]): string[] {
  const byPid = new Map(b.map((f) => [f.pid, f]));
  const out: string[] = [];
  for (const f of a) {
    const g = byPid.get(f.pid);
    if (g === undefined) out.push(`pid ${f.pid}: only in the first`);
    else if (JSON.stringify(f) !== JSON.stringify(g)) out.push(`pid ${f.pid}: ${JSON.stringify(f)} vs ${JSON.stringify(g)}`);
    byPid.delete(f.pid);
  }
  for (const pid of byPid.keys()) out.push(`pid ${pid}: only in the second`);
  return out;
}

if (require.main === module) {
  const [oldFile, registryFile, ...checkFiles] = process.argv.slice(2);
  if (oldFile === undefined || registryFile === undefined) {
    console.error('usage: products-from-registry.ts OLD_PRODUCTS_JSON REGISTRY_PY [CHECK_REGISTRY_PY...]');
    process.exit(2);
  }
  const oldVendors = parseVendorRegistry(JSON.parse(readFileSync(oldFile, 'utf8')));
  const facts = parseRegistryPy(readFileSync(registryFile, 'utf8'));
  for (const check of checkFiles) {
    for (const line of disagreements(facts, parseRegistryPy(readFileSync(check, 'utf8')))) console.error(`${check}: ${line}`);
  }
  const out = buildProductsJson(oldVendors, facts);
  parseVendorRegistry(out);
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}
