import { expect } from 'chai';
import { decode } from '../../core/protocol/codec.js';
import { defaultFleet } from '../../core/simulator/default-fleet.js';
import { MALFORMED_KINDS, NO_FAULTS } from '../../core/simulator/faults.js';
import { hsbkToWire } from '../../core/protocol/units.js';
import { namesOf, payloadsOf } from './client.js';
import { BULB, bulb, rig } from './helpers.js';
import { until } from '../helpers/wait.js';

describe('simulator faults', () => {
  it('drops about lossProbability of incoming datagrams and counts them as lost', async () => {
    const r = await rig({ lights: [bulb({ faults: { lossProbability: 0.5 } })] });
    try {
      const sent = 300;
      const light = r.fleet.light(BULB);
      // In bursts of 50, so the light's socket buffer never overflows (that would be a second, uncounted loss).
      for (let burst = 0; burst < sent / 50; burst++) {
        for (let i = 0; i < 50; i++) r.client.send('GetPower', {}, r.at(BULB));
        await r.client.waitUntil(() => light.receivedTotal + light.stats.lost === (burst + 1) * 50, 1000);
      }
      // Every request handled (above) and every reply it sent received: nothing more can arrive.
      await until(() => r.client.inbox.length >= light.stats.sent, { what: 'every datagram the light sent, received' });
      // Binomial(300, 0.5): mean 150, sd 8.7; 90..210 is about seven sd either way.
      expect(light.stats.lost).to.be.within(90, 210);
      expect(light.receivedTotal).to.equal(sent - light.stats.lost);
      expect(r.client.inbox).to.have.length(light.receivedTotal);
    } finally {
      await r.close();
    }
  });

  it('uses the injected randomness for loss', async () => {
    const draws = [0.1, 0.9, 0.1, 0.9];
    let i = 0;
    const r = await rig({ lights: [bulb({ faults: { lossProbability: 0.5 } })] }, { random: () => draws[i++ % draws.length]! });
    try {
      for (let k = 0; k < 4; k++) r.client.send('GetPower', {}, r.at(BULB));
      await r.client.waitUntil(() => r.client.inbox.length === 2, 1000);
      // All four handled (answered or lost) and every reply sent received: nothing more can arrive.
      const light = r.fleet.light(BULB);
      await until(() => light.receivedTotal + light.stats.lost === 4 && r.client.inbox.length >= light.stats.sent, { what: 'the four requests handled and their replies received' });
      expect(r.client.inbox.map((x) => x.packet!.header.sequence)).to.deep.equal([2, 4]);
      expect(r.fleet.light(BULB).stats.lost).to.equal(2);
    } finally {
      await r.close();
    }
  });

  it('delays every reply by latencyMs and keeps the ack before the state', async () => {
    const r = await rig({ lights: [bulb({ faults: { latencyMs: 150 } })] });
    try {
      const t0 = performance.now();
      const replies = await r.client.request('GetColor', {}, r.at(BULB), { ack: true, count: 2 });
      expect(namesOf(replies)).to.deep.equal(['Acknowledgement', 'LightState']);
      const first = r.client.inbox[0]!.atMs - t0;
      expect(first).to.be.at.least(140);
      expect(first).to.be.below(600);
    } finally {
      await r.close();
    }
  });

  it('sends each reply twice with duplicateReplies', async () => {
    const r = await rig({ lights: [bulb({ faults: { duplicateReplies: true } })] });
    try {
      const replies = await r.client.request('GetLabel', {}, r.at(BULB), { ack: true, count: 4, settleMs: 60 });
      expect(namesOf(replies)).to.deep.equal(['Acknowledgement', 'Acknowledgement', 'StateLabel', 'StateLabel']);
      expect(new Set(replies.map((p) => p.header.sequence)).size).to.equal(1);
    } finally {
      await r.close();
    }
  });

  it('sends a malformed datagram before each real reply with malformedReplies "also", cycling through every kind', async () => {
    const r = await rig({ lights: [bulb({ faults: { malformedReplies: 'also' } })] });
    try {
      await r.client.request('GetColor', {}, r.at(BULB), { ack: true, count: 2, settleMs: 60 });
      await r.client.request('GetLabel', {}, r.at(BULB), { ack: true, count: 2, settleMs: 60 });
      const inbox = r.client.inbox;
      expect(inbox).to.have.length(8);
      expect(inbox.map((x) => x.result.ok)).to.deep.equal([false, true, false, true, false, true, false, true]);
      expect(namesOf(inbox.filter((x) => x.packet).map((x) => x.packet!))).to.deep.equal(['Acknowledgement', 'LightState', 'Acknowledgement', 'StateLabel']);
      const codes = inbox.filter((x) => !x.result.ok).map((x) => (x.result.ok ? '' : x.result.error.code));
      expect(codes).to.deep.equal(['DATAGRAM_TOO_SHORT', 'SIZE_MISMATCH', 'PROTOCOL_UNSUPPORTED', 'SIZE_MISMATCH']);
      expect(MALFORMED_KINDS).to.have.length(4);
    } finally {
      await r.close();
    }
  });

  it('sends only malformed datagrams with malformedReplies "instead"', async () => {
    const r = await rig({ lights: [bulb({ faults: { malformedReplies: 'instead' } })] });
    try {
      r.client.send('GetColor', {}, r.at(BULB), { ack: true });
      await r.client.waitUntil(() => r.client.inbox.length === 2, 1000);
      // The request handled and every datagram the light sent received: nothing more can arrive.
      const light = r.fleet.light(BULB);
      await until(() => light.receivedTotal === 1 && r.client.inbox.length >= light.stats.sent, { what: 'the request handled and its replies received' });
      expect(r.client.inbox).to.have.length(2);
      expect(r.client.inbox.every((x) => !decode(x.datagram).ok)).to.equal(true);
    } finally {
      await r.close();
    }
  });

  it('answers only GetService when unresponsive, and still records what it received', async () => {
    const r = await rig({ lights: [bulb({ faults: { unresponsive: true } })] });
    try {
      const color = await r.client.request('GetColor', {}, r.at(BULB), { ack: true, res: true, timeoutMs: 120 });
      expect(color).to.deep.equal([]);
      const service = await r.client.request('GetService', {}, r.broadcast, { count: 1, settleMs: 60 });
      expect(namesOf(service)).to.deep.equal(['StateService']);
      expect(r.fleet.light(BULB).receivedByName()).to.deep.equal({ GetColor: 1, GetService: 1 });
    } finally {
      await r.close();
    }
  });

  it('answers nothing and records nothing when offline, and answers again once back online', async () => {
    const r = await rig({ lights: [bulb({ faults: { offline: true } })] });
    try {
      const light = r.fleet.light(BULB);
      expect(await r.client.request('GetService', {}, r.broadcast, { timeoutMs: 100 })).to.deep.equal([]);
      expect(await r.client.request('GetColor', {}, r.at(BULB), { ack: true, timeoutMs: 100 })).to.deep.equal([]);
      expect(light.receivedTotal).to.equal(0);
      expect(light.stats.ignoredOffline).to.equal(2);
      light.setFaults({ offline: false });
      const back = await r.client.request('GetColor', {}, r.at(BULB), { count: 1 });
      expect(namesOf(back)).to.deep.equal(['LightState']);
    } finally {
      await r.close();
    }
  });

  it('changes faults of one light while the fleet runs, leaving the others alone', async () => {
    const r = await rig(defaultFleet(3));
    try {
      r.fleet.light('d073d5000002').setFaults({ offline: true });
      const replies = await r.client.request('GetService', {}, r.broadcast, { count: 2, settleMs: 80 });
      expect(replies.map((p) => p.header.target).sort()).to.deep.equal(['d073d5000001', 'd073d5000003']);
      expect(r.fleet.light('d073d5000002').faults).to.include({ offline: true, lossProbability: 0 });
      expect(() => r.fleet.light('d073d5000002').setFaults({ lossProbability: 2 })).to.throw().with.property('code', 'FLEET_INVALID');
    } finally {
      await r.close();
    }
  });
  describe('loss per direction and reordering', () => {
    const BLUE = hsbkToWire({ hue: 240, saturation: 1, brightness: 1, kelvin: 3500 });

    it('with lossOutProbability 1 the light changes but its ack is lost', async () => {
      const r = await rig({ lights: [bulb({ faults: { lossOutProbability: 1 } })] });
      try {
        const light = r.fleet.light(BULB);
        const acks = await r.client.request('SetColor', { color: BLUE, durationMs: 0 }, r.at(BULB), { ack: true, timeoutMs: 150 });
        expect(acks).to.deep.equal([]);
        expect(r.client.inbox).to.have.length(0);
        expect(light.receivedCount('SetColor')).to.equal(1);
        expect(light.state.color.hue).to.be.closeTo(240, 0.01);
        expect(light.stats).to.include({ lost: 0, lostReplies: 1, sent: 0 });
      } finally {
        await r.close();
      }
    });

    it('loses about lossOutProbability of the replies, each datagram on its own, and none of the incoming', async () => {
      const r = await rig({ lights: [bulb({ faults: { lossOutProbability: 0.3 } })] });
      try {
        const light = r.fleet.light(BULB);
        for (let burst = 0; burst < 4; burst++) {
          for (let i = 0; i < 50; i++) r.client.send('GetPower', {}, r.at(BULB), { ack: true, res: true });
          await r.client.waitUntil(() => light.stats.sent + light.stats.lostReplies === (burst + 1) * 100, 1000);
        }
        // Every reply that was not lost, received: nothing more can arrive.
        await until(() => r.client.inbox.length >= light.stats.sent, { what: 'every datagram the light sent, received' });
        // 200 incoming, all seen; 400 replies, Binomial(400, 0.3): mean 120, sd 9.2; 60..180 is about 6.5 sd.
        expect(light.receivedTotal).to.equal(200);
        expect(light.stats.lost).to.equal(0);
        expect(light.stats.lostReplies).to.be.within(60, 180);
        expect(r.client.inbox).to.have.length(400 - light.stats.lostReplies);
        // Acks and states are lost independently: some requests got only one of the two.
        const bySequence = new Map<number, number>();
        for (const x of r.client.inbox) bySequence.set(x.packet!.header.sequence, (bySequence.get(x.packet!.header.sequence) ?? 0) + 1);
        expect([...bySequence.values()].some((n) => n === 1)).to.equal(true);
      } finally {
        await r.close();
      }
    });

    it('applies both directions with the injected randomness: one draw in, then one per reply', async () => {
      // In: 0.9 (kept); ack 0.1 (lost), state 0.9 (sent). In: 0.1 (lost, no reply draws).
      const draws = [0.9, 0.1, 0.9, 0.1];
      let i = 0;
      const r = await rig({ lights: [bulb({ faults: { lossInProbability: 0.5, lossOutProbability: 0.5 } })] }, { random: () => draws[i++]! });
      try {
        const first = await r.client.request('GetColor', {}, r.at(BULB), { ack: true, res: true, count: 1, settleMs: 60 });
        expect(namesOf(first)).to.deep.equal(['LightState']);
        const second = await r.client.request('GetColor', {}, r.at(BULB), { ack: true, res: true, timeoutMs: 120 });
        expect(second).to.deep.equal([]);
        expect(i).to.equal(4);
        expect(r.fleet.light(BULB).stats).to.include({ lost: 1, lostReplies: 1, sent: 1 });
      } finally {
        await r.close();
      }
    });

    it('holds a reordered reply back so it arrives after the replies sent after it', async () => {
      // Request 1: ack held back (0.1), state sent (0.9). Request 2: ack and state sent.
      const draws = [0.1, 0.9, 0.9, 0.9];
      let i = 0;
      const r = await rig(
        { lights: [bulb({ faults: { reorderProbability: 0.5, reorderDelayMs: 120 } })] },
        { random: () => draws[i++ % draws.length]! },
      );
      try {
        const s1 = r.client.send('GetLabel', {}, r.at(BULB), { ack: true, res: true });
        await r.client.waitUntil(() => r.client.inbox.length === 1, 500);
        const s2 = r.client.send('GetLabel', {}, r.at(BULB), { ack: true, res: true });
        await r.client.waitUntil(() => r.client.inbox.length === 4, 1000);
        const order = r.client.inbox.map((x) => `${x.packet!.header.sequence === s1 ? 1 : x.packet!.header.sequence === s2 ? 2 : '?'}:${x.packet!.name}`);
        expect(order).to.deep.equal(['1:StateLabel', '2:Acknowledgement', '2:StateLabel', '1:Acknowledgement']);
        expect(r.client.inbox[3]!.atMs - r.client.inbox[0]!.atMs).to.be.at.least(100);
        expect(r.fleet.light(BULB).stats.reordered).to.equal(1);
      } finally {
        await r.close();
      }
    });

    it('reorders after latency: a held-back reply waits latencyMs + reorderDelayMs', async () => {
      const r = await rig({ lights: [bulb({ faults: { latencyMs: 60, reorderProbability: 1, reorderDelayMs: 90 } })] });
      try {
        const t0 = performance.now();
        const replies = await r.client.request('GetPower', {}, r.at(BULB), { res: true, count: 1 });
        expect(namesOf(replies)).to.deep.equal(['StatePower']);
        expect(r.client.inbox[0]!.atMs - t0).to.be.within(140, 700);
      } finally {
        await r.close();
      }
    });

    it('keeps lossProbability as shorthand for lossInProbability, both ways through setFaults', async () => {
      const r = await rig({ lights: [bulb({ faults: { lossProbability: 0.25 } })] });
      try {
        const light = r.fleet.light(BULB);
        expect(light.faults).to.include({ lossProbability: 0.25, lossInProbability: 0.25, lossOutProbability: 0 });
        expect(light.setFaults({ lossInProbability: 0.5 })).to.include({ lossProbability: 0.5, lossInProbability: 0.5 });
        expect(light.setFaults({ lossProbability: 0 })).to.include({ lossProbability: 0, lossInProbability: 0 });
        expect(light.setFaults({ lossOutProbability: 0.4 })).to.include({ lossProbability: 0, lossOutProbability: 0.4 });
        expect(() => light.setFaults({ lossProbability: 0.1, lossInProbability: 0.2 }))
          .to.throw().with.property('params').that.deep.include({ path: 'faults.lossProbability' });
        expect(light.setFaults({ lossProbability: 0.3, lossInProbability: 0.3 })).to.include({ lossInProbability: 0.3 });
        expect(NO_FAULTS).to.include({ lossInProbability: 0, lossOutProbability: 0, lossProbability: 0, reorderProbability: 0 });
      } finally {
        await r.close();
      }
    });

    it('lets the client see a changed light answer nothing, then its state on a read', async () => {
      const r = await rig({ lights: [bulb({ faults: { lossOutProbability: 1 } })] });
      try {
        await r.client.request('SetColor', { color: BLUE, durationMs: 0 }, r.at(BULB), { ack: true, timeoutMs: 100 });
        r.fleet.light(BULB).setFaults({ lossOutProbability: 0 });
        const state = await r.client.request('GetColor', {}, r.at(BULB), { count: 1 });
        expect(payloadsOf(state, 'LightState')[0]!.color).to.deep.equal(BLUE);
      } finally {
        await r.close();
      }
    });
  });
});
