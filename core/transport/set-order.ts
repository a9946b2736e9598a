// Confirmed Sets in order: latest wins per light and coalesce key (one Set on the wire per key, the newest waiting),
// and a read after a Set waits for the Set's ack, since a Get right after a Set can return the old state
// (https://lan.developer.lifx.com/docs/communicating-with-device).

import { LightwireError } from '../errors.js';
import type { Exchange } from './exchange.js';

/** What the set order needs from its requester. */
export interface SetOrderHost {
  /** Sends an exchange (its pacing turn first). */
  transmit(ex: Exchange): void;
  /** A held Set that a newer one replaced before it went out. */
  supersede(ex: Exchange): void;
}

export class SetOrder {
  /** Per light and coalesce key: the Set on the wire (sent, not yet acknowledged) and the newest one waiting. */
  private readonly coalescing = new Map<string, { inFlight: Exchange | undefined; held: Exchange | undefined }>();
  /** Per light, its Sets not acknowledged (settled) yet: a read waits for them. */
  private readonly unacked = new Map<string, Set<Exchange>>();

  constructor(
    private readonly host: SetOrderHost,
    private readonly now: () => number,
  ) {}

  /** A confirmed Set began: reads of its light wait for it until it settles. */
  begun(ex: Exchange): void {
    let sets = this.unacked.get(ex.device.serial);
    if (sets === undefined) this.unacked.set(ex.device.serial, (sets = new Set()));
    sets.add(ex);
  }

  /**
   * Sends a coalesced Set, or holds it. Latest wins, one on the wire per key: while a Set is unacknowledged, a newer
   * one waits and replaces any older waiting one, so a dragged slider sends one Set per round trip, never a backlog.
   */
  enter(ex: Exchange, coalesceId: string): void {
    let slot = this.coalescing.get(coalesceId);
    if (!slot) {
      slot = { inFlight: undefined, held: undefined };
      this.coalescing.set(coalesceId, slot);
    }
    if (slot.held) this.host.supersede(slot.held);
    if (slot.inFlight) {
      slot.held = ex;
    } else {
      slot.inFlight = ex;
      this.host.transmit(ex);
    }
  }

  /** A coalesced Set left the wire (acknowledged or settled): the newest waiting one goes out. */
  release(ex: Exchange): void {
    if (ex.coalesceId === undefined) return;
    const slot = this.coalescing.get(ex.coalesceId);
    if (!slot) return;
    if (slot.held === ex) slot.held = undefined;
    if (slot.inFlight === ex) {
      slot.inFlight = slot.held;
      slot.held = undefined;
      if (slot.inFlight) this.host.transmit(slot.inFlight);
    }
    if (!slot.inFlight && !slot.held) this.coalescing.delete(ex.coalesceId);
  }

  /** A Set settled: it no longer holds reads back. */
  settled(ex: Exchange): void {
    const sets = this.unacked.get(ex.device.serial);
    if (sets !== undefined && sets.delete(ex) && sets.size === 0) this.unacked.delete(ex.device.serial);
    const waiters = ex.settleWaiters;
    ex.settleWaiters = undefined;
    // After the Set's own caller (a promise reaction queued behind this one): as Promise.allSettled did.
    if (waiters !== undefined) queueMicrotask(() => waiters.forEach((w) => w()));
  }

  /** Confirmed Sets to one light not acknowledged yet (a read sent now would wait for them). */
  pending(serial: string): number {
    return this.unacked.get(serial)?.size ?? 0;
  }

  /**
   * Runs `start` once the Sets to this light unacknowledged now have settled, with what is left of `timeoutMs` (all of
   * it, at once, when there are none): a request's timeout runs from when it is asked, so the caller's deadline covers
   * the wait. When the timeout runs out first, `expire` gets REQUEST_TIMED_OUT (`message` names what was asked) and
   * nothing is sent.
   */
  whenSettled(serial: string, timeoutMs: number, start: (leftMs: number) => void, expire: (err: LightwireError) => void, message: string): void {
    if (this.pending(serial) === 0) {
      start(timeoutMs);
      return;
    }
    const askedAtMs = this.now();
    let over = false;
    const timeOut = (): void => {
      over = true;
      expire(new LightwireError('REQUEST_TIMED_OUT', { serial, message, timeoutMs }));
    };
    const timer = setTimeout(() => {
      if (!over) timeOut();
    }, timeoutMs);
    this.afterSets(serial, () => {
      if (over) return;
      clearTimeout(timer);
      const leftMs = timeoutMs - (this.now() - askedAtMs);
      if (leftMs > 0) {
        over = true;
        start(Math.ceil(leftMs));
      } else timeOut();
    });
  }

  /** Runs `then` once the Sets to this light unacknowledged now have settled. */
  private afterSets(serial: string, then: () => void): void {
    const sets = this.unacked.get(serial)!;
    let left = sets.size;
    const one = (): void => {
      if (--left === 0) then();
    };
    for (const set of sets) (set.settleWaiters ??= []).push(one);
  }
}
