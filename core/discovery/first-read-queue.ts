// FirstReadQueue: one job, reading each newly found light once (its state, then its facts) through a window that
// follows the network, and saying when that first read is over. One broadcast GetService finds a whole fleet within
// milliseconds (https://lan.developer.lifx.com/docs/communicating-with-device); reading every light at once would ask
// thousands of requests together.

import { AdaptiveWindow } from '../transport/window.js';
import type { LightRecord, LightRegistry } from './registry.js';

/**
 * How many newly found lights have their first read in flight at once, at first and at least. The number follows the
 * network (AdaptiveWindow, as TCP's congestion window): it starts here, doubles every round trip while no read loses
 * a packet and more in flight delivers more reads per second, holds when it does not, and halves on loss, up to
 * FIRST_READ_MAX. Each light's own requests are paced besides (pacer.ts). A first read is eight requests at once, and
 * every one in flight holds its memory until answered: on loopback, where our own event loop is the bottleneck, the
 * window holds at 8 to 16 lights (32 held about 4 MiB more, at the same speed).
 */
export const FIRST_READ_CONCURRENCY = 4;
/**
 * The most lights whose first read is in flight at once (about 500 requests). Everything a request in flight holds
 * outlives the garbage collections of its round trip, which makes V8 grow its young generation while a fleet is
 * described, to an RSS that Node does not give back. With 50 ms round trips and 500 lights (three pairs of runs against
 * 128): described in 1.0 s instead of 0.8 s, and 80 MiB RSS 31.5 s after start instead of 87. Lower ceilings (48, 32)
 * saved no more memory and took longer (1.15 s, 1.5 s).
 */
export const FIRST_READ_MAX = 64;

/** What the queue needs of its client: one object per client, its reads shared with every other caller's. */
export interface FirstReadHost {
  readonly started: boolean;
  readonly registry: Pick<LightRegistry, 'peek' | 'get'>;
  /** State reads asked of a light before it is given up as unread (DiscoveryOptions.offlineAfterMisses). */
  readonly offlineAfterMisses: number;
  /** The light's lost transmissions so far (Requester.lostAttempts); 0 once the client is stopped. */
  lostAttempts(serial: string): number;
  /** The shared state read (never rejects for a light's silence). */
  readState(serial: string): Promise<void>;
  /** The shared facts read. */
  readInfo(serial: string): Promise<void>;
  /** What the state read could not ask before the product was known (zones, relays), counted. */
  readMissingParts(serial: string): Promise<void>;
  /** The first read of `record` is over. */
  described(record: LightRecord): void;
  /** A read failed in a way no light's silence explains (a bug): reported, and the light is not described. */
  failed(err: Error): void;
}

/** A first read's place in the window: what the window learns when its state read ends. */
interface FirstReadSlot {
  readonly window: AdaptiveWindow;
  readonly ticket: ReturnType<AdaptiveWindow['ticket']>;
  /** performance.now() when its state read was asked. */
  readonly started: number;
  /** The light's lost transmissions before it. */
  readonly lostBefore: number;
}

export class FirstReadQueue {
  /** Lights found but not read yet, oldest first; `active` of them are being read. */
  private waiting: string[] = [];
  /** First reads holding a slot of the window. */
  active = 0;
  /** First reads not over yet (a slot freed, its missing parts still read). */
  private describingCount = 0;
  /** How many first reads may be in flight: follows round trips and loss (created with the first light). */
  private window: AdaptiveWindow | undefined;

  constructor(private readonly host: FirstReadHost) {}

  /** How many found lights have not finished their first read yet (being read, or waiting their turn). */
  get describing(): number {
    return this.describingCount + this.waiting.length;
  }

  /** Queues a newly found light's first read. */
  add(serial: string): void {
    this.waiting.push(serial);
    this.pump();
  }

  /** Drops the lights waiting their turn (the client stopped); reads in flight end by themselves. */
  clear(): void {
    this.waiting = [];
  }

  private pump(): void {
    const host = this.host;
    const window = (this.window ??= new AdaptiveWindow({ initial: FIRST_READ_CONCURRENCY, min: FIRST_READ_CONCURRENCY, max: FIRST_READ_MAX }));
    while (host.started && this.active < window.size && this.waiting.length > 0) {
      const serial = this.waiting.shift()!;
      this.active++;
      const started = performance.now();
      const ticket = window.ticket();
      const lostBefore = host.lostAttempts(serial);
      // A slot is held until the light's state and facts are read, so the window bounds every request of a first read
      // in flight (and the memory they hold), not just the state reads. The state read is asked first, so its request
      // leads the light's pacing lane: its round trip (and whether it lost a packet) is the window's measure of the
      // network. A light slow to give its facts holds one slot until its reads time out, not the lights behind it.
      const state = host.readState(serial);
      const info = host.readInfo(serial);
      void this.describe(serial, state, info, { window, ticket, started, lostBefore });
    }
    // Slots left over and nobody waiting: this round of the window says nothing of what the network could carry.
    if (this.active < window.size) window.appLimited();
  }

  /**
   * A light's first read, once its two reads are asked: the window learns the state read's round trip when it ends,
   * the slot is freed (and the next light's read begins) when both have, and then the read is completed. The state
   * read ran before the product was known, so a multizone light's zones are read once its info is in (otherwise they
   * would be missing until the next background refresh). Everything on one async function: no promise combinators
   * per light, which a fleet's first reads hold for a round trip each.
   */
  private async describe(serial: string, state: Promise<void>, info: Promise<void>, slot: FirstReadSlot): Promise<void> {
    const host = this.host;
    this.describingCount++;
    try {
      // Both reads count failures themselves and never reject; were one to, its slot is still freed, and the error
      // is reported rather than left unhandled in the host process.
      let failure: unknown;
      try {
        await state;
      } catch (err) {
        failure = err;
      } finally {
        const lost = host.lostAttempts(serial) > slot.lostBefore;
        slot.window.completed(performance.now() - slot.started, lost, slot.ticket);
      }
      try {
        await info;
      } catch (err) {
        failure ??= err;
      } finally {
        this.active--;
        this.pump();
      }
      if (failure !== undefined) {
        host.failed(failure instanceof Error ? failure : new Error(String(failure)));
        return;
      }
      // A light that answered for its facts but whose state read went unanswered (a loss, a busy light) is asked
      // again, up to offlineAfterMisses reads in all, before its first read is over: it is listed only once read.
      for (let reads = 1; reads < host.offlineAfterMisses; reads++) {
        const r = host.registry.peek(serial);
        if (!host.started || r === undefined || r.facts.power !== undefined || Object.keys(r.facts).length === 0) break;
        await host.readState(serial);
      }
      const record = host.registry.peek(serial);
      // Zones of a multizone light, pixels of a matrix light and relays of a Switch need the product: they are read once it is known.
      const caps = record?.facts.product?.value.capabilities;
      const partsMissing =
        (caps?.multizone === true && record?.facts.zones === undefined) ||
        (caps?.matrix === true && record?.facts.pixels === undefined) ||
        (caps?.relays === true && record?.facts.relays === undefined);
      if (host.started && record && partsMissing) await host.readMissingParts(serial);
    } finally {
      this.describingCount--;
    }
    const record = host.registry.get(serial);
    if (record && host.started) host.described(record);
  }
}
