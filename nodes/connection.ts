// What a lightwire-config node owns, apart from Node-RED: one LightService (its socket and timers), the virtual
// lights when they are on, and the embedded HTTP endpoint when it is on. Started by the first user, stopped
// a grace period after the last one leaves (so a "modified nodes" deploy does not forget every light), and
// always stopped on close. Users hear its health: lights found, online, offline (like the
// 10-mqtt.js config node model: register / deregister).

import { LightService, LightwireError, LOOPBACK_ADDRESS, LOOPBACK_BROADCAST, type LightServiceOptions } from '../core/index.js';
import type { RunningServer } from '../core/http/index.js';
import type { Fleet } from '../core/simulator/index.js';
import type { ConfigOptions } from './config-options.js';

// The HTTP endpoint (Fastify, Ajv) and the virtual lights load only when a config node switches them on: together they
// are some 25 MiB of a Node-RED runtime that uses neither (require: synchronous; the package is CommonJS).
const httpEndpoint = (): typeof import('../core/http/index.js') => require('../core/http/index.js') as typeof import('../core/http/index.js');
const simulator = (): typeof import('../core/simulator/index.js') => require('../core/simulator/index.js') as typeof import('../core/simulator/index.js');

/** Where virtual lights are looked for: the loopback broadcast, never a real network. */
/** How long the service outlives its last user, waiting for the nodes of the next deploy. */
export const RELEASE_GRACE_MS = 5000;
/** Health reaches users at most this often (a discovery of 100 lights is 100 'added' events). */
export const HEALTH_COALESCE_MS = 100;
/**
 * How long closing lets the operations in flight finish (run()) before it stops the lights: a write sent just
 * before a deploy still reaches them. Above a write's deadline (4 s), below Node-RED's close timeout (15 s).
 */
export const CLOSE_DRAIN_MS = 5000;

export type ConnectionState = 'idle' | 'starting' | 'searching' | 'ready' | 'failed';

export interface Health {
  readonly state: ConnectionState;
  readonly lights: number;
  readonly online: number;
  readonly offline: number;
  /** Why the service could not start (state failed). */
  readonly error: Error | null;
  /** The embedded HTTP endpoint's base URL, when it runs. */
  readonly httpUrl: string | null;
  readonly httpError: Error | null;
}

export interface ConnectionUser {
  readonly id: string;
  /** Called on every change of health, coalesced. */
  health(health: Health): void;
  /** A service starts (before its first discovery) or the user arrives while one runs: add listeners here. */
  attach?(service: LightService): void;
  /** The service stops or the user leaves: remove every listener `attach` added. */
  detach?(service: LightService): void;
}

export interface ConnectionHooks {
  /** Background problems (socket errors, a failed HTTP endpoint); the connection keeps running. */
  readonly warn: (text: string) => void;
  readonly error: (text: string) => void;
}

export interface ConnectionTiming {
  readonly releaseGraceMs?: number;
  readonly healthCoalesceMs?: number;
  readonly closeDrainMs?: number;
}

interface Running {
  readonly service: LightService;
  readonly fleet: Fleet | null;
  server: RunningServer | null;
  readonly detach: () => void;
}

function describe(err: unknown): string {
  if (err instanceof LightwireError) return `${err.code}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

/** The LightService options for a config node (virtual lights: loopback broadcast on their port only). */
export function serviceOptions(options: ConfigOptions, fleetPort: number | null): LightServiceOptions {
  const timeout = options.answerTimeoutMs;
  const common = { refreshIntervalMs: options.refreshIntervalMs, ...(timeout !== null ? { readTimeoutMs: timeout } : {}) };
  const discovery =
    fleetPort !== null
      ? { broadcastAddresses: [LOOPBACK_BROADCAST], port: fleetPort, ...common }
      : {
          ...(options.broadcastAddresses !== null ? { broadcastAddresses: [...options.broadcastAddresses] } : {}),
          port: options.lanPort,
          staticHosts: [...options.staticHosts],
          sweepSubnets: [...options.sweepSubnets],
          ...common,
        };
  return {
    discovery,
    ...(timeout !== null ? { deadlineMs: timeout } : {}),
    defaultDurationS: options.defaultDurationS,
    ...(options.scenesFile !== null ? { scenes: options.scenesFile } : {}),
    // A file that cannot be used is the service's `error` event (a warning here), and the bundled registry is used.
    ...(options.productsFile !== null ? { products: options.productsFile } : {}),
    ...(options.parts !== undefined ? { parts: options.parts } : {}),
    ...(fleetPort !== null ? { expectLights: options.virtualLights, transport: { bindAddress: LOOPBACK_ADDRESS } } : {}),
  };
}

export class Connection {
  private readonly users = new Map<string, ConnectionUser>();
  private current: Promise<Running> | null = null;
  private running: Running | null = null;
  /** Starts and stops run one after the other, never interleaved. */
  private transition: Promise<void> = Promise.resolve();
  private state: ConnectionState;
  private error: Error | null;
  private httpError: Error | null = null;
  private graceTimer: ReturnType<typeof setTimeout> | undefined;
  private healthTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private readonly releaseGraceMs: number;
  private readonly healthCoalesceMs: number;
  private readonly closeDrainMs: number;
  /** The nodes' operations running now (run()): close() lets them finish first. */
  private readonly inFlight = new Set<Promise<unknown>>();

  /** `options` is an Error when the config node's properties did not check out: every user then gets it. */
  constructor(
    readonly options: ConfigOptions | Error,
    private readonly hooks: ConnectionHooks,
    timing: ConnectionTiming = {},
  ) {
    this.releaseGraceMs = timing.releaseGraceMs ?? RELEASE_GRACE_MS;
    this.healthCoalesceMs = timing.healthCoalesceMs ?? HEALTH_COALESCE_MS;
    this.closeDrainMs = timing.closeDrainMs ?? CLOSE_DRAIN_MS;
    this.state = options instanceof Error ? 'failed' : 'idle';
    this.error = options instanceof Error ? options : null;
  }

  /** How many of the nodes' operations (run()) are under way now. */
  get operationsInFlight(): number {
    return this.inFlight.size;
  }

  get userCount(): number {
    return this.users.size;
  }

  /** A node starts using the connection: the service starts if it was idle. */
  acquire(user: ConnectionUser): void {
    if (this.closed) return;
    this.users.set(user.id, user);
    this.cancelGrace();
    if (this.running !== null) this.attachUser(user, this.running.service);
    if (this.state !== 'failed') void this.ensureStarted().catch(() => {});
    user.health(this.health());
  }

  /** A node stops using it; after the last one, the service stops once the grace period has passed. */
  release(user: ConnectionUser): void {
    if (this.users.get(user.id) !== user) return;
    this.users.delete(user.id);
    if (this.running !== null) this.detachUser(user, this.running.service);
    if (this.users.size > 0 || this.closed || this.current === null) return;
    this.cancelGrace();
    this.graceTimer = setTimeout(() => {
      this.graceTimer = undefined;
      if (this.users.size === 0) void this.stop();
    }, this.releaseGraceMs);
  }

  /**
   * The running service once its first discovery round is read (it starts the service if needed). CLIENT_STOPPED
   * once the connection is closed, and when the service stopped while its first round was being read.
   */
  async service(): Promise<LightService> {
    if (this.closed) throw new LightwireError('CLIENT_STOPPED', {});
    const running = await this.ensureStarted();
    await running.service.ready;
    if (this.running !== running) throw new LightwireError('CLIENT_STOPPED', {});
    return running.service;
  }

  /**
   * A node's operation on the service (service()), counted while it runs: closing lets it finish, for up to
   * CLOSE_DRAIN_MS, before the lights are stopped, so a redeploy does not cut a write off half way.
   */
  async run<T>(operation: (service: LightService) => Promise<T> | T): Promise<T> {
    const running = (async (): Promise<T> => operation(await this.service()))();
    this.inFlight.add(running);
    try {
      return await running;
    } finally {
      this.inFlight.delete(running);
    }
  }

  /** The service as it is now, without starting anything. */
  peek(): LightService | null {
    return this.running?.service ?? null;
  }

  health(): Health {
    let lights = 0;
    let online = 0;
    const service = this.running?.service;
    if (service) {
      for (const view of service.views()) {
        lights++;
        if (view.online) online++;
      }
    }
    return Object.freeze({
      state: this.state,
      lights,
      online,
      offline: lights - online,
      error: this.error,
      httpUrl: this.running?.server?.url ?? null,
      httpError: this.httpError,
    });
  }

  /** Stops everything for good (the config node closes): no socket, timer or listener is left. */
  async close(): Promise<void> {
    this.closed = true;
    this.users.clear();
    this.cancelGrace();
    await this.drain();
    await this.stop();
    if (this.healthTimer !== undefined) clearTimeout(this.healthTimer);
    this.healthTimer = undefined;
  }

  // ---- internals ----

  /** Waits for the operations in flight (run()) to end, for closeDrainMs at most. */
  private async drain(): Promise<void> {
    if (this.inFlight.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.closeDrainMs)));
    await Promise.race([Promise.allSettled([...this.inFlight]), timeUp]);
    clearTimeout(timer);
  }

  private attachUser(user: ConnectionUser, service: LightService): void {
    try {
      user.attach?.(service);
    } catch (err) {
      this.hooks.warn(describe(err));
    }
  }

  private detachUser(user: ConnectionUser, service: LightService): void {
    try {
      user.detach?.(service);
    } catch (err) {
      this.hooks.warn(describe(err));
    }
  }

  private cancelGrace(): void {
    if (this.graceTimer !== undefined) clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
  }

  private ensureStarted(): Promise<Running> {
    if (this.options instanceof Error) return Promise.reject(this.options);
    if (this.state === 'failed' && this.error !== null) return Promise.reject(this.error);
    if (this.current === null) {
      const options = this.options;
      const started = this.transition.then(() => this.start(options));
      this.current = started;
      this.transition = started.then(
        () => {},
        () => {},
      );
    }
    return this.current;
  }

  private setState(state: ConnectionState, error: Error | null = this.error): void {
    this.state = state;
    this.error = error;
    this.pushHealth();
  }

  private async start(options: ConfigOptions): Promise<Running> {
    this.setState('starting', null);
    let fleet: Fleet | null = null;
    let service: LightService | null = null;
    try {
      if (options.virtualLights > 0) {
        // The shared discovery listener binds the loopback broadcast address, not 0.0.0.0: only this machine reaches it.
        const { Fleet: VirtualFleet, defaultFleet } = simulator();
        fleet = new VirtualFleet(defaultFleet(options.virtualLights), { port: 0, listenAddress: LOOPBACK_BROADCAST });
        await fleet.start();
      }
      service = new LightService(serviceOptions(options, fleet?.port ?? null));
      const onChange = (): void => this.scheduleHealth();
      const onError = (err: Error): void => this.hooks.warn(describe(err));
      service.on('added', onChange);
      service.on('online', onChange);
      service.on('offline', onChange);
      service.on('error', onError);
      const s = service;
      const detach = (): void => {
        s.off('added', onChange);
        s.off('online', onChange);
        s.off('offline', onChange);
        s.off('error', onError);
        for (const user of this.users.values()) this.detachUser(user, s);
      };
      const running: Running = { service, fleet, server: null, detach };
      this.running = running;
      for (const user of this.users.values()) this.attachUser(user, service);
      await service.start();
      this.setState('searching');
      if (options.http !== null) await this.startHttp(running, options);
      void service.ready.then(() => {
        if (this.running === running && this.state === 'searching') this.setState('ready');
      });
      return running;
    } catch (err) {
      if (this.running !== null && this.running.service === service) {
        this.running.detach();
        this.running = null;
      }
      await service?.stop().catch(() => {});
      await fleet?.stop().catch(() => {});
      const error = err instanceof Error ? err : new Error(String(err));
      this.running = null;
      this.setState('failed', error);
      this.hooks.error(`could not start: ${describe(error)}`);
      throw error;
    }
  }

  private async startHttp(running: Running, options: ConfigOptions): Promise<void> {
    const http = options.http!;
    try {
      running.server = await httpEndpoint().startServer({ service: running.service, host: http.host, port: http.port, tokens: [...http.tokens] });
      this.httpError = null;
    } catch (err) {
      // The lights keep working for the flow; only the endpoint is missing.
      this.httpError = err instanceof Error ? err : new Error(String(err));
      this.hooks.error(`HTTP endpoint on ${http.host}:${http.port} did not start: ${describe(err)}`);
    }
  }

  private stop(): Promise<void> {
    const current = this.current;
    if (current === null) return this.transition;
    this.current = null;
    this.transition = this.transition.then(async () => {
      const running = await current.catch(() => null);
      if (running === null) return;
      running.detach();
      if (this.running === running) this.running = null;
      await running.server?.close().catch((err: unknown) => this.hooks.warn(`HTTP endpoint: ${describe(err)}`));
      await running.service.stop().catch((err: unknown) => this.hooks.warn(describe(err)));
      await running.fleet?.stop().catch((err: unknown) => this.hooks.warn(describe(err)));
      if (this.state !== 'failed') this.setState('idle');
    });
    return this.transition;
  }

  private scheduleHealth(): void {
    if (this.healthTimer !== undefined || this.closed) return;
    this.healthTimer = setTimeout(() => {
      this.healthTimer = undefined;
      this.pushHealth();
    }, this.healthCoalesceMs);
  }

  private pushHealth(): void {
    if (this.closed || this.users.size === 0) return;
    const health = this.health();
    for (const user of this.users.values()) {
      try {
        user.health(health);
      } catch (err) {
        this.hooks.warn(describe(err));
      }
    }
  }
}
