// HomeKit writes On, Brightness, Hue and Saturation as separate characteristic writes, often in one PUT and
// sometimes in several a few milliseconds apart. HAP-NodeJS calls the handlers of every characteristic of one PUT
// in the same turn of the event loop, so the writer sends what a light got in that turn as one setState at the end
// of it (setImmediate): the planner sets the colour while the light is off and then powers it on (the light never
// flashes its old colour), the light gets one change instead of four, and no write waits for a timer.
// Two cases wait longer, and fold what comes meanwhile into one change:
// - writes that arrive while a change to the light is on its way go out together once it is confirmed (latest
//   value wins), so a dragged slider never builds a queue;
// - a power-on of a light that is not on, without a hue, saturation or colour temperature, waits up to the merge
//   window for one sent separately (controllers that split On and the colour over two requests, Matter's OnOff and
//   ColorControl commands): the colour still goes first. A colour arriving sends it at once.
//
// Every write answers HomeKit within `responseTimeoutMs`: with success once the light has confirmed the change,
// or with the error from `failure()` (HAP's SERVICE_COMMUNICATION_FAILURE, "No Response") when the light is
// unknown, offline, or slow. Each light has its own queue: an unreachable light holds up nobody else.

import { allOk, type LightResult, type LightView, type SetStateRequest } from '../core/index.js';
import { isEmptyPatch, mergePatch, type Patch } from './characteristics.js';

/** The part of the LightService the writer uses. */
export interface WriteTarget {
  light(serial: string): LightView | undefined;
  setLightState(serial: string, request: SetStateRequest): Promise<LightResult[]>;
  /** For a part's writes (key `serial|part`): Set State on `id:serial|part`. */
  setState?(selector: string, request: SetStateRequest): Promise<LightResult[]>;
}

/** The light of a write key: a serial, or `serial|part` for one part of it (core/control/parts.ts). */
export function serialOf(key: string): string {
  const bar = key.indexOf('|');
  return bar < 0 ? key : key.slice(0, bar);
}

export interface WriterOptions {
  readonly mergeWindowMs: number;
  readonly responseTimeoutMs: number;
  /** The transition of a light's changes, in seconds (per accessory). */
  readonly durationS: (serial: string) => number;
  /** The error HomeKit gets for a light that did not confirm (a HapStatusError). */
  readonly failure: () => Error;
  /** A change that failed or finished after HomeKit had been answered (for the debug log). */
  readonly onLate?: (serial: string, outcome: string) => void;
}

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

interface Queue {
  pending: Patch;
  /** The transition the latest write carried (a Matter command's own), instead of the light's setting. */
  durationS: number | undefined;
  waiters: Waiter[];
  /** Cancels the flush that is due (at the end of this turn, or at the end of the merge window), if one is. */
  cancel: (() => void) | undefined;
  /** The pending power-on waits for a colour (the merge window); a colour sends it at once. */
  held: boolean;
  inFlight: boolean;
}

/** Whether a patch carries a colour (a hue, a saturation or a colour temperature; brightness alone is none). */
function hasColor(patch: Patch): boolean {
  return patch.hue !== undefined || patch.saturation !== undefined || patch.kelvin !== undefined;
}

export interface WriterStats {
  /** setState calls made. */
  changes: number;
  /** Characteristic writes received. */
  writes: number;
}

export class Writer {
  private readonly queues = new Map<string, Queue>();
  /** The last night-vision level above 0 per light, for an On without a level. */
  private readonly lastInfrared = new Map<string, number>();
  private stopped = false;
  readonly stats: WriterStats = { changes: 0, writes: 0 };

  constructor(
    private readonly target: WriteTarget,
    private readonly options: WriterOptions,
  ) {}

  /**
   * Asks for a change; resolves once the light confirmed it, rejects with `failure()` otherwise. `durationS` is the
   * transition a command carries (Matter's have one); without it the light's setting applies.
   */
  write(serial: string, patch: Patch, durationS?: number): Promise<void> {
    this.stats.writes++;
    const view = this.target.light(serialOf(serial));
    if (this.stopped || view === undefined || !view.online) return Promise.reject(this.options.failure());
    if (view.infrared !== null && view.infrared > 0) this.lastInfrared.set(serial, view.infrared);
    let queue = this.queues.get(serial);
    if (queue === undefined) {
      queue = { pending: {}, durationS: undefined, waiters: [], cancel: undefined, held: false, inFlight: false };
      this.queues.set(serial, queue);
    }
    queue.pending = mergePatch(queue.pending, patch);
    if (durationS !== undefined) queue.durationS = durationS;
    const done = new Promise<void>((resolve, reject) => {
      let timeout: ReturnType<typeof setTimeout> | undefined = setTimeout(() => {
        timeout = undefined;
        reject(this.options.failure());
      }, this.options.responseTimeoutMs);
      const settle = (fn: () => void): void => {
        if (timeout === undefined) return;
        clearTimeout(timeout);
        timeout = undefined;
        fn();
      };
      queue.waiters.push({ resolve: () => settle(resolve), reject: (err) => settle(() => reject(err)) });
    });
    // While a change is on its way, new writes wait for it and then go out together (latest value wins). Otherwise
    // they go at the end of this turn, with whatever else this turn writes to the light (one PUT's characteristics),
    // and a held power-on goes as soon as its colour comes.
    if (!queue.inFlight) {
      if (queue.cancel === undefined) this.schedule(serial, queue, 0);
      else if (queue.held && hasColor(patch)) {
        queue.cancel();
        this.schedule(serial, queue, 0);
      }
    }
    return done;
  }

  /** The request a patch becomes. */
  request(serial: string, patch: Patch, durationS?: number): SetStateRequest {
    const color = {
      ...(patch.hue !== undefined ? { hue: patch.hue } : {}),
      ...(patch.saturation !== undefined ? { saturation: patch.saturation } : {}),
      ...(patch.kelvin !== undefined ? { kelvin: patch.kelvin } : {}),
    };
    const infrared =
      patch.infrared ?? (patch.infraredOn === true ? (this.lastInfrared.get(serial) ?? 1) : patch.infraredOn === false ? 0 : undefined);
    return {
      ...(patch.power !== undefined ? { power: patch.power } : {}),
      ...(Object.keys(color).length > 0 ? { color } : {}),
      ...(patch.brightness !== undefined ? { brightness: patch.brightness } : {}),
      ...(infrared !== undefined ? { infrared } : {}),
      durationS: durationS ?? this.options.durationS(serialOf(serial)),
    };
  }

  /** Flushes the light's queue at the end of this turn (`delayMs` 0) or `delayMs` later. */
  private schedule(serial: string, queue: Queue, delayMs: number): void {
    const run = (): void => {
      queue.cancel = undefined;
      this.flush(serial);
    };
    if (delayMs === 0) {
      const immediate = setImmediate(run);
      queue.cancel = () => clearImmediate(immediate);
    } else {
      const timer = setTimeout(run, delayMs);
      queue.cancel = () => clearTimeout(timer);
    }
  }

  /**
   * A power-on that may show the light's old colour should its new one come in a separate request: the light is not
   * known to be on and the change has no colour.
   */
  private mayShowOldColor(serial: string, patch: Patch): boolean {
    return patch.power === 'on' && !hasColor(patch) && this.target.light(serialOf(serial))?.power !== 'on';
  }

  private flush(serial: string): void {
    const queue = this.queues.get(serial);
    if (queue === undefined) return;
    if (!queue.held && this.options.mergeWindowMs > 0 && this.mayShowOldColor(serial, queue.pending)) {
      queue.held = true;
      this.schedule(serial, queue, this.options.mergeWindowMs);
      return;
    }
    queue.held = false;
    const patch = queue.pending;
    const durationS = queue.durationS;
    const waiters = queue.waiters;
    queue.pending = {};
    queue.durationS = undefined;
    queue.waiters = [];
    if (isEmptyPatch(patch) || this.stopped) {
      for (const w of waiters) (this.stopped ? w.reject(this.options.failure()) : w.resolve());
      return;
    }
    if (patch.infrared !== undefined && patch.infrared > 0) this.lastInfrared.set(serial, patch.infrared);
    queue.inFlight = true;
    this.stats.changes++;
    const request = this.request(serial, patch, durationS);
    // A part is written through its selector; the light itself by serial (no selector to parse).
    const setState = this.target.setState?.bind(this.target);
    const started = Promise.resolve().then(() => (serial.includes('|') && setState !== undefined ? setState(`id:${serial}`, request) : this.target.setLightState(serial, request)));
    started
      .then(
        (results) => {
          const ok = allOk(results);
          if (!ok) this.options.onLate?.(serial, results.map((r) => r.status).join(',') || 'no result');
          for (const w of waiters) (ok ? w.resolve() : w.reject(this.options.failure()));
        },
        (err: unknown) => {
          this.options.onLate?.(serial, err instanceof Error ? err.message : String(err));
          for (const w of waiters) w.reject(this.options.failure());
        },
      )
      .finally(() => {
        queue.inFlight = false;
        if (queue.waiters.length > 0 && queue.cancel === undefined) this.flush(serial);
        else if (queue.waiters.length === 0) this.queues.delete(serial);
      });
  }

  /** Answers every waiting write with `failure()` and clears every timer. */
  stop(): void {
    this.stopped = true;
    for (const queue of this.queues.values()) {
      queue.cancel?.();
      queue.cancel = undefined;
      for (const w of queue.waiters.splice(0)) w.reject(this.options.failure());
    }
    this.queues.clear();
  }
}
