// Exchanges: one request in flight and what it is (its plan: the message, its reply rule, ack or reply wanted, what
// its promise resolves with, one frozen object per message and kind, shared by every exchange of it; its sequence
// lane, its deadline, how its caller learns the outcome), and the table of those in flight that replies are matched
// against. The requester runs exchanges; they hold no closures.

import type { KnownPacket, MessageName } from '../protocol/index.js';
import type { DueItem } from './due-queue.js';
import type { PacedJob } from './pacer.js';
import { replyRule, wants, type ReplyRule } from './reply-rules.js';
import type { DeviceAddress } from './request-types.js';
import type { RemoteAddress } from './udp.js';

/** What an exchange's promise resolves with: its first reply (get), every reply (getAll, probe) or a SetResult. */
export type Answer = 'first' | 'all' | 'set';

/** The kinds of exchange: what is asked of the light, and what the caller gets. */
export type ExchangeKind = 'get' | 'getOnce' | 'getAll' | 'set' | 'setWithReply';

/** What every exchange of one message and kind shares. */
export interface ExchangePlan {
  readonly name: MessageName;
  readonly rule: ReplyRule;
  readonly wantAck: boolean;
  readonly wantReply: boolean;
  readonly answer: Answer;
  /** Sent once, never retransmitted (GetOptions.once). */
  readonly once: boolean;
}

const KINDS: Readonly<Record<ExchangeKind, Omit<ExchangePlan, 'name' | 'rule'>>> = {
  get: { wantAck: false, wantReply: true, answer: 'first', once: false },
  getOnce: { wantAck: false, wantReply: true, answer: 'first', once: true },
  getAll: { wantAck: false, wantReply: true, answer: 'all', once: false },
  set: { wantAck: true, wantReply: false, answer: 'set', once: false },
  setWithReply: { wantAck: true, wantReply: true, answer: 'set', once: false },
};

const PLANS: Readonly<Record<ExchangeKind, Map<MessageName, ExchangePlan>>> = {
  get: new Map(),
  getOnce: new Map(),
  getAll: new Map(),
  set: new Map(),
  setWithReply: new Map(),
};

/** The plan of one message and kind, made on first use. */
export function planFor(name: MessageName, kind: ExchangeKind): ExchangePlan {
  const plans = PLANS[kind];
  let plan = plans.get(name);
  if (plan === undefined) plans.set(name, (plan = Object.freeze({ name, rule: replyRule(name), ...KINDS[kind] })));
  return plan;
}

/**
 * One destination's sequence numbers: the last one used, and a small number of its own, so that a request in flight is
 * keyed by a number (Exchange.pendingKey), not by a string built for each request and each reply.
 */
export interface SequenceLane {
  /** The destination: a light's serial, or address:port for a tagged request. */
  readonly key: string;
  readonly id: number;
  last: number;
}

/** The key of a request in flight: its destination's lane and its sequence number (0-255). */
export function pendingKey(lane: SequenceLane, sequence: number): number {
  return lane.id * 256 + sequence;
}

/** What an exchange needs from its requester, without a closure per exchange. */
export interface ExchangeHost {
  /** The pacer's turn: transmit once and set the retransmission timer. */
  attempt(ex: Exchange): void;
}

type Timer = ReturnType<typeof setTimeout>;

/**
 * Several Gets to one light asked together (getEach): each exchange tells the batch how it ended, and the batch
 * resolves one promise when all have. A light's first read asks six at once; one promise for them, instead of a
 * promise, its two resolving functions and a reaction for each, holds less in flight for as long as a round trip.
 */
export class Batch {
  private left: number;
  readonly results: (KnownPacket | Error)[];

  constructor(
    size: number,
    private readonly resolve: (results: (KnownPacket | Error)[]) => void,
  ) {
    this.left = size;
    this.results = new Array<KnownPacket | Error>(size);
  }

  settle(index: number, outcome: KnownPacket | Error): void {
    this.results[index] = outcome;
    if (--this.left === 0) this.resolve(this.results);
  }
}

/**
 * One request in flight, and its own pacer job (queued again for each retransmission). A plain class whose job calls
 * back through the requester's host object, and whose timer is its place in the requester's DueQueue: a request keeps
 * no closures and no Timeout of its own, so a burst of requests in flight holds as little memory as it can.
 */
export class Exchange implements PacedJob, DueItem {
  /** PacedJob: set when the exchange settles, so a queued transmission is skipped. */
  cancelled = false;
  attempts = 0;
  /** When the latest transmission went out (requester clock). */
  sentAtMs = 0;
  acked = false;
  settled = false;
  /** The replies so far; created with the first (most requests in flight never hold one). */
  replies: KnownPacket[] | undefined = undefined;
  /** Identities of the replies so far, for rules that can answer more than once; created on first use. */
  replyKeys: Set<string> | undefined = undefined;
  /**
   * One due time per exchange (the requester's DueQueue): the next retransmission or the deadline, whichever comes
   * first (a request waiting for its pacing turn has only its deadline). `retryAtMs` is when the next transmission is
   * due (Infinity: none pending).
   */
  dueAtMs = Infinity;
  dueIndex = -1;
  retryAtMs = Infinity;
  gapTimer: Timer | undefined = undefined;
  /** Resolved when this Set settles: reads that wait for it (created on first use). */
  settleWaiters: (() => void)[] | undefined = undefined;
  /** How the caller learns the outcome: its promise's resolve and reject, or else its batch (getEach) and place in it. */
  resolve: ((value: unknown) => void) | undefined = undefined;
  reject: ((err: Error) => void) | undefined = undefined;
  batch: Batch | undefined = undefined;
  batchIndex = 0;
  /** Requests in flight by this number: destination and sequence. */
  readonly pendingKey: number;

  constructor(
    private readonly host: ExchangeHost,
    readonly plan: ExchangePlan,
    readonly device: DeviceAddress,
    readonly request: Record<string, unknown>,
    readonly lane: SequenceLane,
    readonly sequence: number,
    /**
     * The encoded request until its first transmission. Then dropped: a request waiting for its reply holds no
     * buffer (they outlive young-generation collections at a real network's round trips), and a retransmission,
     * which is rare, encodes it again.
     */
    public datagram: Buffer | undefined,
    readonly timeoutMs: number,
    /** When the deadline passes (requester clock). */
    readonly deadlineAtMs: number,
    readonly coalesceId: string | undefined,
  ) {
    this.pendingKey = pendingKey(lane, sequence);
  }

  get name(): MessageName {
    return this.plan.name;
  }

  run(): void {
    this.host.attempt(this);
  }

  /** A reply seen before (retransmits, duplicated datagrams): by its identity, or any second one for single replies. */
  isDuplicate(packet: KnownPacket): boolean {
    const key = this.plan.rule.key;
    if (key === undefined) return this.replies !== undefined;
    const id = key(packet);
    if (this.replyKeys === undefined) this.replyKeys = new Set();
    else if (this.replyKeys.has(id)) return true;
    this.replyKeys.add(id);
    return false;
  }

  /** Everything asked for came: the ack when one was, and the replies by the rule (a gap rule ends by its timer). */
  isComplete(): boolean {
    const { wantAck, wantReply, rule } = this.plan;
    if (wantAck && !this.acked) return false;
    if (!wantReply) return true;
    if (this.replies === undefined) return false;
    return rule.complete ? rule.complete(this.request, this.replies) : !rule.gap;
  }
}

// The requests in flight and the sequence numbers they were sent with: a reply is matched on (source, sequence,
// target), the source being the requester's own (https://lan.developer.lifx.com/docs/packet-contents). Untagged
// requests are keyed by the light's serial, tagged ones (probes) by the address they were sent to.
export class ExchangeTable {
  /** Requests in flight by Exchange.pendingKey: destination and sequence. */
  private readonly pending = new Map<number, Exchange>();
  /** Per destination (a light's serial; address:port for a tagged request): its sequence numbers. */
  private readonly lanes = new Map<string, SequenceLane>();

  /** The lane of a destination, made on first use. */
  laneOf(key: string): SequenceLane {
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { key, id: this.lanes.size, last: -1 };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  /** The next sequence number to a destination (0-255, then round again). */
  nextSequence(lane: SequenceLane): number {
    lane.last = (lane.last + 1) & 0xff;
    return lane.last;
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
