// How many jobs (a newly found light's first read) are in flight at once, following the network as TCP's congestion
// window does (RFC 5681, in jobs rather than bytes): slow start doubles the window every round trip while no job
// loses a packet, congestion avoidance then adds one job per window's worth of completions, and a job that lost a
// packet (a retransmission or a timeout) halves it, at most once per smoothed round trip (RFC 6298) so one burst of
// loss counts once. Like TCP Vegas, it also watches delay: a round trip more than twice the least one seen means the
// requests queue (at busy lights, or in our own event loop) instead of travelling, and the window stops growing there,
// so a fleet that answers slower than we ask is not sent its whole backlog at once (which only holds more requests,
// and their memory, in flight). A fast, clean network (loopback, a wired LAN) opens the window to its ceiling within
// a few round trips; a lossy Wi-Fi keeps it small. Per-light pacing (pacer.ts) still bounds what each light receives.

/** A round trip above QUEUEING_FACTOR x the least one (plus QUEUEING_SLACK_MS of timer noise) is queueing. */
const QUEUEING_FACTOR = 2;
const QUEUEING_SLACK_MS = 2;

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
  /** The least round trip seen: the network without queueing (TCP Vegas's base RTT). */
  private minRtt = Infinity;
  /** When (caller's clock, ms) the last decrease happened; losses within one srtt of it do not count again. */
  private lastDecreaseAt = -Infinity;
  /** Counts for diagnostics and tests. */
  readonly counts = { completed: 0, lossy: 0, decreases: 0 };

  constructor(
    private readonly options: WindowOptions,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(options.min >= 1 && options.initial >= options.min && options.max >= options.initial)) {
      throw new RangeError('window: need 1 <= min <= initial <= max');
    }
    this.cwnd = options.initial;
    this.ssthresh = options.max;
  }

  /** Jobs allowed in flight now (whole jobs). */
  get size(): number {
    return Math.floor(this.cwnd);
  }

  /** The smoothed round trip measured so far, ms (undefined before the first sample). */
  get rttMs(): number | undefined {
    return this.srtt;
  }

  /** A job ended: how long it took, and whether any of its packets had to be sent again or went unanswered. */
  completed(rttMs: number, lost: boolean): void {
    this.counts.completed++;
    if (Number.isFinite(rttMs) && rttMs >= 0 && !lost) {
      // Karn: only jobs that needed no retransmission give a sample.
      this.minRtt = Math.min(this.minRtt, rttMs);
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
      if (now - this.lastDecreaseAt < guard) return;
      this.lastDecreaseAt = now;
      this.counts.decreases++;
      this.ssthresh = Math.max(this.options.min, this.cwnd / 2);
      this.cwnd = this.ssthresh;
      return;
    }
    // Delay: a round trip well above the least one means requests queue (at the lights, or in our own event loop)
    // rather than travel; more in flight would only lengthen the queue (and hold more memory), so the window holds.
    if (rttMs > QUEUEING_FACTOR * this.minRtt + QUEUEING_SLACK_MS) {
      if (this.cwnd < this.ssthresh) this.ssthresh = this.cwnd;
      return;
    }
    if (this.cwnd < this.ssthresh) this.cwnd += 1;
    else this.cwnd += 1 / this.cwnd;
    if (this.cwnd > this.options.max) this.cwnd = this.options.max;
  }
}
