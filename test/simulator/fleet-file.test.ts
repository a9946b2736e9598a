import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isLightwireError } from '../../core/errors.js';
import { PRODUCTS } from '../../core/protocol/products.js';
import { defaultFleet, defaultSerial } from '../../core/simulator/default-fleet.js';
import { idFromLabel, loadFleetFile, parseFleet, type FleetInput } from '../../core/simulator/fleet-file.js';
import { Fleet } from '../../core/simulator/fleet.js';

const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'fleet.json');
const ok = { serial: 'd073d5000001', product: 91 };

/** The FLEET_INVALID path and reason for a document, or null when it is valid. */
function failure(raw: unknown): { path: string; reason: string } | null {
  try {
    parseFleet(raw);
    return null;
  } catch (err) {
    if (!isLightwireError(err, 'FLEET_INVALID')) throw err;
    return err.params;
  }
}

describe('simulator fleet files', () => {
  it('loads examples/fleet.json with every light, product and fault it documents', async () => {
    const spec = await loadFleetFile(EXAMPLE);
    expect(spec.lights).to.have.length(15);
    const strip = spec.lights.find((l) => l.serial === 'd073d5000004')!;
    expect(strip.zoneCount).to.equal(120);
    expect(strip.product.capabilities.extendedMultizone).to.equal(true);
    const porch = spec.lights.find((l) => l.serial === 'd073d5000007')!;
    expect(porch.faults).to.deep.include({ lossProbability: 0.2, lossInProbability: 0.2, lossOutProbability: 0.1, latencyMs: 80, offline: false });
    expect(spec.lights.find((l) => l.serial === 'd073d5000008')!.faults).to.deep.include({ duplicateReplies: true, reorderProbability: 0.2, reorderDelayMs: 150 });
    expect(porch.group.id).to.equal('0123456789abcdef0123456789abcdef');
    expect(spec.lights.find((l) => l.serial === 'd073d5000005')!.tileCount).to.equal(5);
    expect(spec.lights.find((l) => l.serial === 'd073d500000a')!.faults.offline).to.equal(true);
    expect(spec.lights.find((l) => l.serial === 'd073d500000b')!).to.include({ tileCount: 1, tileWidth: 16, tileHeight: 8 });
    expect(spec.lights.find((l) => l.serial === 'd073d500000c')!).to.include({ tileWidth: 7, tileHeight: 5, buttonCount: 4 });
    expect(spec.lights.find((l) => l.serial === 'd073d500000d')!).to.include({ tileCount: 2, tileWidth: 6, tileHeight: 4 });
    expect(spec.lights.find((l) => l.serial === 'd073d500000e')!).to.include({ relayCount: 2, buttonCount: 2, tileCount: 0 });
    expect(spec.lights.find((l) => l.serial === 'd073d500000f')!.product.capabilities.kelvinRange).to.deep.equal({ minK: 2700, maxK: 6500 });
  });

  it('fills defaults: vendor 1, firmware 3.70, power on, white 3500 K, a label from the product and serial', () => {
    const [light] = parseFleet({ lights: [ok] }, 5n).lights;
    expect(light!.product.vendorId).to.equal(1);
    expect(light!.firmware).to.deep.equal({ major: 3, minor: 70 });
    expect(light!.power).to.equal('on');
    expect(light!.color).to.deep.equal({ hue: 0, saturation: 0, brightness: 1, kelvin: 3500 });
    expect(light!.label).to.equal('Color 800lm 000001');
    expect(light!.group.updatedAtNs).to.equal(5n);
  });

  it('brings the default 3500 K inside the product temperature range, and keeps a kelvin the file gives', () => {
    const lights = parseFleet({
      lights: [
        { serial: 'd073d5000001', product: 51 },
        { serial: 'd073d5000002', product: 81 },
        { serial: 'd073d5000003', product: 61, color: { kelvin: 4000 } },
        { serial: 'd073d5000004', product: 70 },
      ],
    }).lights;
    expect(lights.map((l) => l.product.capabilities.kelvinRange)).to.deep.equal([
      { minK: 2700, maxK: 2700 }, { minK: 2200, maxK: 6500 }, { minK: 2700, maxK: 2700 }, null,
    ]);
    expect(lights.map((l) => l.color.kelvin)).to.deep.equal([2700, 3500, 4000, 3500]);
  });

  it('makes a product the registry does not know, with the features the file gives over a plain colour light', () => {
    const [strip, other] = parseFleet({
      lights: [
        { serial: 'd073d5000001', vendor: 1, product: 9999, features: { multizone: true, extended_multizone: true }, zoneCount: 30 },
        { serial: 'd073d5000002', vendor: 77, product: 1, features: { color: false, temperature_range: null, relays: true } },
      ],
    }).lights;
    expect(strip!.product).to.include({ vendorId: 1, productId: 9999, known: false, name: 'Unknown product 1:9999' });
    expect(strip!.product.capabilities).to.include({ color: true, multizone: true, extendedMultizone: true, matrix: false, isLight: true });
    expect(strip!.product.capabilities.kelvinRange).to.deep.equal({ minK: 1500, maxK: 9000 });
    expect(strip!.zoneCount).to.equal(30);
    expect(other!.product.capabilities).to.include({ isLight: false, relays: true, unhandled: true });
  });

  it('gives lights with the same group label the same group id', () => {
    const spec = parseFleet({ lights: [{ ...ok, group: { label: 'Den' } }, { serial: 'd073d5000002', product: 91, group: { label: 'Den' } }] });
    expect(spec.lights[0]!.group.id).to.equal(spec.lights[1]!.group.id);
    expect(spec.lights[0]!.group.id).to.equal(idFromLabel('group', 'Den'));
    expect(spec.lights[0]!.group.id).to.match(/^[0-9a-f]{32}$/);
  });

  it('names the exact path of a bad value, like lights[3].color.hue', () => {
    const lights = [ok, { ...ok, serial: 'd073d5000002' }, { ...ok, serial: 'd073d5000003' }, { ...ok, serial: 'd073d5000004', color: { hue: 400 } }];
    expect(failure({ lights })).to.deep.equal({ path: 'lights[3].color.hue', reason: 'must be from 0 to 360, got 400' });
  });

  const cases: [string, unknown, string, RegExp][] = [
    ['an unknown key', { lights: [{ ...ok, colour: {} }] }, 'lights[0].colour', /unknown key/],
    ['a missing serial', { lights: [{ product: 91 }] }, 'lights[0].serial', /required/],
    ['a serial that is not 12 hex digits', { lights: [{ ...ok, serial: 'd073d5' }] }, 'lights[0].serial', /12 hex digits/],
    ['a duplicate serial', { lights: [ok, { ...ok, serial: 'D073D5000001' }] }, 'lights[1].serial', /already used by lights\[0\]/],
    ['a product not in the registry', { lights: [{ ...ok, product: 9999 }] }, 'lights[0].product', /not in the product registry .*features/],
    ['features of a product in the registry', { lights: [{ ...ok, features: { multizone: true } }] }, 'lights[0].features', /only for products the registry does not know/],
    ['an unknown feature', { lights: [{ ...ok, product: 9999, features: { zones: true } }] }, 'lights[0].features.zones', /unknown key/],
    ['a feature that is not a boolean', { lights: [{ ...ok, product: 9999, features: { hev: 1 } }] }, 'lights[0].features.hev', /true or false/],
    ['a kelvin range upside down', { lights: [{ ...ok, product: 9999, features: { temperature_range: [6500, 2700] } }] }, 'lights[0].features.temperature_range[1]', /2700/],
    ['a saturation above 1', { lights: [{ ...ok, color: { saturation: 1.5 } }] }, 'lights[0].color.saturation', /0 to 1/],
    ['a kelvin below 1500', { lights: [{ ...ok, color: { kelvin: 1000 } }] }, 'lights[0].color.kelvin', /1500 to 9000/],
    ['a power that is not on or off', { lights: [{ ...ok, power: true }] }, 'lights[0].power', /"on" or "off"/],
    ['a label over 32 bytes', { lights: [{ ...ok, label: 'é'.repeat(17) }] }, 'lights[0].label', /32 bytes/],
    ['zones on a bulb', { lights: [{ ...ok, zoneCount: 16 }] }, 'lights[0].zoneCount', /only for multizone/],
    ['too many zones', { lights: [{ ...ok, product: 32, zoneCount: 256 }] }, 'lights[0].zoneCount', /1 to 255/],
    ['tiles on a strip', { lights: [{ ...ok, product: 32, tileCount: 2 }] }, 'lights[0].tileCount', /only for matrix/],
    ['a chain on a candle', { lights: [{ ...ok, product: 137, tileCount: 2 }] }, 'lights[0].tileCount', /1 to 1/],
    ['infrared on a plain bulb', { lights: [{ ...ok, infrared: 0.5 }] }, 'lights[0].infrared', /only for infrared/],
    ['a colour on the Switch', { lights: [{ ...ok, product: 70, color: { hue: 1 } }] }, 'lights[0].color', /only for light/],
    ['a lux on the Switch (no light, no sensor)', { lights: [{ ...ok, product: 70, lux: 5 }] }, 'lights[0].lux', /only for light/],
    ['a negative lux', { lights: [{ ...ok, lux: -1 }] }, 'lights[0].lux', /0 to 1000000/],
    ['a loss probability above 1', { lights: [{ ...ok, faults: { lossProbability: 1.2 } }] }, 'lights[0].faults.lossProbability', /0 to 1/],
    ['a reply loss probability above 1', { lights: [{ ...ok, faults: { lossOutProbability: 1.01 } }] }, 'lights[0].faults.lossOutProbability', /0 to 1/],
    ['an incoming loss that is not a number', { lights: [{ ...ok, faults: { lossInProbability: '0.1' } }] }, 'lights[0].faults.lossInProbability', /must be a number/],
    ['a shorthand that contradicts lossInProbability', { lights: [{ ...ok, faults: { lossProbability: 0.1, lossInProbability: 0.2 } }] }, 'lights[0].faults.lossProbability', /shorthand for lossInProbability/],
    ['a negative reorder probability', { lights: [{ ...ok, faults: { reorderProbability: -0.1 } }] }, 'lights[0].faults.reorderProbability', /0 to 1/],
    ['a reorder delay over a minute', { lights: [{ ...ok, faults: { reorderDelayMs: 60_001 } }] }, 'lights[0].faults.reorderDelayMs', /0 to 60000/],
    ['an unknown fault', { lights: [{ ...ok, faults: { lossOut: 0.1 } }] }, 'lights[0].faults.lossOut', /unknown key .*lossOutProbability/],
    ['an unknown malformed mode', { lights: [{ ...ok, faults: { malformedReplies: 'sometimes' } }] }, 'lights[0].faults.malformedReplies', /"instead"/],
    ['a negative latency', { lights: [{ ...ok, faults: { latencyMs: -1 } }] }, 'lights[0].faults.latencyMs', /0 to 60000/],
    ['a bad group id', { lights: [{ ...ok, group: { id: 'xyz', label: 'A' } }] }, 'lights[0].group.id', /32 hex digits/],
    ['a firmware without minor', { lights: [{ ...ok, firmware: { major: 3 } }] }, 'lights[0].firmware', /major and minor/],
    ['no lights', { lights: [] }, 'lights', /at least one/],
    ['lights that are not an array', { lights: {} }, 'lights', /array/],
    ['a document that is not an object', [ok], '', /must be an object/],
  ];
  for (const [what, raw, where, reason] of cases) {
    it(`rejects ${what} with FLEET_INVALID at ${where || 'the top level'}`, () => {
      const got = failure(raw);
      expect(got, 'expected FLEET_INVALID').to.not.equal(null);
      expect(got!.path).to.equal(where);
      expect(got!.reason).to.match(reason);
    });
  }

  it('reads loss per direction and reordering, with lossProbability as shorthand for lossInProbability', () => {
    const spec = parseFleet({
      lights: [
        { ...ok, faults: { lossInProbability: 0.1, lossOutProbability: 0.2, reorderProbability: 0.3, reorderDelayMs: 40 } },
        { ...ok, serial: 'd073d5000002', faults: { lossProbability: 0.5 } },
        { ...ok, serial: 'd073d5000003' },
      ],
    });
    expect(spec.lights[0]!.faults).to.deep.include({ lossInProbability: 0.1, lossProbability: 0.1, lossOutProbability: 0.2, reorderProbability: 0.3, reorderDelayMs: 40 });
    expect(spec.lights[1]!.faults).to.deep.include({ lossInProbability: 0.5, lossProbability: 0.5, lossOutProbability: 0 });
    expect(spec.lights[2]!.faults).to.deep.include({ lossInProbability: 0, lossOutProbability: 0, reorderProbability: 0, reorderDelayMs: 100 });
  });

  it('accepts malformedReplies true as "also" and false as "off"', () => {
    const spec = parseFleet({ lights: [{ ...ok, faults: { malformedReplies: true } }, { ...ok, serial: 'd073d5000002', faults: { malformedReplies: false } }] });
    expect(spec.lights.map((l) => l.faults.malformedReplies)).to.deep.equal(['also', 'off']);
  });

  it('reads a file that starts with a byte-order mark (as Windows editors write it)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lightwire-fleet-'));
    try {
      const file = path.join(dir, 'bom.json');
      await writeFile(file, `\uFEFF${JSON.stringify({ lights: [{ serial: 'd073d5000001', label: 'Desk', product: 27 }] })}`);
      expect((await loadFleetFile(file)).lights.map((l) => l.label)).to.deep.equal(['Desk']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reports an unreadable file and bad JSON as FLEET_INVALID', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lightwire-fleet-'));
    try {
      const bad = path.join(dir, 'bad.json');
      await writeFile(bad, '{"lights": [');
      const errors = await Promise.all([loadFleetFile(bad), loadFleetFile(path.join(dir, 'missing.json'))].map((p) => p.catch((e: unknown) => e)));
      expect(errors.map((e) => (e as { code: string }).code)).to.deep.equal(['FLEET_INVALID', 'FLEET_INVALID']);
      expect((errors[0] as Error).message).to.match(/not valid JSON/);
      expect((errors[1] as Error).message).to.match(/ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects an ip-mode fleet whose addresses would leave 127.0.0.0/8', () => {
    expect(() => new Fleet(defaultFleet(5), { baseAddress: '127.255.255.252' })).to.throw().with.property('code', 'FLEET_INVALID');
    expect(() => new Fleet(defaultFleet(1), { baseAddress: 'localhost' })).to.throw().with.property('code', 'FLEET_INVALID');
  });

  describe('the default fleet', () => {
    it('is deterministic, with serials d073d5000001 onwards and unique labels', () => {
      const a = defaultFleet(20);
      expect(a).to.deep.equal(defaultFleet(20));
      expect(a.lights.map((l) => l.serial).slice(0, 3)).to.deep.equal(['d073d5000001', 'd073d5000002', 'd073d5000003']);
      expect(defaultSerial(255)).to.equal('d073d5000100');
      expect(new Set(a.lights.map((l) => l.label)).size).to.equal(20);
    });

    it('mixes colour bulbs, a white-to-warm bulb, strips and matrices, all controllable lights', () => {
      const spec = parseFleet(defaultFleet(11) as FleetInput);
      const caps = spec.lights.map((l) => l.product.capabilities);
      expect(caps.every((c) => c.isLight && !c.relays)).to.equal(true);
      expect(caps.filter((c) => c.color && !c.multizone && !c.matrix).length).to.be.at.least(4);
      expect(caps.some((c) => !c.color && c.variableColorTemp)).to.equal(true);
      expect(caps.some((c) => c.multizone && c.extendedMultizone)).to.equal(true);
      expect(caps.some((c) => c.matrix && c.chain)).to.equal(true);
      expect(caps.some((c) => c.matrix && !c.chain)).to.equal(true);
      expect(spec.lights.map((l) => PRODUCTS.get(1, l.product.productId).known).every(Boolean)).to.equal(true);
    });
  });
});
