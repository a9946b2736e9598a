// The light service: the one API that the HTTP endpoint, the Node-RED nodes, the Homebridge platform and
// the CLI call, so a HomeKit slider, a flow and `PUT /v1/lights/:selector/state` behave identically.
// Requests arrive in user units (seconds, 0-1, colour strings); every check happens here, once.

import { EventEmitter } from 'node:events';
import { MAX_TIMER_MS, randomNonZeroUint32 } from '../builtins.js';
import { LightClient } from '../discovery/client.js';
import type { DiscoveryOptions, DiscoveryOptionsInput } from '../discovery/options.js';
import type { LightRecord } from '../discovery/registry.js';
import type { TransportOptions } from '../transport/options.js';
import { DEFAULT_DURATION_S, DURATION_MAX_S, RELAYS_MAX, type Capabilities } from '../protocol/index.js';
import { LightwireError } from '../errors.js';
import { ServiceDoctor } from '../doctor/doctor.js';
import type { DoctorReport } from '../doctor/report.js';
import { unknownOption } from '../text.js';
import { inTurn } from '../in-turn.js';
import { reportError, reportRejection, tellListeners } from '../listeners.js';
import { CYCLE_STATES_MAX, CYCLE_STATES_MIN, MAX_STATES, OPERATIONS, type EffectOperationName, type SelectorOperationName } from './catalogue.js';
import { parseColor, validateColor, withBrightness, type ValidatedColor } from './colors.js';
import { applyDelta, nextCycleState } from './delta.js';
import { planEffect } from './operations.js';
import {
  isChecked,
  parseRequest,
  parseStateChange,
  stateChangeOf,
  trustedChange,
  type Checked,
  type CheckedChange,
  type RequestOf,
  type SetStateRequest,
  type Vocabulary,
} from './requests.js';
import { DEFAULT_FRESH_STATE_MS, Executor, type ExecuteOptions, type PlanFor } from './executor.js';
import { planSetState, usesZones } from './planner.js';
import { sceneStateToChange, type SceneActivation } from './scene-activation.js';
import type { Scene } from './scene-file.js';
import { SceneStore } from './scene-store.js';
import { parseSelectors, resolveSelectors } from './selectors.js';
import type { LightResult, LightView, Plan, RelayState, ResolvedLight } from './types.js';
import { groupNames, lightView, v1Light, type GroupNames, type V1Light } from './views.js';

export { DURATION_MAX_S, DEFAULT_DURATION_S, MAX_STATES, CYCLE_STATES_MIN, CYCLE_STATES_MAX };
export type { ColorInput, SetStateRequest } from './requests.js';

/** A device the service heard (it answered discovery), whether or not its state was read: for diagnostics. */
export interface HeardDevice {
  readonly serial: string;
  /** Where it answers: IPv4 address and UDP port. */
  readonly address: string;
  readonly port: number;
  /** Answering now (false after several missed reads). */
  readonly online: boolean;
  /** Its state was read: it is one of views(). A device heard but never read is left out of every other answer. */
  readonly read: boolean;
}

/** How the service looks for lights and what it heard: `lightwire discover`'s table, "answered discovery only". */
export interface ServiceDiagnostics {
  /** The discovery settings in force (broadcast addresses, port, static hosts, read deadline, ...). */
  readonly discovery: DiscoveryOptions;
  /** Every device heard, in serial order. */
  readonly devices: readonly HeardDevice[];
}

export interface WriteOptions {
  /** End-state messages only, no read, no reply awaited (fast mode, https://api.developer.lifx.com/docs/set-state). */
  readonly fast?: boolean;
}

export interface SetStatesOperation extends SetStateRequest {
  readonly selector: string;
}

export type SetStatesResult =
  | { readonly operation: SetStatesOperation; readonly results: LightResult[] }
  | { readonly operation: SetStatesOperation; readonly error: string; readonly code: string };

/** The requests of the service's operations, in its names and user units: derived from the catalogue. */
export type WaveformRequest = RequestOf<'pulse'>;
export type BreatheRequest = RequestOf<'breathe'>;
export type MoveRequest = RequestOf<'move'>;
export type MorphRequest = RequestOf<'morph'>;
export type FlameRequest = RequestOf<'flame'>;
export type SkyRequest = RequestOf<'clouds'>;
export type EffectsOffRequest = RequestOf<'effectsOff'>;
export type CleanRequest = RequestOf<'clean'>;
export type ToggleRequest = RequestOf<'toggle'>;
export type StateDeltaRequest = RequestOf<'stateDelta'>;
export type CycleRequest = RequestOf<'cycle'>;

/** How a face hands the service unchecked input: in whose names, with what before each field name. */
export interface CheckOptions {
  /** `v1` (HTTP, Node-RED: `power_on`) or `library` (`powerOn`, the default). */
  readonly vocabulary?: Vocabulary;
  /** Put before each field name in errors (`payload.`). */
  readonly prefix?: string;
  /** Refuse keys the operation does not declare (a typo must not pass as "nothing to change"). */
  readonly strict?: boolean;
  /** Keys the caller reads itself (Node-RED's `effect` and `fast`). */
  readonly ignore?: readonly string[];
}

export interface LightServiceOptions {
  /** A client to use instead of building one from `transport` and `discovery`; start() starts it if it is not. */
  readonly client?: LightClient;
  readonly transport?: Partial<TransportOptions>;
  readonly discovery?: DiscoveryOptionsInput;
  /** Per light, for the read, every step and every retry (HTTP clients give up after 5-10 s). */
  readonly deadlineMs?: number;
  /**
   * How old (ms) what the service read or wrote of a light may be for a confirmed write to be planned from it without
   * reading the light first (default 5000; 0 reads before every confirmed colour change). See Executor.fromCache.
   */
  readonly freshStateMs?: number;
  /**
   * Where scenes live: a store, or a scene file opened by start(). Without it, scene operations fail with
   * SCENE_NOT_FOUND and `scene_id:` matches nothing.
   */
  readonly scenes?: SceneStore | string;
  /** The transition of a request that names none, in seconds (default 1, as the cloud API). */
  readonly defaultDurationS?: number;
  /** `ready` resolves at the latest this long after start() (default 5000). */
  readonly readyTimeoutMs?: number;
  /** `ready` resolves as soon as this many lights have been read. */
  readonly expectLights?: number;
  /** For `:random` selectors and the `random` colour. */
  readonly random?: () => number;
}

/** Events in the service's terms: every light as a LightView. */
export interface LightServiceEvents {
  /** A light's first read is over: it is known from now on. */
  added: [LightView];
  /** Facts changed (by a read, by our own write, or an address move); the second argument names them. */
  changed: [LightView, readonly string[]];
  offline: [LightView];
  online: [LightView];
  /**
   * The scene list changed: a capture, rename or delete here, or the scene file changed on disk (another process that
   * shares it; looked at every SCENE_FILE_CHECK_MS). With every scene, in list order.
   */
  scenes: [readonly Scene[]];
  /** Background trouble (a socket error); the service keeps running. */
  error: [Error];
}

/** How long after start() discovery is given before `ready` waits only for the reads of the lights found. */
export const FIRST_ROUND_MS = 750;
export const DEFAULT_READY_TIMEOUT_MS = 5000;
export const DEFAULT_DEADLINE_MS = 4000;

function invalid(field: string, reason: string): LightwireError<'PARAMETER_INVALID'> {
  return new LightwireError('PARAMETER_INVALID', { field, reason });
}

/**
 * Fast mode's planner for one change: a fast plan depends on the light's capabilities alone unless it paints some
 * zones of a strip (then on its zones), so lights of one product share one plan (a fleet has a handful).
 */
function fastPlanner(change: CheckedChange): PlanFor {
  const byCapabilities = new Map<Capabilities, Plan>();
  return (light, zones) => {
    const caps = light.capabilities;
    if (caps.multizone && zones !== null && zones.length > 0) return planSetState(change, light, { fast: true, zones });
    let plan = byCapabilities.get(caps);
    if (plan === undefined) {
      plan = planSetState(change, light, { fast: true, zones: null });
      byCapabilities.set(caps, plan);
    }
    return plan;
  };
}

/** Something true is known of a light: its state (power, and colour for lights) was read at least once. */
function isRead(record: LightRecord): boolean {
  return record.facts.power !== undefined;
}

function optionInvalid(option: string, reason: string): LightwireError<'OPTIONS_INVALID'> {
  return new LightwireError('OPTIONS_INVALID', { option, reason });
}

/** Every option a service takes, checked by the compiler against LightServiceOptions both ways. */
const SERVICE_OPTIONS: Readonly<Record<keyof LightServiceOptions, true>> = {
  client: true,
  transport: true,
  discovery: true,
  deadlineMs: true,
  freshStateMs: true,
  scenes: true,
  defaultDurationS: true,
  readyTimeoutMs: true,
  expectLights: true,
  random: true,
};

function positiveInt(option: string, value: number | undefined, fallback: number): number {
  const v = value === undefined ? fallback : value;
  // A duration is waited for by a timer, which cannot wait longer than MAX_TIMER_MS.
  const max = option.endsWith('Ms') ? MAX_TIMER_MS : Number.MAX_SAFE_INTEGER;
  if (!Number.isInteger(v) || v < 1 || v > max) throw optionInvalid(option, max === MAX_TIMER_MS ? `must be an integer from 1 to ${MAX_TIMER_MS} (ms)` : 'must be a positive integer');
  return v;
}

/**
 * The light service. Owns its lifecycle: `await LightService.start(options)` (or `new LightService(options)`
 * then `start()`) opens the socket and starts discovery; `ready` resolves once the first discovery round has
 * been read; `stop()` leaves no socket and no timer.
 */
export class LightService extends EventEmitter<LightServiceEvents> {
  /** The LAN client: the service's own. Faces use the members below (views, events, diagnostics, doctorReport). */
  private readonly client: LightClient;
  /** The network doctor over this service's lights (doctorOf). */
  private doctor: ServiceDoctor | undefined;
  private readonly executor: Executor;
  private readonly deadlineMs: number;
  private readonly freshStateMs: number;
  private readonly defaultDurationS: number;
  private readonly readyTimeoutMs: number;
  private readonly expectLights: number;
  private readonly random: () => number;
  private readonly scenesFile: string | undefined;
  private sceneStoreInstance: SceneStore | undefined;
  /** Why the scene file could not be opened (start()): scene operations fail with it. */
  private sceneStoreFailure: LightwireError | undefined;
  /** Stops following the scene file and its changes (set while running with a store). */
  private stopFollowingScenes: (() => void) | undefined;
  /** LightView per serial with the record revision it was built from: light(serial) is a map lookup. */
  private readonly viewCache = new Map<string, { readonly revision: number; readonly view: LightView }>();
  private namesCache: GroupNames | undefined;
  /** Each light's group and location id as last seen (`group:serial`), to tell a light that moves group. */
  private readonly memberships = new Map<string, string>();
  /** Lights whose first read is over (announced with `added`). */
  private readonly announced = new Set<string>();
  /** Lights whose first read is over but told nothing (no answer): announced once a later read succeeds. */
  private readonly unread = new Set<string>();
  private readonly detach: (() => void)[] = [];
  private running = false;
  private startedClient = false;
  private readyTimer: ReturnType<typeof setTimeout> | undefined;
  private firstRoundTimer: ReturnType<typeof setTimeout> | undefined;
  private firstRoundOver = false;
  private resolveReady: (() => void) | undefined;
  /** Resolves once the first discovery round has been read, or readyTimeoutMs after start(); never rejects. */
  readonly ready: Promise<void>;

  /** `new LightService(options)`; `new LightService(client, options)` is the same as `{ ...options, client }`. */
  constructor(clientOrOptions: LightClient | LightServiceOptions = {}, legacy: LightServiceOptions = {}) {
    // An async listener's rejection goes to [Symbol.for('nodejs.rejection')], never unhandled.
    super({ captureRejections: true });
    const options: LightServiceOptions = clientOrOptions instanceof LightClient ? { ...legacy, client: clientOrOptions } : clientOrOptions;
    if (typeof options !== 'object' || options === null) throw optionInvalid('options', 'must be an object');
    const unknown = unknownOption(options, Object.keys(SERVICE_OPTIONS), 'a service');
    if (unknown) throw optionInvalid(unknown.key, unknown.reason);
    if (options.client !== undefined && !(options.client instanceof LightClient)) throw optionInvalid('client', 'must be a LightClient');
    this.client = options.client ?? new LightClient({
      ...(options.transport ? { transport: options.transport } : {}),
      ...(options.discovery ? { discovery: options.discovery } : {}),
    });
    this.executor = new Executor(this.client);
    this.deadlineMs = positiveInt('deadlineMs', options.deadlineMs, DEFAULT_DEADLINE_MS);
    this.freshStateMs = options.freshStateMs ?? DEFAULT_FRESH_STATE_MS;
    if (typeof this.freshStateMs !== 'number' || !Number.isInteger(this.freshStateMs) || this.freshStateMs < 0 || this.freshStateMs > MAX_TIMER_MS) {
      throw optionInvalid('freshStateMs', `must be an integer number of ms, from 0 to ${MAX_TIMER_MS}`);
    }
    this.readyTimeoutMs = positiveInt('readyTimeoutMs', options.readyTimeoutMs, DEFAULT_READY_TIMEOUT_MS);
    this.expectLights = options.expectLights === undefined ? Infinity : positiveInt('expectLights', options.expectLights, 1);
    this.defaultDurationS = options.defaultDurationS ?? DEFAULT_DURATION_S;
    if (typeof this.defaultDurationS !== 'number' || !Number.isFinite(this.defaultDurationS) || this.defaultDurationS < 0 || this.defaultDurationS > DURATION_MAX_S) {
      throw invalid('defaultDurationS', `must be a number of seconds from 0 to ${DURATION_MAX_S}`);
    }
    this.random = options.random ?? Math.random;
    if (typeof options.scenes === 'string') this.scenesFile = options.scenes;
    else if (options.scenes instanceof SceneStore) this.sceneStoreInstance = options.scenes;
    else if (options.scenes !== undefined) throw optionInvalid('scenes', 'must be a scene file path or a SceneStore');
    this.ready = new Promise((resolve) => {
      this.resolveReady = resolve;
    });
    this.listen();
  }

  /** Builds a service and starts it (does not wait for `ready`). */
  static async start(options: LightServiceOptions = {}): Promise<LightService> {
    const service = new LightService(options);
    await service.start();
    return service;
  }

  get started(): boolean {
    return this.running;
  }

  /** Where scenes live, once opened. */
  get scenes(): SceneStore | undefined {
    return this.sceneStoreInstance;
  }

  /** start() and stop() in the order called: each runs once the one before has finished (or failed). */
  private readonly inTurn = inTurn();

  /**
   * Opens the scene file (if one is configured), the socket, and starts discovery. Idempotent; calls made while one
   * runs wait for it (a stop() during start() stops what it started).
   */
  start(): Promise<void> {
    return this.inTurn(() => this.open());
  }

  private async open(): Promise<void> {
    if (this.running) return;
    if (this.scenesFile !== undefined && this.sceneStoreInstance === undefined && this.sceneStoreFailure === undefined) {
      try {
        this.sceneStoreInstance = await SceneStore.open(this.scenesFile);
        // A file that did not parse was moved aside (the store starts empty): said once, with its code.
        if (this.sceneStoreInstance.problem !== null) this.backgroundError(this.sceneStoreInstance.problem);
      } catch (err) {
        // A scene file that cannot be opened (a folder, no permission) disables scenes, not the lights: it is
        // reported now, and every scene operation answers with it.
        if (!(err instanceof LightwireError)) throw err;
        this.sceneStoreFailure = err;
        this.backgroundError(err);
      }
    }
    if (!this.client.started) {
      await this.client.start();
      this.startedClient = true;
    }
    this.running = true;
    this.doctorOf();
    this.followScenes();
    // Lights a client already knew (a client passed in, or a restart) count as announced.
    for (const record of this.client.registry.peekAll()) {
      if (record.facts.power !== undefined || record.facts.color !== undefined) this.announced.add(record.serial);
    }
    this.readyTimer = setTimeout(() => this.markReady(), this.readyTimeoutMs);
    this.firstRoundTimer = setTimeout(() => {
      this.firstRoundTimer = undefined;
      this.firstRoundOver = true;
      this.checkReady();
    }, FIRST_ROUND_MS);
  }

  /**
   * Stops discovery and closes the socket (when this service started the client). No timer is left. A client passed
   * in keeps running: call detachClient() too when the client outlives the service.
   */
  stop(): Promise<void> {
    return this.inTurn(() => this.close());
  }

  private async close(): Promise<void> {
    this.stopDoctor();
    if (this.readyTimer !== undefined) clearTimeout(this.readyTimer);
    if (this.firstRoundTimer !== undefined) clearTimeout(this.firstRoundTimer);
    this.readyTimer = undefined;
    this.firstRoundTimer = undefined;
    this.markReady();
    if (!this.running) return;
    this.running = false;
    this.stopFollowingScenes?.();
    this.stopFollowingScenes = undefined;
    if (this.startedClient) await this.client.stop();
    this.startedClient = false;
  }

  /** Removes the service's listeners from its client (for a client that lives on after the service). */
  detachClient(): void {
    for (const off of this.detach.splice(0)) off();
    this.stopDoctor();
  }

  /**
   * The network doctor over this service's lights: built by start() (or by the first report of a service over a
   * client started elsewhere), it follows address moves and lights coming back online until stop().
   */
  private doctorOf(): ServiceDoctor {
    return (this.doctor ??= new ServiceDoctor(this.client));
  }

  private stopDoctor(): void {
    this.doctor?.stop();
    this.doctor = undefined;
  }

  private markReady(): void {
    if (this.readyTimer !== undefined) clearTimeout(this.readyTimer);
    this.readyTimer = undefined;
    const resolve = this.resolveReady;
    this.resolveReady = undefined;
    resolve?.();
  }

  /** Ready once the first round is over and every light found has been read, or the expected lights are. */
  private checkReady(): void {
    if (this.resolveReady === undefined || !this.running) return;
    if (this.announced.size >= this.expectLights) return this.markReady();
    if (this.firstRoundOver && this.client.describing === 0 && this.pendingFirstReads() === 0) this.markReady();
  }

  private pendingFirstReads(): number {
    let pending = 0;
    for (const record of this.client.registry.peekAll()) {
      if (!this.announced.has(record.serial) && !this.unread.has(record.serial)) pending++;
    }
    return pending;
  }

  private listen(): void {
    const on = <E extends 'described' | 'changed' | 'offline' | 'online' | 'error' | 'added'>(
      event: E,
      fn: (...args: never[]) => void,
    ): void => {
      (this.client as EventEmitter).on(event, fn as (...args: unknown[]) => void);
      this.detach.push(() => (this.client as EventEmitter).off(event, fn as (...args: unknown[]) => void));
    };
    on('described', (record: LightRecord) => {
      // A light is known (listed, announced) once something true was read of it, never on a discovery reply alone.
      if (!isRead(record)) this.unread.add(record.serial);
      else if (!this.announced.has(record.serial)) {
        this.announced.add(record.serial);
        this.announce('added', this.viewOf(record));
      }
      this.checkReady();
    });
    on('changed', (record: LightRecord, fields: readonly string[]) => {
      // A group's name is the newest label among its members: a change to one light renames it for all.
      if ((fields.includes('group') || fields.includes('location')) && this.renamesGroups(record)) this.renameGroups(record.serial);
      // A light whose first read went unanswered is announced when a later read succeeds.
      if (this.unread.has(record.serial) && isRead(record)) {
        this.unread.delete(record.serial);
        this.announced.add(record.serial);
        this.announce('added', this.viewOf(record));
        return;
      }
      if (this.announced.has(record.serial) && this.listenerCount('changed') > 0) this.announce('changed', this.viewOf(record), fields);
    });
    on('offline', (record: LightRecord) => {
      if (this.announced.has(record.serial)) this.announce('offline', this.viewOf(record));
    });
    on('online', (record: LightRecord) => {
      if (this.announced.has(record.serial)) this.announce('online', this.viewOf(record));
    });
    on('error', (err: Error) => this.backgroundError(err));
  }

  /**
   * Tells the user's listeners. One that throws (or, async, rejects: captureRejections) is reported as an error and
   * costs nothing else: not the write whose result it was told of, not the read that noticed, not the host process.
   */
  private announce<E extends 'added' | 'changed' | 'offline' | 'online'>(event: E, ...args: LightServiceEvents[E]): void {
    tellListeners(this as EventEmitter, event, args, (err) => this.backgroundError(err));
  }

  /** Where Node sends a rejection of an async listener (captureRejections). */
  [Symbol.for('nodejs.rejection')](err: unknown, event: string | symbol): void {
    reportRejection(this as EventEmitter, err, event);
  }

  /** While running: the scene file is followed (other processes share it), and its changes are told as `scenes`. */
  private followScenes(): void {
    const store = this.sceneStoreInstance;
    if (store === undefined || this.stopFollowingScenes !== undefined) return;
    const unwatch = store.watch({ onError: (err) => this.backgroundError(err) });
    const off = store.onChange((scenes) => tellListeners(this as EventEmitter, 'scenes', [scenes], (err) => this.backgroundError(err)));
    this.stopFollowingScenes = () => {
      unwatch();
      off();
    };
  }

  private backgroundError(err: Error): void {
    reportError(this as EventEmitter, err);
  }

  /**
   * Whether a light's new group or location can change a resolved name: it left a group, or it carries a label other
   * than the one resolved. A fleet read for the first time (every member with the same label) resolves names once,
   * not once per light.
   */
  private renamesGroups(record: LightRecord): boolean {
    let renames = false;
    for (const kind of ['group', 'location'] as const) {
      const key = `${kind}:${record.serial}`;
      const membership = record.facts[kind]?.value;
      const before = this.memberships.get(key);
      if (membership === undefined) this.memberships.delete(key);
      else this.memberships.set(key, membership.id);
      if (before !== undefined && before !== membership?.id) renames = true;
      else if (membership !== undefined && this.namesCache !== undefined && this.namesCache[kind].get(membership.id) !== membership.label) renames = true;
    }
    return renames;
  }

  /**
   * Group or location names moved (one light brought a newer label): the names are resolved again, and every other
   * light whose group or location now shows another name is told as `changed`, as the light that brought it is.
   */
  private renameGroups(serial: string): void {
    const before = this.namesCache;
    this.forgetNames();
    if (before === undefined || this.listenerCount('changed') === 0) return;
    const after = this.names();
    for (const record of this.client.registry.peekAll()) {
      if (record.serial === serial || !this.announced.has(record.serial)) continue;
      const fields = (['group', 'location'] as const).filter((kind) => {
        const membership = record.facts[kind]?.value;
        return membership !== undefined && (before[kind].get(membership.id) ?? membership.label) !== (after[kind].get(membership.id) ?? membership.label);
      });
      if (fields.length > 0) this.announce('changed', this.viewOf(record), fields);
    }
  }

  private forgetNames(): void {
    this.namesCache = undefined;
    this.viewCache.clear();
  }

  private names(): GroupNames {
    return (this.namesCache ??= groupNames(this.client.registry));
  }

  private viewOf(record: LightRecord): LightView {
    const cached = this.viewCache.get(record.serial);
    if (cached !== undefined && cached.revision === record.revision) return cached.view;
    const view = lightView(record, this.names());
    this.viewCache.set(record.serial, { revision: record.revision, view });
    return view;
  }

  /** One light, O(1): from the cache while its record is unchanged; undefined when unknown or never read. */
  light(serial: string): LightView | undefined {
    const record = this.client.registry.peek(serial);
    return record && isRead(record) ? this.viewOf(record) : undefined;
  }

  /**
   * Every known light, in serial order: lights found whose state was never read are left out (views, List Lights
   * and selectors show only what was read, never made-up values).
   */
  views(): LightView[] {
    const out: LightView[] = [];
    for (const r of this.client.registry.peekAll()) if (isRead(r)) out.push(this.viewOf(r));
    return out;
  }

  /**
   * Reads one device's state now (a light's colour, power and zones; a LIFX Switch's power and relays), answered
   * within `timeoutMs` (default: the service's deadline); then its view (undefined when unknown or never read). A
   * read that goes unanswered counts as a miss, as a background read's does.
   */
  async refreshLight(serial: string, options: { readonly timeoutMs?: number } = {}): Promise<LightView | undefined> {
    const timeoutMs = options.timeoutMs ?? this.deadlineMs;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMER_MS) throw invalid('timeoutMs', `must be an integer from 1 to ${MAX_TIMER_MS} (ms)`);
    if (typeof serial !== 'string') throw new LightwireError('LIGHTS_NOT_FOUND', { selector: `id:${String(serial)}` });
    await this.client.refreshState(serial.toLowerCase(), timeoutMs);
    return this.light(serial.toLowerCase());
  }

  /** How the service looks for lights and every device it heard, read or not (for diagnostics). */
  diagnostics(): ServiceDiagnostics {
    const devices = this.client.registry.peekAll().map((r): HeardDevice => ({ serial: r.serial, address: r.address, port: r.port, online: r.online, read: isRead(r) }));
    return { discovery: this.client.discoveryOptions, devices };
  }

  /**
   * The network doctor's report on this service's lights (core/doctor): each light's round trips and loss since the
   * service started or the light came back online (probeCount 0, the default), or measured afresh with probeCount
   * echo requests per light and a broadcast probe; interfaces, the lights' UDP port, static hosts, and a cause for
   * every light that is not healthy. One measurement runs at a time: a request made meanwhile gets its report.
   */
  doctorReport(request: { readonly probeCount?: number } = {}): Promise<DoctorReport> {
    return this.doctorOf().report(request);
  }

  /** Reads the lights a selector names now (state, and zones of multizone lights), then lists them. */
  async refresh(selector = 'all'): Promise<V1Light[]> {
    const targets = this.resolve(selector);
    // Offline lights are asked too: an answer brings them back online.
    await Promise.all(targets.map((t) => this.client.refreshState(t.light.serial, this.deadlineMs)));
    return this.list(selector);
  }

  /**
   * The lights a selector names: SELECTOR_INVALID / SELECTOR_TOO_MANY / LIGHTS_NOT_FOUND otherwise. The text is
   * taken as written: a face that reads selectors from URLs percent-decodes them once itself.
   */
  resolve(selector: string): ResolvedLight[] {
    const parsed = parseSelectors(selector, { percentDecode: false });
    // Selectors name lights: a LIFX Switch (no light at all) is in views() and has relays(), but no light state.
    return resolveSelectors(parsed, this.views().filter((v) => v.capabilities.isLight), {
      random: this.random,
      ...(this.scenes ? { sceneSelectors: this.scenes.sceneSelectors } : {}),
    });
  }

  /** List Lights. */
  list(selector = 'all'): V1Light[] {
    const now = Date.now();
    return this.resolve(selector).map((r) => v1Light(r.light, now));
  }

  /** Validate Color. */
  validateColor(text: string): ValidatedColor {
    return validateColor(text, { random: this.random });
  }

  /**
   * Checks a request for an operation of the catalogue, once: the checked request every planner takes. Faces that
   * hold unknown input (an HTTP body, a flow message) check it here in their own names (`vocabulary: 'v1'`).
   */
  check<N extends keyof typeof OPERATIONS>(name: N, input: unknown, how: CheckOptions = {}): Checked<N> {
    return parseRequest(name, input, {
      vocabulary: how.vocabulary ?? 'library',
      defaultDurationS: this.defaultDurationS,
      random: this.random,
      ...(how.prefix !== undefined ? { prefix: how.prefix } : {}),
      ...(how.strict !== undefined ? { strict: how.strict } : {}),
      ...(how.ignore !== undefined ? { ignore: how.ignore } : {}),
    });
  }

  /** Checks a Set State request and turns it into the planner's input. `prefix` goes before error fields. */
  stateChange(request: SetStateRequest, prefix = ''): CheckedChange {
    return parseStateChange(request, { vocabulary: 'library', prefix, random: this.random, defaultDurationS: this.defaultDurationS });
  }

  /**
   * Any write of the catalogue on the lights a selector names: the request (in the library's names, or checked by
   * check()) is checked once, then planned per light. The methods below are this with their operation's name.
   */
  async perform<N extends SelectorOperationName>(name: N, selector: string, request: RequestOf<N> | Checked<N>, options: WriteOptions = {}): Promise<LightResult[]> {
    const checked: Checked<N> = isChecked(request) ? (request as Checked<N>) : this.check(name, request);
    const fast = options.fast === true;
    switch (name) {
      case 'setState':
        return this.apply(this.resolve(selector), stateChangeOf(checked as unknown as Checked<'setState'>, this.defaultDurationS), fast);
      case 'toggle':
        return this.toggleChecked(selector, checked as unknown as Checked<'toggle'>, fast);
      case 'stateDelta':
        return this.deltaChecked(selector, checked as unknown as Checked<'stateDelta'>, fast);
      case 'cycle':
        return this.cycleChecked(selector, checked as unknown as Checked<'cycle'>, fast);
      default: {
        const effect = name as EffectOperationName;
        const decl = OPERATIONS[effect];
        const planFor = planEffect(effect, checked as unknown as Checked<typeof effect>);
        const needs = 'needs' in decl ? { operation: effect === 'clean' ? 'clean' : `run ${effect}`, capability: decl.needs } : undefined;
        return this.run(selector, planFor, decl.read, fast, needs);
      }
    }
  }

  /** Set State (https://api.developer.lifx.com/docs/set-state). */
  async setState(selector: string, request: SetStateRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('setState', selector, request, options);
  }

  /**
   * Set State on one light named by its serial (12 hex digits): for a face that holds serials (HomeKit), with no
   * selector to parse. LIGHTS_NOT_FOUND when no light of the service has it (a LIFX Switch is no light).
   */
  async setLightState(serial: string, request: SetStateRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    const change = this.stateChange(request);
    const view = typeof serial === 'string' ? this.light(serial.toLowerCase()) : undefined;
    if (view === undefined || !view.capabilities.isLight) throw new LightwireError('LIGHTS_NOT_FOUND', { selector: `id:${String(serial)}` });
    return this.apply([{ light: view, zones: null }], change, options.fast === true);
  }

  /** Set States: at most 50 operations, each merged over `defaults`. */
  async setStates(
    operations: readonly SetStatesOperation[],
    defaults: SetStateRequest = {},
    options: WriteOptions = {},
  ): Promise<SetStatesResult[]> {
    if (!Array.isArray(operations) || operations.length === 0) throw invalid('states', 'must be a non-empty array');
    if (operations.length > MAX_STATES) throw new LightwireError('STATES_TOO_MANY', { count: operations.length, max: MAX_STATES });
    // Validate everything before anything is sent.
    const prepared = operations.map((op, i) => {
      const operation: SetStatesOperation = { ...defaults, ...op };
      if (typeof operation.selector !== 'string') throw invalid(`states[${i}].selector`, 'is missing');
      const change = this.stateChange(operation, `states[${i}].`);
      parseSelectors(operation.selector, { percentDecode: false });
      return { operation, change };
    });
    return Promise.all(
      prepared.map(async ({ operation, change }): Promise<SetStatesResult> => {
        let targets: ResolvedLight[];
        try {
          targets = this.resolve(operation.selector);
        } catch (err) {
          if (err instanceof LightwireError && err.code === 'LIGHTS_NOT_FOUND') {
            return { operation, error: 'not found', code: err.code };
          }
          throw err;
        }
        return { operation, results: await this.apply(targets, change, options.fast === true) };
      }),
    );
  }

  /** Runs one validated change on resolved lights. */
  apply(targets: readonly ResolvedLight[], change: CheckedChange, fast: boolean): Promise<LightResult[]> {
    const needsZones = targets.some((t) => t.zones !== null && t.light.capabilities.multizone);
    // Zones are always read (a strip's zones are painted over what it shows); a change without a colour (power,
    // infrared) plans the same whatever the light shows; a colour is planned from what the service knows of the light
    // when that is fresh (our own writes and recent reads), else from a read.
    const read: ExecuteOptions['read'] = needsZones ? 'state+zones' : change.color === undefined ? 'none' : 'cached-state';
    // A strip asked for part of a colour keeps its zones' own colours: they are read first (planSetState).
    const options: ExecuteOptions = { fast, deadlineMs: this.deadlineMs, read, freshStateMs: this.freshStateMs, zonesOf: (light) => usesZones(change, light) };
    return this.executor.run(targets, fast ? fastPlanner(change) : (light, zones) => planSetState(change, light, { fast, zones }), options);
  }

  /** Toggle Power: any light on -> all off, else all on. Results carry the new power. */
  async toggle(selector: string, request: ToggleRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('toggle', selector, request, options);
  }

  private async toggleChecked(selector: string, request: Checked<'toggle'>, fast: boolean): Promise<LightResult[]> {
    const targets = this.resolve(selector);
    const anyOn = targets.some((t) => t.light.online && t.light.power === 'on');
    const power = anyOn ? 'off' : 'on';
    const results = await this.apply(targets, trustedChange({ power, durationS: request.durationS ?? this.defaultDurationS }), fast);
    return results.map((r) => (r.status === 'ok' ? { ...r, power } : r));
  }

  // ---- LIFX Switch relays (https://lan.developer.lifx.com/docs/the-lifx-switch) ----

  /** The relays of a LIFX Switch, read now: `[{ index, on }]` by index. */
  async relays(serial: string): Promise<RelayState[]> {
    return this.executor.readRelays(this.relayDevice(serial, 'read relays'), this.deadlineMs);
  }

  /** Switches relay `relayIndex` (0-3) of a LIFX Switch on or off; one result, as every write. */
  async setRelayPower(serial: string, relayIndex: number, on: boolean, options: WriteOptions = {}): Promise<LightResult> {
    if (!Number.isInteger(relayIndex) || relayIndex < 0 || relayIndex >= RELAYS_MAX) {
      throw invalid('relayIndex', `must be an integer from 0 to ${RELAYS_MAX - 1}`);
    }
    if (typeof on !== 'boolean') throw invalid('on', 'must be true or false');
    const device = this.relayDevice(serial, 'switch a relay');
    return this.executor.setRelay(device, relayIndex, on, { fast: options.fast === true, deadlineMs: this.deadlineMs });
  }

  private relayDevice(serial: string, operation: string): LightView {
    const view = typeof serial === 'string' ? this.light(serial.toLowerCase()) : undefined;
    const selector = `id:${String(serial)}`;
    if (view === undefined) throw new LightwireError('LIGHTS_NOT_FOUND', { selector });
    if (!view.capabilities.relays) throw new LightwireError('CAPABILITY_MISSING', { selector, operation, capability: 'relays' });
    return view;
  }

  // ---- scenes (List Scenes, Activate Scene) ----

  private sceneStore(sceneId: string): SceneStore {
    if (this.sceneStoreFailure) throw this.sceneStoreFailure;
    if (!this.scenes) throw new LightwireError('SCENE_NOT_FOUND', { sceneId });
    return this.scenes;
  }

  /** List Scenes. */
  listScenes(): Scene[] {
    return this.scenes ? this.scenes.list() : [];
  }

  /** Captures the current state of the lights a selector names as a scene (replacing one of the same name). */
  async captureScene(name: string, selector = 'all'): Promise<Scene> {
    if (this.sceneStoreFailure) throw this.sceneStoreFailure;
    if (!this.scenes) throw new LightwireError('OPTIONS_INVALID', { option: 'scenes', reason: 'no scene file is configured' });
    const targets = this.resolve(selector).filter((t) => t.light.online);
    // Capture what the lights show now, not what the cache last saw.
    await Promise.all(targets.map((t) => this.client.refreshState(t.light.serial, this.deadlineMs)));
    const fresh = this.resolve(selector).filter((t) => t.light.online).map((t) => t.light);
    if (fresh.length === 0) throw new LightwireError('LIGHTS_NOT_FOUND', { selector });
    return this.scenes.capture(name, fresh);
  }

  /** A scene by its uuid, or by its name (names are unique: capturing a name again replaces that scene). */
  findScene(uuidOrName: string): Scene {
    const store = this.sceneStore(uuidOrName);
    try {
      return store.get(uuidOrName);
    } catch (err) {
      const named = store.list().find((s) => s.name === uuidOrName);
      if (named === undefined) throw err;
      return named;
    }
  }

  /**
   * Activate Scene (by uuid or by name): each stored state becomes a Set State on its selector; `duration`,
   * `ignore`, `overrides`.
   */
  async activateScene(sceneId: string, activation: SceneActivation | Checked<'activateScene'> = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    // A scene another process captured a moment ago is found; a file left invalid keeps the scenes as they were
    // (the watch reports it).
    if (this.sceneStoreFailure === undefined) await this.scenes?.reload().catch(() => false);
    const checked = isChecked(activation) ? (activation as Checked<'activateScene'>) : this.check('activateScene', activation);
    const scene = this.findScene(sceneId);
    // Validate every state before anything is sent.
    const jobs = scene.states.map((state, i) => {
      const change = sceneStateToChange(state, checked);
      const request = {
        ...(change.power !== undefined ? { power: change.power } : {}),
        ...(change.colorString !== undefined ? { color: change.colorString } : change.color !== undefined && Object.keys(change.color).length > 0 ? { color: change.color } : {}),
        ...(change.brightness !== undefined ? { brightness: change.brightness } : {}),
        ...(change.infrared !== undefined ? { infrared: change.infrared } : {}),
        durationS: change.durationS,
      };
      return { selector: change.selector, change: this.stateChange(request, `states[${i}].`) };
    });
    const results = await Promise.all(
      jobs.map(async ({ selector, change }) => {
        let targets: ResolvedLight[];
        try {
          targets = this.resolve(selector);
        } catch (err) {
          // A light of the scene that is gone is skipped; the others still change.
          if (err instanceof LightwireError && err.code === 'LIGHTS_NOT_FOUND') return [];
          throw err;
        }
        return this.apply(targets, change, options.fast === true);
      }),
    );
    return results.flat();
  }

  // ---- state delta, effects, clean, cycle ----

  /**
   * Resolves, checks the plan of every light before anything is sent (so a bad parameter is a 422 for the
   * whole request, never half-applied), then runs it.
   */
  private async run(
    selector: string,
    planFor: PlanFor,
    read: ExecuteOptions['read'],
    fast: boolean,
    needs?: { operation: string; capability: keyof Capabilities },
  ): Promise<LightResult[]> {
    let targets = this.resolve(selector);
    // Lights that cannot run a firmware effect are left out rather than reported `ok` for doing nothing.
    if (needs) {
      targets = targets.filter((t) => t.light.capabilities[needs.capability] === true);
      if (targets.length === 0) {
        throw new LightwireError('CAPABILITY_MISSING', { selector, operation: needs.operation, capability: needs.capability });
      }
    }
    for (const t of targets) planFor(t.light, t.zones);
    return this.executor.run(targets, planFor, { fast, deadlineMs: this.deadlineMs, read });
  }

  /** State Delta: power and duration absolute, the rest relative to each light's current state. */
  async stateDelta(selector: string, request: StateDeltaRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('stateDelta', selector, request, options);
  }

  private async deltaChecked(selector: string, request: Checked<'stateDelta'>, fast: boolean): Promise<LightResult[]> {
    const delta = { ...request, durationS: request.durationS ?? this.defaultDurationS };
    const targets = this.resolve(selector);
    // On a strip each zone moves from its own colour, not from the light's one colour.
    const planFor: PlanFor = (light, zones) =>
      planSetState(trustedChange(applyDelta(light, delta)), light, {
        fast,
        zones,
        perZone: (zone) => applyDelta({ ...light, color: zone }, delta).color ?? {},
      });
    const read = targets.some((t) => t.light.capabilities.multizone) ? 'state+zones' : 'state';
    return this.executor.run(targets, planFor, { fast, deadlineMs: this.deadlineMs, read });
  }

  breathe(selector: string, request: BreatheRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('breathe', selector, request, options);
  }

  pulse(selector: string, request: WaveformRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('pulse', selector, request, options);
  }

  move(selector: string, request: MoveRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('move', selector, request, options);
  }

  morph(selector: string, request: MorphRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('morph', selector, request, options);
  }

  flame(selector: string, request: FlameRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('flame', selector, request, options);
  }

  clouds(selector: string, request: SkyRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('clouds', selector, request, options);
  }

  sunrise(selector: string, request: SkyRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('sunrise', selector, request, options);
  }

  sunset(selector: string, request: SkyRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('sunset', selector, request, options);
  }

  effectsOff(selector: string, request: EffectsOffRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('effectsOff', selector, request, options);
  }

  clean(selector: string, request: CleanRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('clean', selector, request, options);
  }

  /**
   * Cycle: works out where the lights are in the list (from the first light's current state) and
   * moves them all to the next entry, so a client just repeats the same request.
   */
  cycle(selector: string, request: CycleRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('cycle', selector, request, options);
  }

  private async cycleChecked(selector: string, request: Checked<'cycle'>, fast: boolean): Promise<LightResult[]> {
    const merged = request.states.map((s) => ({ ...request.defaults, ...s }));
    const changes = merged.map((s, i) => this.stateChange(s, `states[${i}].`));
    const targets = this.resolve(selector);
    const first = targets.find((t) => t.light.online) ?? targets[0]!;
    if (!fast && first.light.online) await this.client.refreshState(first.light.serial, this.deadlineMs);
    const record = this.client.registry.get(first.light.serial);
    const current = record ? this.viewOf(record) : first.light;
    const index = nextCycleState(changes, current, request.direction);
    return this.apply(targets, changes[index]!, fast);
  }
}
