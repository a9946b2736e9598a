// The requester answers "did my light hear me": it sends requests and runs their exchanges (exchange.ts: source,
// sequence and reply matching, by the reply rules the message tables declare, reply-rules.ts), retries on an
// escalating schedule inside the caller's deadline, paces each light (pacer.ts), keeps confirmed Sets in order
// (set-order.ts), sends fast messages (fast-lane.ts), and keeps per-light figures (light-stats.ts) and discovery
// windows (discovery-windows.ts). LIFX LAN docs: https://lan.developer.lifx.com/docs/communicating-with-device.

import { randomNonZeroUint32 } from '../builtins.js';
import { LightwireError } from '../errors.js';
import { BROADCAST_TARGET, decode, encode, readdressed, type KnownPacket, type MessageName, type Packet, type Payload } from '../protocol/index.js';
import { BROADCAST_WINDOW, DiscoveryWindows } from './discovery-windows.js';
import { DUE_EARLY_MS, DueQueue } from './due-queue.js';
import { Batch, Exchange, ExchangeTable, planFor, type ExchangeHost, type ExchangeKind } from './exchange.js';
import { FastLane, type FastWire } from './fast-lane.js';
import { LightStatsBook, type LightTransportStats } from './light-stats.js';
import type { TransportOptions } from './options.js';
import { Pacer } from './pacer.js';
import type { DeviceAddress, EachResult, FastObserver, GetOptions, PacketListener, PostOptions, PostOutcome, ReplyOf, RequesterStats, RequestOptions, SetOptions, SetResult } from './request-types.js';
import { SetOrder, type SetOrderHost } from './set-order.js';
import type { DatagramEndpoint, RemoteAddress } from './udp.js';

export { DISCOVERY_REPLY_WINDOW_MS } from './discovery-windows.js';
export { RTT_SAMPLES_KEPT, type LightTransportStats } from './light-stats.js';
export type { DeviceAddress, EachResult, FastObserver, GetOptions, PacketListener, PacketOf, PostOptions, PostOutcome } from './request-types.js';
export type { ReplyOf, RequesterStats, RequestOptions, SetOptions, SetResult } from './request-types.js';

/** The payload of every request that has none: one frozen object, not one per request in flight. */
export const NO_PAYLOAD: Readonly<Record<string, never>> = Object.freeze({});

/** How many distinct messages a batch keeps the encoding of (a fleet-wide set: a colour and a power per product kind). */
const BATCH_TEMPLATES = 8;

/** A fast message a batch encoded: later ones with the same name and payload are copies of it, readdressed. */
interface Template {
  readonly name: MessageName;
  readonly payload: unknown;
  readonly datagram: Buffer;
}

const ignore = (): void => undefined;

export class Requester {
  /** Random, non-zero, once per client (with source 0 a device may broadcast its reply). */
  readonly source: number = randomNonZeroUint32();
  readonly stats: RequesterStats = { sent: 0, retransmits: 0, received: 0, malformed: 0, shortPayloads: 0, duplicates: 0, unmatched: 0, foreign: 0, timeouts: 0, invalid: 0 };

  private readonly exchanges = new ExchangeTable();
  private readonly lights = new LightStatsBook();
  private readonly discovery = new DiscoveryWindows();
  private readonly listeners = new Set<PacketListener>();
  private readonly pacer: Pacer;
  private readonly fast: FastLane;
  private readonly sets: SetOrder;
  private closed = false;
  /** Every exchange's next retransmission or deadline, on one timer. */
  private readonly due: DueQueue<Exchange>;
  // The requester's parts call back through these, made once: no closure per exchange.
  private readonly host: ExchangeHost = { attempt: (ex) => this.attempt(ex) };
  private readonly setHost: SetOrderHost = { transmit: (ex) => this.transmit(ex), supersede: (ex) => this.finish(ex, 'superseded') };
  /**
   * While a batch hands its messages to the socket: the messages it encoded. Only then, when no caller can change a
   * payload between two of its messages; outside a batch every message is encoded from its payload when it goes out.
   */
  private templating = false;
  /** The batch's templates (while templating), kept from batch to batch and emptied when one ends. */
  private readonly templates: Template[] = [];
  private readonly fastWire: FastWire = {
    datagram: (device, name, payload) => {
      const sequence = this.exchanges.nextSequence(this.exchanges.laneOf(device.serial));
      const templates = this.templates;
      if (this.templating) {
        for (let i = 0; i < templates.length; i++) {
          const t = templates[i]!;
          if (t.payload !== payload || t.name !== name) continue;
          const copy = readdressed(t.datagram, device.serial, sequence);
          if (copy !== undefined) return copy;
          break;
        }
      }
      const datagram = encode({ name, header: { source: this.source, sequence, target: device.serial }, payload: payload as never });
      if (this.templating && templates.length < BATCH_TEMPLATES) templates.push({ name, payload, datagram });
      return datagram;
    },
    post: (datagram, device) => this.toSocket(datagram, device),
  };

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
    this.fast = new FastLane(this.pacer, this.fastWire, this.stats);
    this.sets = new SetOrder(this.setHost, now);
    this.due = new DueQueue((ex) => this.onTimer(ex), now);
    endpoint.onDatagram((datagram, from) => this.receive(datagram, from));
  }

  /** Every packet carrying this client's source, matched or not (discovery listens for StateService here). */
  onPacket(listener: PacketListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A Get: resolves with its single State reply (the one its message table entry declares). */
  get<N extends MessageName>(device: DeviceAddress, name: N, payload: Payload<N>, options: GetOptions = {}): Promise<ReplyOf<N>> {
    return this.read(device, name, payload, options.timeoutMs, options.once === true ? 'getOnce' : 'get') as Promise<ReplyOf<N>>;
  }

  /**
   * Gets without a payload (GetVersion, GetLabel, ...) to one light at once, with one promise for them all: resolves,
   * once every one has ended, with each one's single State reply or the error it ended with (REQUEST_TIMED_OUT,
   * UNHANDLED_BY_DEVICE, CLIENT_STOPPED, ...), in the order asked. Never rejects. Like get(), they wait for the
   * light's unacknowledged Sets.
   */
  getEach<const Ns extends readonly MessageName[]>(device: DeviceAddress, names: Ns, options: RequestOptions = {}): Promise<EachResult<Ns>> {
    return new Promise<EachResult<Ns>>((resolve) => {
      if (names.length === 0) {
        resolve([] as unknown as EachResult<Ns>);
        return;
      }
      const batch = new Batch(names.length, resolve as (results: (KnownPacket | Error)[]) => void);
      this.sets.whenSettled(
        device.serial,
        options.timeoutMs ?? this.options.requestTimeoutMs,
        (timeoutMs) => {
          for (let i = 0; i < names.length; i++) this.begin(device, names[i]!, NO_PAYLOAD, 'get', timeoutMs, undefined, undefined, undefined, batch, i);
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
  getAll<N extends MessageName>(device: DeviceAddress, name: N, payload: Payload<N>, options: RequestOptions = {}): Promise<ReplyOf<N>[]> {
    return this.read(device, name, payload, options.timeoutMs, 'getAll') as Promise<ReplyOf<N>[]>;
  }

  /** A Set: resolves once the light acknowledged it (and sent its State, with `withReply`). */
  set<N extends MessageName>(device: DeviceAddress, name: N, payload: Payload<N>, options: SetOptions = {}): Promise<SetResult<ReplyOf<N>>> {
    const coalesceKey = options.coalesceKey === undefined ? name : options.coalesceKey;
    const kind = options.withReply === true ? 'setWithReply' : 'set';
    return this.exchange(device, name, payload, kind, options.timeoutMs, coalesceKey === false ? undefined : coalesceKey) as Promise<SetResult<ReplyOf<N>>>;
  }

  /**
   * Fast mode: no ack, no reply, nothing to wait for. The message is queued for the light's pacing and goes out at
   * once when the light is quiet; while it waits, a newer message to the same light with the same coalesce key
   * (default: the message name; `false`: never) replaces its payload, keeping its place (latest wins). Says what
   * happened (PostOutcome): `closed` when the requester is closed (nothing queued).
   */
  post<N extends MessageName>(device: DeviceAddress, name: N, payload: Payload<N>, options: PostOptions = {}): PostOutcome {
    return this.postWith(device, name, payload, options.coalesceKey, options.observer);
  }

  /** post() with its options as arguments: for a caller posting a fleet's messages, no options object for each. */
  postWith<N extends MessageName>(device: DeviceAddress, name: N, payload: Payload<N>, coalesceKey: string | false | undefined, observer: FastObserver | undefined): PostOutcome {
    if (this.closed) return 'closed';
    const job = this.fast.queue(device, name, payload, coalesceKey, observer);
    if (job.turnTaken) return 'sent';
    return job === this.fast.replaced ? 'replaced' : 'queued';
  }

  /** post(), resolving when the datagram is handed to the socket (a message replaced by a newer one: when that goes out). */
  fire<N extends MessageName>(device: DeviceAddress, name: N, payload: Payload<N>, options: { readonly coalesceKey?: string | false } = {}): Promise<void> {
    if (this.closed) return Promise.reject(new LightwireError('CLIENT_STOPPED', {}));
    return this.fast.whenSent(this.fast.queue(device, name, payload, options.coalesceKey, undefined));
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
      // The batch's messages to many lights with one payload are encoded once (fastWire). A batch begun while this
      // one's messages go out (a listener told of one) leaves the templates as they are.
      const outer = !this.templating;
      this.templating = true;
      try {
        this.pacer.uncork();
      } finally {
        if (outer) {
          this.templating = false;
          this.templates.length = 0;
        }
      }
    }
  }

  /** A tagged message to a broadcast address (discovery); replies reach onPacket listeners. */
  broadcast<N extends MessageName>(address: string, port: number, name: N, payload: Payload<N>): Promise<void> {
    if (this.closed) return Promise.reject(new LightwireError('CLIENT_STOPPED', {}));
    const sequence = this.exchanges.nextSequence(this.exchanges.laneOf(BROADCAST_TARGET));
    const datagram = encode({ name, header: { source: this.source, sequence, resRequired: true }, payload });
    if (name === 'GetService') this.discovery.note(BROADCAST_WINDOW, sequence);
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
  async probe(address: string, port: number, options: RequestOptions = {}): Promise<ReplyOf<'GetService'>[]> {
    const device = { serial: BROADCAST_TARGET, address, port };
    try {
      return (await this.exchange(device, 'GetService', {}, 'getAll', options.timeoutMs, undefined)) as ReplyOf<'GetService'>[];
    } catch (err) {
      if (err instanceof LightwireError && err.code === 'REQUEST_TIMED_OUT') return [];
      throw err;
    }
  }

  /** One light's exchange figures so far (a copy), or undefined when nothing was asked of it yet. */
  lightStats(serial: string): LightTransportStats | undefined {
    return this.lights.of(serial);
  }

  /** Confirmed Sets to one light not acknowledged yet (a read sent now would wait for them). */
  pendingSets(serial: string): number {
    return this.sets.pending(serial);
  }

  /**
   * Transmissions to one light that went unanswered so far (retransmitted or timed out), over the exchanges that
   * ended: a cheap loss signal (AdaptiveWindow) without the copy lightStats() makes.
   */
  lostAttempts(serial: string): number {
    return this.lights.lostAttempts(serial);
  }

  /**
   * How many of this light's requests have been answered so far (lightStats().answered, without the copy): a light
   * whose count has moved since a request was asked is answering, whatever became of that request.
   */
  answeredCount(serial: string): number {
    return this.lights.answered(serial);
  }

  /** Cancels every request, clears every timer. The endpoint is closed by its owner. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const ex of this.exchanges.all()) this.finish(ex, new LightwireError('REQUEST_CANCELLED', { serial: ex.device.serial, message: ex.name }));
    this.pacer.stop();
    this.due.clear();
    this.fast.close();
    this.listeners.clear();
    this.discovery.clear();
  }

  /**
   * Which GetService of ours a StateService answers: a probe sent to the address it comes from, or a broadcast (by
   * sequence, within DISCOVERY_REPLY_WINDOW_MS); undefined when none. Anything else is unsolicited (a spoofer's, or a
   * reply to another client with our source by chance) and must not add or move lights.
   */
  discoveryReplyTo(sequence: number, from: { readonly address: string; readonly port: number }, nowMs = Date.now()): 'probe' | 'broadcast' | undefined {
    return this.discovery.replyTo(sequence, from, nowMs);
  }

  // ---- internals ----

  /**
   * A read after a Set waits for the Set's ack (SetOrder.whenSettled). With no Set pending (the common case) the
   * exchange starts at once, without an extra promise per request.
   */
  private read(device: DeviceAddress, name: MessageName, payload: unknown, timeoutMs: number | undefined, kind: ExchangeKind): Promise<unknown> {
    if (this.sets.pending(device.serial) === 0) return this.exchange(device, name, payload, kind, timeoutMs, undefined);
    return new Promise<unknown>((resolve, reject) =>
      this.sets.whenSettled(
        device.serial,
        timeoutMs ?? this.options.requestTimeoutMs,
        (leftMs) => this.begin(device, name, payload, kind, leftMs, undefined, resolve, reject, undefined, 0),
        (err) => {
          this.stats.timeouts++;
          reject(err);
        },
        name,
      ),
    );
  }

  private exchange(device: DeviceAddress, name: MessageName, payload: unknown, kind: ExchangeKind, timeoutMs: number | undefined, coalesceKey: string | undefined): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      this.begin(device, name, payload, kind, timeoutMs, coalesceKey, resolve, reject, undefined, 0);
    });
  }

  /** Starts one exchange; its outcome goes to resolve/reject, or to its batch. */
  private begin(
    device: DeviceAddress,
    name: MessageName,
    payload: unknown,
    kind: ExchangeKind,
    timeoutMsIn: number | undefined,
    coalesceKey: string | undefined,
    resolve: ((value: unknown) => void) | undefined,
    reject: ((err: Error) => void) | undefined,
    batch: Batch | undefined,
    batchIndex: number,
  ): void {
    if (this.closed) {
      this.refuse(new LightwireError('CLIENT_STOPPED', {}), reject, batch, batchIndex);
      return;
    }
    const timeoutMs = timeoutMsIn ?? this.options.requestTimeoutMs;
    const plan = planFor(name, kind);
    const tagged = device.serial === BROADCAST_TARGET;
    const lane = this.exchanges.laneOf(tagged ? `${device.address}:${device.port}` : device.serial);
    const sequence = this.exchanges.nextSequence(lane);
    if (tagged && name === 'GetService') this.discovery.note(lane.key, sequence);
    const request = payload as Record<string, unknown>;
    // Encoding validates the payload; a bad value rejects here, before anything is sent.
    let datagram: Buffer;
    try {
      datagram = this.encodeRequest(name, request, sequence, device.serial, plan.wantAck, plan.wantReply);
    } catch (err) {
      this.refuse(err as Error, reject, batch, batchIndex);
      return;
    }
    const coalesceId = coalesceKey === undefined ? undefined : `${device.serial}/${coalesceKey}`;
    const ex = new Exchange(this.host, plan, device, request, lane, sequence, datagram, timeoutMs, this.now() + timeoutMs, coalesceId);
    if (batch === undefined) {
      ex.resolve = resolve;
      ex.reject = reject;
    } else {
      ex.batch = batch;
      ex.batchIndex = batchIndex;
    }
    if (plan.answer === 'set') this.sets.begun(ex);
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
    const stale = this.exchanges.add(ex);
    if (stale) this.finish(stale, new LightwireError('REQUEST_TIMED_OUT', { serial: ex.device.serial, message: stale.name, timeoutMs: stale.timeoutMs }));
    if (ex.coalesceId === undefined) this.transmit(ex);
    else this.sets.enter(ex, ex.coalesceId);
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
    this.pacer.schedule(ex.lane.key, ex);
  }

  /** One transmission, when the pacer allows it; then the retransmission timer. */
  private attempt(ex: Exchange): void {
    if (ex.settled) return;
    ex.attempts++;
    ex.sentAtMs = this.now();
    this.stats.sent++;
    if (ex.attempts > 1) this.stats.retransmits++;
    const plan = ex.plan;
    const datagram = ex.datagram ?? this.encodeRequest(plan.name, ex.request, ex.sequence, ex.device.serial, plan.wantAck, plan.wantReply);
    ex.datagram = undefined;
    this.toSocket(datagram, ex.device);
    const schedule = this.options.retryScheduleMs;
    ex.retryAtMs = plan.once ? Infinity : ex.sentAtMs + schedule[Math.min(ex.attempts - 1, schedule.length - 1)]!;
    this.arm(ex);
  }

  /** A failed send is a lost packet: the retry schedule covers it. */
  private toSocket(datagram: Buffer, device: DeviceAddress): void {
    if (this.endpoint.post) this.endpoint.post(datagram, device.port, device.address);
    else this.endpoint.send(datagram, device.port, device.address).catch(ignore);
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
    this.exchanges.remove(ex);
    this.sets.release(ex);
    // Figures of lights (not probes) that were asked: Karn's rule takes the round trip of an exchange answered at its
    // first transmission, not collected over a gap.
    if (ex.attempts > 0 && ex.device.serial !== BROADCAST_TARGET) {
      this.lights.ended(ex.device.serial, ex.attempts, outcome, ex.attempts === 1 && !ex.plan.rule.gap ? this.now() - ex.sentAtMs : undefined);
    }
    const answer = ex.plan.answer;
    if (answer === 'set') this.sets.settled(ex);
    if (ex.batch !== undefined) {
      // Batches are of single-reply Gets: 'done' means the reply came (maybeComplete).
      ex.batch.settle(ex.batchIndex, outcome instanceof Error ? outcome : ex.replies![0]!);
      return;
    }
    if (outcome instanceof Error) ex.reject!(outcome);
    else if (answer === 'first') ex.resolve!(ex.replies?.[0]);
    else if (answer === 'all') ex.resolve!(ex.replies ?? []);
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
    const ex = packet.name === null ? undefined : this.exchanges.match(packet, from);
    if (ex === undefined) this.stats.unmatched++;
    else this.accept(ex, packet as KnownPacket);
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

  private accept(ex: Exchange, packet: KnownPacket): void {
    if (packet.name === 'Acknowledgement') {
      if (ex.acked) this.stats.duplicates++;
      ex.acked = true;
      this.sets.release(ex);
      this.maybeComplete(ex);
      return;
    }
    const rule = ex.plan.rule;
    if (packet.name === 'StateUnhandled') {
      if (packet.payload.unhandledType === rule.type) this.finish(ex, new LightwireError('UNHANDLED_BY_DEVICE', { serial: ex.device.serial, message: ex.name }));
      return;
    }
    if (ex.isDuplicate(packet)) {
      this.stats.duplicates++;
      return;
    }
    // Most requests get one reply: an array of exactly one, not an empty one grown on the first push.
    if (ex.replies === undefined) ex.replies = [packet];
    else ex.replies.push(packet);
    if (rule.gap) {
      if (ex.gapTimer !== undefined) clearTimeout(ex.gapTimer);
      ex.gapTimer = setTimeout(() => {
        ex.gapTimer = undefined;
        if (!ex.plan.wantAck || ex.acked) this.finish(ex, 'done');
      }, this.options.multiReplyGapMs);
    }
    this.maybeComplete(ex);
  }

  private maybeComplete(ex: Exchange): void {
    if (ex.isComplete()) this.finish(ex, 'done');
  }
}

export { type Packet };
