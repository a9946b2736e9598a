// Which StateService answers a GetService of ours: a probe sent to the address it comes from, or a broadcast, by
// sequence, while its window is open. Anything else is unsolicited (a spoofer's, or a reply to another client that
// has our source by chance) and must not add or move lights.

/** How long a GetService (broadcast or probe) accepts StateService answers; lights answer within milliseconds. */
export const DISCOVERY_REPLY_WINDOW_MS = 5000;
/** Probe destinations remembered before lapsed ones are dropped (a /22 sweep probes 1022). */
const DISCOVERY_DESTINATIONS_KEPT = 2048;
/** The key of broadcasts (probes are keyed by address:port). */
export const BROADCAST_WINDOW = '*';

export class DiscoveryWindows {
  /** Destination ('*' for broadcasts) -> sequence -> until when answers count (wall clock, ms). */
  private readonly open = new Map<string, Map<number, number>>();

  constructor(private readonly nowMs: () => number = () => Date.now()) {}

  /** A GetService went out to `key` (address:port, or BROADCAST_WINDOW) with this sequence. */
  note(key: string, sequence: number): void {
    const now = this.nowMs();
    let open = this.open.get(key);
    if (open === undefined) {
      // Destinations whose every request has lapsed are dropped, so a sweep of a /22 leaves nothing behind.
      if (this.open.size >= DISCOVERY_DESTINATIONS_KEPT) {
        for (const [k, m] of this.open) if (![...m.values()].some((until) => until >= now)) this.open.delete(k);
      }
      open = new Map();
      this.open.set(key, open);
    }
    open.set(sequence, now + DISCOVERY_REPLY_WINDOW_MS);
  }

  /** What a StateService with this sequence from this address answers: a probe, a broadcast, or none of ours. */
  replyTo(sequence: number, from: { readonly address: string; readonly port: number }, nowMs = this.nowMs()): 'probe' | 'broadcast' | undefined {
    const probe = this.open.get(`${from.address}:${from.port}`)?.get(sequence);
    if (probe !== undefined && probe >= nowMs) return 'probe';
    const broadcast = this.open.get(BROADCAST_WINDOW)?.get(sequence);
    if (broadcast !== undefined && broadcast >= nowMs) return 'broadcast';
    return undefined;
  }

  /** Destinations remembered (lapsed ones go when the table is full). */
  get size(): number {
    return this.open.size;
  }

  clear(): void {
    this.open.clear();
  }
}
