// One timer for many deadlines: the requester's exchanges each wait for a retransmission or a deadline, and a
// setTimeout per exchange would cost a Timeout object (and a timer list per distinct duration) for every request in
// flight. Items sit in a binary min-heap on their due time; one Node timer is set for the earliest. An item carries
// its own heap position, so it leaves the queue in O(log n) when it settles and holds nothing after that.

/** What the queue needs of an item: when it is due, and where it sits (-1: not queued). Both are the queue's to set. */
export interface DueItem {
  dueAtMs: number;
  dueIndex: number;
}

/** How early a timer may fire and still count as on time (Node's timers tick in whole milliseconds). */
export const DUE_EARLY_MS = 0.5;

type Timer = ReturnType<typeof setTimeout>;

export class DueQueue<T extends DueItem> {
  private readonly heap: T[] = [];
  private timer: Timer | undefined = undefined;
  private timerAtMs = Infinity;
  private readonly fire = (): void => this.runDue();

  /**
   * `due` is called with each item whose time has come (it has left the queue, and may be put back); `now` is the
   * clock the due times are on.
   */
  constructor(
    private readonly due: (item: T) => void,
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.heap.length;
  }

  /** Queues `item` for `atMs`, or moves it there when it is queued already. */
  set(item: T, atMs: number): void {
    if (item.dueIndex < 0) {
      item.dueAtMs = atMs;
      item.dueIndex = this.heap.length;
      this.heap.push(item);
      this.up(item.dueIndex);
    } else {
      const earlier = atMs < item.dueAtMs;
      item.dueAtMs = atMs;
      if (earlier) this.up(item.dueIndex);
      else this.down(item.dueIndex);
    }
    this.arm();
  }

  /** Takes `item` out of the queue (nothing when it is not queued). */
  delete(item: T): void {
    const i = item.dueIndex;
    if (i < 0) return;
    item.dueIndex = -1;
    const last = this.heap.pop()!;
    if (last !== item) {
      this.heap[i] = last;
      last.dueIndex = i;
      this.up(i);
      this.down(last.dueIndex);
    }
    // Nothing left to wait for: no timer keeps the process alive.
    if (this.heap.length === 0) this.clearTimer();
  }

  /** Empties the queue and clears its timer. */
  clear(): void {
    for (const item of this.heap) item.dueIndex = -1;
    this.heap.length = 0;
    this.clearTimer();
  }

  private runDue(): void {
    this.timer = undefined;
    this.timerAtMs = Infinity;
    const limit = this.now() + DUE_EARLY_MS;
    try {
      // Items put back by `due` for a time already past run in this round too, after the ones due before them.
      while (this.heap.length > 0 && this.heap[0]!.dueAtMs <= limit) {
        const item = this.heap[0]!;
        this.delete(item);
        this.due(item);
      }
    } finally {
      // Also when `due` threw: the items still queued keep their timer.
      this.arm();
    }
  }

  /** Makes the timer fire by the earliest due time. */
  private arm(): void {
    if (this.heap.length === 0) return;
    const atMs = this.heap[0]!.dueAtMs;
    if (atMs >= this.timerAtMs) return;
    this.clearTimer();
    this.timerAtMs = atMs;
    this.timer = setTimeout(this.fire, Math.max(0, Math.ceil(atMs - this.now())));
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAtMs = Infinity;
  }

  private up(i: number): void {
    const heap = this.heap;
    const item = heap[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = heap[p]!;
      if (parent.dueAtMs <= item.dueAtMs) break;
      heap[i] = parent;
      parent.dueIndex = i;
      i = p;
    }
    heap[i] = item;
    item.dueIndex = i;
  }

  private down(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const item = heap[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && heap[r]!.dueAtMs < heap[l]!.dueAtMs ? r : l;
      const child = heap[c]!;
      if (child.dueAtMs >= item.dueAtMs) break;
      heap[i] = child;
      child.dueIndex = i;
      i = c;
    }
    heap[i] = item;
    item.dueIndex = i;
  }
}
