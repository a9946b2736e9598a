// The fast lane: messages without ack or reply, paced per light; latest wins while one waits, encoded only when its
// turn comes (fake clock).

import { expect } from 'chai';
import sinon from 'sinon';
import { isLightwireError } from '../../core/errors.js';
import type { MessageName } from '../../core/protocol/index.js';
import { FastLane, type FastWire } from '../../core/transport/fast-lane.js';
import { Pacer } from '../../core/transport/pacer.js';
import type { DeviceAddress, FastObserver, RequesterStats } from '../../core/transport/request-types.js';

const LIGHT = { serial: 'd073d5000001', address: '127.0.0.2', port: 56700 };

describe('FastLane', () => {
  let clock: sinon.SinonFakeTimers;
  let pacer: Pacer;
  let stats: RequesterStats;
  let wire: { sent: { name: MessageName; payload: unknown }[] } & FastWire;
  let lane: FastLane;

  beforeEach(() => {
    clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    // One message at once per light, then one every 100 ms.
    pacer = new Pacer({ perWindow: 10, burst: 1 }, { perWindow: 2, burst: 2 }, () => performance.now());
    stats = { sent: 0, retransmits: 0, received: 0, malformed: 0, shortPayloads: 0, duplicates: 0, unmatched: 0, foreign: 0, timeouts: 0, invalid: 0 };
    const sent: { name: MessageName; payload: unknown }[] = [];
    wire = {
      sent,
      datagram: (_device, name, payload) => {
        if ((payload as { level?: number }).level === -1) throw new RangeError('level out of range');
        sent.push({ name, payload });
        return Buffer.alloc(36);
      },
      post: () => undefined,
    };
    lane = new FastLane(pacer, wire, stats);
  });

  afterEach(() => {
    pacer.stop();
    clock.restore();
  });

  it('sends at once when the light is quiet; a waiting message takes the newest payload and keeps its place', async () => {
    const first = lane.queue(LIGHT, 'SetPower', { level: 0 }, undefined, undefined);
    expect(first.turnTaken).to.equal(true);
    const second = lane.queue(LIGHT, 'SetPower', { level: 1 }, undefined, undefined);
    expect(second.turnTaken).to.equal(false);
    const third = lane.queue(LIGHT, 'SetPower', { level: 2 }, undefined, undefined);
    expect(third).to.equal(second);
    expect(lane.replaced).to.equal(second);
    const other = lane.queue(LIGHT, 'SetColor', { color: { hue: 0, saturation: 0, brightness: 0, kelvin: 3500 }, durationMs: 0 }, false, undefined);
    expect(other).to.not.equal(second);
    await clock.tickAsync(1000);
    expect(wire.sent.map((s) => s.payload)).to.deep.include.members([{ level: 0 }, { level: 2 }]);
    expect(wire.sent.filter((s) => s.name === 'SetPower')).to.have.length(2);
    expect(stats.sent).to.equal(3);
  });

  it('in a batch (corked), tells the observer only of a message that waited, with what it carried when it went', async () => {
    const seen: unknown[] = [];
    const observer: FastObserver = { sent: (_d: DeviceAddress, name, payload) => seen.push([name, payload]) };
    pacer.cork();
    lane.queue(LIGHT, 'SetPower', { level: 0 }, undefined, observer);
    lane.queue(LIGHT, 'SetPower', { level: 1 }, undefined, observer);
    lane.queue(LIGHT, 'SetPower', { level: 2 }, undefined, observer);
    pacer.uncork();
    expect(wire.sent.map((s) => s.payload)).to.deep.equal([{ level: 0 }]);
    expect(seen).to.deep.equal([]);
    await clock.tickAsync(1000);
    expect(seen).to.deep.equal([['SetPower', { level: 2 }]]);
  });

  it('resolves whenSent() when the message is handed to the socket, and rejects one that does not encode', async () => {
    lane.queue(LIGHT, 'SetPower', { level: 0 }, undefined, undefined);
    const waiting = lane.whenSent(lane.queue(LIGHT, 'SetPower', { level: 1 }, undefined, undefined));
    let done = false;
    void waiting.then(() => (done = true));
    await clock.tickAsync(0);
    expect(done).to.equal(false);
    await clock.tickAsync(1000);
    expect(done).to.equal(true);
    lane.queue(LIGHT, 'SetColor', { color: { hue: 0, saturation: 0, brightness: 0, kelvin: 3500 }, durationMs: 0 }, undefined, undefined);
    const bad = lane.whenSent(lane.queue(LIGHT, 'SetPower', { level: -1 }, undefined, undefined)).catch((err: unknown) => err);
    await clock.tickAsync(1000);
    expect(await bad).to.be.instanceOf(RangeError);
    expect(stats.invalid).to.equal(1);
  });

  it('rejects whenSent() callers still waiting when closed (CLIENT_STOPPED), and their message never goes', async () => {
    lane.queue(LIGHT, 'SetPower', { level: 0 }, undefined, undefined);
    const waiting = lane.whenSent(lane.queue(LIGHT, 'SetPower', { level: 1 }, undefined, undefined)).catch((err: unknown) => err);
    lane.close();
    expect(isLightwireError(await waiting, 'CLIENT_STOPPED')).to.equal(true);
    await clock.tickAsync(1000);
    expect(wire.sent).to.have.length(1);
  });
});
