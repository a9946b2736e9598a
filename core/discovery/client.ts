// LightClient: the one object that owns the socket, the requester, the registry, discovery and the
// background refresh. start() / stop(); a stopped client leaves no timer and no socket behind.

import { EventEmitter } from 'node:events';
import { MAX_TIMER_MS } from '../builtins.js';
import { LightwireError } from '../errors.js';
import { unknownOption } from '../text.js';
import { inTurn } from '../in-turn.js';
import { reportError, reportRejection, tellListeners } from '../listeners.js';
import {
  capabilitiesFromFeatures,
  ENUMS,
  fractionFromWire,
  hsbkFromWire,
  powerFromWire,
  PRODUCTS,
  signalQuality,
  signalToRssi,
  nsToSeconds,
  type FeatureSet,
  type FirmwareVersion,
  type KnownPacket,
  type MessageName,
  type Payload,
  type Product,
  type Hsbk,
  type KelvinRange,
  KELVIN_MIN,
  KELVIN_MAX,
  PORT_MAX,
  RELAYS_MAX,
} from '../protocol/index.js';
import { transportOptions, type TransportOptions } from '../transport/options.js';
import { NO_PAYLOAD, Requester, type DeviceAddress, type ReplyOf } from '../transport/requester.js';
import { AdaptiveWindow } from '../transport/window.js';
import { UdpEndpoint, type DatagramEndpoint, type RemoteAddress } from '../transport/udp.js';
import { discoveryOptions, interfaceBroadcastAddresses, subnetHosts, type DiscoveryOptions, type DiscoveryOptionsInput } from './options.js';
import { LightRegistry, type RelayFact, type FactValues, type LightRecord, type RegistryEvents } from './registry.js';
import { zonesFromReplies } from './zones.js';

export interface LightClientOptions {
  readonly transport?: Partial<TransportOptions>;
  readonly discovery?: DiscoveryOptionsInput;
}

/** Every option a client takes, checked by the compiler against LightClientOptions both ways. */
const CLIENT_OPTIONS: Readonly<Record<keyof LightClientOptions, true>> = { transport: true, discovery: true };

export interface ClientEvents extends RegistryEvents {
  /** Something went wrong in the background (a socket error); the client keeps running. */
  error: [Error];
  /**
   * A newly found light's first read is over (facts, state and, for multizone lights, zones), whether or not it
   * answered all of it: what the service reports of it from now on is what was read.
   */
  described: [LightRecord];
}

/** The all-zero target: every device (https://lan.developer.lifx.com/docs/packet-contents), never one light's serial. */
const NO_SERIAL = '000000000000';

/** What a light of an unknown product can show: the widest range any product has. */
const DEFAULT_KELVIN_RANGE: KelvinRange = Object.freeze({ minK: KELVIN_MIN, maxK: KELVIN_MAX });

/** A colour a light reported, with its kelvin inside what the product can show (a reply once said 58188). */
function withinKelvin(color: Hsbk, range: KelvinRange): Hsbk {
  if (color.kelvin >= range.minK && color.kelvin <= range.maxK) return color;
  return { ...color, kelvin: Math.min(range.maxK, Math.max(range.minK, color.kelvin)) };
}

/** How many sweep probes are in flight at once, so a /22 sweep does not burst 1022 packets. */
const SWEEP_CONCURRENCY = 32;
const SWEEP_PROBE_TIMEOUT_MS = 600;
/**
 * How many newly found lights have their first read in flight at once, at first and at least. One broadcast finds a
 * whole fleet within milliseconds; reading every light at once would ask ~3500 requests of 500 lights together. The
 * number follows the network instead (AdaptiveWindow, as TCP's congestion window): it starts here, doubles every
 * round trip while no read loses a packet and more in flight delivers more reads per second, holds when it does not,
 * and halves on loss, up to FIRST_READ_MAX. Each light's own requests are paced besides (pacer.ts). A first read is
 * eight requests at once, and every one in flight holds its memory until answered: on loopback, where our own event
 * loop is the bottleneck, the window holds at 8 to 16 lights (32 held about 4 MiB more, at the same speed).
 */
export const FIRST_READ_CONCURRENCY = 4;
/**
 * The most lights whose first read is in flight at once (about 500 requests). Everything a request in flight holds
 * outlives the garbage collections of its round trip, which makes V8 grow its young generation while a fleet is
 * described, to an RSS that Node does not give back. With 50 ms round trips and 500 lights (three pairs of runs against
 * 128): described in 1.0 s instead of 0.8 s, and 80 MiB RSS 31.5 s after start instead of 87. Lower ceilings (48, 32)
 * saved no more memory and took longer (1.15 s, 1.5 s).
 */
export const FIRST_READ_MAX = 64;
/**
 * How long a capability probe waits for its one transmission (GetOptions.once): a light answers what it supports
 * within a round trip and never answers the rest (only the Switch says StateUnhandled), so a probe's silence is the
 * answer, and it must not hold a light's first read for a whole read timeout.
 */
export const CAPABILITY_PROBE_TIMEOUT_MS = 1000;
/** Distinct (vendor, product, firmware) resolutions kept; a fleet has a handful, a bad device cannot grow it forever. */
const PRODUCT_CACHE_LIMIT = 256;
/** The background refresh timer never fires more often than this; lights due within it are read together. */
const REFRESH_TICK_MS = 50;

/** A first read's place in the window (pumpFirstReads): what the window learns when its state read ends. */
interface FirstReadSlot {
  readonly window: AdaptiveWindow;
  readonly ticket: ReturnType<AdaptiveWindow['ticket']>;
  /** performance.now() when its state read was asked. */
  readonly started: number;
  /** The light's lost transmissions before it (Requester.lostAttempts). */
  readonly lostBefore: number;
}

/** What a light's facts read asks, all at once (readInfo). */
const INFO_READS = ['GetVersion', 'GetHostFirmware', 'GetGroup', 'GetLocation', 'GetWifiInfo', 'GetInfo'] as const satisfies readonly MessageName[];

/** ±10 % around `ms` (refreshes with jitter, so a fleet does not answer in lockstep). */
function jitter(ms: number): number {
  return Math.round(ms * (0.9 + Math.random() * 0.2));
}

/** When a light's next background reads are due (client clock, ms); Infinity while one is running. */
interface RefreshDue {
  readonly serial: string;
  state: number;
  info: number;
}

type RefreshKind = 'state' | 'info';

export class LightClient extends EventEmitter<ClientEvents> {
  readonly transportOptions: TransportOptions;
  readonly discoveryOptions: DiscoveryOptions;
  readonly registry: LightRegistry;
  private endpoint: DatagramEndpoint | undefined;
  private requesterInstance: Requester | undefined;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private readonly infoInFlight = new Map<string, Promise<void>>();
  /**
   * Products the registry does not know, with what a device of each answered it can do (probe()), by vendor,
   * product and firmware: lights of one model are asked once, as the registry would know them once.
   */
  private readonly probed = new Map<string, Promise<Product | undefined>>();
  /** Devices that answered GetColor with StateUnhandled: read as devices even while their product is unknown. */
  private readonly notLights = new Set<string>();
  private readonly stateInFlight = new Map<string, Promise<void>>();
  /** Lights found but not read yet, oldest first; firstReadsActive of them are being read. */
  private firstReads: string[] = [];
  private firstReadsActive = 0;
  private describingCount = 0;
  /** Address moves waiting for their confirming probe, as `serial@address:port`. */
  private readonly moving = new Set<string>();
  /** REGISTRY_FULL is said once per client. */
  private fullSaid = false;
  /** NO_BROADCAST_ADDRESS was reported (discoverNow), until there is an address again. */
  private noNetworkSaid = false;
  /** Resolved products are immutable: lights of the same model and firmware share one. */
  private readonly products = new Map<string, Product>();
  /** Registry events re-emitted by the client. */
  private readonly forwarded = new Set<keyof RegistryEvents>();
  /**
   * Background refresh of every light on one timer (not two timers and closures per light): per light only its next
   * due times, which keeps what a large fleet holds in memory small.
   */
  private readonly refreshDue = new Map<string, RefreshDue>();
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private refreshTimerAt = Infinity;
  private running = false;

  constructor(options: LightClientOptions = {}) {
    // An async listener's rejection goes to [Symbol.for('nodejs.rejection')], never unhandled.
    super({ captureRejections: true });
    if (typeof options !== 'object' || options === null) throw new LightwireError('OPTIONS_INVALID', { option: 'options', reason: 'must be an object' });
    const unknown = unknownOption(options, Object.keys(CLIENT_OPTIONS), 'a client');
    if (unknown) throw new LightwireError('OPTIONS_INVALID', { option: unknown.key, reason: unknown.reason });
    this.transportOptions = transportOptions(options.transport);
    this.discoveryOptions = discoveryOptions(options.discovery);
    this.registry = new LightRegistry(this.discoveryOptions.offlineAfterMisses);
    for (const event of ['added', 'offline', 'online'] as const) this.forward(event);
    // 'changed' follows every background read; it is forwarded once someone listens, so that until then the registry
    // need not build a snapshot per read.
    (this as EventEmitter).on('newListener', (event: string | symbol) => {
      if (event === 'changed') this.forward('changed');
    });
    this.registry.on('added', (light) => this.onAdded(light));
  }

  private forward(event: keyof RegistryEvents): void {
    if (this.forwarded.has(event)) return;
    this.forwarded.add(event);
    this.registry.on(event, (...args: unknown[]) => this.announce(event, ...args));
  }

  /**
   * Tells the host's listeners. One that throws is reported as an error (LISTENER_FAILED) and costs nothing else:
   * not the read that noticed, not the write that caused it, not the host process.
   */
  private announce(event: string, ...args: unknown[]): void {
    tellListeners(this as EventEmitter, event, args, (err) => this.backgroundError(err));
  }

  /** Where Node sends a rejection of an async listener (captureRejections). */
  [Symbol.for('nodejs.rejection')](err: unknown, event: string | symbol): void {
    reportRejection(this as EventEmitter, err, event);
  }

  get started(): boolean {
    return this.running;
  }

  get requester(): Requester {
    if (!this.requesterInstance) throw new LightwireError('CLIENT_STOPPED', {});
    return this.requesterInstance;
  }

  /** start() and stop() in the order called: each runs once the one before has finished (or failed). */
  private readonly inTurn = inTurn();

  /**
   * Opens the socket and starts discovery. `endpoint` replaces the UDP socket (tests). Idempotent; calls made while
   * one runs wait for it (two start() calls open one socket, a stop() during start() stops what it started).
   */
  start(endpoint?: DatagramEndpoint): Promise<void> {
    return this.inTurn(() => this.open(endpoint));
  }

  private async open(endpoint?: DatagramEndpoint): Promise<void> {
    if (this.running) return;
    const o = this.transportOptions;
    this.endpoint =
      endpoint ??
      (await UdpEndpoint.open({
        bindAddress: o.bindAddress,
        bindPort: o.bindPort,
        receiveBufferBytes: o.receiveBufferBytes,
        // A socket error after bind must never throw into the host process (Node-RED, Homebridge).
        onError: (err) => this.backgroundError(err),
      }));
    this.requesterInstance = new Requester(this.endpoint, o);
    this.requesterInstance.onPacket((packet, from) => this.onPacket(packet as KnownPacket, from));
    this.running = true;
    const d = this.discoveryOptions;
    for (const offsetMs of d.burstScheduleMs) this.after(offsetMs, () => this.discoverNow());
    const lastBurstMs = d.burstScheduleMs.length > 0 ? Math.max(...d.burstScheduleMs) : 0;
    this.every(lastBurstMs + d.heartbeatMs, d.heartbeatMs, () => this.discoverNow());
    if (d.sweepSubnets.length > 0) {
      this.after(0, () => void this.sweep());
      this.every(d.sweepIntervalMs, d.sweepIntervalMs, () => void this.sweep());
    }
    // Lights known from before a stop() are refreshed again after a new start().
    for (const light of this.registry.all()) this.scheduleRefresh(light);
  }

  /** Stops discovery and every timer, closes the socket; a waitForLights() in progress resolves with what is known. */
  stop(): Promise<void> {
    return this.inTurn(() => this.close());
  }

  private async close(): Promise<void> {
    for (const settle of [...this.lightWaiters]) settle();
    if (!this.running) return;
    this.running = false;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.firstReads = [];
    if (this.refreshTimer !== undefined) clearTimeout(this.refreshTimer);
    this.refreshTimer = undefined;
    this.refreshTimerAt = Infinity;
    this.refreshDue.clear();
    this.requesterInstance?.close();
    await this.endpoint?.close();
    this.endpoint = undefined;
    this.requesterInstance = undefined;
  }

  /**
   * Broadcasts GetService to every configured address (without any, to each interface's as it is now) and probes
   * every static host, once.
   */
  discoverNow(): void {
    if (!this.running) return;
    const d = this.discoveryOptions;
    const addresses = d.followInterfaces ? interfaceBroadcastAddresses() : d.broadcastAddresses;
    // No network yet (a host that boots before DHCP): said once, and looked for again at every round.
    if (d.followInterfaces && addresses.length === 0) {
      if (!this.noNetworkSaid) this.backgroundError(new LightwireError('NO_BROADCAST_ADDRESS', {}));
      this.noNetworkSaid = true;
    } else this.noNetworkSaid = false;
    for (const address of addresses) {
      this.requester.broadcast(address, d.port, 'GetService', {}).catch((err: Error) => this.backgroundError(err));
    }
    for (const host of d.staticHosts) {
      this.requester.probe(host.address, host.port, { timeoutMs: d.readTimeoutMs }).catch((err: Error) => this.backgroundError(err));
    }
  }

  /** Probes every host of the configured subnets by unicast GetService (VLANs, routed networks). */
  async sweep(): Promise<number> {
    const hosts = this.discoveryOptions.sweepSubnets.flatMap(subnetHosts);
    let found = 0;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (this.running && next < hosts.length) {
        const address = hosts[next++]!;
        const replies = await this.requester
          .probe(address, this.discoveryOptions.port, { timeoutMs: SWEEP_PROBE_TIMEOUT_MS })
          .catch(() => []);
        if (replies.length > 0) found++;
      }
    };
    await Promise.all(Array.from({ length: Math.min(SWEEP_CONCURRENCY, hosts.length) }, worker));
    return found;
  }

  /** The lights known so far, in serial order. */
  lights(): LightRecord[] {
    return this.registry.all();
  }

  /** Where to send to a light, or undefined when it is unknown. */
  addressOf(serial: string): DeviceAddress | undefined {
    const r = this.registry.peek(serial);
    return r ? { serial: r.serial, address: r.address, port: r.port } : undefined;
  }

  /** Waits until `count` lights are known or the time is up; resolves with the lights known then. */
  waitForLights(count: number, timeoutMs: number): Promise<LightRecord[]> {
    return new Promise((resolve) => {
      if (this.registry.size >= count) return resolve(this.lights());
      const done = (): void => {
        clearTimeout(timer);
        this.lightWaiters.delete(done);
        this.registry.off('added', check);
        resolve(this.lights());
      };
      const check = (): void => {
        if (this.registry.size >= count) done();
      };
      const timer = setTimeout(done, Math.min(MAX_TIMER_MS, Math.max(0, timeoutMs)));
      this.lightWaiters.add(done);
      this.registry.on('added', check);
    });
  }

  /** The waitForLights() calls in progress: stop() ends them with the lights known then. */
  private readonly lightWaiters = new Set<() => void>();

  /**
   * Reads colour, power and label (power and label with device messages for non-lights). A failure counts as a miss. Concurrent calls for
   * one light share one read, so a caller never races the background refresh into two reads (and retries).
   * A stopped client reads nothing: CLIENT_STOPPED, not the cache passed off as a fresh read.
   */
  refreshState(serial: string, timeoutMs = this.discoveryOptions.readTimeoutMs): Promise<LightRecord | undefined> {
    if (!this.running) return Promise.reject(new LightwireError('CLIENT_STOPPED', {}));
    return this.sharedStateRead(serial, timeoutMs).then(() => this.registry.get(serial));
  }

  /** refreshState without the copy of the record at the end (the background reads and first reads need none). */
  private sharedStateRead(serial: string, timeoutMs = this.discoveryOptions.readTimeoutMs): Promise<void> {
    const running = this.stateInFlight.get(serial);
    if (running) return running;
    const promise = this.readState(serial, timeoutMs).finally(() => this.stateInFlight.delete(serial));
    this.stateInFlight.set(serial, promise);
    return promise;
  }

  /** The state read, counted like countedRead (written out here: it runs for every light, first read and refresh). */
  private async readState(serial: string, timeoutMs: number): Promise<void> {
    if (!this.addressOf(serial) || !this.running) return;
    const asked = this.answeredMark(serial);
    try {
      await this.readLightState(serial, { zones: true, remainingMs: () => timeoutMs });
      this.registry.answered(serial);
    } catch (err) {
      this.readFailed(serial, err, asked);
    }
  }

  /**
   * A background read of a light, counted: an answer brings it online, a failure counts (readFailed). Never rejects.
   */
  private async countedRead(serial: string, read: () => Promise<unknown>): Promise<void> {
    const asked = this.answeredMark(serial);
    try {
      await read();
      this.registry.answered(serial);
    } catch (err) {
      this.readFailed(serial, err, asked);
    }
  }

  /**
   * A background read failed: a timeout is a miss (missedSince), and a light never read that keeps missing is
   * forgotten; anything but a coded error is reported.
   */
  private readFailed(serial: string, err: unknown, asked: number): void {
    if (err instanceof LightwireError && err.code === 'REQUEST_TIMED_OUT') {
      this.missedSince(serial, asked);
      this.forgetIfNeverRead(serial);
    } else if (!(err instanceof LightwireError)) this.backgroundError(err as Error);
  }

  /** Taken when a read or write of a light is asked, for missedSince: how many of its requests had been answered. */
  answeredMark(serial: string): number {
    return this.requester.answeredCount(serial);
  }

  /**
   * A read or write asked at `asked` (answeredMark) timed out: a miss (LightRegistry.missed), unless the light has
   * answered another of our requests since. Then it is answering, and what timed out was held back in our own queue
   * (a flood of writes to it) or lost one packet too many: congestion on our side does not take the light offline for
   * every other caller. Replies to discovery are no answer here: a light that answers GetService but no read is still
   * offline.
   */
  missedSince(serial: string, asked: number): void {
    if (this.requester.answeredCount(serial) === asked) this.registry.missed(serial);
  }

  /**
   * The one state read (background refresh, first read, and the executor's read before it plans): colour, power
   * and label of a light (power and label of a device that is no light), and with `zones` the zones of a
   * multizone light, into the registry. Values are checked where replies become facts: a kelvin outside what
   * the product can show is clamped into its range. Rejects as the requester does (REQUEST_TIMED_OUT, ...);
   * `remainingMs` is asked before each request, so a caller's deadline covers them all.
   */
  async readLightState(serial: string, options: { readonly zones: boolean; readonly remainingMs: () => number }): Promise<void> {
    const device = this.addressOf(serial);
    if (!device) throw new LightwireError('LIGHTS_NOT_FOUND', { selector: `id:${serial}` });
    const product = this.registry.peek(serial)?.facts.product?.value;
    const range = product?.capabilities.kelvinRange ?? DEFAULT_KELVIN_RANGE;
    // What our own writes set is not replaced by a reply to a read sent before them (registry.mark()).
    const mark = this.registry.mark();
    if (product ? !product.capabilities.isLight : this.notLights.has(serial)) {
      await this.readDeviceState(serial, device, product, mark, options.remainingMs);
    } else {
      let reply: ReplyOf<'GetColor'> | undefined;
      try {
        reply = await this.requester.get(device, 'GetColor', NO_PAYLOAD, { timeoutMs: options.remainingMs() });
      } catch (err) {
        // The first read runs before the product is known: a device that is no light says so (StateUnhandled).
        if (!(err instanceof LightwireError && err.code === 'UNHANDLED_BY_DEVICE')) throw err;
        this.notLights.add(serial);
      }
      if (reply === undefined) await this.readDeviceState(serial, device, product, mark, options.remainingMs);
      else {
        this.registry.update(
          serial,
          { color: withinKelvin(hsbkFromWire(reply.payload.color), range), power: powerFromWire(reply.payload.power), label: reply.payload.label },
          mark,
        );
      }
      if (options.zones && reply !== undefined && product?.capabilities.multizone) {
        await this.readZonesOf(serial, device, product, mark, options.remainingMs());
      }
    }
  }

  /** readLightState of a device that is no light (the LIFX Switch): power and label with the device messages (GetPower, GetLabel), and its relays. */
  private async readDeviceState(serial: string, device: DeviceAddress, product: Product | undefined, mark: number, remainingMs: () => number): Promise<void> {
    const timeoutMs = remainingMs();
    const [power, label] = await Promise.all([
      this.requester.get(device, 'GetPower', NO_PAYLOAD, { timeoutMs }),
      this.requester.get(device, 'GetLabel', NO_PAYLOAD, { timeoutMs }),
    ]);
    this.registry.update(
      serial,
      { power: powerFromWire(power.payload.level), label: label.payload.label },
      mark,
    );
    if (product?.capabilities.relays) await this.readRelays(serial, remainingMs());
  }

  /** The zones of a multizone light (extended messages where its firmware has them) into the registry. */
  private async readZonesOf(serial: string, device: DeviceAddress, product: Product, mark: number, timeoutMs: number): Promise<void> {
    const replies = product.capabilities.extendedMultizone
      ? await this.requester.getAll(device, 'GetExtendedColorZones', NO_PAYLOAD, { timeoutMs })
      : await this.requester.getAll(device, 'GetColorZones', { startIndex: 0, endIndex: 255 }, { timeoutMs });
    const zones = zonesFromReplies(replies);
    const range = product.capabilities.kelvinRange ?? DEFAULT_KELVIN_RANGE;
    if (zones === undefined) return;
    // Zones that share one colour object (zonesFromReplies) still share it once clamped.
    let lastIn: Hsbk | undefined;
    let lastOut: Hsbk | undefined;
    const clamped = zones.map((z) => (z === lastIn ? lastOut! : (lastOut = withinKelvin((lastIn = z), range))));
    this.registry.update(serial, { zones: clamped }, mark);
  }

  /**
   * What a first read still lacks once the product is known (the state read ran before it was): the zones of a
   * multizone light, the relays of a Switch. Only those are asked, not the state again, so a new light's whole first
   * read fits its quiet burst (pacingQuietBurst) and is not held back by pacing. Counted like a state read.
   */
  private async readMissingParts(serial: string): Promise<void> {
    const device = this.addressOf(serial);
    const record = this.registry.peek(serial);
    const product = record?.facts.product?.value;
    if (device === undefined || record === undefined || product === undefined) return;
    const timeoutMs = this.discoveryOptions.readTimeoutMs;
    await this.countedRead(serial, async () => {
      if (product.capabilities.multizone && record.facts.zones === undefined) {
        await this.readZonesOf(serial, device, product, this.registry.mark(), timeoutMs);
      }
      if (product.capabilities.relays && record.facts.relays === undefined) await this.readRelays(serial, timeoutMs);
    });
  }

  /**
   * Reads the relays of a LIFX Switch (GetRPower for relays 0 to RELAYS_MAX - 1 at once) into the registry: the
   * relays that answered, by index. Rejects (REQUEST_TIMED_OUT) when none did.
   */
  async readRelays(serial: string, timeoutMs: number): Promise<readonly RelayFact[]> {
    const device = this.addressOf(serial);
    if (device === undefined) throw new LightwireError('LIGHTS_NOT_FOUND', { selector: `id:${serial}` });
    const replies = await Promise.allSettled(
      Array.from({ length: RELAYS_MAX }, (_, relayIndex) => this.requester.get(device, 'GetRPower', { relayIndex }, { timeoutMs })),
    );
    const relays: RelayFact[] = [];
    for (const r of replies) {
      if (r.status === 'fulfilled') relays.push({ index: r.value.payload.relayIndex, on: r.value.payload.level !== 0 });
    }
    if (relays.length === 0) {
      const failure = replies.find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason as unknown;
      throw failure instanceof Error ? failure : new LightwireError('REQUEST_TIMED_OUT', { serial, message: 'GetRPower', timeoutMs });
    }
    relays.sort((a, b) => a.index - b.index);
    this.registry.update(serial, { relays });
    return relays;
  }

  /** Reads product, firmware, label, group, location, wifi and uptime. Concurrent calls share one read. */
  refreshInfo(serial: string, timeoutMs = this.discoveryOptions.readTimeoutMs): Promise<void> {
    const running = this.infoInFlight.get(serial);
    if (running) return running;
    const promise = this.readInfo(serial, timeoutMs).finally(() => this.infoInFlight.delete(serial));
    this.infoInFlight.set(serial, promise);
    return promise;
  }

  private async readInfo(serial: string, timeoutMs: number): Promise<void> {
    const device = this.addressOf(serial);
    if (!device || !this.running) return;
    const r = this.requester;
    const read = <N extends Parameters<Requester['get']>[1]>(name: N): Promise<ReplyOf<N> | undefined> =>
      r.get(device, name, NO_PAYLOAD as never, { timeoutMs }).catch((err: unknown) => {
        if (!(err instanceof LightwireError)) this.backgroundError(err as Error);
        return undefined;
      });
    // The six facts with one promise (getEach), not one per request: less held while they are in flight.
    const replies = await r.getEach(device, INFO_READS, { timeoutMs });
    const version = this.replyOrNone(replies[0]!);
    const firmware = this.replyOrNone(replies[1]!);
    const group = this.replyOrNone(replies[2]!);
    const location = this.replyOrNone(replies[3]!);
    const wifi = this.replyOrNone(replies[4]!);
    const info = this.replyOrNone(replies[5]!);
    const facts: FactValues = {};
    let product: Product | undefined;
    const fw = firmware?.payload;
    if (fw) facts.firmware = { major: fw.versionMajor, minor: fw.versionMinor, buildNs: fw.buildNs };
    if (version !== undefined) {
      product = this.productOf(version.payload.vendor, version.payload.product, fw ? { major: fw.versionMajor, minor: fw.versionMinor } : null);
      facts.product = product;
    }
    if (group !== undefined) {
      facts.group = { id: group.payload.group, label: group.payload.label, updatedAtNs: group.payload.updatedAtNs };
    }
    if (location !== undefined) {
      facts.location = { id: location.payload.location, label: location.payload.label, updatedAtNs: location.payload.updatedAtNs };
    }
    if (wifi !== undefined) {
      // A float32 on the wire: a device may send NaN or infinity, which is no signal.
      const signal = Number.isFinite(wifi.payload.signal) ? wifi.payload.signal : 0;
      facts.wifi = { signal, rssi: signal > 0 ? signalToRssi(signal) : 0, quality: signalQuality(signal) };
    }
    if (info !== undefined) facts.uptimeS = nsToSeconds(info.payload.uptimeNs);
    // Saved as they arrived; a product the registry does not know (the vendor adds some every few months) is then
    // asked what it can do, and saved again with it.
    this.registry.update(serial, facts);
    if (product !== undefined && !product.known) {
      const probed = await this.probe(serial, device, product, timeoutMs);
      if (probed !== product) this.registry.update(serial, { product: (product = probed) });
    }
    const caps = product?.capabilities;
    // Infrared and the effect are what our writes set too: a reply to a read sent before a write does not undo it.
    const mark = this.registry.mark();
    if (caps?.infrared) {
      const ir = await read('GetInfrared');
      if (ir !== undefined) this.registry.update(serial, { infrared: fractionFromWire(ir.payload.brightness) }, mark);
    }
    // The firmware effect running, for List Lights' `effect`.
    if (caps?.multizone) {
      const fx = await read('GetMultiZoneEffect');
      if (fx !== undefined) this.registry.update(serial, { effect: ENUMS.MultiZoneEffectType[fx.payload.settings.type as 0] ?? 'OFF' }, mark);
    } else if (caps?.matrix) {
      const fx = await read('GetTileEffect');
      if (fx !== undefined) this.registry.update(serial, { effect: ENUMS.TileEffectType[fx.payload.settings.type as 0] ?? 'OFF' }, mark);
    }
  }

  /** A background read's reply, or undefined when it failed (a failure that is not a coded error is reported). */
  private replyOrNone<R extends KnownPacket>(reply: R | Error): R | undefined {
    if (!(reply instanceof Error)) return reply;
    if (!(reply instanceof LightwireError)) this.backgroundError(reply);
    return undefined;
  }

  /**
   * What a product the registry does not know can do, asked of a device (once per vendor, product and firmware,
   * like the registry's own entries): GetColor tells a light (LightState) from a device that is none (StateUnhandled, the Switch); then
   * lights are asked GetExtendedColorZones (extended multizone), GetColorZones (legacy zones), GetDeviceChain
   * (matrix; a chain when it reports more than one tile), GetHevCycle and GetInfrared, and other devices GetRPower
   * and GetButton. An answer means supported; StateUnhandled or silence to one transmission within
   * CAPABILITY_PROBE_TIMEOUT_MS means not (lights stay silent on what they do not support; the Switch answers
   * StateUnhandled). Colour and kelvin range cannot be asked: a light keeps the plain colour light's (1500-9000 K).
   * No answer to GetColor at all: the registry's default, asked again at the next read of the light's facts.
   */
  private async probe(serial: string, device: DeviceAddress, product: Product, timeoutMs: number): Promise<Product> {
    const fw = product.firmware;
    const key = `${product.vendorId}:${product.productId}@${fw ? `${fw.major}.${fw.minor}` : '-'}`;
    let asked = this.probed.get(key);
    if (asked === undefined) {
      asked = this.askCapabilities(device, product, timeoutMs);
      if (this.probed.size < PRODUCT_CACHE_LIMIT) {
        this.probed.set(key, asked);
        // A device that did not answer at all tells nothing: the next read of facts asks again.
        void asked.then((p) => p === undefined && this.probed.delete(key));
      }
    }
    const probed = await asked;
    if (probed === undefined) return product;
    if (!probed.capabilities.isLight) this.notLights.add(serial);
    return probed;
  }

  private async askCapabilities(device: DeviceAddress, product: Product, timeoutMs: number): Promise<Product | undefined> {
    let silent = false;
    // GetColor is asked as any read (does the device answer at all); the rest once, briefly.
    const probeOptions = { timeoutMs: Math.min(timeoutMs, CAPABILITY_PROBE_TIMEOUT_MS), once: true };
    const ask = <N extends Parameters<Requester['get']>[1]>(name: N, payload: Payload<N>): Promise<ReplyOf<N> | undefined> =>
      this.requester.get(device, name, payload, name === 'GetColor' ? { timeoutMs } : probeOptions).catch((err: unknown) => {
        if (err instanceof LightwireError && err.code === 'REQUEST_TIMED_OUT' && name === 'GetColor') silent = true;
        else if (!(err instanceof LightwireError)) this.backgroundError(err as Error);
        return undefined;
      });
    const color = await ask('GetColor', {});
    if (silent) return undefined;
    let features: FeatureSet;
    if (color !== undefined) {
      const [extended, zones, chain, hev, infrared] = await Promise.all([
        ask('GetExtendedColorZones', {}),
        ask('GetColorZones', { startIndex: 0, endIndex: 0 }),
        ask('GetDeviceChain', {}),
        ask('GetHevCycle', {}),
        ask('GetInfrared', {}),
      ]);
      const tiles = chain?.payload.tileDevicesCount ?? 0;
      features = {
        extended_multizone: extended !== undefined,
        multizone: extended !== undefined || zones !== undefined,
        matrix: tiles > 0,
        chain: tiles > 1,
        hev: hev !== undefined,
        infrared: infrared !== undefined,
      };
    } else {
      const [relay, buttons] = await Promise.all([ask('GetRPower', { relayIndex: 0 }), ask('GetButton', {})]);
      features = { color: false, temperature_range: null, relays: relay !== undefined, buttons: buttons !== undefined };
    }
    return Object.freeze({ ...product, capabilities: capabilitiesFromFeatures(features) });
  }

  private productOf(vendor: number, productId: number, firmware: FirmwareVersion | null): Product {
    const key = firmware === null ? `${vendor}:${productId}` : `${vendor}:${productId}@${firmware.major}.${firmware.minor}`;
    let product = this.products.get(key);
    if (product === undefined) {
      product = PRODUCTS.get(vendor, productId, firmware === null ? null : Object.freeze(firmware));
      if (this.products.size < PRODUCT_CACHE_LIMIT) this.products.set(key, product);
    }
    return product;
  }

  private onPacket(packet: KnownPacket, from: RemoteAddress): void {
    if (packet.name !== 'StateService') {
      // Seen, but not an answer: a read or write counts that itself, when its reply is the one it asked for. Only from
      // the light's own address: our source goes out in every broadcast, so any host could otherwise keep a dead light
      // looking alive.
      if (packet.header.target !== NO_SERIAL) this.registry.heard(packet.header.target, from.address);
      return;
    }
    // Only service 1 (UDP) counts; port 0 means the service is unavailable, and the field (a u32) may
    // carry a number no UDP port has.
    const port = packet.payload.port;
    if (packet.payload.service !== 1 || port < 1 || port > PORT_MAX) return;
    const serial = packet.header.target;
    // The all-zero target addresses every device; no light has it as its serial.
    if (serial === NO_SERIAL) return;
    // Only answers to our own GetService (broadcast, or a probe of that address) find or move lights.
    const answers = this.requester.discoveryReplyTo(packet.header.sequence, from);
    if (answers === undefined) return;
    const known = this.registry.peek(serial);
    // A known light moves only on an answer to a unicast probe of its new address (see confirmMove).
    if (known !== undefined && (known.address !== from.address || known.port !== packet.payload.port) && answers !== 'probe') {
      this.confirmMove(serial, from.address, packet.payload.port);
      return;
    }
    if (known === undefined && this.registry.size >= this.discoveryOptions.maxLights) {
      if (!this.fullSaid) this.backgroundError(new LightwireError('REGISTRY_FULL', { maxLights: this.discoveryOptions.maxLights }));
      this.fullSaid = true;
      return;
    }
    this.registry.seen(serial, from.address, packet.payload.port);
    // An offline light answering discovery may be back: a read says whether it is (it stays offline otherwise).
    const record = this.registry.peek(serial);
    if (record !== undefined && !record.online && this.running) void this.sharedStateRead(serial);
  }

  /**
   * A known light answered from another address: it moves there only once a unicast probe of that address is
   * answered with its serial (a DHCP renewal passes; one spoofed StateService does not re-point it). The move is a
   * `changed` event naming `address`.
   */
  private confirmMove(serial: string, address: string, port: number): void {
    const key = `${serial}@${address}:${port}`;
    if (this.moving.has(key) || !this.running) return;
    this.moving.add(key);
    // Its answer comes back through onPacket as a reply to this probe, and moves the light there.
    this.requester
      .probe(address, port, { timeoutMs: this.discoveryOptions.readTimeoutMs })
      .catch((err: unknown) => {
        if (!(err instanceof LightwireError)) this.backgroundError(err as Error);
      })
      .finally(() => this.moving.delete(key));
  }

  /**
   * A light that answered discovery but none of offlineAfterMisses reads is forgotten: it was never listed, a
   * flood of invented serials does not stay, and a real light is found again by the next discovery round.
   */
  private forgetIfNeverRead(serial: string): void {
    const record = this.registry.peek(serial);
    if (record === undefined || record.facts.power !== undefined || record.facts.color !== undefined) return;
    if (record.misses < this.discoveryOptions.offlineAfterMisses) return;
    this.registry.remove(serial);
    this.refreshDue.delete(serial);
    this.notLights.delete(serial);
  }

  private onAdded(light: LightRecord): void {
    if (!this.running) return;
    // Read each new light once through a short queue (FIRST_READ_CONCURRENCY), then refresh with jitter.
    this.firstReads.push(light.serial);
    this.pumpFirstReads();
    this.scheduleRefresh(light);
  }

  /** Background refresh: the state first between one and two intervals from now, so a fleet found at once is spread. */
  private scheduleRefresh(light: LightRecord): void {
    const d = this.discoveryOptions;
    if (d.refreshIntervalMs > 0) {
      const now = Date.now();
      const due: RefreshDue = { serial: light.serial, state: now + Math.round(Math.random() * d.refreshIntervalMs) + d.refreshIntervalMs, info: now + jitter(d.infoRefreshIntervalMs) };
      this.refreshDue.set(light.serial, due);
      this.armRefresh(Math.min(due.state, due.info));
    }
  }

  /** How many first reads may be in flight: follows round trips and loss (created with the first light). */
  private firstReadWindow: AdaptiveWindow | undefined;

  private pumpFirstReads(): void {
    const window = (this.firstReadWindow ??= new AdaptiveWindow({ initial: FIRST_READ_CONCURRENCY, min: FIRST_READ_CONCURRENCY, max: FIRST_READ_MAX }));
    while (this.running && this.firstReadsActive < window.size && this.firstReads.length > 0) {
      const serial = this.firstReads.shift()!;
      this.firstReadsActive++;
      const started = performance.now();
      const ticket = window.ticket();
      const lostBefore = this.requester.lostAttempts(serial);
      // A slot is held until the light's state and facts are read, so the window bounds every request of a first read
      // in flight (and the memory they hold), not just the state reads. The state read is asked first, so its request
      // leads the light's pacing lane: its round trip (and whether it lost a packet) is the window's measure of the
      // network. A light slow to give its facts holds one slot until its reads time out, not the lights behind it.
      const state = this.sharedStateRead(serial);
      const info = this.refreshInfo(serial);
      void this.describe(serial, state, info, { window, ticket, started, lostBefore });
    }
    // Slots left over and nobody waiting: this round of the window says nothing of what the network could carry.
    if (this.firstReadsActive < window.size) window.appLimited();
  }

  /** How many found lights have not finished their first read yet (being read, or waiting their turn). */
  get describing(): number {
    return this.describingCount + this.firstReads.length;
  }

  /**
   * A light's first read, once its two reads are asked: the window learns the state read's round trip when it ends,
   * the slot is freed (and the next light's read begins) when both have, and then the read is completed. The state
   * read ran before the product was known, so a multizone light's zones are read once its info is in (otherwise they
   * would be missing until the next background refresh). Everything on one async function: no promise combinators
   * per light, which a fleet's first reads hold for a round trip each.
   */
  private async describe(serial: string, state: Promise<void>, info: Promise<void>, slot: FirstReadSlot): Promise<void> {
    this.describingCount++;
    try {
      // Both reads count failures themselves and never reject; were one to, its slot is still freed, and the error
      // is reported rather than left unhandled in the host process.
      let failure: unknown;
      try {
        await state;
      } catch (err) {
        failure = err;
      } finally {
        const lost = this.requesterInstance !== undefined && this.requesterInstance.lostAttempts(serial) > slot.lostBefore;
        slot.window.completed(performance.now() - slot.started, lost, slot.ticket);
      }
      try {
        await info;
      } catch (err) {
        failure ??= err;
      } finally {
        this.firstReadsActive--;
        this.pumpFirstReads();
      }
      if (failure !== undefined) {
        this.backgroundError(failure instanceof Error ? failure : new Error(String(failure)));
        return;
      }
      // A light that answered for its facts but whose state read went unanswered (a loss, a busy light) is asked
      // again, up to offlineAfterMisses reads in all, before its first read is over: it is listed only once read.
      for (let reads = 1; reads < this.discoveryOptions.offlineAfterMisses; reads++) {
        const r = this.registry.peek(serial);
        if (!this.running || r === undefined || r.facts.power !== undefined || Object.keys(r.facts).length === 0) break;
        await this.sharedStateRead(serial);
      }
      const record = this.registry.peek(serial);
      // Zones of a multizone light and relays of a Switch need the product: they are read once it is known.
      const caps = record?.facts.product?.value.capabilities;
      const partsMissing = (caps?.multizone === true && record?.facts.zones === undefined) || (caps?.relays === true && record?.facts.relays === undefined);
      if (this.running && record && partsMissing) {
        await this.readMissingParts(serial);
      }
    } finally {
      this.describingCount--;
    }
    const record = this.registry.get(serial);
    if (record && this.running) this.announce('described', record);
  }

  /** Makes the refresh timer fire by `at` (client clock). */
  private armRefresh(at: number): void {
    if (!this.running || at >= this.refreshTimerAt) return;
    if (this.refreshTimer !== undefined) clearTimeout(this.refreshTimer);
    this.refreshTimerAt = at;
    this.refreshTimer = setTimeout(() => this.runRefreshes(), Math.max(REFRESH_TICK_MS, at - Date.now()));
  }

  /** Starts every background read that is due and sets the timer for the next one. */
  private runRefreshes(): void {
    this.refreshTimer = undefined;
    this.refreshTimerAt = Infinity;
    if (!this.running) return;
    const now = Date.now();
    let next = Infinity;
    // This runs up to every REFRESH_TICK_MS over every light, so the loop allocates nothing per light: over the
    // values (for-of over the entries builds an array per light), and no variable of it is captured by a closure
    // (that makes a context object per iteration, read due or not). Measured with 500 lights, the two made 1 MB/s
    // of garbage, most of what a client at rest allocated.
    for (const due of this.refreshDue.values()) {
      if (!this.registry.has(due.serial)) {
        this.refreshDue.delete(due.serial);
        continue;
      }
      if (due.state <= now) this.startRefresh(due, 'state');
      if (due.info <= now) this.startRefresh(due, 'info');
      if (due.state < next) next = due.state;
      if (due.info < next) next = due.info;
    }
    if (next < Infinity) this.armRefresh(next);
  }

  private startRefresh(due: RefreshDue, kind: RefreshKind): void {
    const serial = due.serial;
    due[kind] = Infinity;
    const read = kind === 'state' ? this.sharedStateRead(serial) : this.refreshInfo(serial);
    void read.finally(() => this.refreshed(serial, kind));
  }

  /**
   * A background read finished: the next one of its kind is due an interval (with jitter) from now. After a missed
   * state read of a light still online the next one is due at once, so the misses that make a light offline
   * (offlineAfterMisses x readTimeoutMs) add up within one refresh interval rather than several.
   */
  private refreshed(serial: string, kind: RefreshKind): void {
    const due = this.refreshDue.get(serial);
    if (due === undefined || !this.running) return;
    const d = this.discoveryOptions;
    const record = this.registry.peek(serial);
    const retry = kind === 'state' && record !== undefined && record.online && record.misses > 0;
    due[kind] = Date.now() + (retry ? 0 : jitter(kind === 'state' ? d.refreshIntervalMs : d.infoRefreshIntervalMs));
    this.armRefresh(due[kind]);
  }

  private after(delayMs: number, fn: () => void): void {
    if (!this.running) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (this.running) fn();
    }, delayMs);
    this.timers.add(t);
  }

  private every(firstMs: number, intervalMs: number, fn: () => void): void {
    this.after(firstMs, () => {
      fn();
      this.every(intervalMs, intervalMs, fn);
    });
  }

  private backgroundError(err: Error): void {
    if (err instanceof LightwireError && (err.code === 'CLIENT_STOPPED' || err.code === 'REQUEST_CANCELLED')) return;
    reportError(this as EventEmitter, err);
  }
}
