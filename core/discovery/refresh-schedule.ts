// RefreshSchedule: one job, reading every known light again in the background, its state every refresh interval and
// its facts every info interval, on one timer for the whole fleet. A light does not tell when it changes (a wall
// switch, the app): a client learns it only by asking again
// (https://lan.developer.lifx.com/docs/querying-the-device-for-data).

import type { LightRegistry } from './registry.js';

/** The background refresh timer never fires more often than this; lights due within it are read together. */
export const REFRESH_TICK_MS = 50;

/** ±10 % around `ms` (refreshes with jitter, so a fleet does not answer in lockstep). */
function jitter(ms: number): number {
  return Math.round(ms * (0.9 + Math.random() * 0.2));
}

/** When a light's next background reads are due (client clock, ms); Infinity while one is running. */
interface RefreshDue {
  readonly serial: string;
  state: number;
  info: number;
}

type RefreshKind = 'state' | 'info';

/** What the schedule needs of its client: one object per client. */
export interface RefreshHost {
  readonly started: boolean;
  readonly registry: Pick<LightRegistry, 'has' | 'peek'>;
  /** The shared state read; settles once the read is over, answered or not. */
  readState(serial: string): Promise<void>;
  /** The shared facts read. */
  readInfo(serial: string): Promise<void>;
}

export interface RefreshIntervals {
  /** 0: no background reads. */
  readonly refreshIntervalMs: number;
  readonly infoRefreshIntervalMs: number;
}

export class RefreshSchedule {
  /**
   * Background refresh of every light on one timer (not two timers and closures per light): per light only its next
   * due times, which keeps what a large fleet holds in memory small.
   */
  private readonly due = new Map<string, RefreshDue>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;

  constructor(
    private readonly host: RefreshHost,
    private readonly intervals: RefreshIntervals,
  ) {}

  /** Starts refreshing a light: its state first between one and two intervals from now, so a fleet found at once is spread. */
  add(serial: string): void {
    const d = this.intervals;
    if (d.refreshIntervalMs <= 0) return;
    const now = Date.now();
    const due: RefreshDue = { serial, state: now + Math.round(Math.random() * d.refreshIntervalMs) + d.refreshIntervalMs, info: now + jitter(d.infoRefreshIntervalMs) };
    this.due.set(serial, due);
    this.arm(Math.min(due.state, due.info));
  }

  /** Stops refreshing a light (forgotten). */
  remove(serial: string): void {
    this.due.delete(serial);
  }

  /** Stops every refresh and the timer (the client stopped). */
  clear(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    this.due.clear();
  }

  /** Makes the timer fire by `at` (client clock). */
  private arm(at: number): void {
    if (!this.host.started || at >= this.timerAt) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.run(), Math.max(REFRESH_TICK_MS, at - Date.now()));
  }

  /** Starts every background read that is due and sets the timer for the next one. */
  private run(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    if (!this.host.started) return;
    const now = Date.now();
    const registry = this.host.registry;
    let next = Infinity;
    // This runs up to every REFRESH_TICK_MS over every light, so the loop allocates nothing per light: over the
    // values (for-of over the entries builds an array per light), and no variable of it is captured by a closure
    // (that makes a context object per iteration, read due or not). Measured with 500 lights, the two made 1 MB/s
    // of garbage, most of what a client at rest allocated.
    for (const due of this.due.values()) {
      if (!registry.has(due.serial)) {
        this.due.delete(due.serial);
        continue;
      }
      if (due.state <= now) this.start(due, 'state');
      if (due.info <= now) this.start(due, 'info');
      if (due.state < next) next = due.state;
      if (due.info < next) next = due.info;
    }
    if (next < Infinity) this.arm(next);
  }

  private start(due: RefreshDue, kind: RefreshKind): void {
    const serial = due.serial;
    due[kind] = Infinity;
    const read = kind === 'state' ? this.host.readState(serial) : this.host.readInfo(serial);
    void read.finally(() => this.refreshed(serial, kind));
  }

  /**
   * A background read finished: the next one of its kind is due an interval (with jitter) from now. After a missed
   * state read of a light still online the next one is due at once, so the misses that make a light offline
   * (offlineAfterMisses x readTimeoutMs) add up within one refresh interval rather than several.
   */
  private refreshed(serial: string, kind: RefreshKind): void {
    const due = this.due.get(serial);
    if (due === undefined || !this.host.started) return;
    const d = this.intervals;
    const record = this.host.registry.peek(serial);
    const retry = kind === 'state' && record !== undefined && record.online && record.misses > 0;
    due[kind] = Date.now() + (retry ? 0 : jitter(kind === 'state' ? d.refreshIntervalMs : d.infoRefreshIntervalMs));
    this.arm(due[kind]);
  }
}
