// How many jobs (a newly found light's first read) are in flight at once, following the network as TCP's congestion
// window does (RFC 5681, in jobs rather than bytes): slow start doubles the window every round while no job loses a
// packet, congestion avoidance then adds one job per round, and a job that lost a packet (a retransmission or a
// timeout) halves it, at most once per smoothed round trip (RFC 6298) so one burst of loss counts once.
//
// Like TCP BBR's start-up, slow start also watches what the window buys: the delivery rate. Each job measures it as
// BBR measures it per packet: the jobs completed while it was in flight, over its time in flight (ticket() at its
// start). A round is a window's worth of completions lasting at least MIN_ROUND_MS, and its rate the mean of its
// jobs' samples. While a round delivers at least a quarter more than the best one before it, more in flight is
// carrying more (a network round trip to wait out: a LAN, Wi-Fi) and the window may double again. A round that does
// not (the lights, or our own event loop, are the bottleneck, so more requests would only queue, each holding its
// memory) ends slow start: the window goes back to what it was when that round began and holds there until a loss
// halves it (congestion avoidance then grows it, as after any loss). On loopback that keeps a handful of first reads
// in flight, not hundreds, at the same speed; with a 50 ms round trip the rate doubles every round and the window
// opens to its ceiling. A round in which the caller had fewer jobs than the window allowed (appLimited()) says
// nothing of the network: it is neither judged nor grows the window (RFC 7661). Per-light pacing (pacer.ts) still
// bounds what each light receives.

/** A round must deliver this much more than the best one before it for slow start to go on (BBR's full-pipe test). */
const RATE_GROWTH = 1.25;
/** The least a round lasts (more completions than a window's, on a fast network), so its rate is not one bunch's:
 * one event-loop turn reads many replies at once. */
const MIN_ROUND_MS = 10;

export interface WindowOptions {
  /** Where the window starts and the least it shrinks to. */
  readonly initial: number;
  readonly min: number;
  readonly max: number;
}

export class AdaptiveWindow {
  private cwnd: number;
  private ssthresh: number;
  /** Smoothed round trip and its variation, ms (RFC 6298); undefined until the first sample. */
  private srtt: number | undefined = undefined;
  private rttvar = 0;
  /** When (caller's clock, ms) the last decrease happened; losses within one srtt of it do not count again. */
  private lastDecreaseAt = -Infinity;
  /** The round being measured: when it began, the window then, completions so far, whether the caller starved it. */
  private roundStartAt: number;
  private roundWindow: number;
  private roundDone = 0;
  private roundAppLimited = false;
  /** Jobs completed so far (a job's ticket() is this count at its start), and the round's sum of rate samples. */
  private delivered = 0;
  private roundRateSum = 0;
  /** The best delivery rate of a judged round since slow start began (jobs per ms). */
  private bestRate = 0;
  /** Slow start ended on a flat delivery rate: the window holds until a loss halves it. */
  private full = false;
  /** Counts for diagnostics and tests. */
  readonly counts = { completed: 0, lossy: 0, decreases: 0, rounds: 0 };

  constructor(
    private readonly options: WindowOptions,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(options.min >= 1 && options.initial >= options.min && options.max >= options.initial)) {
      throw new RangeError('window: need 1 <= min <= initial <= max');
    }
    this.cwnd = options.initial;
    this.ssthresh = options.max;
    this.roundStartAt = this.now();
    this.roundWindow = options.initial;
  }

  /** Jobs allowed in flight now (whole jobs). */
  get size(): number {
    return Math.floor(this.cwnd);
  }

  /** The smoothed round trip measured so far, ms (undefined before the first sample). */
  get rttMs(): number | undefined {
    return this.srtt;
  }

  /** Whether slow start ended on a flat delivery rate (more in flight delivered no more). */
  get holding(): boolean {
    return this.full;
  }

  /** The caller had fewer jobs waiting than the window allowed: the round being measured is not judged. */
  appLimited(): void {
    this.roundAppLimited = true;
  }

  /** Taken when a job starts and given back to completed(): how many jobs had completed by then. */
  ticket(): number {
    return this.delivered;
  }

  /**
   * A job ended: how long it took (from its start), whether any of its packets had to be sent again or went
   * unanswered, and its ticket().
   */
  completed(rttMs: number, lost: boolean, ticket: number): void {
    this.counts.completed++;
    this.delivered++;
    // BBR's delivery rate sample: the jobs that completed while this one was in flight (itself included), per ms.
    if (rttMs > 0) this.roundRateSum += (this.delivered - ticket) / rttMs;
    if (Number.isFinite(rttMs) && rttMs >= 0 && !lost) {
      // Karn: only jobs that needed no retransmission give a sample.
      if (this.srtt === undefined) {
        this.srtt = rttMs;
        this.rttvar = rttMs / 2;
      } else {
        this.rttvar = 0.75 * this.rttvar + 0.25 * Math.abs(this.srtt - rttMs);
        this.srtt = 0.875 * this.srtt + 0.125 * rttMs;
      }
    }
    if (lost) {
      this.counts.lossy++;
      const now = this.now();
      const guard = this.srtt === undefined ? 0 : this.srtt + 4 * this.rttvar;
      if (now - this.lastDecreaseAt >= guard) {
        this.lastDecreaseAt = now;
        this.counts.decreases++;
        this.ssthresh = Math.max(this.options.min, this.cwnd / 2);
        this.cwnd = this.ssthresh;
        this.full = false;
      }
    } else if (!this.full && !this.roundAppLimited) {
      // Slow start: one more per completion, at most doubling within a round (a long round on a fast network
      // completes many windows' worth). Congestion avoidance: one more per round.
      if (this.cwnd < this.ssthresh) this.cwnd = Math.min(this.cwnd + 1, 2 * this.roundWindow);
      else this.cwnd += 1 / this.cwnd;
      if (this.cwnd > this.options.max) this.cwnd = this.options.max;
    }
    this.countRound();
  }

  /** Counts a completion; a round ends after a window's worth of them (and MIN_ROUND_MS), then is judged. */
  private countRound(): void {
    if (++this.roundDone < this.roundWindow) return;
    const now = this.now();
    const elapsedMs = now - this.roundStartAt;
    if (elapsedMs < MIN_ROUND_MS) return;
    // Only slow start is judged: congestion avoidance grows by one a round, too little to show in the rate.
    if (!this.roundAppLimited && !this.full && this.cwnd < this.ssthresh) {
      this.counts.rounds++;
      const rate = this.roundRateSum / this.roundDone;
      if (rate >= this.bestRate * RATE_GROWTH) this.bestRate = rate;
      else {
        // More in flight delivered no more: back to the window this round began with, and hold it.
        this.full = true;
        this.cwnd = Math.max(this.options.min, this.roundWindow);
        this.ssthresh = this.cwnd;
      }
    }
    this.roundStartAt = now;
    this.roundWindow = Math.max(1, this.size);
    this.roundDone = 0;
    this.roundRateSum = 0;
    this.roundAppLimited = false;
  }
}
