// The light service: the one API that the HTTP endpoint, the Node-RED nodes, the Homebridge platform and
// the CLI call, so a HomeKit slider, a flow and `PUT /v1/lights/:selector/state` behave identically.
// Requests arrive in user units (seconds, 0-1, colour strings); every check happens here, once.

import { EventEmitter } from 'node:events';
import { MAX_TIMER_MS, randomNonZeroUint32 } from '../builtins.js';
import { LightClient } from '../discovery/client.js';
import type { DiscoveryOptions, DiscoveryOptionsInput } from '../discovery/options.js';
import type { LightRecord } from '../discovery/registry.js';
import type { TransportOptions } from '../transport/options.js';
import { DEFAULT_DURATION_S, DURATION_MAX_S, KELVIN_MAX, KELVIN_MIN, RELAYS_MAX, type Capabilities } from '../protocol/index.js';
import { LightwireError } from '../errors.js';
import { ServiceDoctor } from '../doctor/doctor.js';
import type { DoctorReport } from '../doctor/report.js';
import { unknownOption } from '../text.js';
import { inTurn } from '../in-turn.js';
import { reportError, reportRejection, tellListeners } from '../listeners.js';
import { parseColor, validateColor, withBrightness, type ValidatedColor } from './colors.js';
import { applyDelta, nextCycleState, type StateDelta } from './delta.js';
import {
  planBreathe,
  planClean,
  planClouds,
  planEffectsOff,
  planFlame,
  planMorph,
  planMove,
  planPulse,
  planSunrise,
  planSunset,
  type MoveDirection,
} from './effects.js';
import { DEFAULT_FRESH_STATE_MS, Executor, type ExecuteOptions, type PlanFor } from './executor.js';
import { planSetState, usesZones } from './planner.js';
import { sceneStateToChange, type SceneActivation } from './scene-activation.js';
import type { Scene } from './scene-file.js';
import { SceneStore } from './scene-store.js';
import { parseSelectors, resolveSelectors } from './selectors.js';
import type { LightResult, LightView, PartialHsbk, Plan, RelayState, ResolvedLight, StateChange } from './types.js';
import { groupNames, lightView, v1Light, type GroupNames, type V1Light } from './views.js';

export { DURATION_MAX_S, DEFAULT_DURATION_S };
export const MAX_STATES = 50;

/** A colour as numbers, for faces that have them (HomeKit, Node-RED): any of the four, in user units. */
export interface ColorInput {
  /** Degrees, 0-360. */
  readonly hue?: number;
  /** 0-1. */
  readonly saturation?: number;
  /** 0-1. */
  readonly brightness?: number;
  /** 1500-9000 (each light clamps to its own range). */
  readonly kelvin?: number;
}

export interface SetStateRequest {
  readonly power?: 'on' | 'off';
  /** A colour string (as in the HTTP API) or numbers. */
  readonly color?: string | ColorInput;
  readonly brightness?: number;
  readonly infrared?: number;
  /** Seconds; default 1. */
  readonly durationS?: number;
}

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

export interface WaveformRequest {
  /** Required colour string. */
  readonly color: string | ColorInput;
  readonly fromColor?: string | ColorInput;
  readonly periodS?: number;
  readonly cycles?: number;
  readonly persist?: boolean;
  readonly powerOn?: boolean;
}

export interface BreatheRequest extends WaveformRequest {
  readonly peak?: number;
}

export interface MoveRequest {
  readonly direction?: MoveDirection;
  readonly periodS?: number;
  /** Omitted = until stopped; 0 switches the effect off. */
  readonly cycles?: number;
  readonly powerOn?: boolean;
}

export interface MorphRequest {
  readonly periodS?: number;
  /** Omitted = until stopped; 0 switches the effect off. */
  readonly durationS?: number;
  /** Colour strings, at most 16. */
  readonly palette?: readonly (string | ColorInput)[];
  readonly powerOn?: boolean;
}

export interface FlameRequest {
  readonly periodS?: number;
  readonly durationS?: number;
  readonly powerOn?: boolean;
}

export interface SkyRequest {
  readonly durationS?: number;
  readonly powerOn?: boolean;
}

export interface StateDeltaRequest {
  readonly power?: 'on' | 'off';
  readonly durationS?: number;
  readonly hue?: number;
  readonly saturation?: number;
  readonly brightness?: number;
  readonly kelvin?: number;
  readonly infrared?: number;
}

export interface CycleRequest {
  /** 2 to 5 Set State hashes. */
  readonly states: readonly SetStateRequest[];
  readonly defaults?: SetStateRequest;
  readonly direction?: 'forward' | 'backward';
}

/** A fresh effect instance id, as photons sends (the firmware tells effects apart by it). */
function newInstanceId(): number {
  return randomNonZeroUint32();
}

export const CYCLE_STATES_MIN = 2;
export const CYCLE_STATES_MAX = 5;

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

export function checkFraction(field: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
    throw invalid(field, 'must be a number from 0.0 to 1.0');
  }
  return value;
}

export function checkDuration(field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > DURATION_MAX_S) {
    throw invalid(field, `must be a number of seconds from 0 to ${DURATION_MAX_S}`);
  }
  return value;
}

export function checkPower(field: string, value: unknown): 'on' | 'off' | undefined {
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off') throw invalid(field, 'must be "on" or "off"');
  return value;
}

function checkRange(field: string, value: unknown, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw invalid(field, `must be a number from ${min} to ${max}`);
  }
  return value;
}

/** Checks a colour given as numbers (ColorInput) and returns it as the planner's partial colour. */
export function colorFromNumbers(input: ColorInput, field = 'color'): PartialHsbk {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalid(field, 'must be a colour string or an object of numbers');
  for (const key of Object.keys(input)) {
    if (key !== 'hue' && key !== 'saturation' && key !== 'brightness' && key !== 'kelvin') {
      throw invalid(`${field}.${key}`, 'is not a colour component (hue, saturation, brightness, kelvin)');
    }
  }
  const hue = checkRange(`${field}.hue`, input.hue, 0, 360);
  const saturation = checkRange(`${field}.saturation`, input.saturation, 0, 1);
  const brightness = checkRange(`${field}.brightness`, input.brightness, 0, 1);
  const kelvin = checkRange(`${field}.kelvin`, input.kelvin, KELVIN_MIN, KELVIN_MAX);
  if (hue === undefined && saturation === undefined && brightness === undefined && kelvin === undefined) {
    throw invalid(field, 'names no colour component');
  }
  return Object.freeze({
    ...(hue !== undefined ? { hue } : {}),
    ...(saturation !== undefined ? { saturation } : {}),
    ...(brightness !== undefined ? { brightness } : {}),
    ...(kelvin !== undefined ? { kelvin: Math.round(kelvin) } : {}),
  });
}

/** Checks a Set State request and turns it into the planner's input. `field` prefixes error fields. */
export function stateChangeFrom(
  request: SetStateRequest,
  field = '',
  random: () => number = Math.random,
  defaultDurationS: number = DEFAULT_DURATION_S,
): StateChange {
  if (typeof request !== 'object' || request === null) throw invalid(field || 'body', 'must be an object');
  const f = (name: string): string => (field ? `${field}.${name}` : name);
  const power = checkPower(f('power'), request.power);
  const brightness = checkFraction(f('brightness'), request.brightness);
  const infrared = checkFraction(f('infrared'), request.infrared);
  const durationS = checkDuration(f('duration'), request.durationS, defaultDurationS);
  let color;
  if (request.color !== undefined) {
    if (typeof request.color === 'string') color = parseColor(request.color, { random });
    else color = colorFromNumbers(request.color, f('color'));
  }
  const merged = withBrightness(color, brightness);
  return {
    ...(power !== undefined ? { power } : {}),
    ...(merged !== undefined ? { color: merged } : {}),
    ...(brightness !== undefined ? { brightness } : {}),
    ...(infrared !== undefined ? { infrared } : {}),
    durationS,
  };
}

/**
 * Fast mode's planner for one change: a fast plan depends on the light's capabilities alone unless it paints some
 * zones of a strip (then on its zones), so lights of one product share one plan (a fleet has a handful).
 */
function fastPlanner(change: StateChange): PlanFor {
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
    this.defaultDurationS = checkDuration('defaultDurationS', options.defaultDurationS, DEFAULT_DURATION_S);
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

  /** Checks a Set State request and turns it into the planner's input. `field` prefixes error fields. */
  stateChange(request: SetStateRequest, field = ''): StateChange {
    return stateChangeFrom(request, field, this.random, this.defaultDurationS);
  }

  /** Set State (https://api.developer.lifx.com/docs/set-state). */
  async setState(selector: string, request: SetStateRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    const change = this.stateChange(request);
    const targets = this.resolve(selector);
    return this.apply(targets, change, options.fast === true);
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
      const change = this.stateChange(operation, `states[${i}]`);
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
  apply(targets: readonly ResolvedLight[], change: StateChange, fast: boolean): Promise<LightResult[]> {
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
  async toggle(selector: string, request: { durationS?: number } = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    const durationS = checkDuration('duration', request.durationS, this.defaultDurationS);
    const targets = this.resolve(selector);
    const anyOn = targets.some((t) => t.light.online && t.light.power === 'on');
    const power = anyOn ? 'off' : 'on';
    const results = await this.apply(targets, { power, durationS }, options.fast === true);
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
  async activateScene(sceneId: string, activation: SceneActivation = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    // A scene another process captured a moment ago is found; a file left invalid keeps the scenes as they were
    // (the watch reports it).
    if (this.sceneStoreFailure === undefined) await this.scenes?.reload().catch(() => false);
    const scene = this.findScene(sceneId);
    // Validate every state before anything is sent.
    const jobs = scene.states.map((state, i) => {
      const change = sceneStateToChange(state, activation);
      const color = change.colorString !== undefined ? parseColor(change.colorString, { random: this.random }) : change.color;
      const merged = withBrightness(color, change.brightness);
      const stateChange: StateChange = {
        ...(change.power !== undefined ? { power: change.power } : {}),
        ...(merged !== undefined ? { color: merged } : {}),
        ...(change.brightness !== undefined ? { brightness: change.brightness } : {}),
        ...(change.infrared !== undefined ? { infrared: checkFraction(`states[${i}].infrared`, change.infrared)! } : {}),
        durationS: change.durationS,
      };
      return { selector: change.selector, change: stateChange };
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

  /** An effect's colour: a colour string or numbers (ColorInput). */
  private color(field: string, value: unknown): PartialHsbk {
    if (value === undefined || value === null) throw new LightwireError('PARAMETER_MISSING', { field });
    if (typeof value === 'string') return parseColor(value, { random: this.random });
    return colorFromNumbers(value as ColorInput, field);
  }

  /** State Delta: power and duration absolute, the rest relative to each light's current state. */
  async stateDelta(selector: string, request: StateDeltaRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    const delta: StateDelta = { ...request, durationS: checkDuration('duration', request.durationS, this.defaultDurationS) };
    const fast = options.fast === true;
    const targets = this.resolve(selector);
    // Checks the request on a light with a known colour (the real lights are read before planning).
    const probe: LightView = { ...targets[0]!.light, color: { hue: 0, saturation: 0, brightness: 0, kelvin: 3500 }, infrared: 0 };
    applyDelta(probe, delta);
    // On a strip each zone moves from its own colour, not from the light's one colour.
    const planFor: PlanFor = (light, zones) =>
      planSetState(applyDelta(light, delta), light, { fast, zones, perZone: (zone) => applyDelta({ ...light, color: zone }, delta).color ?? {} });
    const read = targets.some((t) => t.light.capabilities.multizone) ? 'state+zones' : 'state';
    return this.executor.run(targets, planFor, { fast, deadlineMs: this.deadlineMs, read });
  }

  async breathe(selector: string, request: BreatheRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    const color = this.color('color', request.color);
    const fromColor = request.fromColor === undefined ? undefined : this.color('from_color', request.fromColor);
    const r = { ...request, color, ...(fromColor ? { fromColor } : { fromColor: undefined }) };
    return this.run(selector, (light) => planBreathe(r, light), 'state', options.fast === true);
  }

  async pulse(selector: string, request: WaveformRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    const color = this.color('color', request.color);
    const fromColor = request.fromColor === undefined ? undefined : this.color('from_color', request.fromColor);
    const r = { ...request, color, ...(fromColor ? { fromColor } : { fromColor: undefined }) };
    return this.run(selector, (light) => planPulse(r, light), 'state', options.fast === true);
  }

  async move(selector: string, request: MoveRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    const r = { ...request, instanceId: newInstanceId() };
    return this.run(selector, (light) => planMove(r, light), 'state', options.fast === true, { operation: 'run move', capability: 'multizone' });
  }

  async morph(selector: string, request: MorphRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    if (request.palette !== undefined && !Array.isArray(request.palette)) {
      throw new LightwireError('PARAMETER_INVALID', { field: 'palette', reason: 'must be a list of colour strings' });
    }
    const palette = request.palette?.map((c, i) => this.color(`palette[${i}]`, c));
    const r = { ...request, palette, instanceId: newInstanceId() };
    return this.run(selector, (light) => planMorph(r, light), 'state', options.fast === true, { operation: 'run morph', capability: 'matrix' });
  }

  async flame(selector: string, request: FlameRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    const r = { ...request, instanceId: newInstanceId() };
    return this.run(selector, (light) => planFlame(r, light), 'state', options.fast === true, { operation: 'run flame', capability: 'matrix' });
  }

  async clouds(selector: string, request: SkyRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    const r = { ...request, instanceId: newInstanceId() };
    return this.run(selector, (light) => planClouds(r, light), 'state', options.fast === true, { operation: 'run clouds', capability: 'matrix' });
  }

  async sunrise(selector: string, request: SkyRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    const r = { ...request, instanceId: newInstanceId() };
    return this.run(selector, (light) => planSunrise(r, light), 'state', options.fast === true, { operation: 'run sunrise', capability: 'matrix' });
  }

  async sunset(selector: string, request: SkyRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    const r = { ...request, instanceId: newInstanceId() };
    return this.run(selector, (light) => planSunset(r, light), 'state', options.fast === true, { operation: 'run sunset', capability: 'matrix' });
  }

  async effectsOff(selector: string, request: { powerOff?: boolean } = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.run(selector, (light) => planEffectsOff(request, light), 'state', options.fast === true);
  }

  async clean(selector: string, request: { stop?: boolean; durationS?: number } = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.run(selector, (light) => planClean(request, light), 'none', options.fast === true, { operation: 'clean', capability: 'hev' });
  }

  /**
   * Cycle: works out where the lights are in the list (from the first light's current state) and
   * moves them all to the next entry, so a client just repeats the same request.
   */
  async cycle(selector: string, request: CycleRequest, options: WriteOptions = {}): Promise<LightResult[]> {
    const states = request?.states;
    if (!Array.isArray(states)) throw new LightwireError('PARAMETER_MISSING', { field: 'states' });
    if (states.length < CYCLE_STATES_MIN || states.length > CYCLE_STATES_MAX) {
      throw new LightwireError('PARAMETER_INVALID', { field: 'states', reason: `must hold ${CYCLE_STATES_MIN} to ${CYCLE_STATES_MAX} states` });
    }
    const direction = request.direction ?? 'forward';
    if (direction !== 'forward' && direction !== 'backward') {
      throw new LightwireError('PARAMETER_INVALID', { field: 'direction', reason: 'must be "forward" or "backward"' });
    }
    const merged = states.map((s) => ({ ...request.defaults, ...s }));
    const changes = merged.map((s, i) => this.stateChange(s, `states[${i}]`));
    const targets = this.resolve(selector);
    const first = targets.find((t) => t.light.online) ?? targets[0]!;
    if (options.fast !== true && first.light.online) await this.client.refreshState(first.light.serial, this.deadlineMs);
    const record = this.client.registry.get(first.light.serial);
    const current = record ? this.viewOf(record) : first.light;
    const index = nextCycleState(changes, current, direction);
    return this.apply(targets, changes[index]!, options.fast === true);
  }
}
