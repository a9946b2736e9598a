// The products of 2026 through the service, against virtual lights: a light of each product id added since the
// registry of May 2025 shows its name and kelvin range; a matrix light shows the tiles the device reports
// (StateDeviceChain), not a table's; and a products.json given at run time is laid over the bundled registry for
// that service alone, or reported (PRODUCTS_FILE_INVALID) with the bundled registry still in use.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { isLightwireError, LightService, type LightView } from '../../core/index.js';
import { Fleet } from '../../core/simulator/index.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';

const BROADCAST = '127.255.255.255';
const serialOf = (i: number): string => `d073d5${(0xa00 + i).toString(16).padStart(6, '0')}`;

/**
 * Every product id the registry gained since LIFX/products 03ff681 (May 2025), with the name and kelvin range the
 * 2026 sources give it (test/fixtures/vendor/README.md); null: no light (a switch).
 */
const NEW_PRODUCTS: readonly (readonly [number, string, readonly [number, number] | null])[] = [
  [2, 'Original 1000', [2500, 9000]],
  [12, 'LIFX LCMv4 White OEM (A19 LV)', [2700, 2700]],
  [13, 'LIFX LCMv4 White OEM (A19 HV)', [2700, 2700]],
  [14, 'LIFX Carbon Prototype', [2500, 9000]],
  [21, 'LIFX LCMv4 Color (GU10)', [2500, 9000]],
  [23, 'LIFX (A19)', [2500, 9000]],
  [24, 'LIFX (BR30)', [2500, 9000]],
  [25, 'LIFX+ (A19)', [2500, 9000]],
  [26, 'LIFX+ (BR30)', [2500, 9000]],
  [33, 'LIFX Downlight', [2500, 9000]],
  [54, 'LIFX GU10 White', [2700, 2700]],
  [56, 'LIFX Beam', [2500, 9000]],
  [67, 'LIFX Candle WW', [2200, 6500]],
  [72, 'LIFX A19', [1500, 9000]],
  [84, 'LIFX Switch', null],
  [86, 'LIFX Filament Smokey', [2200, 2200]],
  [102, 'LIFX Filament Smokey', [2200, 2200]],
  [151, 'LIFX Neon Outdoor', [1500, 9000]],
  [152, 'LIFX Neon Outdoor', [1500, 9000]],
  [153, 'LIFX PAR38 US', [1500, 9000]],
  [154, 'LIFX PAR38 Intl', [1500, 9000]],
  [155, 'LIFX Sunshine', [1500, 9000]],
  [156, 'LIFX A21 1000lm Intl', [1500, 9000]],
  [172, 'LIFX Spot', [1500, 9000]],
  [191, 'LIFX Everyday A19', [2700, 6500]],
  [192, 'LIFX Everyday A19 Intl', [2700, 6500]],
  [207, 'LIFX Everyday Lightstrip', [2700, 6500]],
  [208, 'LIFX Everyday Lightstrip Intl', [2700, 6500]],
  [211, 'LIFX Everyday Permanent Outdoor US', [2700, 6500]],
  [226, 'LIFX Dimmer Switch', null],
  [229, 'LIFX Path Intl', [1500, 9000]],
  [265, 'LIFX Ceiling 13"', [1500, 9000]],
  [266, 'LIFX Ceiling 13" Intl', [1500, 9000]],
  [267, 'LIFX Mirror', [1500, 9000]],
  [268, 'LIFX Mirror Intl', [1500, 9000]],
  [300, 'LIFX Everyday Permanent Outdoor US', [2700, 6500]],
];

function startService(fleet: Fleet, extra: { products?: string } = {}): Promise<LightService> {
  return LightService.start({
    discovery: { broadcastAddresses: [BROADCAST], port: fleet.port, burstScheduleMs: [0, 200, 600], refreshIntervalMs: 0, readTimeoutMs: 1500 },
    transport: { requestTimeoutMs: 2000 },
    expectLights: fleet.lights.length,
    readyTimeoutMs: 8000,
    ...extra,
  });
}

describe('LightService and the products of 2026 (virtual lights)', function () {
  this.timeout(30_000);

  describe('a light of each product id added since May 2025', () => {
    let fleet: Fleet;
    let service: LightService;
    before(async () => {
      fleet = new Fleet({ lights: NEW_PRODUCTS.map(([pid], i): LightInput => ({ serial: serialOf(i), product: pid, label: `P${pid}` })) }, { port: 0 });
      await fleet.start();
      service = await startService(fleet);
      await service.ready;
    });
    after(async () => {
      await service.stop();
      await fleet.stop();
    });

    for (const [i, [pid, name, range]] of NEW_PRODUCTS.entries()) {
      it(`pid ${pid} shows as ${name}, ${range === null ? 'no light' : `${range[0]}-${range[1]} K`}`, () => {
        const view = service.light(serialOf(i));
        expect(view, `pid ${pid} was read`).to.not.equal(undefined);
        expect(view!.product).to.include({ productId: pid, name, known: true });
        expect(view!.capabilities.kelvinRange).to.deep.equal(range === null ? null : { minK: range[0], maxK: range[1] });
        expect(view!.capabilities.isLight).to.equal(range !== null);
      });
    }

    it('keeps the Dimmer Switch (226) out of the lights, with the 2 relays it has', async () => {
      const dimmer = serialOf(NEW_PRODUCTS.findIndex(([pid]) => pid === 226));
      expect(service.list().map((l) => l.id)).to.not.include(dimmer);
      expect((await service.relays(dimmer)).map((r) => r.index)).to.deep.equal([0, 1]);
    });

    it('lists the Everyday A19 in the v1 records with 2700-6500 K, not an unknown product at 1500-9000 K', () => {
      const record = service.list().find((l) => l.id === serialOf(NEW_PRODUCTS.findIndex(([pid]) => pid === 191)))!;
      expect(record.product).to.include({ name: 'LIFX Everyday A19' });
      expect(record.product.capabilities).to.include({ min_kelvin: 2700, max_kelvin: 6500 });
    });
  });

  describe('matrix geometry, as the device reports it', () => {
    const CANDLE = 'd073d5000b01';
    const CAPSULE = 'd073d5000b02';
    const LUNA = 'd073d5000b03';
    const WIDE = 'd073d5000b04';
    const BULB = 'd073d5000b05';
    let fleet: Fleet;
    let service: LightService;
    before(async () => {
      fleet = new Fleet(
        {
          lights: [
            { serial: CANDLE, product: 137 },
            { serial: CAPSULE, product: 201 },
            { serial: LUNA, product: 219 },
            // A Tile chain whose tiles the fleet file makes 6 x 4: the core must take the device's word for it.
            { serial: WIDE, product: 55, tileCount: 2, tileWidth: 6, tileHeight: 4 },
            { serial: BULB, product: 191 },
          ],
        },
        { port: 0 },
      );
      await fleet.start();
      service = await startService(fleet);
      await service.ready;
    });
    after(async () => {
      await service.stop();
      await fleet.stop();
    });

    const matrixOf = (serial: string): LightView['matrix'] => service.light(serial)!.matrix;

    it('shows a Candle as one 5 x 6 tile of 30 zones', () => {
      expect(matrixOf(CANDLE)).to.deep.equal({ tiles: [{ width: 5, height: 6 }], zoneCount: 30 });
    });

    it('shows a Ceiling Capsule as one 16 x 8 tile of 128 zones', () => {
      expect(matrixOf(CAPSULE)).to.deep.equal({ tiles: [{ width: 16, height: 8 }], zoneCount: 128 });
    });

    it('shows a Luna as 7 x 5', () => {
      expect(matrixOf(LUNA)).to.deep.equal({ tiles: [{ width: 7, height: 5 }], zoneCount: 35 });
    });

    it('shows what the device reports even where no product table would say it (a 6 x 4 chain of two)', () => {
      expect(matrixOf(WIDE)).to.deep.equal({ tiles: [{ width: 6, height: 4 }, { width: 6, height: 4 }], zoneCount: 48 });
      expect(fleet.light(WIDE).receivedCount('GetDeviceChain')).to.be.at.least(1);
    });

    it('shows no matrix for a bulb, and never asks it for one', () => {
      expect(matrixOf(BULB)).to.equal(null);
      expect(fleet.light(BULB).receivedCount('GetDeviceChain')).to.equal(0);
    });
  });

  describe('a products.json given at run time', () => {
    const FUTURE = 'd073d5000c01';
    const EVERYDAY = 'd073d5000c02';
    let dir: string;
    let fleet: Fleet;
    const services: LightService[] = [];
    const newer = [
      {
        vid: 1,
        name: 'LIFX',
        defaults: { color: false, temperature_range: null },
        products: [
          { pid: 9999, name: 'LIFX Future Lamp', features: { color: true, temperature_range: [2000, 7000] }, upgrades: [] },
          { pid: 191, name: 'LIFX Everyday A19 (renamed)', features: { color: true, temperature_range: [2700, 6000] }, upgrades: [] },
        ],
      },
    ];

    before(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-products-'));
      fleet = new Fleet(
        {
          lights: [
            { serial: FUTURE, product: 9999, features: { color: true, temperature_range: [2000, 7000] } },
            { serial: EVERYDAY, product: 191 },
          ],
        },
        { port: 0 },
      );
      await fleet.start();
    });
    afterEach(async () => {
      for (const s of services.splice(0)) await s.stop();
    });
    after(async () => {
      await fleet.stop();
      await rm(dir, { recursive: true, force: true });
    });

    async function serviceWith(file: string | undefined): Promise<{ service: LightService; errors: Error[] }> {
      const errors: Error[] = [];
      const service = new LightService({
        discovery: { broadcastAddresses: [BROADCAST], port: fleet.port, burstScheduleMs: [0, 200, 600], refreshIntervalMs: 0, readTimeoutMs: 1500 },
        transport: { requestTimeoutMs: 2000 },
        expectLights: 2,
        readyTimeoutMs: 8000,
        ...(file === undefined ? {} : { products: file }),
      });
      service.on('error', (err) => errors.push(err));
      services.push(service);
      await service.start();
      await service.ready;
      return { service, errors };
    }

    it('knows a product newer than the package, and overrides a bundled one, for that service alone', async () => {
      const file = path.join(dir, 'products.json');
      await writeFile(file, JSON.stringify(newer));
      const withFile = await serviceWith(file);
      const plain = await serviceWith(undefined);
      expect(withFile.errors).to.deep.equal([]);
      expect(withFile.service.light(FUTURE)!.product).to.include({ name: 'LIFX Future Lamp', known: true });
      expect(withFile.service.light(FUTURE)!.capabilities.kelvinRange).to.deep.equal({ minK: 2000, maxK: 7000 });
      expect(withFile.service.light(EVERYDAY)!.product!.name).to.equal('LIFX Everyday A19 (renamed)');
      expect(withFile.service.light(EVERYDAY)!.capabilities.kelvinRange).to.deep.equal({ minK: 2700, maxK: 6000 });
      // The other service in this process still has the bundled registry only.
      expect(plain.service.light(FUTURE)!.product).to.include({ name: 'Unknown product 1:9999', known: false });
      expect(plain.service.light(EVERYDAY)!.product!.name).to.equal('LIFX Everyday A19');
    });

    const malformed: readonly (readonly [string, string, RegExp])[] = [
      ['bad JSON', '[{"vid": 1,', /not JSON/],
      ['the wrong shape', '{"vid": 1, "products": []}', /top level must be an array/],
      ['a bad field', JSON.stringify([{ vid: 1, products: [{ pid: 191, name: 'x', features: { temperature_range: [6500] } }] }]), /product 1:191: temperature_range/],
    ];
    for (const [what, text, reason] of malformed) {
      it(`reports a file with ${what} as PRODUCTS_FILE_INVALID and goes on with the bundled registry`, async () => {
        const file = path.join(dir, `bad-${what.replace(/\W+/g, '-')}.json`);
        await writeFile(file, text);
        const { service, errors } = await serviceWith(file);
        expect(errors).to.have.length(1);
        const err = errors[0]!;
        expect(isLightwireError(err, 'PRODUCTS_FILE_INVALID')).to.equal(true);
        expect(isLightwireError(err, 'PRODUCTS_FILE_INVALID') && err.params).to.deep.include({ file });
        expect(err.message).to.match(reason);
        expect(err.message).to.include('the bundled product registry stays in use');
        expect(service.light(EVERYDAY)!.product).to.include({ name: 'LIFX Everyday A19', known: true });
        expect(service.light(EVERYDAY)!.capabilities.kelvinRange).to.deep.equal({ minK: 2700, maxK: 6500 });
      });
    }

    it('reports a file that is not there, and goes on', async () => {
      const { service, errors } = await serviceWith(path.join(dir, 'missing.json'));
      expect(errors.map((e) => (isLightwireError(e) ? e.code : e.message))).to.deep.equal(['PRODUCTS_FILE_INVALID']);
      expect(errors[0]!.message).to.match(/no such file/);
      expect(service.light(EVERYDAY)!.product!.name).to.equal('LIFX Everyday A19');
    });
  });
});
