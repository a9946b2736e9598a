// What a virtual light received, so tests can assert on the packets a device was sent (as photons'
// mimic tests do) and on the documented ceiling of 20 messages per second per device
// (the vendor's original protocol docs).

import type { Header } from '../protocol/header.js';
import type { MessageName } from '../protocol/messages/index.js';

export interface ReceivedPacket {
  /** null for a type the message tables do not know. */
  readonly name: MessageName | null;
  readonly type: number;
  readonly header: Header;
  /** The decoded payload in wire units (raw bytes for unknown types). Shared between lights: do not mutate. */
  readonly payload: unknown;
  /** Clock time of receipt, ms since the epoch (the fleet's clock). */
  readonly atMs: number;
  readonly from: { readonly address: string; readonly port: number };
}

const WINDOW_MS = 1000;
/** Most packets kept per light by default; counts and rates cover everything. */
export const DEFAULT_RECORD_LIMIT = 10_000;
/**
 * Packets a fleet keeps by default, all lights together (each light at least MIN_DEFAULT_RECORD_LIMIT): about 0.6 KB
 * each, so a long-running fleet (`serve --virtual`, `simulate`) holds a bounded ~13 MB of records instead of up to
 * 10 000 per light (a 200-light fleet kept growing towards 1.2 GB; the soak benchmark found it).
 */
export const FLEET_RECORD_BUDGET = 20_000;
export const MIN_DEFAULT_RECORD_LIMIT = 100;

/** Packets kept per light by default in a fleet of `lights`: the budget shared, from 100 to 10 000 each. */
export function defaultRecordLimit(lights: number): number {
  return Math.min(DEFAULT_RECORD_LIMIT, Math.max(MIN_DEFAULT_RECORD_LIMIT, Math.floor(FLEET_RECORD_BUDGET / Math.max(1, lights))));
}

/** The key a message is counted under: its name, or `#<type>` for unknown types. */
export function recordKey(name: MessageName | null, type: number): string {
  return name ?? `#${type}`;
}

export class ReceivedRecords {
  private list: ReceivedPacket[] = [];
  private readonly counts = new Map<string, number>();
  private totalCount = 0;
  // Receipt times inside the last second (a queue: `windowHead` is its first live element).
  private window: number[] = [];
  private windowHead = 0;
  private maxInWindow = 0;

  constructor(private readonly limit: number = DEFAULT_RECORD_LIMIT) {}

  add(packet: ReceivedPacket): void {
    const key = recordKey(packet.name, packet.type);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    this.totalCount++;
    this.list.push(packet);
    if (this.list.length > this.limit) this.list = this.list.slice(this.list.length - Math.floor(this.limit / 2));
    this.window.push(packet.atMs);
    while (this.window[this.windowHead]! <= packet.atMs - WINDOW_MS) this.windowHead++;
    const inWindow = this.window.length - this.windowHead;
    if (inWindow > this.maxInWindow) this.maxInWindow = inWindow;
    if (this.windowHead > 1024 && this.windowHead * 2 > this.window.length) {
      this.window = this.window.slice(this.windowHead);
      this.windowHead = 0;
    }
  }

  /** Every message received since the last clear. */
  get total(): number {
    return this.totalCount;
  }

  /** How many messages of one name (or `#<type>`) were received. */
  count(name: MessageName | `#${number}`): number {
    return this.counts.get(name) ?? 0;
  }

  /** Counts per message name (`#<type>` for unknown types). */
  countsByName(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  /** The received packets, oldest first, optionally of one name (at most the record limit are kept). */
  packets(name?: MessageName): ReceivedPacket[] {
    return name === undefined ? [...this.list] : this.list.filter((p) => p.name === name);
  }

  /**
   * The most messages received in any sliding one-second window, i.e. the largest number of receipts with
   * times in (t - 1000 ms, t] over every receipt time t. Stricter than counting per wall-clock second.
   */
  maxMessagesPerSecond(): number {
    return this.maxInWindow;
  }

  /** Messages received in the second before `nowMs`. */
  messagesInLastSecond(nowMs: number): number {
    let n = 0;
    for (let i = this.window.length - 1; i >= this.windowHead && this.window[i]! > nowMs - WINDOW_MS; i--) n++;
    return n;
  }

  clear(): void {
    this.list = [];
    this.counts.clear();
    this.totalCount = 0;
    this.window = [];
    this.windowHead = 0;
    this.maxInWindow = 0;
  }
}
