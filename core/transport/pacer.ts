// Per-light pacing (the vendor's original docs: at most 20 messages per second to one device), FIFO per light.
//
// Each light (and each broadcast address) is paced by the generic cell rate algorithm ("virtual scheduling", GCRA):
// a light that has been quiet takes a short burst at once (a state read and a write; a light's colour and power),
// and once it is busy its messages go out evenly spaced, one every emission interval T, never in bursts followed by
// a stall. With W the window (one second plus a margin), L the messages a light may get in it and B the burst,
//   T = W / (L - B + 1)
// is what makes the cap hold in every window: a conforming sequence needs at least (n - B) * T ms for n messages, so
// L + 1 of them need W, one more than any window holds.
//
// A light that has had nothing for a whole window may take a larger burst Q (quietBurst, Q <= L: a new light's first
// read, 7-9 requests) at once; each message beyond B moves its schedule on by T as if it had been paced, so the next
// one waits (Q - B + 1) * T and any window still holds at most L: Q + (W / T - (Q - B + 1)) = L.
//
// Discovery broadcasts reach every light, so each light's unicast budget leaves room for them and broadcasts to one
// address have their own small budget: together at most 20 per window at any light.
//
// Latest wins: a job may carry a `part` (the requester's coalesce key for fast messages); while a job for the same
// light and part waits for its turn, waitingFor() returns it so the caller can give it the newer payload instead of
// queueing another. The newest value is always the one that goes out next, and a flood never builds a backlog.

/** Added to the one-second window so jitter on the receiving side cannot squeeze one more into a second. */
export const PACING_MARGIN_MS = 50;
export const PACING_WINDOW_MS = 1000 + PACING_MARGIN_MS;

export interface PacedJob {
  /** Called when the job's turn comes; it transmits synchronously. */
  run(): void;
  /**
   * Called, when it has one, for every job of a batch before the first of them runs (Pacer.uncork): what a job does
   * before it transmits (a fast message encodes its datagram) is done for all, then the datagrams go out back to back.
   */
  prepare?(): void;
  /** A cancelled job is skipped (and costs no turn). */
  cancelled: boolean;
  /** Set by the pacer while the job waits under a part key (see waitingFor). */
  part?: string | undefined;
}

export interface PaceLimit {
  /** At most this many messages in any window of PACING_WINDOW_MS. */
  readonly perWindow: number;
  /** How many go out back to back when the lane has some rest (1 <= burst <= perWindow). */
  readonly burst: number;
  /** How many go out back to back after a whole window without any (burst <= quietBurst <= perWindow; default burst). */
  readonly quietBurst?: number;
}

/** The even spacing of a busy lane, ms: T = W / (L - B + 1). */
export function emissionIntervalMs(limit: PaceLimit): number {
  return PACING_WINDOW_MS / (limit.perWindow - limit.burst + 1);
}

type Timer = ReturnType<typeof setTimeout>;

interface Shape {
  readonly spacing: number;
  readonly tolerance: number;
  readonly quietBonus: number;
}

class Lane {
  /** FIFO; jobs before `head` have gone. */
  queue: PacedJob[] = [];
  head = 0;
  /** GCRA's theoretical arrival time (pacer clock): the lane may send when now >= tat - tolerance. */
  tat = -Infinity;
  timer: Timer | undefined = undefined;
  pumping = false;
  /** When the lane last sent (pacer clock). */
  lastSentAt = -Infinity;
  /** Messages beyond the burst this lane may still send at once (granted after a quiet window). */
  bonus = 0;
  /** Waiting jobs by part, for latest-wins replacement; created on first use. */
  parts: Map<string, PacedJob> | undefined = undefined;

  constructor(
    readonly key: string,
    /** T, ms. */
    readonly spacing: number,
    /** (B - 1) * T, ms. */
    readonly tolerance: number,
    /** Q - B. */
    readonly quietBonus: number,
  ) {}

  /** Whether the lane may send at `now`; takes its turn (moves its schedule on) when it may. */
  take(now: number): boolean {
    if (now - this.lastSentAt >= PACING_WINDOW_MS) this.bonus = this.quietBonus;
    if (now >= this.tat - this.tolerance) {
      this.tat = Math.max(this.tat, now) + this.spacing;
    } else if (this.bonus > 0) {
      this.bonus--;
      this.tat += this.spacing;
    } else return false;
    this.lastSentAt = now;
    return true;
  }

  /** When the lane may send next (pacer clock). */
  nextAt(now: number): number {
    if (now - this.lastSentAt >= PACING_WINDOW_MS || this.bonus > 0) return now;
    return this.tat - this.tolerance;
  }

  get waiting(): number {
    return this.queue.length - this.head;
  }
}

function pumpLater(pacer: Pacer, lane: Lane): void {
  pacer.pumpLane(lane);
}

export class Pacer {
  private readonly lanes = new Map<string, Lane>();
  private stopped = false;
  private readonly unicast: Shape;
  private readonly broadcast: Shape;
  /** Lanes are swept for idle ones when there are this many (amortised: doubles with the live ones). */
  private sweepAt = 64;
  /** While corked: jobs whose turn came, run in order by uncork(). */
  private corked: PacedJob[] | undefined = undefined;
  /**
   * The array corked jobs go to, kept from batch to batch (emptied by uncork): one array of one kind for the life of
   * the pacer, not a new one each batch (the code queueing a fleet's messages stays as compiled for the last).
   */
  private readonly corkedJobs: PacedJob[] = [];
  /**
   * While corked: the clock when the batch began, the time its turns are taken at (one reading of the clock for a
   * fleet's messages). Their datagrams leave later still, at uncork(), as they do without it.
   */
  private corkedAt = 0;

  constructor(
    unicast: PaceLimit,
    broadcast: PaceLimit,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.unicast = Pacer.shape(unicast);
    this.broadcast = Pacer.shape(broadcast);
  }

  private static shape(limit: PaceLimit): Shape {
    if (!(limit.burst >= 1 && limit.burst <= limit.perWindow)) throw new RangeError('burst must be from 1 to perWindow');
    const quiet = limit.quietBurst ?? limit.burst;
    if (!(quiet >= limit.burst && quiet <= limit.perWindow)) throw new RangeError('quietBurst must be from burst to perWindow');
    const spacing = emissionIntervalMs(limit);
    return { spacing, tolerance: (limit.burst - 1) * spacing, quietBonus: quiet - limit.burst };
  }

  /**
   * Queues a unicast job for one light (key = serial or address:port); with `part`, see waitingFor(). True when the
   * job took its turn at once (it has run, or runs at uncork()), false when it waits.
   */
  schedule(key: string, job: PacedJob, part?: string): boolean {
    return this.enqueue(key, job, this.unicast, part);
  }

  /** Queues a broadcast job; broadcasts to one address (one subnet, so the same lights) share one budget. */
  scheduleBroadcast(address: string, job: PacedJob): void {
    this.enqueue(`\0broadcast ${address}`, job, this.broadcast, undefined);
  }

  /** The job still waiting for its turn on this light under `part`, if any: the caller may replace its payload. */
  waitingFor(key: string, part: string): PacedJob | undefined {
    const job = this.lanes.get(key)?.parts?.get(part);
    return job === undefined || job.cancelled ? undefined : job;
  }

  /** Jobs waiting (not yet sent) for one key: for tests and diagnostics. */
  waiting(key: string): number {
    const lane = this.lanes.get(key);
    if (lane === undefined) return 0;
    let n = 0;
    for (let i = lane.head; i < lane.queue.length; i++) if (!lane.queue[i]!.cancelled) n++;
    return n;
  }

  /** When the next job for this key may go out (pacer clock): now when the lane is idle or has burst left. */
  nextSlotAt(key: string): number {
    const lane = this.lanes.get(key);
    const now = this.now();
    if (lane === undefined) return now;
    return Math.max(now, lane.nextAt(now));
  }

  /** Lanes held (tests: idle lanes are dropped). */
  get size(): number {
    return this.lanes.size;
  }

  /**
   * Holds the jobs whose turn comes until uncork(), which runs them in order: a caller queueing for many lights at
   * once (a fast set of a whole fleet) plans them all first and then hands every datagram to the socket in one tight
   * loop. Turns are taken at once, as without the cork. Corks do not nest.
   */
  cork(): void {
    if (this.corked !== undefined) return;
    // A batch begun by a job of the one being run (uncork) gets an array of its own.
    this.corked = this.corkedJobs.length === 0 ? this.corkedJobs : [];
    this.corkedAt = this.now();
  }

  uncork(): void {
    const jobs = this.corked;
    this.corked = undefined;
    if (jobs === undefined) return;
    try {
      for (let i = 0; i < jobs.length; i++) {
        const job = jobs[i]!;
        if (!job.cancelled && !this.stopped) job.prepare?.();
      }
      for (let i = 0; i < jobs.length; i++) {
        const job = jobs[i]!;
        if (!job.cancelled && !this.stopped) job.run();
      }
    } finally {
      jobs.length = 0;
    }
  }

  stop(): void {
    this.corked = undefined;
    this.stopped = true;
    for (const lane of this.lanes.values()) {
      if (lane.timer !== undefined) clearTimeout(lane.timer);
      lane.timer = undefined;
      lane.queue.length = 0;
      lane.head = 0;
      lane.parts = undefined;
    }
    this.lanes.clear();
  }

  private enqueue(key: string, job: PacedJob, shape: Shape, part: string | undefined): boolean {
    if (this.stopped) return false;
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      if (this.lanes.size >= this.sweepAt) this.sweep();
      lane = new Lane(key, shape.spacing, shape.tolerance, shape.quietBonus);
      this.lanes.set(key, lane);
    }
    // The common case, a quiet light: its turn is now, without a queue.
    if (lane.head === lane.queue.length && lane.timer === undefined && !lane.pumping && lane.take(this.corked === undefined ? this.now() : this.corkedAt)) {
      if (this.corked !== undefined) this.corked.push(job);
      else job.run();
      return true;
    }
    lane.queue.push(job);
    if (part !== undefined) {
      job.part = part;
      (lane.parts ??= new Map()).set(part, job);
    }
    if (lane.timer === undefined && !lane.pumping) this.pumpLane(lane);
    return false;
  }

  /** Sends what the lane may send now; arms its timer for the next turn. */
  pumpLane(lane: Lane): void {
    lane.timer = undefined;
    if (this.stopped) return;
    lane.pumping = true;
    try {
      const now = this.now();
      while (lane.head < lane.queue.length) {
        const job = lane.queue[lane.head]!;
        if (job.cancelled) {
          this.shift(lane, job);
          continue;
        }
        if (!lane.take(now)) {
          lane.timer = setTimeout(pumpLater, Math.max(1, Math.ceil(lane.nextAt(now) - now)), this, lane);
          return;
        }
        this.shift(lane, job);
        if (this.corked !== undefined) this.corked.push(job);
        else job.run();
      }
    } finally {
      lane.pumping = false;
    }
    lane.queue.length = 0;
    lane.head = 0;
  }

  private shift(lane: Lane, job: PacedJob): void {
    lane.queue[lane.head] = undefined as unknown as PacedJob;
    lane.head++;
    if (job.part !== undefined) {
      if (lane.parts?.get(job.part) === job) lane.parts.delete(job.part);
      job.part = undefined;
    }
    if (lane.head >= 64 && lane.head * 2 >= lane.queue.length) {
      lane.queue = lane.queue.slice(lane.head);
      lane.head = 0;
    }
  }

  /** Drops lanes with nothing waiting that sent nothing for a whole window (they are as good as new). */
  private sweep(): void {
    const now = this.now();
    for (const [key, lane] of this.lanes) {
      if (lane.waiting === 0 && lane.timer === undefined && lane.tat <= now && now - lane.lastSentAt >= PACING_WINDOW_MS) this.lanes.delete(key);
    }
    this.sweepAt = Math.max(64, this.lanes.size * 2);
  }
}
