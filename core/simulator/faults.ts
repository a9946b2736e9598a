// Per-light fault injection: what the network and the firmware do wrong, on purpose.

/**
 * `malformedReplies`:
 * - `'off'`: replies are well formed.
 * - `'instead'`: every reply datagram (acks included) is replaced by a malformed one; the client never gets the
 *   real reply.
 * - `'also'`: a malformed datagram is sent first, then the real reply.
 * The malformed datagrams cycle through four kinds, each of which a correct decoder must reject:
 * a truncated header (20 bytes), a size field larger than the datagram, protocol 1023 instead of 1024, and a
 * size field smaller than the datagram. (A payload cut short is no such datagram: a reader takes the missing
 * bytes as zeros, as lights do.)
 */
export type MalformedMode = 'off' | 'instead' | 'also';

/**
 * Faults are applied per datagram, in this order:
 * 1. `offline`: nothing is received, recorded or answered.
 * 2. `lossInProbability`: a datagram arriving at the light is dropped before the light sees it (not recorded, no
 *    effect on its state, no reply).
 * 3. `unresponsive`: the datagram is recorded (and a Set changes nothing: the light is hung), only GetService is
 *    answered.
 * 4. The light acts on the message and builds its replies (ack, then state), each encoded once; `malformedReplies`
 *    and `duplicateReplies` change that list of datagrams.
 * 5. Each reply datagram on its own: `lossOutProbability` drops it after the light acted (so "the light changed
 *    but its ack was lost" happens); `reorderProbability` holds it back `reorderDelayMs` longer than the others,
 *    so it arrives after replies sent later (the ack after the state, or one request's reply after the next's).
 * 6. `latencyMs` delays every reply datagram that is sent.
 * Datagrams arriving at the light are never reordered: only its replies are.
 */
export interface Faults {
  /** Probability (0-1) that a datagram arriving at the light is lost before the light sees it. */
  readonly lossInProbability: number;
  /** Probability (0-1) that each reply datagram the light sends (ack, state, duplicate, malformed) is lost. */
  readonly lossOutProbability: number;
  /**
   * The shorthand kept from before loss had a direction: the same as `lossInProbability`, always equal to it (a fleet
   * file or PATCH that sets either sets both). Loss both ways needs `lossOutProbability` too.
   */
  readonly lossProbability: number;
  /** Delay before the light's replies (ack and state) leave, in ms. */
  readonly latencyMs: number;
  /** Probability (0-1) that a reply datagram is held back by `reorderDelayMs`, arriving after later ones. */
  readonly reorderProbability: number;
  /** How much longer a held-back reply waits than the others (after `latencyMs`), in ms. */
  readonly reorderDelayMs: number;
  /** Every reply datagram is sent twice. */
  readonly duplicateReplies: boolean;
  readonly malformedReplies: MalformedMode;
  /** The light answers discovery (GetService) and nothing else; it still records what it receives. */
  readonly unresponsive: boolean;
  /** The light answers nothing and records nothing, like a device without power. */
  readonly offline: boolean;
}

/** What `reorderDelayMs` is when a fleet file does not say: longer than a loopback round trip, shorter than a retry. */
export const DEFAULT_REORDER_DELAY_MS = 100;

export const NO_FAULTS: Faults = Object.freeze({
  lossInProbability: 0,
  lossOutProbability: 0,
  lossProbability: 0,
  latencyMs: 0,
  reorderProbability: 0,
  reorderDelayMs: DEFAULT_REORDER_DELAY_MS,
  duplicateReplies: false,
  malformedReplies: 'off',
  unresponsive: false,
  offline: false,
});

export const MALFORMED_KINDS = Object.freeze(['truncatedHeader', 'sizeTooLarge', 'wrongProtocol', 'sizeTooSmall'] as const);
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
    case 'sizeTooSmall': {
      const copy = Buffer.from(datagram);
      copy.writeUInt16LE(datagram.length - 1, 0);
      return copy;
    }
  }
}
