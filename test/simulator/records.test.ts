import { expect } from 'chai';
import { defaultRecordLimit, FLEET_RECORD_BUDGET, ReceivedRecords } from '../../core/simulator/records.js';
import { defaultFleet } from '../../core/simulator/default-fleet.js';
import { Fleet } from '../../core/simulator/fleet.js';
import { hsbkToWire } from '../../core/protocol/units.js';
import { BULB, bulb, manualClock, rig } from './helpers.js';
import type { Header } from '../../core/protocol/header.js';

const header = { source: 1, sequence: 0, target: BULB, type: 101 } as unknown as Header;
const at = (atMs: number) => ({ name: 'GetColor' as const, type: 101, header, payload: {}, atMs, from: { address: '127.0.0.1', port: 1 } });

describe('simulator received-message records', () => {
  it('records every packet a light received with its name, header, payload, time and sender', async () => {
    const clock = manualClock();
    const r = await rig({ lights: [bulb()] }, { now: clock.now });
    try {
      const color = hsbkToWire({ hue: 10, saturation: 1, brightness: 1, kelvin: 3500 });
      r.client.send('GetColor', {}, r.at(BULB), { target: BULB });
      await r.client.waitUntil(() => r.fleet.light(BULB).receivedTotal === 1, 1000);
      clock.advance(10);
      const seq = r.client.send('SetColor', { color, durationMs: 250 }, r.at(BULB), { target: BULB, ack: true });
      r.client.send('GetService', {}, r.broadcast);
      await r.client.waitUntil(() => r.fleet.light(BULB).receivedTotal === 3, 1000);
      const light = r.fleet.light(BULB);
      expect(light.receivedByName()).to.deep.equal({ GetColor: 1, SetColor: 1, GetService: 1 });
      const [set] = light.received('SetColor');
      expect(set!.payload).to.deep.equal({ color, durationMs: 250 });
      expect(set!.header).to.include({ sequence: seq, source: r.client.source, ackRequired: true, target: BULB });
      expect(set!.atMs).to.equal(clock.now());
      expect(set!.from).to.deep.equal({ address: '127.0.0.1', port: r.client.port });
      expect(light.received().map((p) => p.name)).to.deep.equal(['GetColor', 'SetColor', 'GetService']);
    } finally {
      await r.close();
    }
  });

  it('measures the most messages in any sliding one-second window', async () => {
    const clock = manualClock();
    const r = await rig({ lights: [bulb()] }, { now: clock.now });
    try {
      const light = r.fleet.light(BULB);
      for (let i = 0; i < 12; i++) r.client.send('GetPower', {}, r.at(BULB));
      await r.client.waitUntil(() => light.receivedTotal === 12, 1000);
      clock.advance(600);
      for (let i = 0; i < 12; i++) r.client.send('GetPower', {}, r.at(BULB));
      await r.client.waitUntil(() => light.receivedTotal === 24, 1000);
      // 24 inside 600 ms: more than the documented ceiling of 20 per second.
      expect(light.maxMessagesPerSecond()).to.equal(24);
      expect(light.messagesInLastSecond()).to.equal(24);
      expect(r.fleet.maxMessagesPerSecond()).to.equal(24);
      clock.advance(1000);
      expect(light.messagesInLastSecond()).to.equal(0);
      light.clearRecords();
      expect([light.receivedTotal, light.maxMessagesPerSecond(), light.received().length]).to.deep.equal([0, 0, 0]);
    } finally {
      await r.close();
    }
  });

  it('counts a window as (t - 1000 ms, t], so messages exactly one second apart are not in one window', () => {
    const records = new ReceivedRecords();
    for (const t of [0, 100, 999, 1000, 1999, 2000, 2000, 2000]) records.add(at(t));
    // (1000, 2000] holds 1999, 2000, 2000, 2000 = 4; (0, 1000] holds 100, 999, 1000 = 3.
    expect(records.maxMessagesPerSecond()).to.equal(4);
    expect(records.count('GetColor')).to.equal(8);
  });

  it('keeps at most the record limit of packets while counting all of them', () => {
    const records = new ReceivedRecords(100);
    for (let t = 0; t < 1000; t++) records.add(at(t * 50));
    expect(records.total).to.equal(1000);
    expect(records.packets().length).to.be.at.most(100);
    expect(records.packets().at(-1)!.atMs).to.equal(999 * 50);
    expect(records.maxMessagesPerSecond()).to.equal(20);
  });
  it('shares a bounded budget of kept packets between the lights of a fleet by default', async () => {
    expect([1, 2, 8, 50, 200, 500].map(defaultRecordLimit)).to.deep.equal([10_000, 10_000, 2500, 400, 100, 100]);
    expect(new Fleet(defaultFleet(200)).recordLimit * 200).to.equal(FLEET_RECORD_BUDGET);
    expect(new Fleet(defaultFleet(200), { recordLimit: 7 }).recordLimit).to.equal(7);
    // A 200-light fleet keeps 100 packets per light, and still counts all of them.
    const r = await rig(defaultFleet(200));
    try {
      const light = r.fleet.lights[0]!;
      for (let burst = 0; burst < 3; burst++) {
        for (let i = 0; i < 50; i++) r.client.send('GetPower', {}, r.at(light.serial));
        await r.client.waitUntil(() => light.receivedTotal === (burst + 1) * 50, 1000);
      }
      expect(light.receivedTotal).to.equal(150);
      expect(light.received().length).to.be.at.most(100);
      expect(light.receivedCount('GetPower')).to.equal(150);
    } finally {
      await r.close();
    }
  });
});
