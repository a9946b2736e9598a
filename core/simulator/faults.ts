// Per-light fault injection: what the network and the firmware do wrong, on purpose.

import { HEADER_BYTES } from '../protocol/header.js';

/**
 * `malformedReplies`:
 * - `'off'`: replies are well formed.
 * - `'instead'`: every reply datagram (acks included) is replaced by a malformed one; the client never gets the
 *   real reply.
 * - `'also'`: a malformed datagram is sent first, then the real reply.
 * The malformed datagrams cycle through four kinds, each of which a correct decoder must reject:
 * a truncated header (20 bytes), a size field larger than the datagram, protocol 1023 instead of 1024, and a
 * payload cut short by one byte with a matching size field (for empty payloads: 36 bytes of 0xff).
 */
export type MalformedMode = 'off' | 'instead' | 'also';

export interface Faults {
  /** Probability (0-1) that an incoming datagram is lost before the light sees it. */
  readonly lossProbability: number;
  /** Delay before the light's replies (ack and state) leave, in ms. */
  readonly latencyMs: number;
  /** Every reply datagram is sent twice. */
  readonly duplicateReplies: boolean;
  readonly malformedReplies: MalformedMode;
  /** The light answers discovery (GetService) and nothing else; it still records what it receives. */
  readonly unresponsive: boolean;
  /** The light answers nothing and records nothing, like a device without power. */
  readonly offline: boolean;
}

export const NO_FAULTS: Faults = Object.freeze({
  lossProbability: 0,
  latencyMs: 0,
  duplicateReplies: false,
  malformedReplies: 'off',
  unresponsive: false,
  offline: false,
});

export const MALFORMED_KINDS = Object.freeze(['truncatedHeader', 'sizeTooLarge', 'wrongProtocol', 'truncatedPayload'] as const);
export type MalformedKind = (typeof MALFORMED_KINDS)[number];

/** A broken copy of a well-formed datagram; `kind` chooses how it is broken. */
export function malformed(datagram: Buffer, kind: MalformedKind): Buffer {
  switch (kind) {
    case 'truncatedHeader':
      return Buffer.from(datagram.subarray(0, 20));
    case 'sizeTooLarge': {
      const copy = Buffer.from(datagram);
      copy.writeUInt16LE(Math.min(0xffff, datagram.length + 1), 0);
      return copy;
    }
    case 'wrongProtocol': {
      const copy = Buffer.from(datagram);
      copy.writeUInt16LE((copy.readUInt16LE(2) & 0xf000) | 1023, 2);
      return copy;
    }
    case 'truncatedPayload': {
      if (datagram.length <= HEADER_BYTES) return Buffer.alloc(HEADER_BYTES, 0xff);
      const copy = Buffer.from(datagram.subarray(0, datagram.length - 1));
      copy.writeUInt16LE(copy.length, 0);
      return copy;
    }
  }
}
