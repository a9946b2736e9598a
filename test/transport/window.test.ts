import { expect } from 'chai';
import { AdaptiveWindow } from '../../core/transport/window.js';

describe('AdaptiveWindow (first reads in flight)', () => {
  let nowMs = 0;
  const make = (initial = 8, min = 8, max = 256): AdaptiveWindow => new AdaptiveWindow({ initial, min, max }, () => nowMs);

  beforeEach(() => {
    nowMs = 0;
  });

  /** One round: every job in the window completes after `rttMs`, `lossy` of them with a lost packet. */
  function round(w: AdaptiveWindow, rttMs: number, lossy = 0): number {
    const n = w.size;
    const tickets = Array.from({ length: n }, () => w.ticket());
    nowMs += rttMs;
    for (let i = 0; i < n; i++) w.completed(rttMs, i < lossy, tickets[i]!);
    return w.size;
  }

  it('doubles every round trip while nothing is lost, up to its ceiling', () => {
    const w = make();
    const sizes = [w.size];
    for (let r = 0; r < 7; r++) sizes.push(round(w, 50));
    expect(sizes).to.deep.equal([8, 16, 32, 64, 128, 256, 256, 256]);
  });

  it('halves on loss, once per round trip however many jobs lost a packet, then grows by one per round', () => {
    const w = make();
    for (let r = 0; r < 3; r++) round(w, 50);
    expect(w.size).to.equal(64);
    // Ten losses in one round: one decrease.
    round(w, 50, 10);
    expect(w.counts.decreases).to.equal(1);
    expect(w.size).to.be.within(32, 34);
    // Congestion avoidance: about one more per round, not doubling.
    const before = w.size;
    round(w, 50);
    round(w, 50);
    expect(w.size - before).to.be.within(1, 3);
  });

  it('stops doubling when more in flight delivers no more, back to the window that round began with, and holds it', () => {
    const w = make();
    // A bottleneck, not a round trip: the lights (or our event loop) finish one job every 2 ms however many wait, so
    // a round of 16 jobs takes twice as long as one of 8 and delivers no faster.
    const sizes = [w.size];
    for (let r = 0; r < 6; r++) sizes.push(round(w, 2 * w.size));
    expect(sizes).to.deep.equal([8, 16, 16, 16, 16, 16, 16]);
    expect(w.holding).to.equal(true);
    expect(w.counts.decreases).to.equal(0);
  });

  it('goes on doubling while each round delivers a quarter more, and stops at the first round that does not', () => {
    const w = make();
    round(w, 10);
    round(w, 10);
    expect(w.size).to.equal(32);
    // Requests now wait at the lights: 32 jobs take 40 ms (0.8 a ms, the rate of the round of 8): no better.
    round(w, 40);
    expect(w.size).to.equal(32);
    for (let r = 0; r < 5; r++) round(w, 11);
    expect(w.size).to.equal(32);
    expect(w.holding).to.equal(true);
  });

  it('judges no round the caller could not fill, and does not grow on one', () => {
    const w = make();
    for (let r = 0; r < 5; r++) {
      w.appLimited();
      nowMs += 50;
      for (let i = 0; i < 3; i++) w.completed(50, false, w.ticket());
      nowMs += 50;
      for (let i = 0; i < 5; i++) w.completed(50, false, w.ticket());
    }
    expect(w.size).to.equal(8);
    expect(w.counts.rounds).to.equal(0);
    expect(w.holding).to.equal(false);
    // Filled again: slow start takes up where it was.
    round(w, 50);
    expect(w.size).to.equal(16);
  });

  it('after holding, a loss halves the window and congestion avoidance grows it again', () => {
    const w = make();
    round(w, 10);
    round(w, 10);
    round(w, 40);
    expect(w.holding).to.equal(true);
    round(w, 40, 1);
    expect(w.holding).to.equal(false);
    expect(w.counts.decreases).to.equal(1);
    // Halved to 16; the round's other completions already grow it (one per window's worth).
    const halved = w.size;
    expect(halved).to.be.within(16, 18);
    for (let r = 0; r < 4; r++) round(w, 40);
    expect(w.size - halved).to.be.within(3, 5);
  });

  /**
   * Jobs started whenever the window has room (as the first reads are pumped). A job's measure (its state read) is
   * answered at `answerAt(start)`; it keeps its slot `holdMs` longer (its other reads), as a first read does.
   * Returns the window once `jobs` have been answered.
   */
  function pipeline(w: AdaptiveWindow, jobs: number, answerAt: (startMs: number) => number, holdMs = 0): number {
    type Event = { at: number; kind: 'answer' | 'release'; startedAt: number; ticket: number };
    const events: Event[] = [];
    let inFlight = 0;
    let started = 0;
    let answered = 0;
    while (answered < jobs) {
      while (inFlight < w.size && started < jobs) {
        events.push({ at: answerAt(nowMs), kind: 'answer', startedAt: nowMs, ticket: w.ticket() });
        inFlight++;
        started++;
      }
      events.sort((a, b) => a.at - b.at);
      const next = events.shift()!;
      nowMs = Math.max(nowMs, next.at);
      if (next.kind === 'release') {
        inFlight--;
        continue;
      }
      w.completed(nowMs - next.startedAt, false, next.ticket);
      answered++;
      events.push({ ...next, at: nowMs + holdMs, kind: 'release' });
    }
    return w.size;
  }

  it('opens to its ceiling on a network round trip, jobs started as others end (rounds not in step with round trips)', () => {
    const w = make(4, 4, 128);
    // 50 ms and up to 40 ms more (a busy light, a busy event loop), from a fixed seed.
    let seed = 7;
    const jitter = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 40;
    // Each first read holds its slot for a second round trip after its state read was answered.
    expect(pipeline(w, 2000, (at) => at + 50 + jitter(), 45)).to.equal(128);
    expect(w.holding).to.equal(false);
  });

  it('holds small when one server answers a job every 0.5 ms whatever the number waiting', () => {
    const w = make(4, 4, 128);
    let freeAt = 0;
    const size = pipeline(w, 2000, (at) => (freeAt = Math.max(freeAt, at + 0.2) + 0.5));
    expect(w.holding).to.equal(true);
    expect(size).to.be.within(4, 16);
  });

  it('never shrinks below its floor, and a lossy network stays near it', () => {
    const w = make();
    for (let r = 0; r < 20; r++) round(w, 80, 1);
    expect(w.size).to.equal(8);
  });

  it('measures the round trip from clean jobs only (Karn) and smooths it', () => {
    const w = make();
    w.completed(100, true, w.ticket());
    expect(w.rttMs).to.equal(undefined);
    w.completed(50, false, w.ticket());
    expect(w.rttMs).to.equal(50);
    for (let i = 0; i < 50; i++) w.completed(20, false, w.ticket());
    expect(w.rttMs).to.be.closeTo(20, 1);
  });

  it('grows faster in wall time on a short round trip than on a long one, a round lasting at least 10 ms', () => {
    const fast = make();
    const slow = make();
    let tFast = 0;
    while (fast.size < 256) {
      round(fast, 5);
      tFast += 5;
    }
    let tSlow = 0;
    while (slow.size < 256) {
      round(slow, 100);
      tSlow += 100;
    }
    expect(tSlow).to.equal(500);
    // 5 ms round trips, rounds of at least 10 ms: five doublings take 40 to 50 ms, not 25.
    expect(tFast).to.be.within(40, 50);
  });

  it('refuses nonsense bounds', () => {
    expect(() => new AdaptiveWindow({ initial: 4, min: 8, max: 16 })).to.throw(RangeError);
    expect(() => new AdaptiveWindow({ initial: 8, min: 0, max: 16 })).to.throw(RangeError);
  });
});
