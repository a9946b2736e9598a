// A product the registry does not know is asked what it can do (zones, matrix, HEV, infrared; or relays for a
// device that is no light) instead of being taken for a plain colour bulb.

import { expect } from 'chai';
import { LightClient, LightService } from '../../core/index.js';
import { Fleet } from '../../core/simulator/index.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';

const BROADCAST = '127.255.255.255';
const STRIP = 'd073d5000001';
const LEGACY_STRIP = 'd073d5000002';
const MATRIX = 'd073d5000003';
const CLEAN_IR = 'd073d5000004';
const RELAYS = 'd073d5000005';
const PLAIN = 'd073d5000006';

const GREEN = { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 };
const lights: LightInput[] = [
  { serial: STRIP, product: 9001, label: 'New strip', features: { multizone: true, extended_multizone: true }, zoneCount: 20, color: GREEN },
  { serial: LEGACY_STRIP, product: 9002, label: 'Odd strip', features: { multizone: true }, zoneCount: 12, color: GREEN },
  { serial: MATRIX, product: 9003, label: 'New tiles', features: { matrix: true, chain: true }, tileCount: 3 },
  { serial: CLEAN_IR, product: 9004, label: 'New bulb', features: { hev: true, infrared: true }, infrared: 0.25 },
  { serial: RELAYS, product: 9005, label: 'New switch', features: { color: false, temperature_range: null, relays: true, buttons: true } },
  { serial: PLAIN, product: 9006, label: 'Plain', features: {} },
];

describe('LightService and products the registry does not know', function () {
  this.timeout(20_000);
  let fleet: Fleet;
  let service: LightService;

  beforeEach(async () => {
    fleet = new Fleet({ lights }, { port: 0 });
    await fleet.start();
    service = await LightService.start({
      discovery: { broadcastAddresses: [BROADCAST], port: fleet.port, burstScheduleMs: [0, 200], refreshIntervalMs: 0, readTimeoutMs: 1000 },
      transport: { requestTimeoutMs: 2000 },
    });
    await service.ready;
  });
  afterEach(async () => {
    await service.stop();
    await fleet.stop();
  });

  it('finds out what each one can do by asking it', () => {
    const caps = (serial: string) => service.light(serial)!.capabilities;
    expect(caps(STRIP)).to.include({ multizone: true, extendedMultizone: true, matrix: false, hev: false, infrared: false, isLight: true });
    expect(caps(LEGACY_STRIP)).to.include({ multizone: true, extendedMultizone: false, matrix: false });
    expect(caps(MATRIX)).to.include({ matrix: true, chain: true, multizone: false });
    expect(caps(CLEAN_IR)).to.include({ hev: true, infrared: true, multizone: false, matrix: false });
    expect(caps(RELAYS)).to.include({ isLight: false, relays: true, buttons: true, multizone: false });
    expect(caps(PLAIN)).to.include({ isLight: true, color: true, multizone: false, matrix: false, hev: false, infrared: false });
    expect(service.light(STRIP)!.product).to.include({ productId: 9001, known: false });
    // Zones and infrared are read in the first read, as for a known product.
    expect(service.light(STRIP)!.zones).to.have.length(20);
    expect(service.light(LEGACY_STRIP)!.zones).to.have.length(12);
    expect(service.light(CLEAN_IR)!.infrared).to.be.closeTo(0.25, 0.0001);
  });

  for (const [kind, serial, message] of [['an extended', STRIP, 'SetExtendedColorZones'], ['a legacy', LEGACY_STRIP, 'SetColorZones']] as const) {
    it(`paints only the zones a selector names on ${kind} unknown strip`, async () => {
      fleet.clearRecords();
      const results = await service.setState(`id:${serial}|0-3`, { color: 'red', durationS: 0 });
      expect(results.map((r) => r.status)).to.deep.equal(['ok']);
      const light = fleet.light(serial);
      expect(light.receivedCount('SetColor')).to.equal(0);
      expect(light.receivedCount(message)).to.be.at.least(1);
      const zones = light.state.zones!;
      expect(zones.slice(0, 4).every((z) => z.hue === 0 && z.saturation === 1)).to.equal(true);
      expect(zones.slice(4).every((z) => Math.abs(z.hue - 120) < 0.1)).to.equal(true);
    });
  }

  it('keeps a device that is no light out of light selectors, with its relays reachable', async () => {
    expect(service.list().map((l) => l.id)).to.not.include(RELAYS);
    const results = await service.setState('all', { power: 'on', durationS: 0 });
    expect(results.every((r) => r.status === 'ok')).to.equal(true);
    expect(results.map((r) => r.id)).to.not.include(RELAYS);
    expect(await service.relays(RELAYS)).to.have.length(4);
  });
});

describe('a light of a product the registry does not know, read for the first time', function () {
  this.timeout(20_000);

  it('has product, firmware, group and location saved as they arrive, before its capability probes end, each probe sent once', async () => {
    const fleet = new Fleet({ lights: [{ ...lights[0]!, group: { label: 'Office' }, location: { label: 'Home' } }] }, { port: 0 });
    await fleet.start();
    // The default read timeout (3000 ms): the probes take less.
    const client = new LightClient({ discovery: { broadcastAddresses: [BROADCAST], port: fleet.port, refreshIntervalMs: 0 } });
    const changes: { fields: readonly string[]; multizone: boolean | undefined; group: string | undefined }[] = [];
    client.registry.on('changed', (record, fields) => {
      changes.push({ fields, multizone: record.facts.product?.value.capabilities.multizone, group: record.facts.group?.value.label });
    });
    try {
      const described = new Promise<void>((resolve) => client.once('described', () => resolve()));
      await client.start();
      await described;
      const first = changes.findIndex((c) => c.fields.includes('group'));
      const probed = changes.findIndex((c) => c.fields.includes('product') && c.multizone === true);
      expect(first, JSON.stringify(changes)).to.be.at.least(0);
      expect(changes[first]!.fields).to.include.members(['product', 'firmware', 'group', 'location']);
      expect(changes[first]!.group).to.equal('Office');
      // Saved while the strip was still taken for a plain light: the probe answered after.
      expect(changes[first]!.multizone).to.equal(false);
      expect(probed).to.be.greaterThan(first);
      const light = fleet.light(STRIP);
      expect([light.receivedCount('GetHevCycle'), light.receivedCount('GetInfrared'), light.receivedCount('GetDeviceChain')]).to.deep.equal([1, 1, 1]);
      expect(client.registry.get(STRIP)!.facts.zones!.value).to.have.length(20);
    } finally {
      await client.stop();
      await fleet.stop();
    }
  });
});
