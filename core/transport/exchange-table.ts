// The requests in flight and the sequence numbers they were sent with: a reply is matched on (source, sequence,
// target), the source being the requester's own (https://lan.developer.lifx.com/docs/packet-contents). Untagged
// requests are keyed by the light's serial, tagged ones (probes) by the address they were sent to.

import type { KnownPacket } from '../protocol/index.js';
import { pendingKey, type Exchange, type SequenceLane } from './exchange.js';
import { wants } from './reply-rules.js';
import type { RemoteAddress } from './udp.js';

export class ExchangeTable {
  /** Requests in flight by Exchange.pendingKey: destination and sequence. */
  private readonly pending = new Map<number, Exchange>();
  /** Per destination (a light's serial; address:port for a tagged request): its sequence numbers. */
  private readonly lanes = new Map<string, SequenceLane>();

  /** The lane of a destination, made on first use. */
  laneOf(key: string): SequenceLane {
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { key, id: this.lanes.size, last: -1, setsBegun: 0 };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  /** The next sequence number to a destination (0-255, then round again). */
  nextSequence(lane: SequenceLane): number {
    lane.last = (lane.last + 1) & 0xff;
    return lane.last;
  }

  /** Confirmed Sets begun to this destination so far. */
  setsBegun(key: string): number {
    return this.lanes.get(key)?.setsBegun ?? 0;
  }

  /** Puts an exchange in flight; returns the one it displaces (the same sequence, 256 requests ago), if still there. */
  add(ex: Exchange): Exchange | undefined {
    const stale = this.pending.get(ex.pendingKey);
    this.pending.set(ex.pendingKey, ex);
    return stale;
  }

  remove(ex: Exchange): void {
    if (this.pending.get(ex.pendingKey) === ex) this.pending.delete(ex.pendingKey);
  }

  /** Every exchange in flight (a copy: the caller may finish them). */
  all(): Exchange[] {
    return [...this.pending.values()];
  }

  /** The exchange a packet answers, or undefined when none of ours does. */
  match(packet: KnownPacket, from: RemoteAddress): Exchange | undefined {
    const { sequence, target } = packet.header;
    const targetLane = this.lanes.get(target);
    const byTarget = targetLane === undefined ? undefined : this.pending.get(pendingKey(targetLane, sequence));
    // Only from the address the request went to: our source goes out in every broadcast, so any host on the LAN
    // could otherwise answer for a light (a dead one included) with a state of its choosing.
    if (byTarget && byTarget.device.address === from.address && wants(byTarget.plan.rule, packet)) return byTarget;
    const addressLane = this.lanes.get(`${from.address}:${from.port}`);
    const byAddress = addressLane === undefined ? undefined : this.pending.get(pendingKey(addressLane, sequence));
    if (byAddress && wants(byAddress.plan.rule, packet)) return byAddress;
    return undefined;
  }
}
