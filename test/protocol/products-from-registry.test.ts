// scripts/products-from-registry.ts: the converter that rebuilt test/fixtures/vendor/products.json from a generated
// Python registry (README there). Checked on a small registry written here in the generated file's form.

import assert from 'node:assert/strict';
import { parseVendorRegistry } from '../../core/protocol/index.js';
import { buildProductsJson, disagreements, parseRegistryPy } from '../../scripts/products-from-registry.js';

const REGISTRY_PY = `
PRODUCTS: dict[int, ProductInfo] = {
    32: ProductInfo(
        pid=32,
        name="LIFX Z",
        vendor=1,
        capabilities=ProductCapability.COLOR
        | ProductCapability.MULTIZONE
        | ProductCapability.EXTENDED_MULTIZONE,
        temperature_range=TemperatureRange(min=2500, max=9000),
        min_ext_mz_firmware=131149,
    ),
    226: ProductInfo(
        pid=226,
        name="LIFX Dimmer Switch",
        vendor=1,
        capabilities=ProductCapability.RELAYS | ProductCapability.BUTTONS,
        temperature_range=None,
        min_ext_mz_firmware=None,
    ),
    265: ProductInfo(
        pid=265,
        name='LIFX Ceiling 13"',
        vendor=1,
        capabilities=ProductCapability.COLOR | ProductCapability.MATRIX,
        temperature_range=TemperatureRange(min=1500, max=9000),
        min_ext_mz_firmware=None,
    ),
}

def get_product(pid):
        return ProductInfo(
            pid=0,
            name="LIFX Light",
            vendor=1,
            capabilities=0,
            temperature_range=None,
            min_ext_mz_firmware=None,
        )
`;

const OLD = parseVendorRegistry([
  {
    vid: 1,
    name: 'LIFX',
    defaults: { color: false },
    products: [
      {
        pid: 32,
        name: 'LIFX Z (old name)',
        features: { color: true, multizone: true, temperature_range: [2500, 9000] },
        upgrades: [
          { major: 2, minor: 77, features: { extended_multizone: true } },
          { major: 2, minor: 80, features: { temperature_range: [1500, 9000] } },
        ],
      },
    ],
  },
]);

describe('scripts/products-from-registry', () => {
  it('reads every product of a generated registry.py, single-quoted names too, and not the fallback for unknown ids', () => {
    const facts = parseRegistryPy(REGISTRY_PY);
    assert.deepEqual(facts.map((f) => f.pid), [32, 226, 265]);
    assert.equal(facts[2]!.name, 'LIFX Ceiling 13"');
    assert.deepEqual(facts[0]!.capabilities, ['COLOR', 'EXTENDED_MULTIZONE', 'MULTIZONE']);
    assert.equal(facts[0]!.minExtMzFirmware, (2 << 16) | 77);
    assert.equal(facts[1]!.temperatureRange, null);
  });

  it('writes the vendor file shape: names from the registry, extended multizone as its firmware upgrade, older kelvin upgrades kept', () => {
    const [vendor] = buildProductsJson(OLD, parseRegistryPy(REGISTRY_PY)) as { products: { pid: number; name: string; features: Record<string, unknown>; upgrades: unknown[] }[] }[];
    const [z, dimmer, ceiling] = vendor!.products;
    assert.equal(z!.name, 'LIFX Z');
    assert.deepEqual(z!.upgrades, [
      { major: 2, minor: 77, features: { extended_multizone: true } },
      { major: 2, minor: 80, features: { temperature_range: [1500, 9000] } },
    ]);
    assert.equal(z!.features.extended_multizone, undefined);
    assert.deepEqual(dimmer!.features, { color: false, chain: false, matrix: false, relays: true, buttons: true, infrared: false, multizone: false });
    assert.deepEqual(ceiling!.features, { color: true, chain: false, matrix: true, infrared: false, multizone: false, temperature_range: [1500, 9000] });
    // What it writes is a registry the generator accepts.
    assert.equal(parseVendorRegistry([vendor])[0]!.products.length, 3);
  });

  it('says where two registries disagree', () => {
    const a = parseRegistryPy(REGISTRY_PY);
    const b = parseRegistryPy(REGISTRY_PY.replace('| ProductCapability.BUTTONS', ''));
    assert.deepEqual(disagreements(a, a), []);
    const lines = disagreements(a, b);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /^pid 226: /);
  });
});
