// The background refresh schedule on its own, on a fake clock: when each light's state and facts are read again,
// on one timer for the whole fleet.

import { expect } from 'chai';
import sinon from 'sinon';
import { RefreshSchedule, REFRESH_TICK_MS, type RefreshHost } from '../../core/discovery/refresh-schedule.js';
import { LightRegistry } from '../../core/discovery/registry.js';

const SERIAL = 'd073d5000001';
const INTERVALS = { refreshIntervalMs: 10_000, infoRefreshIntervalMs: 300_000 };

/** A client as the schedule sees it: reads that end at once (or when the test says), each one noted with its time. */
function fakeHost(registry: LightRegistry): RefreshHost & { states: [string, number][]; infos: [string, number][]; started: boolean } {
  const host = {
    started: true,
    registry,
    states: [] as [string, number][],
    infos: [] as [string, number][],
    readState(serial: string): Promise<void> {
      host.states.push([serial, Date.now()]);
      return Promise.resolve();
    },
    readInfo(serial: string): Promise<void> {
      host.infos.push([serial, Date.now()]);
      return Promise.resolve();
    },
  };
  return host;
}

describe('RefreshSchedule (fake timers)', () => {
  let clock: sinon.SinonFakeTimers;
  let registry: LightRegistry;
  beforeEach(() => {
    clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    registry = new LightRegistry(3);
  });
  afterEach(() => clock.restore());

  it('reads a light state first between one and two intervals after it is added, then every interval, facts on their own interval', async () => {
    // Randomness in the middle: no spread, no jitter, so the times are exact.
    const random = sinon.stub(Math, 'random').returns(0.5);
    try {
      const host = fakeHost(registry);
      const schedule = new RefreshSchedule(host, INTERVALS);
      registry.seen(SERIAL, '127.0.0.2', 56700);
      schedule.add(SERIAL);
      await clock.tickAsync(14_999);
      expect(host.states).to.deep.equal([]);
      await clock.tickAsync(30_001);
      expect(host.states.map(([, at]) => at)).to.deep.equal([15_000, 25_000, 35_000, 45_000]);
      expect(host.infos).to.deep.equal([]);
      await clock.tickAsync(300_000 - 45_000);
      expect(host.infos).to.deep.equal([[SERIAL, 300_000]]);
      schedule.clear();
    } finally {
      random.restore();
    }
  });

  it('spreads first reads over one to two intervals, and jitters later ones by ±10 %', async () => {
    const host = fakeHost(registry);
    const schedule = new RefreshSchedule(host, INTERVALS);
    for (let i = 0; i < 50; i++) {
      const serial = `d073d5${String(i).padStart(6, '0')}`;
      registry.seen(serial, '127.0.0.2', 56700);
      schedule.add(serial);
    }
    await clock.tickAsync(20_000 + REFRESH_TICK_MS);
    const firsts = new Map<string, number>();
    for (const [serial, at] of host.states) if (!firsts.has(serial)) firsts.set(serial, at);
    expect(firsts.size).to.equal(50);
    const times = [...firsts.values()];
    expect(Math.min(...times)).to.be.at.least(10_000);
    expect(Math.max(...times)).to.be.at.most(20_000 + REFRESH_TICK_MS);
    // Not in lockstep: the fleet's first reads are spread over the interval.
    expect(Math.max(...times) - Math.min(...times)).to.be.above(5_000);
    await clock.tickAsync(12_000);
    for (const [serial, first] of firsts) {
      const second = host.states.find(([s, at]) => s === serial && at > first)![1];
      expect(second - first).to.be.within(9_000, 11_000 + REFRESH_TICK_MS);
    }
    schedule.clear();
  });

  it('keeps one timer for the whole fleet', async () => {
    const host = fakeHost(registry);
    const schedule = new RefreshSchedule(host, INTERVALS);
    for (let i = 0; i < 100; i++) {
      const serial = `d073d5${String(i).padStart(6, '0')}`;
      registry.seen(serial, '127.0.0.2', 56700);
      schedule.add(serial);
    }
    expect(clock.countTimers()).to.equal(1);
    await clock.tickAsync(20_000 + REFRESH_TICK_MS);
    expect(new Set(host.states.map(([s]) => s)).size).to.equal(100);
    expect(clock.countTimers()).to.equal(1);
    schedule.clear();
    expect(clock.countTimers()).to.equal(0);
  });

  it('reads again at once after a missed state read of a light still online, then every interval again', async () => {
    const random = sinon.stub(Math, 'random').returns(0.5);
    try {
      const host = fakeHost(registry);
      const schedule = new RefreshSchedule(host, INTERVALS);
      registry.seen(SERIAL, '127.0.0.2', 56700);
      registry.answered(SERIAL);
      // The first state read goes unanswered (a miss; the light stays online below offlineAfterMisses), the next ones are answered.
      const read = host.readState;
      host.readState = (serial) => read(serial).then(() => (host.states.length === 1 ? registry.missed(serial) : registry.answered(serial)));
      schedule.add(SERIAL);
      await clock.tickAsync(26_000);
      expect(registry.peek(SERIAL)!.online).to.equal(true);
      // The retry was due as the missed read ended (one tick later, not an interval); then the interval again.
      expect(host.states.map(([, at]) => at)).to.deep.equal([15_000, 15_000 + REFRESH_TICK_MS, 25_000 + REFRESH_TICK_MS]);
      schedule.clear();
    } finally {
      random.restore();
    }
  });

  it('drops lights the registry forgot or that were removed, reads nothing once stopped, and nothing at interval 0', async () => {
    const host = fakeHost(registry);
    const schedule = new RefreshSchedule(host, INTERVALS);
    for (const serial of ['d073d5000001', 'd073d5000002', 'd073d5000003']) {
      registry.seen(serial, '127.0.0.2', 56700);
      schedule.add(serial);
    }
    registry.remove('d073d5000002');
    schedule.remove('d073d5000003');
    await clock.tickAsync(20_000 + REFRESH_TICK_MS);
    expect([...new Set(host.states.map(([s]) => s))]).to.deep.equal(['d073d5000001']);
    host.started = false;
    const before = host.states.length;
    await clock.tickAsync(40_000);
    expect(host.states).to.have.length(before);
    schedule.clear();

    const never = fakeHost(registry);
    const off = new RefreshSchedule(never, { refreshIntervalMs: 0, infoRefreshIntervalMs: 300_000 });
    off.add('d073d5000001');
    expect(clock.countTimers()).to.equal(0);
    await clock.tickAsync(600_000);
    expect([never.states, never.infos]).to.deep.equal([[], []]);
  });
});
