import { expect } from 'chai';
import { createSocket, type Socket } from 'node:dgram';
import { defaultFleet } from '../../core/simulator/default-fleet.js';
import { Fleet } from '../../core/simulator/fleet.js';
import { namesOf } from './client.js';
import { BULB, bulb, rig } from './helpers.js';
import { until } from '../helpers/wait.js';

/** Open UDP handles and timers of this process, by kind. */
function resources(): { udp: number; timers: number } {
  const info = process.getActiveResourcesInfo();
  return { udp: info.filter((r) => r === 'UDPWrap').length, timers: info.filter((r) => r === 'Timeout' || r === 'Immediate').length };
}

/** The resources before a test does anything: after one turn, so mocha's own test timeout timer is counted. */
async function baselineResources(): Promise<{ udp: number; timers: number }> {
  await new Promise((resolve) => setImmediate(resolve));
  return resources();
}

function bindExclusive(address: string): Promise<Socket> {
  return new Promise((resolve) => {
    const s = createSocket({ type: 'udp4', reuseAddr: false });
    s.bind({ address, port: 0 }, () => resolve(s));
  });
}

describe('simulator lifecycle', () => {
  it('closes every socket and clears pending reply timers on stop', async () => {
    const baseline = await baselineResources();
    const r = await rig({ lights: [bulb({ faults: { latencyMs: 5000 } }), { serial: 'd073d5000002', product: 32 }] });
    expect(resources().udp).to.equal(baseline.udp + 4); // shared listener, two lights, the client
    r.client.send('GetColor', {}, r.at(BULB));
    await r.client.waitUntil(() => r.fleet.light(BULB).receivedTotal === 1, 1000);
    expect(resources().timers).to.be.above(baseline.timers);
    await r.close();
    expect(resources()).to.deep.equal(baseline);
    expect(r.fleet.running).to.equal(false);
  });

  it('stops in the middle of a broadcast fan-out to 200 lights without leaving an immediate behind', async () => {
    const baseline = await baselineResources();
    const r = await rig(defaultFleet(200));
    r.client.send('GetService', {}, r.broadcast);
    await r.client.waitUntil(() => r.client.inbox.length > 0, 1000);
    await r.close();
    expect(resources()).to.deep.equal(baseline);
    // The fan-out was cut short: the later batches never ran.
    expect(r.fleet.lights.filter((l) => l.receivedTotal > 0).length).to.be.below(200);
  });

  it('stops cleanly when stop is called while it is still starting, and twice at once', async () => {
    const baseline = await baselineResources();
    const fleet = new Fleet(defaultFleet(50), { port: 0 });
    const started = fleet.start();
    await Promise.all([fleet.stop(), fleet.stop()]);
    await started;
    expect(fleet.running).to.equal(false);
    expect(resources()).to.deep.equal(baseline);
  });

  it('can be started again after a stop, on the same port', async () => {
    const fleet = new Fleet({ lights: [bulb()] }, { port: 0 });
    await fleet.start();
    const port = fleet.port;
    await fleet.stop();
    const again = new Fleet({ lights: [bulb()] }, { port });
    await again.start();
    try {
      expect(again.port).to.equal(port);
      expect(again.light(BULB).port).to.equal(port);
    } finally {
      await again.stop();
    }
    await fleet.start();
    await fleet.stop();
  });

  it('fails with ADDRESS_IN_USE when another program holds the port, leaving nothing open', async () => {
    const blocker = await bindExclusive('0.0.0.0');
    const baseline = await baselineResources();
    try {
      const fleet = new Fleet(defaultFleet(3), { port: blocker.address().port });
      const err = await fleet.start().catch((e: unknown) => e);
      expect(err).to.have.property('code', 'ADDRESS_IN_USE');
      // The listener of an ip-mode fleet on loopback binds the loopback broadcast address, which 0.0.0.0 covers.
      expect((err as { params: unknown }).params).to.deep.equal({ address: '127.255.255.255', port: blocker.address().port });
      expect(fleet.running).to.equal(false);
      // libuv releases a closed handle a moment after the close callback; one left open fails after 1 s.
      await until(() => JSON.stringify(resources()) === JSON.stringify(baseline), { timeoutMs: 1000, what: 'the handles released' });
      expect(resources()).to.deep.equal(baseline);
    } finally {
      blocker.close();
    }
  });

  it('fails with ADDRESS_IN_USE when another fleet holds the port, though both would share it by SO_REUSEADDR', async () => {
    const first = new Fleet(defaultFleet(2), { port: 0 });
    await first.start();
    try {
      for (const mode of ['ip', 'port'] as const) {
        const second = new Fleet(defaultFleet(2), { port: first.port, mode });
        const err = await second.start().catch((e: unknown) => e);
        expect(err, mode).to.have.property('code', 'ADDRESS_IN_USE');
        expect(second.running).to.equal(false);
      }
      // The first fleet still answers on its port.
      expect(first.running).to.equal(true);
    } finally {
      await first.stop();
    }
    // Once it stopped, the port is free again.
    const again = new Fleet(defaultFleet(2), { port: first.port });
    await again.start();
    await again.stop();
  });

  it('fails with ADDRESS_IN_USE in port mode when a light port is taken', async () => {
    const blocker = await bindExclusive('127.0.0.1');
    try {
      // Light 0 of a port-mode fleet binds port + 1.
      const fleet = new Fleet(defaultFleet(2), { mode: 'port', port: blocker.address().port - 1 });
      const err = await fleet.start().catch((e: unknown) => e);
      expect(err).to.have.property('code', 'ADDRESS_IN_USE');
    } finally {
      blocker.close();
    }
  });

  it('fails with ADDRESS_UNAVAILABLE for an address this machine does not have, without sending anything', async () => {
    const baseline = await baselineResources();
    const fleet = new Fleet(defaultFleet(2), { port: 0, baseAddress: '203.0.113.7' });
    const err = await fleet.start().catch((e: unknown) => e);
    expect(err).to.have.property('code', 'ADDRESS_UNAVAILABLE');
    expect((err as { params: { reason: string } }).params.reason).to.equal('EADDRNOTAVAIL');
    // libuv releases a closed handle a moment after the close callback; one left open fails after 1 s.
    await until(() => JSON.stringify(resources()) === JSON.stringify(baseline), { timeoutMs: 1000, what: 'the handles released' });
    expect(resources()).to.deep.equal(baseline);
  });

  it('keeps errors thrown while handling a datagram inside the fleet', async () => {
    let broken = false;
    const seen: unknown[] = [];
    const r = await rig(
      { lights: [bulb()] },
      {
        now: () => {
          if (broken) throw new Error('clock exploded');
          return Date.now();
        },
        onError: (err) => seen.push(err),
      },
    );
    try {
      broken = true;
      r.client.send('GetColor', {}, r.at(BULB));
      r.client.send('GetService', {}, r.broadcast);
      await r.client.waitUntil(() => r.fleet.errors.length === 2, 1000);
      expect(r.fleet.errors.map((e) => (e as Error).message)).to.deep.equal(['clock exploded', 'clock exploded']);
      expect(seen).to.have.length(2);
      broken = false;
      const replies = await r.client.request('GetLabel', {}, r.at(BULB), { count: 1 });
      expect(namesOf(replies)).to.deep.equal(['StateLabel']);
    } finally {
      await r.close();
    }
  });
});
