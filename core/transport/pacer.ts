// Per-light pacing: at most N transmissions to one light in any sliding window, FIFO per light.
// Discovery broadcasts reach every light, so each light's unicast budget leaves room for them and
// broadcasts have their own (small) budget (lan-protocol.md §5.3: <= 20 messages per second per device).

/** Added to the one-second window so jitter on the receiving side cannot squeeze N+1 into a second. */
export const PACING_MARGIN_MS = 50;
const WINDOW_MS = 1000 + PACING_MARGIN_MS;

export interface PacedJob {
  /** Called when the job's turn comes; it transmits synchronously. */
  readonly run: () => void;
  cancelled: boolean;
}

interface Lane {
  readonly queue: PacedJob[];
  readonly log: number[];
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class Pacer {
  private readonly lanes = new Map<string, Lane>();
  private stopped = false;

  constructor(
    private readonly unicastPerWindow: number,
    private readonly broadcastPerWindow: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Queues a unicast job for one light (key = serial or address:port). */
  schedule(key: string, job: PacedJob): void {
    this.enqueue(key, job, this.unicastPerWindow);
  }

  /** Queues a broadcast job; broadcasts to one address (one subnet, so the same lights) share one budget. */
  scheduleBroadcast(address: string, job: PacedJob): void {
    this.enqueue(`\0broadcast ${address}`, job, this.broadcastPerWindow);
  }

  /** Jobs waiting (not yet sent) for one key: for tests and diagnostics. */
  waiting(key: string): number {
    return this.lanes.get(key)?.queue.filter((j) => !j.cancelled).length ?? 0;
  }

  stop(): void {
    this.stopped = true;
    for (const lane of this.lanes.values()) {
      if (lane.timer !== undefined) clearTimeout(lane.timer);
      lane.queue.length = 0;
    }
    this.lanes.clear();
  }

  private enqueue(key: string, job: PacedJob, limit: number): void {
    if (this.stopped) return;
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { queue: [], log: [], timer: undefined };
      this.lanes.set(key, lane);
    }
    lane.queue.push(job);
    if (lane.timer === undefined) this.pump(key, lane, limit);
  }

  private pump(key: string, lane: Lane, limit: number): void {
    lane.timer = undefined;
    const now = this.now();
    while (lane.log.length > 0 && lane.log[0]! <= now - WINDOW_MS) lane.log.shift();
    while (lane.queue.length > 0 && lane.log.length < limit) {
      const job = lane.queue.shift()!;
      if (job.cancelled) continue;
      lane.log.push(now);
      job.run();
    }
    while (lane.queue.length > 0 && lane.queue[0]!.cancelled) lane.queue.shift();
    if (lane.queue.length > 0) {
      const waitMs = Math.max(1, Math.ceil(lane.log[0]! + WINDOW_MS - now));
      lane.timer = setTimeout(() => this.pump(key, lane, limit), waitMs);
    } else if (lane.log.length === 0) {
      this.lanes.delete(key);
    }
  }
}
