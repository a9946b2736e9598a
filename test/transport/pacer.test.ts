import { expect } from 'chai';
import sinon from 'sinon';
import { emissionIntervalMs, Pacer, PACING_WINDOW_MS, type PacedJob } from '../../core/transport/pacer.js';

/** Most of `times` (sorted) inside any half-open window [t, t + windowMs). */
function mostInWindow(times: readonly number[], windowMs: number): number {
  let worst = 0;
  let j = 0;
  for (let i = 0; i < times.length; i++) {
    while (times[j]! <= times[i]! - windowMs) j++;
    worst = Math.max(worst, i - j + 1);
  }
  return worst;
}

describe('Pacer', () => {
  const UNICAST = { perWindow: 18, burst: 3 };
  const BROADCAST = { perWindow: 2, burst: 2 };
  let clock: sinon.SinonFakeTimers;
  let pacer: Pacer;
  let sent: { key: string; value: number; atMs: number }[];

  const job = (key: string, value: number): PacedJob & { value: number } => {
    const j = {
      value,
      cancelled: false,
      run: () => void sent.push({ key, value: j.value, atMs: Date.now() }),
    };
    return j;
  };

  /** Seeded bursts of up to `maxBurst` jobs for light `a`, with random gaps, until `untilMs` of fake time. */
  async function randomTraffic(target: Pacer, o: { seed: number; maxBurst: number; maxGapMs: number; untilMs: number }): Promise<void> {
    let seed = o.seed;
    const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let t = 0; t < o.untilMs; ) {
      const burst = Math.floor(random() * o.maxBurst);
      for (let k = 0; k < burst; k++) target.schedule('a', job('a', t));
      const gap = Math.floor(random() * o.maxGapMs);
      await clock.tickAsync(gap);
      t += gap;
    }
  }

  beforeEach(() => {
    clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    pacer = new Pacer(UNICAST, BROADCAST, () => Date.now());
    sent = [];
  });

  afterEach(() => {
    pacer.stop();
    clock.restore();
  });

  it('spaces a busy light evenly: the burst at once, then one every W / (L - B + 1) ms, no stall', async () => {
    const spacing = emissionIntervalMs(UNICAST);
    expect(spacing).to.be.closeTo(1050 / 16, 1e-9);
    for (let i = 0; i < 60; i++) pacer.schedule('a', job('a', i));
    expect(sent).to.have.length(3);
    await clock.tickAsync(5000);
    expect(sent.map((s) => s.value)).to.deep.equal(Array.from({ length: 60 }, (_, i) => i));
    const gaps = sent.slice(3).map((s, i) => s.atMs - sent[i + 2]!.atMs);
    // Every gap once busy is one emission interval (timers fire on whole ms): at least ~50 ms, never a stall.
    for (const gap of gaps) expect(gap).to.be.within(Math.floor(spacing), Math.ceil(spacing) + 1);
    expect(mostInWindow(sent.map((s) => s.atMs), PACING_WINDOW_MS)).to.be.at.most(18);
    expect(mostInWindow(sent.map((s) => s.atMs), 1000)).to.be.at.most(18);
  });

  it('never lets more than perWindow through in any window, whatever the arrival pattern', async () => {
    await randomTraffic(pacer, { seed: 7, maxBurst: 6, maxGapMs: 400, untilMs: 20_000 });
    await clock.tickAsync(60_000);
    const times = sent.map((s) => s.atMs);
    expect(times.length).to.be.greaterThan(100);
    expect(mostInWindow(times, PACING_WINDOW_MS)).to.be.at.most(18);
  });

  it('gives a light that has been quiet its burst back', async () => {
    for (let i = 0; i < 10; i++) pacer.schedule('a', job('a', i));
    await clock.tickAsync(2000);
    expect(sent).to.have.length(10);
    sent.length = 0;
    for (let i = 0; i < 3; i++) pacer.schedule('a', job('a', i));
    expect(sent).to.have.length(3);
  });

  it('lets a light quiet for a whole window take its quiet burst, and still holds the cap in every window', async () => {
    const quiet = new Pacer({ perWindow: 18, burst: 3, quietBurst: 8 }, BROADCAST, () => Date.now());
    try {
      for (let i = 0; i < 40; i++) quiet.schedule('a', job('a', i));
      expect(sent).to.have.length(8);
      await clock.tickAsync(5000);
      const times = sent.map((s) => s.atMs);
      // The 9th waits (8 - 3 + 1) emission intervals, then one every interval.
      expect(times[8]).to.equal(Math.ceil(6 * emissionIntervalMs(UNICAST)));
      expect(mostInWindow(times, PACING_WINDOW_MS)).to.be.at.most(18);
      // Less than a window of rest: the ordinary burst only.
      sent.length = 0;
      for (let i = 0; i < 10; i++) quiet.schedule('a', job('a', i));
      await clock.tickAsync(600);
      expect(sent).to.have.length(10);
      await clock.tickAsync(300);
      sent.length = 0;
      for (let i = 0; i < 10; i++) quiet.schedule('a', job('a', i));
      expect(sent).to.have.length(3);
      await clock.tickAsync(2000);
      // Random traffic with quiet gaps: never over the cap.
      sent.length = 0;
      await randomTraffic(quiet, { seed: 11, maxBurst: 10, maxGapMs: 1500, untilMs: 30_000 });
      await clock.tickAsync(60_000);
      expect(mostInWindow(sent.map((s) => s.atMs), PACING_WINDOW_MS)).to.be.at.most(18);
    } finally {
      quiet.stop();
    }
  });

  it('paces each light on its own', async () => {
    for (let i = 0; i < 5; i++) {
      pacer.schedule('a', job('a', i));
      pacer.schedule('b', job('b', i));
    }
    expect(sent.filter((s) => s.key === 'a')).to.have.length(3);
    expect(sent.filter((s) => s.key === 'b')).to.have.length(3);
    await clock.tickAsync(200);
    expect(sent).to.have.length(10);
  });

  it('latest wins: a waiting job under a part can be found and given the newest value; it keeps its place', async () => {
    for (let i = 0; i < 3; i++) pacer.schedule('a', job('a', -1));
    const color = job('a', 1);
    pacer.schedule('a', color, 'color');
    const power = job('a', 100);
    pacer.schedule('a', power, 'power');
    for (let v = 2; v <= 40; v++) {
      const waiting = pacer.waitingFor('a', 'color') as typeof color | undefined;
      expect(waiting).to.equal(color);
      waiting!.value = v;
    }
    (pacer.waitingFor('a', 'power') as typeof power).value = 101;
    expect(pacer.waiting('a')).to.equal(2);
    await clock.tickAsync(70);
    expect(sent.at(-1)).to.include({ value: 40 });
    expect(pacer.waitingFor('a', 'color')).to.equal(undefined);
    // The next colour is a new job, queued behind the waiting power.
    pacer.schedule('a', job('a', 41), 'color');
    await clock.tickAsync(200);
    expect(sent.slice(3).map((s) => s.value)).to.deep.equal([40, 101, 41]);
  });

  it('skips cancelled jobs without spending a turn on them', async () => {
    for (let i = 0; i < 3; i++) pacer.schedule('a', job('a', i));
    const doomed = job('a', 99);
    pacer.schedule('a', doomed, 'x');
    pacer.schedule('a', job('a', 3));
    doomed.cancelled = true;
    expect(pacer.waitingFor('a', 'x')).to.equal(undefined);
    expect(pacer.waiting('a')).to.equal(1);
    await clock.tickAsync(66);
    expect(sent.map((s) => s.value)).to.deep.equal([0, 1, 2, 3]);
  });

  it('keeps broadcasts on their own budget, so unicast plus broadcasts stay within 20 per window at any light', async () => {
    for (let i = 0; i < 100; i++) pacer.schedule('a', job('a', i));
    for (let i = 0; i < 10; i++) pacer.scheduleBroadcast('127.255.255.255', job('bcast', i));
    await clock.tickAsync(10_000);
    const broadcasts = sent.filter((s) => s.key === 'bcast').map((s) => s.atMs);
    expect(broadcasts.slice(0, 3)).to.deep.equal([0, 0, PACING_WINDOW_MS]);
    expect(mostInWindow(broadcasts, PACING_WINDOW_MS)).to.be.at.most(2);
    expect(mostInWindow(sent.map((s) => s.atMs).sort((x, y) => x - y), 1000)).to.be.at.most(20);
  });

  it('drops idle lanes, leaves no timer once everything went out, and none after stop()', async () => {
    for (let k = 0; k < 200; k++) pacer.schedule(`10.0.0.${k}:56700`, job('probe', k));
    // A lane is as good as new once it sent nothing for a whole window.
    await clock.tickAsync(PACING_WINDOW_MS);
    expect(clock.countTimers()).to.equal(0);
    // Lanes are swept as new ones come: the 200 idle probe lanes go, the 100 busy new ones stay.
    for (let k = 0; k < 100; k++) pacer.schedule(`10.0.1.${k}:56700`, job('probe', k));
    expect(pacer.size).to.be.at.most(100);
    for (let i = 0; i < 10; i++) pacer.schedule('b', job('b', i));
    expect(clock.countTimers()).to.equal(1);
    pacer.stop();
    expect(clock.countTimers()).to.equal(0);
    pacer.schedule('b', job('b', 11));
    await clock.tickAsync(1000);
    expect(sent.filter((s) => s.key === 'b')).to.have.length(3);
  });
});
