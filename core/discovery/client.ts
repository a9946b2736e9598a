// LightClient: the one object that owns the socket, the requester, the registry, discovery and the
// background refresh, and the public surface over them. start() / stop(); a stopped client leaves no timer and no
// socket behind. Its jobs live in rooms of their own, each handed the client (or one hooks object per client), never
// a closure per read: StateReader (state replies into facts), InfoReader (facts replies), CapabilityProber (what an
// unknown product can do), FirstReadQueue (each new light read once, windowed) and RefreshSchedule (background reads).
// Here stay discovery (GetService, https://lan.developer.lifx.com/docs/communicating-with-device), address moves, the
// sharing of one read between callers, and counting answers and misses.

import { EventEmitter } from 'node:events';
import { MAX_TIMER_MS } from '../builtins.js';
import { LightwireError } from '../errors.js';
import { unknownOption } from '../text.js';
import { inTurn } from '../in-turn.js';
import { reportError, reportRejection, tellListeners } from '../listeners.js';
import { PORT_MAX, PRODUCTS, ProductRegistry, type KnownPacket } from '../protocol/index.js';
import { transportOptions, type TransportOptions } from '../transport/options.js';
import { Requester, type DeviceAddress } from '../transport/requester.js';
import { UdpEndpoint, type DatagramEndpoint, type RemoteAddress } from '../transport/udp.js';
import { AmbientLightReader } from './ambient-light.js';
import { registryOption } from './products-file.js';
import { sweepSubnets } from './sweep.js';
import { CapabilityProber } from './capability-prober.js';
import { FirstReadQueue, type FirstReadHost } from './first-read-queue.js';
import { InfoReader } from './info-reader.js';
import { discoveryOptions, interfaceBroadcastAddresses, type DiscoveryOptions, type DiscoveryOptionsInput } from './options.js';
import { RefreshSchedule, type RefreshHost } from './refresh-schedule.js';
import { LightRegistry, type RelayFact, type LightRecord, type RegistryEvents } from './registry.js';
import { StateReader, type StateReadOptions } from './state-reader.js';

export { FIRST_READ_CONCURRENCY, FIRST_READ_MAX } from './first-read-queue.js';
export { CAPABILITY_PROBE_TIMEOUT_MS } from './capability-prober.js';

export interface LightClientOptions {
  readonly transport?: Partial<TransportOptions>;
  readonly discovery?: DiscoveryOptionsInput;
  /** The product registry lights are looked up in (default: the bundled one; see loadProductsFile for a newer file). */
  readonly products?: ProductRegistry;
}

/** Every option a client takes, checked by the compiler against LightClientOptions both ways. */
const CLIENT_OPTIONS: Readonly<Record<keyof LightClientOptions, true>> = { transport: true, discovery: true, products: true };

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


export class LightClient extends EventEmitter<ClientEvents> {
  readonly transportOptions: TransportOptions;
  readonly discoveryOptions: DiscoveryOptions;
  readonly registry: LightRegistry;
  private endpoint: DatagramEndpoint | undefined;
  private requesterInstance: Requester | undefined;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private readonly infoInFlight = new Map<string, Promise<void>>();
  private readonly stateInFlight = new Map<string, Promise<void>>();
  /** Address moves waiting for their confirming probe, as `serial@address:port`. */
  private readonly moving = new Set<string>();
  /** REGISTRY_FULL is said once per client. */
  private fullSaid = false;
  /** NO_BROADCAST_ADDRESS was reported (discoverNow), until there is an address again. */
  private noNetworkSaid = false;
  /** Registry events re-emitted by the client. */
  private readonly forwarded = new Set<keyof RegistryEvents>();
  private running = false;
  private productRegistry: ProductRegistry;
  private readonly states: StateReader;
  private readonly infos: InfoReader;
  private readonly ambient: AmbientLightReader;
  private readonly firstReads: FirstReadQueue;
  private readonly refreshes: RefreshSchedule;

  constructor(options: LightClientOptions = {}) {
    // An async listener's rejection goes to [Symbol.for('nodejs.rejection')], never unhandled.
    super({ captureRejections: true });
    if (typeof options !== 'object' || options === null) throw new LightwireError('OPTIONS_INVALID', { option: 'options', reason: 'must be an object' });
    const unknown = unknownOption(options, Object.keys(CLIENT_OPTIONS), 'a client');
    if (unknown) throw new LightwireError('OPTIONS_INVALID', { option: unknown.key, reason: unknown.reason });
    this.transportOptions = transportOptions(options.transport);
    this.discoveryOptions = discoveryOptions(options.discovery);
    if (options.products !== undefined && !(options.products instanceof ProductRegistry)) {
      throw new LightwireError('OPTIONS_INVALID', { option: 'products', reason: 'must be a ProductRegistry' });
    }
    this.productRegistry = options.products ?? PRODUCTS;
    this.registry = new LightRegistry(this.discoveryOptions.offlineAfterMisses);
    const report = (err: Error): void => this.backgroundError(err);
    this.states = new StateReader(this);
    this.infos = new InfoReader(this, new CapabilityProber(this, this.states.notLights, report), report);
    const isLight = (serial: string): boolean => !this.states.notLights.has(serial) && this.registry.peek(serial)?.facts.product?.value.capabilities.isLight !== false;
    this.ambient = new AmbientLightReader(this, isLight, report);
    const rooms = this.roomHost();
    this.firstReads = new FirstReadQueue(rooms);
    this.refreshes = new RefreshSchedule(rooms, this.discoveryOptions);
    for (const event of ['added', 'offline', 'online'] as const) this.forward(event);
    // 'changed' follows every background read; it is forwarded once someone listens, so that until then the registry
    // need not build a snapshot per read.
    (this as EventEmitter).on('newListener', (event: string | symbol) => {
      if (event === 'changed') this.forward('changed');
    });
    this.registry.on('added', (light) => this.onAdded(light));
  }

  /** The product registry this client's lights are looked up in: its own, never shared state. */
  get products(): ProductRegistry {
    return this.productRegistry;
  }

  /** Looks lights up in `registry` from their next facts read on (a service sets it from its products file at start). */
  useProducts(registry: ProductRegistry): void {
    if (!(registry instanceof ProductRegistry)) throw new LightwireError('OPTIONS_INVALID', { option: 'products', reason: 'must be a ProductRegistry' });
    this.productRegistry = registry;
  }

  /** What the first-read queue and the refresh schedule ask of the client: one object, made once per client. */
  private roomHost(): FirstReadHost & RefreshHost {
    const client = this;
    return {
      get started() {
        return client.running;
      },
      registry: this.registry,
      offlineAfterMisses: this.discoveryOptions.offlineAfterMisses,
      lostAttempts: (serial) => this.requesterInstance?.lostAttempts(serial) ?? 0,
      readState: (serial) => this.sharedStateRead(serial),
      readInfo: (serial) => this.refreshInfo(serial),
      readMissingParts: (serial) => this.readMissingParts(serial),
      described: (record) => this.announce('described', record),
      failed: (err) => this.backgroundError(err),
    };
  }

  /** First reads holding a slot of the window (FirstReadQueue); the first-read tests check it returns to 0. */
  private get firstReadsActive(): number {
    return this.firstReads.active;
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
    for (const light of this.registry.all()) this.refreshes.add(light.serial);
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
    this.firstReads.clear();
    this.refreshes.clear();
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

  /** Probes every host of the configured subnets by unicast GetService (VLANs, routed networks): how many answered. */
  sweep(): Promise<number> {
    return sweepSubnets(this.requester, this.discoveryOptions.sweepSubnets, this.discoveryOptions.port, () => this.running);
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
      await this.states.read(serial, { zones: true, remainingMs: () => timeoutMs });
      this.registry.answered(serial);
      // Its sensor, where it has one, in the background (AmbientLightReader): the state read does not wait for it.
      this.ambient.refresh(serial, timeoutMs);
    } catch (err) {
      this.readFailed(serial, err, asked);
    }
  }

  /** What a first read still lacks once the product is known (StateReader.readMissingParts), counted like a state read. */
  private async readMissingParts(serial: string): Promise<void> {
    const asked = this.answeredMark(serial);
    try {
      if (await this.states.readMissingParts(serial, this.discoveryOptions.readTimeoutMs)) this.registry.answered(serial);
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
   * multizone light, into the registry (StateReader.read). Rejects as the requester does (REQUEST_TIMED_OUT, ...);
   * `remainingMs` is asked before each request, so a caller's deadline covers them all.
   */
  readLightState(serial: string, options: StateReadOptions): Promise<void> {
    return this.states.read(serial, options);
  }

  /**
   * Reads the relays of a LIFX Switch (GetRPower for relays 0 to RELAYS_MAX - 1 at once) into the registry: the
   * relays that answered, by index. Rejects (REQUEST_TIMED_OUT) when none did.
   */
  readRelays(serial: string, timeoutMs: number): Promise<readonly RelayFact[]> {
    return this.states.readRelays(serial, timeoutMs);
  }

  /** Reads product, firmware, label, group, location, wifi and uptime. Concurrent calls share one read. */
  refreshInfo(serial: string, timeoutMs = this.discoveryOptions.readTimeoutMs): Promise<void> {
    const running = this.infoInFlight.get(serial);
    if (running) return running;
    const promise = this.readInfo(serial, timeoutMs).finally(() => this.infoInFlight.delete(serial));
    this.infoInFlight.set(serial, promise);
    return promise;
  }

  private readInfo(serial: string, timeoutMs: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    return this.infos.read(serial, timeoutMs);
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
    this.refreshes.remove(serial);
    this.states.notLights.delete(serial);
  }

  private onAdded(light: LightRecord): void {
    if (!this.running) return;
    // Read each new light once through a short queue (FirstReadQueue), then refresh with jitter.
    this.firstReads.add(light.serial);
    this.refreshes.add(light.serial);
  }

  /** How many found lights have not finished their first read yet (being read, or waiting their turn). */
  get describing(): number {
    return this.firstReads.describing;
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
