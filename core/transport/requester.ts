// The requester answers "did my light hear me": source and sequence, reply matching on
// (source, sequence, target), acks and state replies, multi-reply collection, retries on an escalating
// schedule inside the caller's deadline, per-light pacing and latest-wins coalescing of Sets.
// LIFX LAN docs: https://lan.developer.lifx.com/docs/communicating-with-device.

import { randomNonZeroUint32 } from '../builtins.js';
import { LightwireError } from '../errors.js';
import {
  BROADCAST_TARGET,
  decode,
  encode,
  MESSAGES,
  type KnownPacket,
  type MessageName,
  type MessageSpec,
  type Packet,
  type Payload,
} from '../protocol/index.js';
import type { TransportOptions } from './options.js';
import { DUE_EARLY_MS, DueQueue, type DueItem } from './due-queue.js';
import { Pacer, type PacedJob } from './pacer.js';
import type { DatagramEndpoint, RemoteAddress } from './udp.js';

/** Where one light lives. The serial is the target; the address and port come from StateService. */
export interface DeviceAddress {
  readonly serial: string;
  readonly address: string;
  readonly port: number;
}

export type PacketOf<N extends MessageName> = Extract<KnownPacket, { readonly name: N }>;

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

/** How many recent round-trip samples each light keeps. */
export const RTT_SAMPLES_KEPT = 128;
/** How long a GetService (broadcast or probe) accepts StateService answers; lights answer within milliseconds. */
export const DISCOVERY_REPLY_WINDOW_MS = 5000;
/** Probe destinations remembered before lapsed ones are dropped (a /22 sweep probes 1022). */
const DISCOVERY_DESTINATIONS_KEPT = 2048;

/**
 * One light's exchanges (counted when they end; superseded and cancelled ones are not): the network doctor's
 * raw figures. A transmission is lost when no reply to it came before the next one went out or the deadline
 * passed, so a reply later than the retry gap counts as a loss too. Round trips are Karn's: only exchanges
 * answered at the first transmission give a sample (a retransmitted one cannot say which copy was answered),
 * and never requests whose replies are collected over a gap.
 */
export interface LightTransportStats {
  /** Exchanges that ended: answered (or refused with StateUnhandled) or timed out. */
  readonly requests: number;
  readonly answered: number;
  readonly timeouts: number;
  /** Transmissions of those exchanges, and how many of them went unanswered. */
  readonly attempts: number;
  readonly lostAttempts: number;
  readonly retransmits: number;
  /** Round-trip samples taken so far, and the most recent (at most RTT_SAMPLES_KEPT), oldest first, in ms. */
  readonly rttSamples: number;
  readonly recentRttMs: readonly number[];
}

interface LightCounters {
  requests: number;
  answered: number;
  timeouts: number;
  attempts: number;
  lostAttempts: number;
  retransmits: number;
  rttSamples: number;
  readonly rttMs: number[];
}

/** What a fast message needs from its requester when its turn comes. */
interface FastHost {
  sendFast(job: FastJob): void;
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
 * A fast message waiting for its light's turn (pacer job). Its payload is replaced while it waits (latest wins per
 * light and part), so it is encoded, with its sequence number, only when it goes out: a flood of fast requests costs
 * one object per light and part, not one datagram per request.
 */
class FastJob implements PacedJob {
  cancelled = false;
  /** Handed to the socket (or dropped as invalid): a later message for its part is a new job. */
  sent = false;
  /** Took its turn when queued: sent at once, or in the batch being queued (Requester.batch). */
  turnTaken = false;
  part: string | undefined = undefined;
  /** fire() callers waiting for this message to be handed to the socket; created on first use. */
  waiters: { resolve: () => void; reject: (err: Error) => void }[] | undefined = undefined;

  constructor(
    private readonly host: FastHost,
    readonly device: DeviceAddress,
    public name: MessageName,
    public payload: unknown,
    public observer: FastObserver | undefined,
  ) {}

  run(): void {
    this.host.sendFast(this);
  }
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

/** Replies of a request that can answer with several messages, and how to tell it is complete. */
interface ReplyRule {
  readonly names: readonly MessageName[];
  /** Identity of one reply, to drop duplicates after retransmits. */
  readonly key?: (reply: KnownPacket) => string;
  /** Complete when true; undefined = a single reply completes. */
  readonly complete?: (request: Record<string, unknown>, replies: readonly KnownPacket[]) => boolean;
  /** Unknown count: finish multiReplyGapMs after the last reply (photons' gap_between_results). */
  readonly gap?: boolean;
}

function zoneRange(reply: KnownPacket): { count: number; first: number; n: number } {
  switch (reply.name) {
    case 'StateZone':
      return { count: reply.payload.count, first: reply.payload.index, n: 1 };
    case 'StateMultiZone':
      return { count: reply.payload.count, first: reply.payload.index, n: 8 };
    case 'StateExtendedColorZones':
      return { count: reply.payload.count, first: reply.payload.index, n: reply.payload.colorsCount };
    default:
      return { count: 0, first: 0, n: 0 };
  }
}

function zonesCovered(start: number, end: number, replies: readonly KnownPacket[]): boolean {
  if (replies.length === 0) return false;
  const count = zoneRange(replies[0]!).count;
  const last = Math.min(end, count - 1);
  if (count === 0 || last < start) return true;
  const seen = new Uint8Array(last - start + 1);
  for (const reply of replies) {
    const r = zoneRange(reply);
    for (let z = r.first; z < r.first + r.n; z++) if (z >= start && z <= last) seen[z - start] = 1;
  }
  return seen.every((v) => v === 1);
}

const ZONE_KEY = (reply: KnownPacket): string => `${reply.name}:${zoneRange(reply).first}`;

const REPLY_RULES: Partial<Record<MessageName, ReplyRule>> = {
  GetService: { names: ['StateService'], gap: true, key: (r) => (r.name === 'StateService' ? `${r.payload.service}:${r.payload.port}` : '') },
  GetColorZones: {
    names: ['StateZone', 'StateMultiZone'],
    key: ZONE_KEY,
    complete: (req, replies) => zonesCovered(req.startIndex as number, req.endIndex as number, replies),
  },
  SetColorZones: {
    names: ['StateZone', 'StateMultiZone'],
    key: ZONE_KEY,
    complete: (req, replies) => zonesCovered(req.startIndex as number, req.endIndex as number, replies),
  },
  GetExtendedColorZones: {
    names: ['StateExtendedColorZones'],
    key: ZONE_KEY,
    complete: (_req, replies) => zonesCovered(0, 0xffff, replies),
  },
  SetExtendedColorZones: {
    names: ['StateExtendedColorZones'],
    key: ZONE_KEY,
    complete: (_req, replies) => zonesCovered(0, 0xffff, replies),
  },
  Get64: {
    names: ['State64'],
    key: (r) => (r.name === 'State64' ? `tile:${r.payload.tileIndex}` : ''),
    complete: (req, replies) => replies.length >= (req.length as number),
    gap: true,
  },
};

/** Single-reply rules built from the message tables, once per message name. */
const DEFAULT_RULES = new Map<MessageName, ReplyRule>();

function replyRule(name: MessageName): ReplyRule {
  const rule = REPLY_RULES[name] ?? DEFAULT_RULES.get(name);
  if (rule) return rule;
  const reply = (MESSAGES[name] as MessageSpec).reply;
  const made: ReplyRule = Object.freeze({ names: Object.freeze(reply === undefined ? [] : [reply as MessageName]) });
  DEFAULT_RULES.set(name, made);
  return made;
}

/** What an exchange's promise resolves with: its first reply (get), every reply (getAll, probe) or a SetResult. */
const enum Answer {
  First,
  All,
  Set,
}

const ignore = (): void => undefined;

/** The payload of every request that has none: one frozen object, not one per request in flight. */
export const NO_PAYLOAD: Readonly<Record<string, never>> = Object.freeze({});

/** What an exchange needs from its requester, without a closure per exchange. */
interface ExchangeHost {
  /** The pacer's turn: transmit once and set the retransmission timer. */
  attempt(ex: Exchange): void;
}

type Timer = ReturnType<typeof setTimeout>;

/**
 * One request in flight, and its own pacer job (queued again for each retransmission). A plain class whose job calls
 * back through the requester's host object, and whose timer is its place in the requester's DueQueue: a request keeps
 * no closures and no Timeout of its own, so a burst of requests in flight holds as little memory as it can.
 */
class Exchange implements PacedJob, DueItem {
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
  /** Sent once: no retransmission (GetOptions.once). */
  once = false;
  /** Resolved when this Set settles: reads that wait for it (created on first use). */
  settleWaiters: (() => void)[] | undefined = undefined;

  constructor(
    private readonly host: ExchangeHost,
    readonly device: DeviceAddress,
    readonly name: MessageName,
    readonly request: Record<string, unknown>,
    readonly sequence: number,
    /**
     * The encoded request until its first transmission. Then dropped: a request waiting for its reply holds no
     * buffer (they outlive young-generation collections at a real network's round trips), and a retransmission,
     * which is rare, encodes it again.
     */
    public datagram: Buffer | undefined,
    readonly pendingKey: number,
    readonly laneKey: string,
    readonly wantAck: boolean,
    readonly wantReply: boolean,
    readonly rule: ReplyRule,
    readonly timeoutMs: number,
    /** When the deadline passes (requester clock). */
    readonly deadlineAtMs: number,
    readonly coalesceId: string | undefined,
    readonly answer: Answer,
    /** How the caller learns the outcome: its promise's resolve and reject, or else its batch (getEach). */
    readonly resolve: ((value: unknown) => void) | undefined,
    readonly reject: ((err: Error) => void) | undefined,
    readonly batch: Batch | undefined,
    /** This request's place in its batch. */
    readonly batchIndex: number,
  ) {}

  run(): void {
    this.host.attempt(this);
  }
}

/**
 * One destination's sequence numbers: the last one used, and a small number of its own, so that a request in flight is
 * keyed by a number (pendingKey), not by a string built for each request and each reply.
 */
interface SequenceLane {
  readonly id: number;
  last: number;
  /** Confirmed Sets begun to this destination so far (setsBegun). */
  setsBegun: number;
}

/** The key of a request in flight: its destination's lane and its sequence number (0-255). */
function pendingKey(lane: SequenceLane, sequence: number): number {
  return lane.id * 256 + sequence;
}

/** What getEach resolves with: each request's reply, or the error it ended with, in the order asked. */
export type EachResult = (KnownPacket | Error)[];

/**
 * Several Gets to one light asked together (getEach): each exchange tells the batch how it ended, and the batch
 * resolves one promise when all have. A light's first read asks six at once; one promise for them, instead of a
 * promise, its two resolving functions and a reaction for each, holds less in flight for as long as a round trip.
 */
class Batch {
  private left: number;
  readonly results: EachResult;

  constructor(
    size: number,
    private readonly resolve: (results: EachResult) => void,
  ) {
    this.left = size;
    this.results = new Array<KnownPacket | Error>(size);
  }

  settle(index: number, outcome: KnownPacket | Error): void {
    this.results[index] = outcome;
    if (--this.left === 0) this.resolve(this.results);
  }
}

export class Requester {
  /** Random, non-zero, once per client (with source 0 a device may broadcast its reply). */
  readonly source: number = randomNonZeroUint32();
  readonly stats: RequesterStats = { sent: 0, retransmits: 0, received: 0, malformed: 0, shortPayloads: 0, duplicates: 0, unmatched: 0, foreign: 0, timeouts: 0, invalid: 0 };

  private readonly perLight = new Map<string, LightCounters>();
  /** Requests in flight by pendingKey(): destination and sequence. */
  private readonly pending = new Map<number, Exchange>();
  /** Per destination (a light's serial; address:port for a tagged request): its sequence numbers (nextSequence). */
  private readonly lanes = new Map<string, SequenceLane>();
  /** Open GetService requests: destination ('*' for broadcasts) -> sequence -> until when answers count (ms). */
  private readonly discoveryOpen = new Map<string, Map<number, number>>();
  /** Per light and coalesce key: the Set on the wire (sent, not yet acknowledged) and the newest one waiting. */
  private readonly coalescing = new Map<string, { inFlight: Exchange | undefined; held: Exchange | undefined }>();
  /** Per light, its Sets not acknowledged (settled) yet: a read waits for them. */
  private readonly unackedSets = new Map<string, Set<Exchange>>();
  private readonly listeners = new Set<PacketListener>();
  private readonly pacer: Pacer;
  /** The job queueFast() last gave a newer payload (post() tells a replacement from a job of its own). */
  private replaced: FastJob | undefined = undefined;
  /** fire() callers still waiting for their message to go out (rejected on close). */
  private readonly unsentFires = new Set<FastJob>();
  private readonly fastHost: FastHost = { sendFast: (job) => this.sendFast(job) };
  private closed = false;
  private readonly host: ExchangeHost = { attempt: (ex) => this.attempt(ex) };
  /** Every exchange's next retransmission or deadline, on one timer. */
  private readonly due: DueQueue<Exchange>;

  constructor(
    private readonly endpoint: DatagramEndpoint,
    private readonly options: TransportOptions,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.pacer = new Pacer(
      { perWindow: options.maxMessagesPerSecond - options.broadcastReservePerSecond, burst: options.pacingBurst, quietBurst: options.pacingQuietBurst },
      { perWindow: options.broadcastReservePerSecond, burst: options.broadcastReservePerSecond },
      now,
    );
    this.due = new DueQueue((ex) => this.onTimer(ex), now);
    endpoint.onDatagram((datagram, from) => this.receive(datagram, from));
  }

  /** Every packet carrying this client's source, matched or not (discovery listens for StateService here). */
  onPacket(listener: PacketListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A Get: resolves with its single State reply. */
  get<N extends MessageName>(device: DeviceAddress, name: N, payload: Payload<N>, options: GetOptions = {}): Promise<KnownPacket> {
    return this.read(device, name, payload, options.timeoutMs, Answer.First, options.once === true) as Promise<KnownPacket>;
  }

  /**
   * Gets without a payload (GetVersion, GetLabel, ...) to one light at once, with one promise for them all: resolves,
   * once every one has ended, with each one's single State reply or the error it ended with (REQUEST_TIMED_OUT,
   * UNHANDLED_BY_DEVICE, CLIENT_STOPPED, ...), in the order asked. Never rejects. Like get(), they wait for the
   * light's unacknowledged Sets.
   */
  getEach(device: DeviceAddress, names: readonly MessageName[], options: RequestOptions = {}): Promise<EachResult> {
    return new Promise<EachResult>((resolve) => {
      if (names.length === 0) {
        resolve([]);
        return;
      }
      const batch = new Batch(names.length, resolve);
      this.whenSetsSettle(
        device.serial,
        options.timeoutMs ?? this.options.requestTimeoutMs,
        (timeoutMs) => {
          for (let i = 0; i < names.length; i++) {
            this.begin(device, names[i]!, NO_PAYLOAD as never, false, true, timeoutMs, undefined, Answer.First, undefined, undefined, batch, i);
          }
        },
        (err) => {
          this.stats.timeouts += names.length;
          for (let i = 0; i < names.length; i++) batch.settle(i, err);
        },
        names.join(','),
      );
    });
  }

  /** A Get with several replies (zones, tiles, services): resolves with all of them. */
  getAll<N extends MessageName>(
    device: DeviceAddress,
    name: N,
    payload: Payload<N>,
    options: RequestOptions = {},
  ): Promise<KnownPacket[]> {
    return this.read(device, name, payload, options.timeoutMs, Answer.All) as Promise<KnownPacket[]>;
  }

  /** A Set: resolves once the light acknowledged it (and sent its State, with `withReply`). */
  set<N extends MessageName>(device: DeviceAddress, name: N, payload: Payload<N>, options: SetOptions = {}): Promise<SetResult> {
    const coalesceKey = options.coalesceKey === undefined ? name : options.coalesceKey;
    return this.exchange(
      device,
      name,
      payload,
      true,
      options.withReply === true,
      options.timeoutMs,
      coalesceKey === false ? undefined : coalesceKey,
      Answer.Set,
    ) as Promise<SetResult>;
  }

  /**
   * Fast mode: no ack, no reply, nothing to wait for. The message is queued for the light's pacing and goes out at
   * once when the light is quiet; while it waits, a newer message to the same light with the same coalesce key
   * (default: the message name; `false`: never) replaces its payload, keeping its place (latest wins). Says what
   * happened (PostOutcome): `closed` when the requester is closed (nothing queued).
   */
  post<N extends MessageName>(device: DeviceAddress, name: N, payload: Payload<N>, options: PostOptions = {}): PostOutcome {
    const job = this.queueFast(device, name, payload, options.coalesceKey, options.observer);
    if (job === undefined) return 'closed';
    if (job.turnTaken) return 'sent';
    return job === this.replaced ? 'replaced' : 'queued';
  }

  /** post(), resolving when the datagram is handed to the socket (a message replaced by a newer one: when that goes out). */
  fire<N extends MessageName>(
    device: DeviceAddress,
    name: N,
    payload: Payload<N>,
    options: { readonly coalesceKey?: string | false } = {},
  ): Promise<void> {
    const job = this.queueFast(device, name, payload, options.coalesceKey, undefined);
    if (job === undefined) return Promise.reject(new LightwireError('CLIENT_STOPPED', {}));
    if (job.sent) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      (job.waiters ??= []).push({ resolve, reject });
      this.unsentFires.add(job);
    });
  }

  /**
   * Runs `queue` (which posts messages) with the pacer corked: messages that may go out at once are handed to the
   * socket together, in order, when it returns (see Pacer.cork).
   */
  batch<T>(queue: () => T): T {
    this.pacer.cork();
    try {
      return queue();
    } finally {
      this.pacer.uncork();
    }
  }

  private queueFast(
    device: DeviceAddress,
    name: MessageName,
    payload: unknown,
    coalesceKey: string | false | undefined,
    observer: FastObserver | undefined,
  ): FastJob | undefined {
    if (this.closed) return undefined;
    const part = coalesceKey === false ? undefined : (coalesceKey ?? name);
    if (part !== undefined) {
      const waiting = this.pacer.waitingFor(device.serial, part);
      if (waiting instanceof FastJob) {
        waiting.name = name;
        waiting.payload = payload;
        waiting.observer = observer;
        this.replaced = waiting;
        return waiting;
      }
    }
    const job = new FastJob(this.fastHost, device, name, payload, observer);
    // A message that goes out at once (or in this batch) is the caller's to account for (post() says `sent`): only
    // one that waits tells its observer when it goes.
    if (this.pacer.schedule(device.serial, job, part)) {
      job.observer = undefined;
      job.turnTaken = true;
    }
    return job;
  }

  /** A fast message's turn: encoded now (its newest payload, the light's next sequence) and handed to the socket. */
  private sendFast(job: FastJob): void {
    job.sent = true;
    const waiters = job.waiters;
    job.waiters = undefined;
    if (waiters !== undefined) this.unsentFires.delete(job);
    let datagram: Buffer;
    try {
      datagram = encode({
        name: job.name,
        header: { source: this.source, sequence: this.nextSequence(this.laneOf(job.device.serial)), target: job.device.serial },
        payload: job.payload as never,
      });
    } catch (err) {
      // Planned payloads always fit; one that does not is dropped here rather than thrown into a timer.
      this.stats.invalid++;
      if (waiters !== undefined) for (const w of waiters) w.reject(err as Error);
      return;
    }
    this.stats.sent++;
    if (this.endpoint.post) this.endpoint.post(datagram, job.device.port, job.device.address);
    else this.endpoint.send(datagram, job.device.port, job.device.address).catch(ignore);
    if (waiters !== undefined) for (const w of waiters) w.resolve();
    job.observer?.sent(job.device, job.name, job.payload);
  }

  /** A tagged message to a broadcast address (discovery); replies reach onPacket listeners. */
  broadcast<N extends MessageName>(address: string, port: number, name: N, payload: Payload<N>): Promise<void> {
    if (this.closed) return Promise.reject(new LightwireError('CLIENT_STOPPED', {}));
    const sequence = this.nextSequence(this.laneOf(BROADCAST_TARGET));
    const datagram = encode({ name, header: { source: this.source, sequence, resRequired: true }, payload });
    if (name === 'GetService') this.noteDiscovery('*', sequence);
    return new Promise((resolve, reject) => {
      this.pacer.scheduleBroadcast(address, {
        cancelled: false,
        run: () => {
          this.stats.sent++;
          this.endpoint.send(datagram, port, address).then(resolve, reject);
        },
      });
    });
  }

  /**
   * GetService unicast to an address whose serial is not known yet (static hosts, subnet sweeps):
   * tagged, all-zero target; resolves with the StateService replies (empty when nobody answered).
   */
  async probe(address: string, port: number, options: RequestOptions = {}): Promise<KnownPacket[]> {
    const device = { serial: BROADCAST_TARGET, address, port };
    try {
      return (await this.exchange(device, 'GetService', {}, false, true, options.timeoutMs, undefined, Answer.All)) as KnownPacket[];
    } catch (err) {
      if (err instanceof LightwireError && err.code === 'REQUEST_TIMED_OUT') return [];
      throw err;
    }
  }

  /** One light's exchange figures so far (a copy), or undefined when nothing was asked of it yet. */
  lightStats(serial: string): LightTransportStats | undefined {
    const c = this.perLight.get(serial);
    if (c === undefined) return undefined;
    const n = c.rttMs.length;
    const start = c.rttSamples % RTT_SAMPLES_KEPT;
    const recentRttMs = n < RTT_SAMPLES_KEPT ? [...c.rttMs] : [...c.rttMs.slice(start), ...c.rttMs.slice(0, start)];
    const { rttMs: _ring, ...counts } = c;
    return { ...counts, recentRttMs };
  }

  /**
   * How many confirmed Sets to this light have begun so far. Two reads asked while it stayed the same wait for the
   * same Sets (a read waits for those unacknowledged when it is asked), so one reply serves both.
   */
  setsBegun(serial: string): number {
    return this.lanes.get(serial)?.setsBegun ?? 0;
  }

  /** Confirmed Sets to one light not acknowledged yet (a read sent now would wait for them). */
  pendingSets(serial: string): number {
    return this.unackedSets.get(serial)?.size ?? 0;
  }

  /**
   * Transmissions to one light that went unanswered so far (retransmitted or timed out), over the exchanges that
   * ended: a cheap loss signal (AdaptiveWindow) without the copy lightStats() makes.
   */
  lostAttempts(serial: string): number {
    return this.perLight.get(serial)?.lostAttempts ?? 0;
  }

  /**
   * How many of this light's requests have been answered so far (lightStats().answered, without the copy): a light
   * whose count has moved since a request was asked is answering, whatever became of that request.
   */
  answeredCount(serial: string): number {
    return this.perLight.get(serial)?.answered ?? 0;
  }

  /** Cancels every request, clears every timer. The endpoint is closed by its owner. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const ex of [...this.pending.values()]) {
      this.finish(ex, new LightwireError('REQUEST_CANCELLED', { serial: ex.device.serial, message: ex.name }));
    }
    this.pacer.stop();
    this.due.clear();
    for (const job of this.unsentFires) {
      job.cancelled = true;
      for (const w of job.waiters ?? []) w.reject(new LightwireError('CLIENT_STOPPED', {}));
      job.waiters = undefined;
    }
    this.unsentFires.clear();
    this.listeners.clear();
    this.discoveryOpen.clear();
  }

  /**
   * Which GetService of ours a StateService answers: a probe sent to the address it comes from, or a broadcast (by
   * sequence, within DISCOVERY_REPLY_WINDOW_MS); undefined when none. Anything else is unsolicited (a spoofer's, or a
   * reply to another client with our source by chance) and must not add or move lights.
   */
  discoveryReplyTo(sequence: number, from: { readonly address: string; readonly port: number }, nowMs = Date.now()): 'probe' | 'broadcast' | undefined {
    const probe = this.discoveryOpen.get(`${from.address}:${from.port}`)?.get(sequence);
    if (probe !== undefined && probe >= nowMs) return 'probe';
    const broadcast = this.discoveryOpen.get('*')?.get(sequence);
    if (broadcast !== undefined && broadcast >= nowMs) return 'broadcast';
    return undefined;
  }

  // ---- internals ----

  private noteDiscovery(key: string, sequence: number): void {
    const now = Date.now();
    let open = this.discoveryOpen.get(key);
    if (open === undefined) {
      // Destinations whose every request has lapsed are dropped, so a sweep of a /22 leaves nothing behind.
      if (this.discoveryOpen.size >= DISCOVERY_DESTINATIONS_KEPT) {
        for (const [k, m] of this.discoveryOpen) if (![...m.values()].some((until) => until >= now)) this.discoveryOpen.delete(k);
      }
      open = new Map();
      this.discoveryOpen.set(key, open);
    }
    open.set(sequence, now + DISCOVERY_REPLY_WINDOW_MS);
  }

  private laneOf(key: string): SequenceLane {
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { id: this.lanes.size, last: -1, setsBegun: 0 };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  /** The next sequence number to a destination (0-255, then round again). */
  private nextSequence(lane: SequenceLane): number {
    lane.last = (lane.last + 1) & 0xff;
    return lane.last;
  }

  /**
   * A read after a Set waits for the Set's ack (a Get right after a Set can return the old state): for the
   * Sets unacknowledged when it is asked. With no Set pending (the common case) the exchange starts at once, without
   * an extra promise per request.
   */
  private read<N extends MessageName>(device: DeviceAddress, name: N, payload: Payload<N>, timeoutMs: number | undefined, answer: Answer, once = false): Promise<unknown> {
    if (this.pendingSets(device.serial) === 0) return this.exchange(device, name, payload, false, true, timeoutMs, undefined, answer, once);
    return new Promise<unknown>((resolve, reject) =>
      this.whenSetsSettle(
        device.serial,
        timeoutMs ?? this.options.requestTimeoutMs,
        (leftMs) => this.begin(device, name, payload, false, true, leftMs, undefined, answer, resolve, reject, undefined, 0, once),
        (err) => {
          this.stats.timeouts++;
          reject(err);
        },
        name,
      ),
    );
  }

  /**
   * Runs `start` once the Sets to this light unacknowledged now have settled, with what is left of `timeoutMs` (all of
   * it, at once, when there are none): a request's timeout runs from when it is asked, so the caller's deadline covers
   * the wait. When the timeout runs out first, `expire` gets REQUEST_TIMED_OUT (`message` names what was asked) and
   * nothing is sent.
   */
  private whenSetsSettle(serial: string, timeoutMs: number, start: (leftMs: number) => void, expire: (err: LightwireError) => void, message: string): void {
    if (this.pendingSets(serial) === 0) {
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

  /** Runs `then` once the Sets to this light unacknowledged now have settled: at once when there are none. */
  private afterSets(serial: string, then: () => void): void {
    const sets = this.unackedSets.get(serial);
    if (sets === undefined || sets.size === 0) {
      then();
      return;
    }
    let left = sets.size;
    const one = (): void => {
      if (--left === 0) then();
    };
    for (const set of sets) (set.settleWaiters ??= []).push(one);
  }

  private exchange<N extends MessageName>(
    device: DeviceAddress,
    name: N,
    payload: Payload<N>,
    ack: boolean,
    reply: boolean,
    timeoutMs: number | undefined,
    coalesceKey: string | undefined,
    answer: Answer,
    once = false,
  ): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      this.begin(device, name, payload, ack, reply, timeoutMs, coalesceKey, answer, resolve, reject, undefined, 0, once);
    });
  }

  /** Starts one exchange; its outcome goes to resolve/reject, or to its batch. */
  private begin<N extends MessageName>(
    device: DeviceAddress,
    name: N,
    payload: Payload<N>,
    ack: boolean,
    reply: boolean,
    timeoutMsIn: number | undefined,
    coalesceKey: string | undefined,
    answer: Answer,
    resolve: ((value: unknown) => void) | undefined,
    reject: ((err: Error) => void) | undefined,
    batch: Batch | undefined,
    batchIndex: number,
    once = false,
  ): void {
    if (this.closed) {
      this.refuse(new LightwireError('CLIENT_STOPPED', {}), reject, batch, batchIndex);
      return;
    }
    const timeoutMs = timeoutMsIn ?? this.options.requestTimeoutMs;
    const tagged = device.serial === BROADCAST_TARGET;
    const laneKey = tagged ? `${device.address}:${device.port}` : device.serial;
    const lane = this.laneOf(laneKey);
    const sequence = this.nextSequence(lane);
    if (tagged && name === 'GetService') this.noteDiscovery(laneKey, sequence);
    // Encoding validates the payload; a bad value rejects here, before anything is sent.
    let datagram: Buffer;
    try {
      datagram = this.encodeRequest(name, payload as Record<string, unknown>, sequence, device.serial, ack, reply);
    } catch (err) {
      this.refuse(err as Error, reject, batch, batchIndex);
      return;
    }
    const ex = new Exchange(
      this.host,
      device,
      name,
      payload as Record<string, unknown>,
      sequence,
      datagram,
      pendingKey(lane, sequence),
      laneKey,
      ack,
      reply,
      replyRule(name),
      timeoutMs,
      this.now() + timeoutMs,
      coalesceKey === undefined ? undefined : `${device.serial}/${coalesceKey}`,
      answer,
      resolve,
      reject,
      batch,
      batchIndex,
    );
    ex.once = once;
    if (answer === Answer.Set) {
      lane.setsBegun++;
      let sets = this.unackedSets.get(device.serial);
      if (sets === undefined) this.unackedSets.set(device.serial, (sets = new Set()));
      sets.add(ex);
    }
    try {
      this.start(ex);
    } catch (err) {
      // An endpoint that throws while sending (not the UDP one): the request fails like it used to, as a rejection.
      this.finish(ex, err as Error);
    }
  }

  /** A request that never started (closed, or a payload that does not encode): its caller is told at once. */
  private refuse(err: Error, reject: ((err: Error) => void) | undefined, batch: Batch | undefined, batchIndex: number): void {
    if (batch === undefined) reject!(err);
    else batch.settle(batchIndex, err);
  }

  private start(ex: Exchange): void {
    const stale = this.pending.get(ex.pendingKey);
    if (stale) this.finish(stale, new LightwireError('REQUEST_TIMED_OUT', { serial: ex.device.serial, message: stale.name, timeoutMs: stale.timeoutMs }));
    this.pending.set(ex.pendingKey, ex);
    if (ex.coalesceId === undefined) {
      this.transmit(ex);
    } else {
      // Latest wins, one on the wire per key: while a Set is unacknowledged, a newer one waits and
      // replaces any older waiting one, so a dragged slider sends one Set per round trip, never a backlog.
      let slot = this.coalescing.get(ex.coalesceId);
      if (!slot) {
        slot = { inFlight: undefined, held: undefined };
        this.coalescing.set(ex.coalesceId, slot);
      }
      if (slot.held) this.finish(slot.held, 'superseded');
      if (slot.inFlight) {
        slot.held = ex;
      } else {
        slot.inFlight = ex;
        this.transmit(ex);
      }
    }
    // Sent at once (the usual case): attempt() set the timer. Waiting (its pacing turn, or a Set held): the deadline runs.
    if (ex.dueIndex < 0 && !ex.settled) this.arm(ex);
  }

  /** (Re)sets the exchange's due time: its next retransmission or its deadline, whichever comes first. */
  private arm(ex: Exchange): void {
    this.due.set(ex, Math.min(ex.retryAtMs, ex.deadlineAtMs));
  }

  /**
   * The exchange's due time came (it has left the due queue, which hands it over only then): the deadline passed, or
   * else a retransmission is due.
   */
  private onTimer(ex: Exchange): void {
    if (ex.settled) return;
    if (this.now() >= ex.deadlineAtMs - DUE_EARLY_MS) {
      this.stats.timeouts++;
      this.finish(ex, new LightwireError('REQUEST_TIMED_OUT', { serial: ex.device.serial, message: ex.name, timeoutMs: ex.timeoutMs }));
      return;
    }
    // The retransmission waits for the light's pacing turn (attempt() re-arms), the deadline running.
    ex.retryAtMs = Infinity;
    this.transmit(ex);
    if (ex.dueIndex < 0 && !ex.settled) this.arm(ex);
  }

  private transmit(ex: Exchange): void {
    // The exchange is its own pacer job: it has run when a retransmission is due, so it can be queued again.
    this.pacer.schedule(ex.laneKey, ex);
  }

  /** One transmission, when the pacer allows it; then the retransmission timer. */
  private attempt(ex: Exchange): void {
    if (ex.settled) return;
    ex.attempts++;
    ex.sentAtMs = this.now();
    this.stats.sent++;
    if (ex.attempts > 1) this.stats.retransmits++;
    const datagram = ex.datagram ?? this.encodeRequest(ex.name, ex.request, ex.sequence, ex.device.serial, ex.wantAck, ex.wantReply);
    ex.datagram = undefined;
    // A failed send is a lost packet: the retry schedule covers it.
    if (this.endpoint.post) this.endpoint.post(datagram, ex.device.port, ex.device.address);
    else this.endpoint.send(datagram, ex.device.port, ex.device.address).catch(ignore);
    const schedule = this.options.retryScheduleMs;
    ex.retryAtMs = ex.once ? Infinity : ex.sentAtMs + schedule[Math.min(ex.attempts - 1, schedule.length - 1)]!;
    this.arm(ex);
  }

  /**
   * A request's datagram: when it starts (which validates the payload) and again for a retransmission, from what the
   * exchange kept (same sequence, same bytes).
   */
  private encodeRequest(name: MessageName, payload: Record<string, unknown>, sequence: number, target: string, ack: boolean, reply: boolean): Buffer {
    return encode({ name, header: { source: this.source, sequence, target, ackRequired: ack, resRequired: reply }, payload: payload as never });
  }

  private finish(ex: Exchange, outcome: 'done' | 'superseded' | Error): void {
    if (ex.settled) return;
    ex.settled = true;
    ex.cancelled = true;
    this.due.delete(ex);
    if (ex.gapTimer !== undefined) clearTimeout(ex.gapTimer);
    if (this.pending.get(ex.pendingKey) === ex) this.pending.delete(ex.pendingKey);
    this.release(ex);
    this.count(ex, outcome);
    if (ex.answer === Answer.Set) this.unacked(ex);
    if (ex.batch !== undefined) {
      // Batches are of single-reply Gets: 'done' means the reply came (maybeComplete).
      ex.batch.settle(ex.batchIndex, outcome instanceof Error ? outcome : ex.replies![0]!);
      return;
    }
    if (outcome instanceof Error) ex.reject!(outcome);
    else if (ex.answer === Answer.First) ex.resolve!(ex.replies?.[0]);
    else if (ex.answer === Answer.All) ex.resolve!(ex.replies ?? []);
    else {
      const superseded = outcome === 'superseded';
      const result: SetResult = {
        acked: !superseded,
        superseded,
        reply: ex.replies?.[0],
        attempts: ex.attempts,
        rttMs: Math.round(this.now() - (ex.deadlineAtMs - ex.timeoutMs)),
      };
      ex.resolve!(result);
    }
  }

  /** A Set settled: it no longer holds reads back. */
  private unacked(ex: Exchange): void {
    const sets = this.unackedSets.get(ex.device.serial);
    if (sets !== undefined && sets.delete(ex) && sets.size === 0) this.unackedSets.delete(ex.device.serial);
    const waiters = ex.settleWaiters;
    ex.settleWaiters = undefined;
    // After the Set's own caller (a promise reaction queued behind this one): as Promise.allSettled did.
    if (waiters !== undefined) queueMicrotask(() => waiters.forEach((w) => w()));
  }

  /** Adds an ended exchange to its light's figures (lightStats). */
  private count(ex: Exchange, outcome: 'done' | 'superseded' | Error): void {
    if (ex.device.serial === BROADCAST_TARGET || ex.attempts === 0 || outcome === 'superseded') return;
    const answered = outcome === 'done' || (outcome instanceof LightwireError && outcome.code === 'UNHANDLED_BY_DEVICE');
    const timedOut = outcome instanceof LightwireError && outcome.code === 'REQUEST_TIMED_OUT';
    if (!answered && !timedOut) return;
    let c = this.perLight.get(ex.device.serial);
    if (c === undefined) {
      c = { requests: 0, answered: 0, timeouts: 0, attempts: 0, lostAttempts: 0, retransmits: 0, rttSamples: 0, rttMs: [] };
      this.perLight.set(ex.device.serial, c);
    }
    c.requests++;
    c.attempts += ex.attempts;
    c.retransmits += ex.attempts - 1;
    if (timedOut) {
      c.timeouts++;
      c.lostAttempts += ex.attempts;
      return;
    }
    c.answered++;
    c.lostAttempts += ex.attempts - 1;
    if (ex.attempts === 1 && !ex.rule.gap) {
      c.rttMs[c.rttSamples % RTT_SAMPLES_KEPT] = this.now() - ex.sentAtMs;
      c.rttSamples++;
    }
  }

  /** A coalesced Set left the wire (acknowledged or settled): the newest waiting one goes out. */
  private release(ex: Exchange): void {
    if (ex.coalesceId === undefined) return;
    const slot = this.coalescing.get(ex.coalesceId);
    if (!slot) return;
    if (slot.held === ex) slot.held = undefined;
    if (slot.inFlight === ex) {
      slot.inFlight = slot.held;
      slot.held = undefined;
      if (slot.inFlight) this.transmit(slot.inFlight);
    }
    if (!slot.inFlight && !slot.held) this.coalescing.delete(ex.coalesceId);
  }

  private receive(datagram: Buffer, from: RemoteAddress): void {
    const result = decode(datagram);
    if (!result.ok) {
      this.stats.malformed++;
      return;
    }
    const { packet } = result;
    if (result.missingBytes > 0) this.stats.shortPayloads++;
    if (packet.header.source !== this.source) {
      this.stats.foreign++;
      return;
    }
    this.stats.received++;
    this.match(packet, from);
    // Listeners run after the reply was matched, so one that throws cannot cost a request its reply; the first
    // error is rethrown once every listener had its turn (the socket reports it, never the host process).
    let failure: unknown;
    for (const listener of this.listeners) {
      try {
        listener(packet, from);
      } catch (err) {
        failure ??= err;
      }
    }
    if (failure !== undefined) throw failure;
  }

  private match(packet: Packet, from: RemoteAddress): void {
    const { sequence, target } = packet.header;
    // Key = (source, sequence, target); tagged requests are keyed by the address they were sent to.
    if (packet.name !== null) {
      const targetLane = this.lanes.get(target);
      const byTarget = targetLane === undefined ? undefined : this.pending.get(pendingKey(targetLane, sequence));
      // Only from the address the request went to: our source goes out in every broadcast, so any host on the LAN
      // could otherwise answer for a light (a dead one included) with a state of its choosing.
      if (byTarget && byTarget.device.address === from.address && this.wants(byTarget, packet)) return this.accept(byTarget, packet);
      const addressLane = this.lanes.get(`${from.address}:${from.port}`);
      const byAddress = addressLane === undefined ? undefined : this.pending.get(pendingKey(addressLane, sequence));
      if (byAddress && this.wants(byAddress, packet)) return this.accept(byAddress, packet);
    }
    this.stats.unmatched++;
  }

  private wants(ex: Exchange, packet: KnownPacket): boolean {
    return packet.name === 'Acknowledgement' || packet.name === 'StateUnhandled' || ex.rule.names.includes(packet.name);
  }

  private accept(ex: Exchange, packet: KnownPacket): void {
    if (packet.name === 'Acknowledgement') {
      if (ex.acked) this.stats.duplicates++;
      ex.acked = true;
      this.release(ex);
      this.maybeComplete(ex);
      return;
    }
    if (packet.name === 'StateUnhandled' && packet.payload.unhandledType === (MESSAGES[ex.name] as MessageSpec).type) {
      this.finish(ex, new LightwireError('UNHANDLED_BY_DEVICE', { serial: ex.device.serial, message: ex.name }));
      return;
    }
    if (packet.name === 'StateUnhandled') return;
    if (this.isDuplicate(ex, packet)) {
      this.stats.duplicates++;
      return;
    }
    // Most requests get one reply: an array of exactly one, not an empty one grown on the first push.
    if (ex.replies === undefined) ex.replies = [packet];
    else ex.replies.push(packet);
    if (ex.rule.gap) {
      if (ex.gapTimer !== undefined) clearTimeout(ex.gapTimer);
      ex.gapTimer = setTimeout(() => {
        ex.gapTimer = undefined;
        if (!ex.wantAck || ex.acked) this.finish(ex, 'done');
      }, this.options.multiReplyGapMs);
    }
    this.maybeComplete(ex);
  }

  /** A reply seen before (retransmits, duplicated datagrams): by its identity, or any second one for single replies. */
  private isDuplicate(ex: Exchange, packet: KnownPacket): boolean {
    if (ex.rule.key === undefined) return ex.replies !== undefined;
    const key = ex.rule.key(packet);
    if (ex.replyKeys === undefined) ex.replyKeys = new Set();
    else if (ex.replyKeys.has(key)) return true;
    ex.replyKeys.add(key);
    return false;
  }

  private maybeComplete(ex: Exchange): void {
    if (ex.wantAck && !ex.acked) return;
    if (ex.wantReply) {
      if (ex.replies === undefined) return;
      const complete = ex.rule.complete ? ex.rule.complete(ex.request, ex.replies) : !ex.rule.gap;
      if (!complete) return;
    }
    this.finish(ex, 'done');
  }
}

export { type Packet };
