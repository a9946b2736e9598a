// Transport timing and limits: named, documented, validated once and frozen per client (coapjs
// parameters.ts style). Nothing here is global or mutable.

import { MAX_TIMER_MS } from '../builtins.js';
import { unknownOption } from '../text.js';
import { LightwireError } from '../errors.js';
import { PORT_MAX } from '../protocol/limits.js';

export interface TransportOptions {
  /** Address the client socket binds; 0.0.0.0 receives replies on every interface. */
  readonly bindAddress: string;
  /** 0 = ephemeral (v2 firmware replies to the sender's port); 56700 for fw 1.x. */
  readonly bindPort: number;
  /** Kernel receive buffer; large fleets answer a broadcast all at once. */
  readonly receiveBufferBytes: number;
  /** Default deadline for one request (every retry happens inside it). */
  readonly requestTimeoutMs: number;
  /**
   * Gaps between transmissions of one request: the first retransmit no sooner than ~200 ms, then growing
   * (photons' schedule, which lost 1 request in 60 at 50 % loss); the last gap repeats until the deadline.
   */
  readonly retryScheduleMs: readonly number[];
  /** Vendor guidance: at most 20 messages per second to one device (the vendor's original protocol docs). */
  readonly maxMessagesPerSecond: number;
  /** Part of each light's per-second budget kept for discovery broadcasts, which every light receives. */
  readonly broadcastReservePerSecond: number;
  /**
   * Messages a quiet light is sent back to back (a state read and a write, a colour and a power); once a light is
   * busy its messages are evenly spaced (pacer.ts: one every 1050 / (maxMessagesPerSecond - broadcastReserve -
   * burst + 1) ms, 66 ms by default), so a dragged slider moves the light smoothly, never in bursts and stalls.
   */
  readonly pacingBurst: number;
  /**
   * Messages a light that has had none for a whole second may be sent at once (a new light's first read: 7 requests,
   * 9 for a multizone light with its zones and effect); the ones beyond pacingBurst count against the following
   * turns, so the per-second cap still holds.
   */
  readonly pacingQuietBurst: number;
  /** For replies of unknown count: finish this long after the last one (photons' gap_between_results). */
  readonly multiReplyGapMs: number;
}

export const DEFAULT_TRANSPORT_OPTIONS: TransportOptions = Object.freeze({
  bindAddress: '0.0.0.0',
  bindPort: 0,
  receiveBufferBytes: 4 * 1024 * 1024,
  requestTimeoutMs: 5000,
  retryScheduleMs: Object.freeze([200, 300, 400, 600, 800, 1000]),
  maxMessagesPerSecond: 20,
  broadcastReservePerSecond: 2,
  pacingBurst: 3,
  pacingQuietBurst: 10,
  multiReplyGapMs: 400,
});

function invalid(option: string, reason: string): never {
  throw new LightwireError('OPTIONS_INVALID', { option, reason });
}

/** An integer from `min`; a duration (a name in ms) at most MAX_TIMER_MS, which a timer can wait. */
function positiveInt(name: string, value: unknown, min = 1): number {
  const max = /Ms(\[\d+\])?$/.test(name) ? MAX_TIMER_MS : Number.MAX_SAFE_INTEGER;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    invalid(name, `must be an integer ${max === MAX_TIMER_MS ? `from ${min} to ${MAX_TIMER_MS} (ms)` : `>= ${min}`}, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Validates user options over the defaults and returns a frozen copy. */
export function transportOptions(input: Partial<TransportOptions> = {}): TransportOptions {
  if (typeof input !== 'object' || input === null) invalid('transport', 'must be an object');
  const o = { ...DEFAULT_TRANSPORT_OPTIONS, ...input };
  if (typeof o.bindAddress !== 'string' || o.bindAddress.length === 0) invalid('bindAddress', 'must be an IPv4 address');
  positiveInt('bindPort', o.bindPort, 0);
  if (o.bindPort > PORT_MAX) invalid('bindPort', `must be at most ${PORT_MAX}`);
  positiveInt('receiveBufferBytes', o.receiveBufferBytes, 0);
  positiveInt('requestTimeoutMs', o.requestTimeoutMs);
  if (!Array.isArray(o.retryScheduleMs) || o.retryScheduleMs.length === 0) {
    invalid('retryScheduleMs', 'must be a non-empty list of milliseconds');
  }
  o.retryScheduleMs.forEach((gap, i) => positiveInt(`retryScheduleMs[${i}]`, gap));
  positiveInt('maxMessagesPerSecond', o.maxMessagesPerSecond);
  positiveInt('broadcastReservePerSecond', o.broadcastReservePerSecond, 0);
  if (o.broadcastReservePerSecond >= o.maxMessagesPerSecond) {
    invalid('broadcastReservePerSecond', 'must be below maxMessagesPerSecond');
  }
  positiveInt('pacingBurst', o.pacingBurst);
  if (o.pacingBurst > o.maxMessagesPerSecond - o.broadcastReservePerSecond) {
    invalid('pacingBurst', 'must be at most maxMessagesPerSecond - broadcastReservePerSecond');
  }
  positiveInt('pacingQuietBurst', o.pacingQuietBurst);
  if (o.pacingQuietBurst < o.pacingBurst || o.pacingQuietBurst > o.maxMessagesPerSecond - o.broadcastReservePerSecond) {
    invalid('pacingQuietBurst', 'must be from pacingBurst to maxMessagesPerSecond - broadcastReservePerSecond');
  }
  positiveInt('multiReplyGapMs', o.multiReplyGapMs);
  // A misspelt option would otherwise fall back to its default.
  const unknown = unknownOption(input, Object.keys(DEFAULT_TRANSPORT_OPTIONS), 'a transport');
  if (unknown) invalid(unknown.key, unknown.reason);
  return Object.freeze({ ...o, retryScheduleMs: Object.freeze([...o.retryScheduleMs]) });
}
