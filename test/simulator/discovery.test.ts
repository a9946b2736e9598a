import { expect } from 'chai';
import { Fleet } from '../../core/simulator/fleet.js';
import { allocateAddresses } from '../../core/simulator/addresses.js';
import { defaultFleet, defaultSerial } from '../../core/simulator/default-fleet.js';
import { BROADCAST, TestClient, namesOf, payloadsOf } from './client.js';
import { bulb, rig } from './helpers.js';

describe('simulator discovery', () => {
  describe('in ip mode', () => {
    it('answers a broadcast GetService once per light, from the light own address, with its serial and port', async () => {
      const r = await rig(defaultFleet(6));
      try {
        const replies = await r.client.request('GetService', {}, r.broadcast, { count: 6 });
        expect(replies).to.have.length(6);
        const bySerial = new Map(r.client.inbox.map((x) => [x.packet!.header.target, x]));
        expect([...bySerial.keys()].sort()).to.deep.equal([1, 2, 3, 4, 5, 6].map((n) => defaultSerial(n - 1)));
        for (let i = 0; i < 6; i++) {
          const got = bySerial.get(defaultSerial(i))!;
          expect(got.from).to.deep.equal({ address: `127.0.0.${2 + i}`, port: r.fleet.port });
          expect(got.packet!.name).to.equal('StateService');
          expect(got.packet!.payload).to.deep.equal({ service: 1, port: r.fleet.port });
          expect(got.packet!.header.tagged).to.equal(false);
        }
      } finally {
        await r.close();
      }
    });

    it('rolls addresses from 127.0.0.254 over to 127.0.1.1 and every light still answers discovery', async () => {
      expect(allocateAddresses('127.0.0.253', 4)).to.deep.equal(['127.0.0.253', '127.0.0.254', '127.0.1.1', '127.0.1.2']);
      expect(allocateAddresses('127.255.255.253', 3)).to.equal(null);
      const r = await rig(defaultFleet(30), { baseAddress: '127.0.0.240' });
      try {
        await r.client.request('GetService', {}, r.broadcast, { count: 30 });
        const addresses = new Set(r.client.inbox.map((x) => x.from.address));
        expect(addresses.size).to.equal(30);
        expect(addresses.has('127.0.0.254')).to.equal(true);
        expect(addresses.has('127.0.1.1')).to.equal(true);
        expect(addresses.has('127.0.1.15')).to.equal(true);
        expect(addresses.has('127.0.1.16')).to.equal(false);
        expect(addresses.has('127.0.0.255')).to.equal(false);
      } finally {
        await r.close();
      }
    });

    it('starts 500 lights in well under a second and all 500 answer one broadcast without drops', async () => {
      const fleet = new Fleet(defaultFleet(500), { port: 0 });
      const t0 = performance.now();
      await fleet.start();
      const startMs = performance.now() - t0;
      // A client with the default receive buffer, in this same process: the fleet's batched fan-out lets it drain.
      const client = await TestClient.open();
      try {
        expect(startMs).to.be.below(1000);
        const t1 = performance.now();
        const replies = await client.request('GetService', {}, { address: BROADCAST, port: fleet.port }, { count: 500, timeoutMs: 3000 });
        const discoverMs = performance.now() - t1;
        expect(new Set(replies.map((p) => p.header.target)).size).to.equal(500);
        expect(replies).to.have.length(500);
        expect(discoverMs).to.be.below(1000);
        expect(client.inbox.map((x) => x.from.address)).to.include('127.0.1.247');
      } finally {
        await client.close();
        await fleet.stop();
      }
    });

    it('answers a unicast GetService only from the light at that address', async () => {
      const r = await rig(defaultFleet(3));
      try {
        const replies = await r.client.request('GetService', {}, r.at(defaultSerial(1)), { count: 1, settleMs: 80 });
        expect(replies.map((p) => p.header.target)).to.deep.equal([defaultSerial(1)]);
        expect(r.client.inbox[0]!.from.address).to.equal('127.0.0.3');
      } finally {
        await r.close();
      }
    });

    it('lets a datagram broadcast with one serial as target reach only that light', async () => {
      const r = await rig(defaultFleet(4));
      try {
        const replies = await r.client.request('GetLabel', {}, r.broadcast, { target: defaultSerial(2), count: 1, settleMs: 80 });
        expect(replies.map((p) => p.header.target)).to.deep.equal([defaultSerial(2)]);
        expect(payloadsOf(replies, 'StateLabel')[0]!.label).to.equal('Strip 3');
        expect(r.fleet.lights.map((l) => l.receivedCount('GetLabel'))).to.deep.equal([0, 0, 1, 0]);
      } finally {
        await r.close();
      }
    });

    it('answers nothing sent to an address no light owns, as a LAN where nobody has it', async () => {
      const r = await rig(defaultFleet(3));
      try {
        for (const address of ['127.0.0.1', '127.0.0.99']) {
          const replies = await r.client.request('GetService', {}, { address, port: r.fleet.port }, { timeoutMs: 120 });
          expect(replies, address).to.deep.equal([]);
        }
        expect(r.fleet.lights.map((l) => l.receivedTotal)).to.deep.equal([0, 0, 0]);
      } finally {
        await r.close();
      }
    });

    it('leaves 127.0.0.1 on its port to a client that sends from the port it sends to (node-lifx binds 56700)', async () => {
      const r = await rig(defaultFleet(3));
      try {
        // Bound without SO_REUSEADDR, as node-lifx binds: any fleet socket covering 127.0.0.1 on this port refuses it.
        const client = await TestClient.open({ port: r.fleet.port });
        try {
          const replies = await client.request('GetService', {}, r.broadcast, { count: 3, settleMs: 60 });
          expect(replies.map((p) => p.header.target).sort()).to.deep.equal([0, 1, 2].map(defaultSerial));
          expect(client.inbox.map((x) => x.from.address).sort()).to.deep.equal(['127.0.0.2', '127.0.0.3', '127.0.0.4']);
        } finally {
          await client.close();
        }
      } finally {
        await r.close();
      }
    });

    it('ignores a unicast datagram whose target is another serial', async () => {
      const r = await rig({ lights: [bulb()] });
      try {
        const replies = await r.client.request('GetLabel', {}, r.at(bulb().serial), { target: 'd073d5999999', timeoutMs: 120 });
        expect(replies).to.deep.equal([]);
        expect(r.fleet.light(bulb().serial).receivedTotal).to.equal(0);
      } finally {
        await r.close();
      }
    });
  });

  describe('in port mode', () => {
    it('puts every light on 127.0.0.1 with its own port and answers a broadcast from each light port', async () => {
      const r = await rig(defaultFleet(5), { mode: 'port' });
      try {
        await r.client.request('GetService', {}, r.broadcast, { count: 5 });
        expect(r.client.inbox).to.have.length(5);
        const ports = new Set<number>();
        for (const got of r.client.inbox) {
          const light = r.fleet.light(got.packet!.header.target);
          expect(got.from.address).to.equal('127.0.0.1');
          expect(got.from.port).to.equal(light.port);
          expect(got.packet!.payload).to.deep.equal({ service: 1, port: light.port });
          expect(light.port).to.not.equal(r.fleet.port);
          ports.add(light.port);
        }
        expect(ports.size).to.equal(5);
      } finally {
        await r.close();
      }
    });

    it('answers unicast on a light port only from that light', async () => {
      const r = await rig(defaultFleet(3), { mode: 'port' });
      try {
        const target = r.fleet.lights[2]!;
        const replies = await r.client.request('GetVersion', {}, { address: '127.0.0.1', port: target.port }, { count: 1, settleMs: 80 });
        expect(replies.map((p) => p.header.target)).to.deep.equal([target.serial]);
        expect(payloadsOf(replies, 'StateVersion')[0]).to.deep.equal({ vendor: 1, product: 32 });
      } finally {
        await r.close();
      }
    });
  });
  describe('moving a light', () => {
    it('ip mode: answers from its new address only, says so in discovery, and keeps its state', async () => {
      const r = await rig(defaultFleet(3));
      try {
        const serial = defaultSerial(1);
        const light = r.fleet.light(serial);
        const old = { address: light.address, port: light.port };
        light.setState({ label: 'Moved' });
        await r.fleet.moveLight(serial, '127.0.0.40');
        expect([light.address, light.port]).to.deep.equal(['127.0.0.40', r.fleet.port]);
        expect(await r.client.request('GetLabel', {}, old, { timeoutMs: 120 })).to.deep.equal([]);
        const label = await r.client.request('GetLabel', {}, r.at(serial), { count: 1 });
        expect(payloadsOf(label, 'StateLabel')[0]!.label).to.equal('Moved');
        expect(r.client.inbox.at(-1)!.from).to.deep.equal({ address: '127.0.0.40', port: r.fleet.port });
        r.client.clear();
        await r.client.request('GetService', {}, r.broadcast, { count: 3, settleMs: 60 });
        const from = r.client.inbox.find((x) => x.packet!.header.target === serial)!.from;
        expect(from).to.deep.equal({ address: '127.0.0.40', port: r.fleet.port });
        expect(light.summary().address).to.equal('127.0.0.40');
        expect(r.fleet.sentToVacated).to.equal(1);
        // Back to where it was: the silent socket there makes way.
        await r.fleet.moveLight(serial, old.address);
        expect(namesOf(await r.client.request('GetLabel', {}, old, { count: 1 }))).to.deep.equal(['StateLabel']);
      } finally {
        await r.close();
      }
      expect(process.getActiveResourcesInfo().filter((x) => x === 'UDPWrap')).to.have.length(0);
    });

    it('port mode: moves to a new port on the same address', async () => {
      const r = await rig(defaultFleet(2), { mode: 'port' });
      try {
        const light = r.fleet.lights[0]!;
        const before = light.port;
        await r.fleet.moveLight(light.serial);
        expect(light.port).to.not.equal(before);
        const replies = await r.client.request('GetVersion', {}, { address: '127.0.0.1', port: light.port }, { count: 1 });
        expect(replies.map((p) => p.header.target)).to.deep.equal([light.serial]);
        expect(await r.client.request('GetVersion', {}, { address: '127.0.0.1', port: before }, { timeoutMs: 100 })).to.deep.equal([]);
      } finally {
        await r.close();
      }
    });

    it('refuses an address off loopback, another light\'s address, and a stopped fleet', async () => {
      const r = await rig(defaultFleet(2));
      try {
        const serial = defaultSerial(0);
        for (const bad of ['10.0.0.5', 'nope', undefined]) {
          const err = await r.fleet.moveLight(serial, bad).then(() => null, (e: unknown) => e);
          expect(err).to.have.property('code', 'FLEET_INVALID');
        }
        const taken = await r.fleet.moveLight(serial, r.fleet.lights[1]!.address).then(() => null, (e: unknown) => e);
        expect(taken).to.have.property('code', 'FLEET_INVALID');
        expect(r.fleet.light(serial).address).to.equal('127.0.0.2');
      } finally {
        await r.close();
      }
      const stopped = await r.fleet.moveLight(defaultSerial(0), '127.0.0.9').then(() => null, (e: unknown) => e);
      expect(stopped).to.have.property('code', 'CONTROL_REQUEST_INVALID');
    });
  });
});
