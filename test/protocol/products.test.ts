// The product registry and capability resolution by firmware (https://lan.developer.lifx.com/docs/product-registry).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isLightwireError } from '../../core/errors.js';
import {
  PRODUCTS,
  ProductRegistry,
  capabilitiesFromFeatures,
  compareFirmware,
  parseVendorRegistry,
  resolveFeatures,
  type Capabilities,
} from '../../core/protocol/index.js';
import { PRODUCTS_DATA } from '../../core/protocol/products-data.js';
import { renderProductsModule } from '../../scripts/gen-products.js';
import { vendorFile } from './helpers.js';

const LIFX = 1;
const caps = (pid: number, major?: number, minor?: number): Capabilities =>
  PRODUCTS.get(LIFX, pid, major === undefined ? null : { major, minor: minor ?? 0 }).capabilities;

describe('products', () => {
  it('ships all 173 LIFX products of 2026, each known by (vid, pid)', () => {
    assert.equal(PRODUCTS.size, 173);
    const all = PRODUCTS.all();
    assert.equal(all.length, 173);
    assert.ok(all.every((p) => p.known && p.vendorId === LIFX && p.vendorName === 'LIFX'));
    assert.equal(new Set(all.map((p) => p.productId)).size, 173);
  });

  it('knows the products added since May 2025 by name and kelvin range (the Everyday line is 2700-6500 K)', () => {
    const expected: [number, string, number, number][] = [
      [191, 'LIFX Everyday A19', 2700, 6500],
      [192, 'LIFX Everyday A19 Intl', 2700, 6500],
      [207, 'LIFX Everyday Lightstrip', 2700, 6500],
      [208, 'LIFX Everyday Lightstrip Intl', 2700, 6500],
      [211, 'LIFX Everyday Permanent Outdoor US', 2700, 6500],
      [300, 'LIFX Everyday Permanent Outdoor US', 2700, 6500],
      [229, 'LIFX Path Intl', 1500, 9000],
      [265, 'LIFX Ceiling 13"', 1500, 9000],
      [266, 'LIFX Ceiling 13" Intl', 1500, 9000],
      [267, 'LIFX Mirror', 1500, 9000],
      [268, 'LIFX Mirror Intl', 1500, 9000],
    ];
    for (const [pid, name, minK, maxK] of expected) {
      const product = PRODUCTS.get(LIFX, pid);
      assert.equal(product.known, true, `pid ${pid}`);
      assert.equal(product.name, name);
      assert.deepEqual(product.capabilities.kelvinRange, { minK, maxK }, `pid ${pid}`);
    }
    assert.equal(caps(191).color, true);
    assert.equal(caps(207).multizone, true);
    assert.equal(caps(207).extendedMultizone, true);
    assert.equal(caps(207).buttons, true);
    assert.equal(caps(267).matrix && caps(267).buttons, true, 'the Mirror is a matrix with buttons');
    assert.equal(caps(219).buttons, true, 'the Luna has buttons now');
  });

  it('knows the Dimmer Switch (pid 226): relays and buttons, not a light', () => {
    const product = PRODUCTS.get(LIFX, 226);
    assert.equal(product.name, 'LIFX Dimmer Switch');
    assert.equal(product.capabilities.relays, true);
    assert.equal(product.capabilities.buttons, true);
    assert.equal(product.capabilities.isLight, false);
    assert.equal(product.capabilities.kelvinRange, null);
  });

  it('gives extended multizone only with multizone: pid 72 (granted it by the vendor file, no zones) has neither', () => {
    for (const firmware of [undefined, 2, 4]) {
      const c = firmware === undefined ? caps(72) : caps(72, firmware, 0);
      assert.equal(c.multizone, false);
      assert.equal(c.extendedMultizone, false);
    }
    const noZones = { pid: 1, name: 'Bulb', features: { color: true, temperature_range: [1500, 9000] }, upgrades: [{ major: 3, minor: 0, features: { extended_multizone: true } }] };
    const strip = { ...noZones, pid: 2, features: { ...noZones.features, multizone: true } };
    const registry = new ProductRegistry(parseVendorRegistry([{ vid: 1, name: 'LIFX', defaults: {}, products: [noZones, strip] }]));
    assert.equal(registry.get(1, 1, { major: 3, minor: 0 }).capabilities.extendedMultizone, false);
    assert.equal(registry.get(1, 2, { major: 3, minor: 0 }).capabilities.extendedMultizone, true);
    assert.equal(registry.get(1, 2, { major: 2, minor: 99 }).capabilities.extendedMultizone, false);
    assert.equal(resolveFeatures({}, noZones as never, { major: 3, minor: 0 }).extended_multizone, false);
    assert.equal(capabilitiesFromFeatures({ extended_multizone: true }).extendedMultizone, false);
  });

  it('compares firmware as a (major, minor) tuple: (3,0) is newer than (2,77), (2,80) < (3,60) < (3,70)', () => {
    assert.ok(compareFirmware({ major: 3, minor: 0 }, { major: 2, minor: 77 }) > 0);
    assert.ok(compareFirmware({ major: 2, minor: 80 }, { major: 3, minor: 60 }) < 0);
    assert.ok(compareFirmware({ major: 3, minor: 60 }, { major: 3, minor: 70 }) < 0);
    assert.equal(compareFirmware({ major: 2, minor: 77 }, { major: 2, minor: 77 }), 0);
  });

  it('gives the LIFX Z (pid 32) extended multizone from 2.77 and 1500 K from 2.80, not before', () => {
    const at276 = caps(32, 2, 76);
    assert.equal(at276.multizone, true);
    assert.equal(at276.extendedMultizone, false);
    assert.deepEqual(at276.kelvinRange, { minK: 2500, maxK: 9000 });

    const at277 = caps(32, 2, 77);
    assert.equal(at277.extendedMultizone, true);
    assert.deepEqual(at277.kelvinRange, { minK: 2500, maxK: 9000 });

    const at280 = caps(32, 2, 80);
    assert.equal(at280.extendedMultizone, true);
    assert.deepEqual(at280.kelvinRange, { minK: 1500, maxK: 9000 });
  });

  it('applies upgrades by tuple, so firmware 3.0 has the 2.77 upgrade (a per-part check would miss it)', () => {
    assert.equal(caps(32, 3, 0).extendedMultizone, true);
    assert.deepEqual(caps(32, 3, 0).kelvinRange, { minK: 1500, maxK: 9000 });
  });

  it('resolves base features without firmware (no upgrades)', () => {
    assert.equal(caps(32).extendedMultizone, false);
    assert.equal(PRODUCTS.get(LIFX, 32).firmware, null);
  });

  it('widens the LIFX A19 (pid 27) from 2500-9000 K to 1500-9000 K at 2.80', () => {
    assert.deepEqual(caps(27, 2, 79).kelvinRange, { minK: 2500, maxK: 9000 });
    assert.deepEqual(caps(27, 2, 80).kelvinRange, { minK: 1500, maxK: 9000 });
    assert.equal(caps(39, 2, 80).color, false);
    assert.equal(caps(39, 2, 80).variableColorTemp, true);
  });

  it('treats an unknown pid as a plain colour light, 1500-9000 K, and says it is unknown', () => {
    const product = PRODUCTS.get(LIFX, 9999, { major: 4, minor: 0 });
    assert.equal(product.known, false);
    assert.equal(product.name, 'Unknown product 1:9999');
    assert.equal(product.vendorName, 'LIFX');
    assert.deepEqual(product.capabilities, {
      color: true,
      variableColorTemp: true,
      kelvinRange: { minK: 1500, maxK: 9000 },
      infrared: false,
      multizone: false,
      extendedMultizone: false,
      matrix: false,
      chain: false,
      hev: false,
      relays: false,
      buttons: false,
      unhandled: false,
      isLight: true,
    });
    const otherVendor = PRODUCTS.get(42, 1);
    assert.equal(otherVendor.known, false);
    assert.equal(otherVendor.vendorName, 'Vendor 42');
  });

  it('knows the Switch (pid 70) is not a light: relays, buttons, StateUnhandled, no kelvin range', () => {
    for (const pid of [70, 71, 84, 89, 115, 116, 226]) {
      const c = caps(pid);
      assert.equal(c.isLight, false, `pid ${pid}`);
      assert.equal(c.unhandled, true);
      assert.equal(c.relays, true);
      assert.equal(c.buttons, true);
      assert.equal(c.kelvinRange, null);
      assert.equal(c.color, false);
    }
    assert.equal(PRODUCTS.get(LIFX, 70).name, 'LIFX Switch');
    assert.equal(PRODUCTS.all().filter((p) => !p.capabilities.isLight).length, 7);
  });

  it('gives lights their kelvin ranges: 2500-9000 (Original 1000), fixed 2700 (no variable temperature), 1500-9000 (Candle)', () => {
    assert.deepEqual(caps(1).kelvinRange, { minK: 2500, maxK: 9000 });
    assert.deepEqual(caps(57).kelvinRange, { minK: 1500, maxK: 9000 });
    assert.equal(caps(57).matrix, true);
    const fixed = PRODUCTS.all().filter((p) => p.capabilities.kelvinRange?.minK === p.capabilities.kelvinRange?.maxK && p.capabilities.isLight);
    assert.ok(fixed.length > 0);
    assert.ok(fixed.every((p) => !p.capabilities.variableColorTemp));
    assert.ok(fixed.some((p) => p.capabilities.kelvinRange?.minK === 2700));
    assert.equal(caps(90).hev, true, 'LIFX Clean has HEV');
    assert.equal(caps(117).extendedMultizone, true, 'newer strips have extended multizone in their base features');
  });

  it('returns frozen products and capabilities', () => {
    const product = PRODUCTS.get(LIFX, 32, { major: 2, minor: 80 });
    assert.ok(Object.isFrozen(product));
    assert.ok(Object.isFrozen(product.capabilities));
  });
});

describe('products: registry data validation', () => {
  const throwsInvalid = (raw: unknown, reason: RegExp): void => {
    assert.throws(
      () => parseVendorRegistry(raw),
      (err: unknown) => isLightwireError(err, 'PRODUCT_DATA_INVALID') && reason.test(err.params.reason),
    );
  };
  const vendor = (products: unknown[], extra: Record<string, unknown> = {}): unknown[] => [{ vid: 1, name: 'LIFX', defaults: {}, products, ...extra }];

  it('rejects a document that is not an array of vendors', () => {
    throwsInvalid({ vid: 1 }, /top level must be an array/);
    throwsInvalid([null], /vendor #0 must be an object/);
    throwsInvalid([{ vid: 'one', products: [] }], /vid must be an integer/);
    throwsInvalid([{ vid: 1, products: {} }], /products must be an array/);
  });

  it('rejects products without an integer pid or a string name, and bad upgrades', () => {
    throwsInvalid(vendor([{ name: 'x' }]), /pid must be an integer/);
    throwsInvalid(vendor([{ pid: 1, name: 3 }]), /product 1:1: name must be a string/);
    throwsInvalid(vendor([{ pid: 1, name: 'x', upgrades: {} }]), /upgrades must be an array/);
    throwsInvalid(vendor([{ pid: 1, name: 'x', upgrades: [{ major: 2, minor: '77', features: {} }] }]), /upgrade #0: major and minor/);
    throwsInvalid(vendor([{ pid: 1, name: 'x', upgrades: [{ major: 2, minor: 77 }] }]), /upgrade #0: features must be an object/);
  });

  it('rejects features of the wrong type: a non-boolean flag or a malformed temperature range', () => {
    throwsInvalid(vendor([{ pid: 1, name: 'x', features: { color: 'yes' } }]), /color must be true or false/);
    throwsInvalid(vendor([{ pid: 1, name: 'x', features: { temperature_range: [2500] } }]), /temperature_range/);
    throwsInvalid(vendor([{ pid: 1, name: 'x', features: { temperature_range: [0, 9000] } }]), /temperature_range/);
    throwsInvalid(vendor([], { defaults: { hev: 1 } }), /vendor 1 defaults: hev must be true or false/);
    throwsInvalid(vendor([{ pid: 1, name: 'x', features: [] }]), /features must be an object/);
  });

  it('drops the legacy min_ext_mz_firmware keys and keeps known features', () => {
    const [v] = parseVendorRegistry(vendor([{ pid: 32, name: 'Z', features: { multizone: true, min_ext_mz_firmware: 1532997580, min_ext_mz_firmware_components: [2, 77] } }]));
    assert.deepEqual(v!.products[0]!.features, { multizone: true });
  });

  it('builds a registry from parsed data whose capabilities follow its defaults', () => {
    const registry = new ProductRegistry(
      parseVendorRegistry([
        { vid: 7, name: 'Acme', defaults: { color: true, temperature_range: [2000, 6000] }, products: [{ pid: 1, name: 'Bulb', features: {} }] },
      ]),
    );
    const c = registry.get(7, 1).capabilities;
    assert.equal(c.color, true);
    assert.deepEqual(c.kelvinRange, { minK: 2000, maxK: 6000 });
  });
});

describe('products: generated module', () => {
  it('is in sync with test/fixtures/vendor/products.json (run npm run gen:products if not)', () => {
    const generated = readFileSync(path.resolve(__dirname, '../../core/protocol/products-data.ts'), 'utf8');
    assert.equal(renderProductsModule(readFileSync(vendorFile('products.json'), 'utf8')), generated);
  });

  it('holds the registry as one compact JSON text parsed at load, the same data as the vendor file', () => {
    // Every process that loads the package keeps each module's source text in its heap: the indented object literal
    // compiled to 92 KB of JavaScript (and was built with the literal's bytecode); the compact JSON text is 36 KB.
    const vendors = parseVendorRegistry(JSON.parse(readFileSync(vendorFile('products.json'), 'utf8')));
    assert.deepEqual(PRODUCTS_DATA, vendors);
    const generated = readFileSync(path.resolve(__dirname, '../../core/protocol/products-data.ts'), 'utf8');
    const literal = /= JSON\.parse\(("(?:[^"\\]|\\.)*")\) as VendorRegistry;/.exec(generated);
    assert.ok(literal !== null, 'PRODUCTS_DATA is not JSON.parse of one string literal');
    assert.equal(JSON.parse(literal[1]!), JSON.stringify(vendors));
  });

  it('refuses to render malformed registry data', () => {
    assert.throws(() => renderProductsModule('{"vid": 1}'), (err: unknown) => isLightwireError(err, 'PRODUCT_DATA_INVALID'));
  });
});
