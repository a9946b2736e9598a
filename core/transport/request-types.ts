// What callers of the requester give and get: addresses, options and results. The reply types come from the
// message tables (ReplyName), so a caller gets the State message its request is answered with, not any packet.
// Types only: nothing here is loaded at run time (each module loaded costs the process about 10 KB of heap).

import type { KnownPacket, MessageName, Packet, ReplyName } from '../protocol/index.js';
import type { RemoteAddress } from './udp.js';

/** Where one light lives. The serial is the target; the address and port come from StateService. */
export interface DeviceAddress {
  readonly serial: string;
  readonly address: string;
  readonly port: number;
}

export type PacketOf<N extends MessageName> = Extract<KnownPacket, { readonly name: N }>;

/** The packet that answers N: one of the replies its table entry declares. */
export type ReplyOf<N extends MessageName> = PacketOf<ReplyName<N>>;

export interface RequestOptions {
  /** Deadline for the whole exchange, retries included. Defaults to the client's requestTimeoutMs. */
  readonly timeoutMs?: number;
}

/** Options of a Get with a single reply. */
export interface GetOptions extends RequestOptions {
  /**
   * Sent once, never retransmitted: a question a light answers within a round trip or never, as a capability probe
   * (a light stays silent on messages it does not support).
   */
  readonly once?: boolean;
}

export interface SetOptions extends RequestOptions {
  /** Also wait for the State reply (res_required). */
  readonly withReply?: boolean;
  /**
   * Latest wins: a newer Set with the same key to the same light replaces this one if it has not been
   * acknowledged yet. Defaults to the message name; `false` never coalesces.
   */
  readonly coalesceKey?: string | false;
}

export interface SetResult<R = KnownPacket> {
  /** The light acknowledged this Set. */
  readonly acked: boolean;
  /** A newer Set with the same key replaced this one before the light acknowledged it. */
  readonly superseded: boolean;
  readonly reply: R | undefined;
  readonly attempts: number;
  readonly rttMs: number;
}

export interface RequesterStats {
  sent: number;
  retransmits: number;
  received: number;
  malformed: number;
  /** Datagrams received whose payload was shorter than their message's size: read with the missing bytes as zeros. */
  shortPayloads: number;
  duplicates: number;
  unmatched: number;
  /** Well-formed datagrams another client's source (or a device's own broadcast) carried: not ours to match. */
  foreign: number;
  timeouts: number;
  /** Fast messages dropped because their payload did not encode (never with planned payloads). */
  invalid: number;
}

/**
 * Told when a fast message that had to wait for its turn goes out, with the payload it carried (the newest, after
 * latest-wins replacements): a caller keeps its own state in step with what the lights were told, at the lights'
 * pace, not once per request. (A message that goes out at once is reported by post() itself: `sent`.)
 */
export interface FastObserver {
  sent(device: DeviceAddress, name: MessageName, payload: unknown): void;
}

/**
 * What post() did: `sent` (handed to the socket at once, or when the batch() it is part of ends: the light was quiet),
 * `queued` (waits for the light's next turn), `replaced` (a waiting message for the same light and key now carries
 * this payload), `closed` (nothing).
 */
export type PostOutcome = 'sent' | 'queued' | 'replaced' | 'closed';

/** Options of a fast message. */
export interface PostOptions {
  /** Latest wins per light and key (default: the message name; `false`: never replaced). */
  readonly coalesceKey?: string | false;
  /** Told when the message goes out (the newest observer given for its key wins, as the payload does). */
  readonly observer?: FastObserver;
}

export type PacketListener = (packet: Packet, from: RemoteAddress) => void;

/** What getEach resolves with: each request's reply, or the error it ended with, in the order asked. */
export type EachResult<Ns extends readonly MessageName[] = readonly MessageName[]> = { -readonly [I in keyof Ns]: ReplyOf<Ns[I]> | Error };
