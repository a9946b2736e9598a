import { expect } from 'chai';
import { LightClient } from '../../core/discovery/client.js';
import type { LightRecord } from '../../core/discovery/registry.js';
import { isLightwireError } from '../../core/errors.js';
import { hsbkToWire } from '../../core/protocol/index.js';
import { defaultFleet, defaultSerial } from '../../core/simulator/default-fleet.js';
import { Fleet } from '../../core/simulator/fleet.js';
import type { FleetInput } from '../../core/simulator/fleet-file.js';
import { turns, until } from '../helpers/wait.js';

const BROADCAST = '127.255.255.255';

/** A client that only ever talks to loopback, with a fast discovery burst for tests. */
function testClient(fleet: Fleet, overrides: ConstructorParameters<typeof LightClient>[0] = {}): LightClient {
  return new LightClient({
    transport: { bindAddress: '0.0.0.0', requestTimeoutMs: 3000, ...overrides.transport },
    discovery: {
      broadcastAddresses: [BROADCAST],
      port: fleet.port,
      burstScheduleMs: [0, 300, 900],
      refreshIntervalMs: 0,
      ...overrides.discovery,
    },
  });
}

async function startFleet(input: FleetInput, mode: 'ip' | 'port' = 'ip'): Promise<Fleet> {
  const fleet = new Fleet(input, { port: 0, mode });
  await fleet.start();
  return fleet;
}

function activeHandles(): { udp: number; timers: number } {
  const info = process.getActiveResourcesInfo();
  return { udp: info.filter((r) => r === 'UDPWrap').length, timers: info.filter((r) => r === 'Timeout').length };
}

describe('LightClient discovery against virtual lights', function () {
  this.timeout(20_000);
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanup.length > 0) await cleanup.pop()!();
  });

  for (const mode of ['ip', 'port'] as const) {
    it(`finds every light by broadcast to 127.255.255.255 in ${mode} mode, at the address and port it reports`, async () => {
      const fleet = await startFleet(defaultFleet(12), mode);
      cleanup.push(() => fleet.stop());
      const client = testClient(fleet);
      cleanup.push(() => client.stop());
      await client.start();
      const lights = await client.waitForLights(12, 3000);
      expect(lights.map((l) => l.serial)).to.deep.equal(Array.from({ length: 12 }, (_, i) => defaultSerial(i)));
      for (const l of lights) {
        const v = fleet.light(l.serial);
        expect({ address: l.address, port: l.port }).to.deep.equal({ address: v.address, port: v.port });
      }
    });
  }

  it('finds a light behind a router through a static host, without any broadcast', async () => {
    const fleet = await startFleet(defaultFleet(3));
    cleanup.push(() => fleet.stop());
    const target = fleet.light(defaultSerial(1));
    const client = testClient(fleet, { discovery: { broadcastAddresses: [], staticHosts: [`${target.address}:${target.port}`] } });
    cleanup.push(() => client.stop());
    await client.start();
    const lights = await client.waitForLights(1, 3000);
    expect(lights.map((l) => l.serial)).to.deep.equal([defaultSerial(1)]);
    expect(fleet.light(defaultSerial(0)).receivedCount('GetService')).to.equal(0);
  });

  it('finds lights by a unicast sweep of a configured subnet, with broadcasts off', async () => {
    const fleet = await startFleet(defaultFleet(3));
    cleanup.push(() => fleet.stop());
    const client = testClient(fleet, { discovery: { broadcastAddresses: [], sweepSubnets: ['127.0.0.0/29'] } });
    cleanup.push(() => client.stop());
    await client.start();
    const lights = await client.waitForLights(3, 5000);
    expect(lights.map((l) => [l.serial, l.address])).to.deep.equal([
      [defaultSerial(0), '127.0.0.2'],
      [defaultSerial(1), '127.0.0.3'],
      [defaultSerial(2), '127.0.0.4'],
    ]);
  });

  it('reads label, power, colour, product, firmware, group, location and wifi for each light', async () => {
    const fleet = await startFleet({
      lights: [
        { serial: 'd073d5aa0001', product: 32, label: 'Shelf', firmware: { major: 2, minor: 80 }, power: 'on',
          color: { hue: 120, saturation: 1, brightness: 0.5, kelvin: 3500 }, group: { label: 'Study' }, location: { label: 'Home' }, zoneCount: 16 },
      ],
    });
    cleanup.push(() => fleet.stop());
    const client = testClient(fleet);
    cleanup.push(() => client.stop());
    await client.start();
    await client.waitForLights(1, 3000);
    await client.refreshInfo('d073d5aa0001');
    const light = await client.refreshState('d073d5aa0001');
    const f = light!.facts;
    expect(f.label?.value).to.equal('Shelf');
    expect(f.power?.value).to.equal('on');
    expect(f.color?.value).to.deep.equal({ hue: 120, saturation: 1, brightness: 0.5, kelvin: 3500 });
    expect(f.product?.value).to.include({ productId: 32, name: 'LIFX Z', known: true });
    // pid 32 gains extended multizone at 2.77 and 1500 K at 2.80 (the vendor's products.json).
    expect(f.product?.value.capabilities).to.include({ multizone: true, extendedMultizone: true });
    expect(f.product?.value.capabilities.kelvinRange).to.deep.equal({ minK: 1500, maxK: 9000 });
    expect(f.firmware?.value).to.include({ major: 2, minor: 80 });
    expect(client.registry.groupLabel(f.group!.value.id)).to.equal('Study');
    expect(client.registry.locationLabel(f.location!.value.id)).to.equal('Home');
    expect(f.wifi?.value.quality).to.be.oneOf(['good', 'alright', 'somewhat bad', 'very bad']);
    expect(f.color!.readAt).to.be.a('number');
  });

  it('reads the zones of a strip and the firmware effect it runs', async () => {
    const fleet = await startFleet({
      lights: [{ serial: 'd073d5cc0001', product: 38, label: 'Beam', firmware: { major: 2, minor: 80 }, zoneCount: 20, color: { hue: 30, saturation: 1, brightness: 1, kelvin: 3500 } }],
    });
    cleanup.push(() => fleet.stop());
    const client = testClient(fleet);
    cleanup.push(() => client.stop());
    await client.start();
    await client.waitForLights(1, 3000);
    await client.refreshInfo('d073d5cc0001');
    const light = await client.refreshState('d073d5cc0001');
    expect(light!.facts.zones!.value).to.have.length(20);
    expect(light!.facts.zones!.value[19]!.hue).to.be.closeTo(30, 0.1);
    expect(light!.facts.effect!.value).to.equal('OFF');
  });

  it("describes a strip in one go: its whole first read fits the light's quiet burst, and the state is read once", async () => {
    const serial = 'd073d5cc0002';
    const fleet = await startFleet({
      lights: [{ serial, product: 38, label: 'Beam', firmware: { major: 2, minor: 80 }, zoneCount: 20, color: { hue: 30, saturation: 1, brightness: 1, kelvin: 3500 } }],
    });
    cleanup.push(() => fleet.stop());
    const client = testClient(fleet, { discovery: { burstScheduleMs: [0] } });
    cleanup.push(() => client.stop());
    const described = new Promise<LightRecord>((resolve) => client.once('described', resolve));
    await client.start();
    const record = await described;
    expect(record.facts.zones?.value).to.have.length(20);
    expect(record.facts.effect?.value).to.equal('OFF');
    const light = fleet.light(serial);
    const unicast = light.received().filter((p) => p.name !== 'GetService');
    // GetColor, six facts, then (the product known) the zones and the effect: nine, none twice.
    expect(unicast.map((p) => p.name).sort()).to.deep.equal(
      ['GetColor', 'GetExtendedColorZones', 'GetGroup', 'GetHostFirmware', 'GetInfo', 'GetLocation', 'GetMultiZoneEffect', 'GetVersion', 'GetWifiInfo'],
    );
    // Nothing waited for a pacing turn: with a quiet burst of 8 the zones went out some 400 ms after the rest.
    const spanMs = unicast[unicast.length - 1]!.atMs - unicast[0]!.atMs;
    expect(spanMs).to.be.below(200);
  });

  it('forwards changed events to a listener added after the client was built', async () => {
    const fleet = await startFleet(defaultFleet(1));
    cleanup.push(() => fleet.stop());
    const client = testClient(fleet);
    cleanup.push(() => client.stop());
    await client.start();
    await client.waitForLights(1, 3000);
    await client.refreshState(defaultSerial(0));
    const changes: string[][] = [];
    client.on('changed', (_light: LightRecord, what: readonly string[]) => changes.push([...what]));
    fleet.light(defaultSerial(0)).setState({ power: 'off' });
    await client.refreshState(defaultSerial(0));
    expect(changes).to.deep.include(['power']);
  });

  it('refreshes lights it already knew after a stop and a new start', async () => {
    const fleet = await startFleet(defaultFleet(1));
    cleanup.push(() => fleet.stop());
    const client = testClient(fleet, { discovery: { refreshIntervalMs: 150, burstScheduleMs: [0] } });
    cleanup.push(() => client.stop());
    await client.start();
    await client.waitForLights(1, 3000);
    // Known, described and refreshed once (refreshIntervalMs 150) before the stop.
    await until(() => client.describing === 0 && fleet.light(defaultSerial(0)).receivedCount('GetColor') >= 2, { what: 'the light described and refreshed' });
    await client.stop();
    // Datagrams sent before the stop land before the records are cleared: loopback has put them in the fleet's
    // socket buffer already, and the next turns of the event loop read them.
    await turns(4);
    // Found again by the broadcast, a known light is not "added": only the refresh schedule reads it.
    fleet.clearRecords();
    await client.start();
    // Its first refresh is due 150-300 ms after the start; a client that never refreshes it fails after 3 s.
    await until(() => fleet.light(defaultSerial(0)).receivedCount('GetColor') >= 1, { timeoutMs: 3000 });
    expect(fleet.light(defaultSerial(0)).receivedCount('GetColor')).to.be.at.least(1);
  });

  it('takes the group label from the member with the newest updated_at', async () => {
    const older = { id: 'aa'.repeat(16), label: 'Old name', updatedAtNs: '1000000000000000000' };
    const newer = { id: 'aa'.repeat(16), label: 'New name', updatedAtNs: '1700000000000000000' };
    const fleet = await startFleet({
      lights: [
        { serial: 'd073d5bb0001', product: 91, group: older as never },
        { serial: 'd073d5bb0002', product: 91, group: newer as never },
      ],
    });
    cleanup.push(() => fleet.stop());
    const client = testClient(fleet);
    cleanup.push(() => client.stop());
    await client.start();
    await client.waitForLights(2, 3000);
    await Promise.all(['d073d5bb0001', 'd073d5bb0002'].map((s) => client.refreshInfo(s)));
    expect(client.registry.groupLabel('aa'.repeat(16))).to.equal('New name');
  });

  for (const loss of [0, 0.1, 0.3]) {
    it(`completes every read and Set within its deadline at ${loss * 100} % packet loss`, async () => {
      const fleet = await startFleet(defaultFleet(8, { faults: { lossProbability: loss } }));
      cleanup.push(() => fleet.stop());
      // Eight broadcasts: a light misses all of them at 30 % loss with probability 0.3^8 (7e-5).
      const client = testClient(fleet, { transport: { requestTimeoutMs: 5000 }, discovery: { burstScheduleMs: [0, 200, 500, 900, 1400, 2000, 2600, 3200] } });
      cleanup.push(() => client.stop());
      await client.start();
      const lights = await client.waitForLights(8, 6000);
      expect(lights).to.have.length(8);
      const started = performance.now();
      const results = await Promise.all(
        lights.map(async (l) => {
          const device = client.addressOf(l.serial)!;
          const set = await client.requester.set(device, 'SetColor', { color: hsbkToWire({ hue: 240, saturation: 1, brightness: 1, kelvin: 3500 }), durationMs: 0 });
          const state = await client.requester.get(device, 'GetColor', {});
          return { acked: set.acked, hue: state.name === 'LightState' ? state.payload.color.hue : -1 };
        }),
      );
      expect(performance.now() - started).to.be.below(10_000);
      expect(results.every((r) => r.acked && r.hue === hsbkToWire({ hue: 240, saturation: 1, brightness: 1, kelvin: 3500 }).hue)).to.equal(true);
    });
  }

  it('reports an unresponsive light as timed out within the deadline while the others answer', async () => {
    const base = defaultFleet(4);
    const fleet = await startFleet({ lights: base.lights.map((l, i) => (i === 2 ? { ...l, faults: { unresponsive: true } } : l)) });
    cleanup.push(() => fleet.stop());
    const client = testClient(fleet);
    cleanup.push(() => client.stop());
    await client.start();
    const lights = await client.waitForLights(4, 3000);
    const started = performance.now();
    const outcomes = await Promise.all(
      lights.map((l) =>
        client.requester.get(client.addressOf(l.serial)!, 'GetPower', {}, { timeoutMs: 1500 }).then(
          () => 'ok',
          (err: unknown) => (isLightwireError(err, 'REQUEST_TIMED_OUT') ? 'timed_out' : 'other'),
        ),
      ),
    );
    const elapsed = performance.now() - started;
    expect(outcomes).to.deep.equal(['ok', 'ok', 'timed_out', 'ok']);
    expect(elapsed).to.be.within(1400, 2500);
  });

  it('ignores duplicated and malformed replies', async () => {
    const base = defaultFleet(2);
    const faults = [{ duplicateReplies: true }, { malformedReplies: 'also' as const }];
    const fleet = await startFleet({ lights: base.lights.map((l, i) => ({ ...l, faults: faults[i] })) });
    cleanup.push(() => fleet.stop());
    const client = testClient(fleet);
    cleanup.push(() => client.stop());
    await client.start();
    await client.waitForLights(2, 3000);
    for (let i = 0; i < 5; i++) {
      for (const serial of [defaultSerial(0), defaultSerial(1)]) {
        const reply = await client.requester.get(client.addressOf(serial)!, 'GetLabel', {});
        expect(reply.name === 'StateLabel' && reply.payload.label).to.equal(fleet.light(serial).state.label);
      }
    }
    expect(client.requester.stats.duplicates + client.requester.stats.unmatched).to.be.greaterThan(0);
    expect(client.requester.stats.malformed).to.be.greaterThan(0);
  });

  it('marks a light offline only after several missed reads, and online again when it answers', async () => {
    const fleet = await startFleet(defaultFleet(2));
    cleanup.push(() => fleet.stop());
    const client = testClient(fleet, { discovery: { offlineAfterMisses: 3, readTimeoutMs: 300 } });
    cleanup.push(() => client.stop());
    const events: string[] = [];
    client.on('offline', (l: LightRecord) => events.push(`offline ${l.serial}`));
    client.on('online', (l: LightRecord) => events.push(`online ${l.serial}`));
    await client.start();
    await client.waitForLights(2, 3000);
    // The first background reads after discovery finish, so only this test's reads count.
    await until(() => client.describing === 0, { what: 'no light still being described' });
    const serial = defaultSerial(1);
    fleet.light(serial).setFaults({ offline: true });
    await client.refreshState(serial);
    await client.refreshState(serial);
    expect(events).to.deep.equal([]);
    expect(client.registry.get(serial)!.online).to.equal(true);
    await client.refreshState(serial);
    expect(events).to.deep.equal([`offline ${serial}`]);
    expect(client.registry.get(serial)!.online).to.equal(false);
    fleet.light(serial).setFaults({ offline: false });
    await client.refreshState(serial);
    expect(events).to.deep.equal([`offline ${serial}`, `online ${serial}`]);
  });

  it('never lets a light receive more than 20 messages in a second, even with 100 Sets in a burst', async () => {
    const fleet = await startFleet(defaultFleet(2));
    cleanup.push(() => fleet.stop());
    const client = testClient(fleet);
    cleanup.push(() => client.stop());
    await client.start();
    await client.waitForLights(2, 3000);
    const device = client.addressOf(defaultSerial(0))!;
    const sets = Array.from({ length: 100 }, (_, i) =>
      client.requester.set(device, 'SetColor', { color: hsbkToWire({ hue: i * 3, saturation: 1, brightness: 1, kelvin: 3500 }), durationMs: 0 }, { coalesceKey: false, timeoutMs: 15_000 }),
    );
    const results = await Promise.all(sets);
    expect(results.every((r) => r.acked)).to.equal(true);
    expect(fleet.light(defaultSerial(0)).receivedCount('SetColor')).to.be.at.least(100);
    expect(fleet.maxMessagesPerSecond()).to.be.at.most(20);
  });

  it('survives a listener that throws: the error is reported and discovery goes on', async () => {
    const fleet = await startFleet(defaultFleet(3));
    cleanup.push(() => fleet.stop());
    const client = testClient(fleet);
    cleanup.push(() => client.stop());
    const errors: Error[] = [];
    client.on('error', (err: Error) => errors.push(err));
    client.on('added', (light: LightRecord) => {
      if (light.serial === defaultSerial(0)) throw new Error('a flow author made a mistake');
    });
    await client.start();
    const lights = await client.waitForLights(3, 3000);
    expect(lights).to.have.length(3);
    expect(errors.map((e) => e.message)).to.include("a listener of the 'added' event failed: a flow author made a mistake");
    const coded = errors.find((e) => e.message.endsWith('a flow author made a mistake')) as Error & { code?: string; cause?: Error };
    expect(coded.code).to.equal('LISTENER_FAILED');
    expect(coded.cause?.message).to.equal('a flow author made a mistake');
  });

  it('never throws into the host process when nobody listens for errors', async () => {
    const fleet = await startFleet(defaultFleet(2));
    cleanup.push(() => fleet.stop());
    const client = testClient(fleet);
    cleanup.push(() => client.stop());
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown): void => {
      uncaught.push(err);
    };
    const mochaHandlers = process.listeners('uncaughtException');
    process.removeAllListeners('uncaughtException');
    process.on('uncaughtException', onUncaught);
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => {
      if (w.message.includes("a listener of the 'added' event failed")) warnings.push(w);
    };
    process.on('warning', onWarning);
    try {
      client.on('added', () => {
        throw new Error('thrown by a listener');
      });
      await client.start();
      const lights = await client.waitForLights(2, 3000);
      // Each throw is reported as a process warning (emitted on a later tick); by then anything thrown would be uncaught.
      await until(() => warnings.length >= 2, { what: "two warnings of a failed 'added' listener" });
      expect(lights).to.have.length(2);
      expect(uncaught).to.deep.equal([]);
    } finally {
      process.off('warning', onWarning);
      process.off('uncaughtException', onUncaught);
      for (const h of mochaHandlers) process.on('uncaughtException', h);
    }
  });

  it('leaves no socket and no timer behind once stopped', async () => {
    const fleet = await startFleet(defaultFleet(3));
    cleanup.push(() => fleet.stop());
    const before = activeHandles();
    const client = testClient(fleet, { discovery: { refreshIntervalMs: 200, heartbeatMs: 500 } });
    await client.start();
    await client.waitForLights(3, 3000);
    // Its timers running: every light described and refreshed once (refreshIntervalMs 200).
    await until(() => client.describing === 0 && [0, 1, 2].every((i) => fleet.light(defaultSerial(i)).receivedCount('GetColor') >= 2), { what: 'every light described and refreshed' });
    expect(activeHandles().udp).to.equal(before.udp + 1);
    await client.stop();
    // libuv releases a closed UDP handle a few milliseconds after the close callback; one left open fails after 1 s.
    await until(() => activeHandles().udp === before.udp && activeHandles().timers === before.timers, { timeoutMs: 1000 });
    expect(activeHandles()).to.deep.equal(before);
  });

  it('refuses to bind a port that is already taken, with ADDRESS_IN_USE', async () => {
    const first = new LightClient({ transport: { bindAddress: '127.0.0.1' }, discovery: { broadcastAddresses: [] } });
    await first.start();
    cleanup.push(() => first.stop());
    const port = (first as unknown as { endpoint: { port: number } }).endpoint.port;
    const second = new LightClient({ transport: { bindAddress: '127.0.0.1', bindPort: port }, discovery: { broadcastAddresses: [] } });
    const err = await second.start().then(() => undefined, (e: unknown) => e);
    expect(isLightwireError(err, 'ADDRESS_IN_USE')).to.equal(true);
  });
});
