// The light service: the one API that the HTTP endpoint, the Node-RED nodes, the Homebridge platform and
// the CLI call, so a HomeKit slider, a flow and `PUT /v1/lights/:selector/state` behave identically.
// Requests arrive in user units (seconds, 0-1, colour strings) and are checked here, once (requests.ts). Its rooms:
// options (service-options.ts), the book of lights and its events (light-book.ts), the writes (writes.ts) and
// renaming (naming.ts), scenes (scene-room.ts); this file is its lifecycle and its public API.

import { EventEmitter } from 'node:events';
import { MAX_TIMER_MS } from '../builtins.js';
import type { LightClient } from '../discovery/client.js';
import { DEFAULT_DURATION_S, DURATION_MAX_S } from '../protocol/index.js';
import { LightwireError } from '../errors.js';
import { loadProductsFile } from '../discovery/products-file.js';
import { ServiceDoctor } from '../doctor/service-doctor.js';
import type { DoctorReport } from '../doctor/report.js';
import { inTurn } from '../in-turn.js';
import { reportError, reportRejection, tellListeners } from '../listeners.js';
import { CYCLE_STATES_MAX, CYCLE_STATES_MIN, MAX_STATES, OPERATIONS, type RenameOperationName, type SelectorOperationName } from './catalogue.js';
import { validateColor, type ValidatedColor } from './colors.js';
import { Executor } from './executor.js';
import { LightBook, isRead } from './light-book.js';
import { isChecked, parseRequest, parseStateChange, type Checked, type CheckedChange, type RequestOf, type SetStateRequest } from './requests.js';
import type { SceneActivation } from './scene-activation.js';
import { captureScene } from './scene-capture.js';
import type { Scene } from './scene-file.js';
import { SceneRoom } from './scene-room.js';
import type { SceneStore } from './scene-store.js';
import { parseSelectors, resolveSelectors } from './selectors.js';
import { partsOf, partView, type PartDef, type PartView } from './parts.js';
import { FIRST_ROUND_MS, serviceSettings, type LightServiceOptions } from './service-options.js';
import type { CheckOptions, HeardDevice, LightServiceEvents, ServiceDiagnostics, SetStatesOperation, SetStatesResult, ToggleRequest, WriteOptions } from './service-types.js';
import type { LightResult, LightView, RelayState, ResolvedLight } from './types.js';
import { v1Light, type V1Light } from './views.js';
import { Writes } from './writes.js';
import { addOperationMethods, type OperationMethods } from './operation-methods.js';


export { DURATION_MAX_S, DEFAULT_DURATION_S, MAX_STATES, CYCLE_STATES_MIN, CYCLE_STATES_MAX };
export type { ColorInput, SetStateRequest } from './requests.js';
export { FIRST_ROUND_MS, DEFAULT_READY_TIMEOUT_MS, DEFAULT_DEADLINE_MS, type LightServiceOptions } from './service-options.js';
export type * from './service-types.js';

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
  private readonly userParts: ReadonlyMap<string, readonly PartDef[]>; // service option `parts` (parts.ts)
  /** The scene file, opened by start() and followed while running. */
  private readonly sceneRoom: SceneRoom;
  /** Every light as a view, and which are known: told to this service's listeners. */
  private readonly book: LightBook;
  /** The writes of the catalogue, planned and run. */
  private readonly writes: Writes;
  private running = false;
  /** Stops correcting out-of-date group and location names (naming.ts), from start() to stop(). */
  private unwatchNames: (() => void) | undefined;
  private startedClient = false;
  /** A products.json to read at the first start() (option `products`); undefined once read or tried. */
  private productsFile: string | undefined;
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
    const settings = serviceSettings(clientOrOptions, legacy);
    this.client = settings.client;
    this.executor = new Executor(this.client);
    this.deadlineMs = settings.deadlineMs;
    this.freshStateMs = settings.freshStateMs;
    this.readyTimeoutMs = settings.readyTimeoutMs;
    this.expectLights = settings.expectLights;
    this.defaultDurationS = settings.defaultDurationS;
    this.random = settings.random;
    this.userParts = settings.parts;
    this.productsFile = settings.productsFile;
    this.sceneRoom = new SceneRoom(settings.scenesFile, settings.sceneStore, (err) => this.backgroundError(err));
    this.ready = new Promise((resolve) => {
      this.resolveReady = resolve;
    });
    this.writes = new Writes({
      executor: this.executor,
      deadlineMs: this.deadlineMs,
      freshStateMs: this.freshStateMs,
      defaultDurationS: this.defaultDurationS,
      resolve: (selector) => this.resolveAmong(selector, this.book.viewsToWrite()),
      light: (serial) => this.book.light(serial),
      stateChange: (request, prefix) => this.stateChange(request, prefix),
      reread: async (serial) => {
        await this.client.refreshState(serial, this.deadlineMs);
        return this.book.light(serial);
      },
      client: this.client,
      views: () => this.book.views(),
      error: (err) => this.backgroundError(err),
    });
    this.book = new LightBook(this.client, {
      announce: (event, ...args) => this.announce(event, ...args),
      wantsChanges: () => this.listenerCount('changed') > 0,
      error: (err) => this.backgroundError(err),
      described: () => this.checkReady(),
    });
  }

  /** Builds a service and starts it (does not wait for `ready`). */
  static async start(options: LightServiceOptions = {}): Promise<LightService> {
    const service = new LightService(options);
    await service.start();
    return service;
  }

  get started(): boolean { return this.running; }

  /** Where scenes live, once opened. */
  get scenes(): SceneStore | undefined { return this.sceneRoom.scenes; }

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
    await this.sceneRoom.open();
    await this.openProducts();
    if (!this.client.started) {
      await this.client.start();
      this.startedClient = true;
    }
    this.running = true;
    this.unwatchNames ??= this.writes.naming.watch();
    this.doctorOf();
    this.sceneRoom.follow((scenes) => tellListeners(this as EventEmitter, 'scenes', [scenes], (err) => this.backgroundError(err)));
    this.book.adoptKnown();
    this.readyTimer = setTimeout(() => this.markReady(), this.readyTimeoutMs);
    this.firstRoundTimer = setTimeout(() => {
      this.firstRoundTimer = undefined;
      this.firstRoundOver = true;
      this.checkReady();
    }, FIRST_ROUND_MS);
  }

  /**
   * Reads the products file (once) before any light is read. One that cannot be used costs the newer products, not
   * the lights: it is reported (PRODUCTS_FILE_INVALID) and the registry the client had stays in use.
   */
  private async openProducts(): Promise<void> {
    const file = this.productsFile;
    if (file === undefined) return;
    this.productsFile = undefined;
    try {
      this.client.useProducts(await loadProductsFile(file, this.client.products));
    } catch (err) {
      if (!(err instanceof LightwireError)) throw err;
      this.backgroundError(err);
    }
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
    this.unwatchNames?.();
    this.unwatchNames = undefined;
    if (this.readyTimer !== undefined) clearTimeout(this.readyTimer);
    if (this.firstRoundTimer !== undefined) clearTimeout(this.firstRoundTimer);
    this.readyTimer = undefined;
    this.firstRoundTimer = undefined;
    this.markReady();
    if (!this.running) return;
    this.running = false;
    this.sceneRoom.stop();
    if (this.startedClient) await this.client.stop();
    this.startedClient = false;
  }

  /** Removes the service's listeners from its client (for a client that lives on after the service). */
  detachClient(): void {
    this.book.close();
    this.unwatchNames?.();
    this.unwatchNames = undefined;
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
    if (this.book.known >= this.expectLights) return this.markReady();
    if (this.firstRoundOver && this.client.describing === 0 && this.book.pendingFirstReads() === 0) this.markReady();
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

  private backgroundError(err: Error): void {
    reportError(this as EventEmitter, err);
  }

  /** One light, O(1): from the cache while its record is unchanged; undefined when unknown or never read. */
  light(serial: string): LightView | undefined {
    return this.book.light(serial);
  }

  /** Every known light, in serial order: a light never read is left out (only what was read is shown). */
  views(): LightView[] {
    return this.book.views();
  }

  /**
   * Reads one device's state now (a light's colour, power and zones; a LIFX Switch's power and relays), answered
   * within `timeoutMs` (default: the service's deadline); then its view (undefined when unknown or never read). A
   * read that goes unanswered counts as a miss, as a background read's does.
   */
  async refreshLight(serial: string, options: { readonly timeoutMs?: number } = {}): Promise<LightView | undefined> {
    const timeoutMs = options.timeoutMs ?? this.deadlineMs;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMER_MS) {
      throw new LightwireError('PARAMETER_INVALID', { field: 'timeoutMs', reason: `must be an integer from 1 to ${MAX_TIMER_MS} (ms)` });
    }
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

  /** The lights a selector names (SELECTOR_INVALID, SELECTOR_TOO_MANY, LIGHTS_NOT_FOUND, PART_UNKNOWN), taken as written. */
  resolve(selector: string): ResolvedLight[] {
    return this.resolveAmong(selector, this.views());
  }

  /** resolve() among these views (views(), or the book's views to plan a write from). */
  private resolveAmong(selector: string, views: readonly LightView[]): ResolvedLight[] {
    // Selectors name lights: a LIFX Switch (no light at all) is in views() and has relays(), but no light state.
    return resolveSelectors(parseSelectors(selector, { percentDecode: false }), views.filter((v) => v.capabilities.isLight), {
      random: this.random, partsOf: (light) => partsOf(light, this.userParts), ...(this.scenes ? { sceneSelectors: this.scenes.sceneSelectors } : {}),
    });
  }

  /** A light's parts (its product's and the user's, parts.ts) as they show now; [] for a light without parts or unknown. */
  parts(serial: string): PartView[] {
    const light = typeof serial === 'string' ? this.light(serial.toLowerCase()) : undefined;
    return light === undefined ? [] : partsOf(light, this.userParts).map((part) => partView(light, part));
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
    return this.writes.perform(name, selector, checked, options.fast === true, options.latestWins === true);
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
    return this.writes.apply([{ light: view, zones: null }], change, options.fast === true, options.latestWins === true);
  }

  /** Set States: at most 50 operations, each merged over `defaults`. */
  async setStates(operations: readonly SetStatesOperation[], defaults: SetStateRequest = {}, options: WriteOptions = {}): Promise<SetStatesResult[]> {
    return this.writes.setStates(operations, defaults, options.fast === true);
  }

  /** Toggle Power: any light on -> all off, else all on. Results carry the new power. */
  async toggle(selector: string, request: ToggleRequest = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    return this.perform('toggle', selector, request, options);
  }

  // ---- LIFX Switch relays (https://lan.developer.lifx.com/docs/the-lifx-switch) ----

  /** The relays of a LIFX Switch, read now: `[{ index, on }]` by index. */
  async relays(serial: string): Promise<RelayState[]> {
    return this.writes.relays(serial);
  }

  /** Switches relay `relayIndex` (0-3) of a LIFX Switch on or off; one result, as every write. */
  async setRelayPower(serial: string, relayIndex: number, on: boolean, options: WriteOptions = {}): Promise<LightResult> {
    return this.writes.setRelayPower(serial, relayIndex, on, options.fast === true);
  }

  // ---- scenes (List Scenes, Activate Scene) ----

  /** List Scenes. */
  listScenes(): Scene[] {
    return this.sceneRoom.list();
  }

  /** Captures what the lights a selector names show as a scene (replacing one of the same name): states and pictures. */
  async captureScene(name: string, selector = 'all'): Promise<Scene> {
    // Read afresh, with each strip's zones, each matrix light's pixels and the effect it runs (scene-capture.ts).
    return captureScene(this.sceneRoom.forCapture(), name, selector, { client: this.client, deadlineMs: this.deadlineMs, resolve: (s) => this.resolve(s) });
  }

  /** A scene by its uuid, or by its name (names are unique: capturing a name again replaces that scene). */
  findScene(uuidOrName: string): Scene {
    return this.sceneRoom.find(uuidOrName);
  }

  /**
   * Activate Scene (by uuid or by name): each stored state becomes a Set State on its selector, zones, pixels and
   * effect with it where captured (scene-restore.ts); `duration`, `ignore`, `overrides`.
   */
  async activateScene(sceneId: string, activation: SceneActivation | Checked<'activateScene'> = {}, options: WriteOptions = {}): Promise<LightResult[]> {
    await this.sceneRoom.reload();
    const checked = isChecked(activation) ? (activation as Checked<'activateScene'>) : this.check('activateScene', activation);
    return this.writes.activateScene(this.findScene(sceneId), checked, options.fast === true);
  }

  // ---- renaming (https://lan.developer.lifx.com/docs/changing-a-device): naming.ts ----

  /** One light's label (1 to 32 bytes of UTF-8; SELECTOR_NOT_ONE_LIGHT when the selector names more lights). */
  setLabel(selector: string, label: string): Promise<LightResult[]> {
    return this.perform('setLabel', selector, { label });
  }

  /** Moves lights to the group of that name, made with a fresh id when no group has it. */
  setGroup(selector: string, group: string): Promise<LightResult[]> {
    return this.perform('setGroup', selector, { group });
  }

  /** Moves lights to the location of that name, made with a fresh id when no location has it. */
  setLocation(selector: string, location: string): Promise<LightResult[]> {
    return this.perform('setLocation', selector, { location });
  }

  /** Renames every group named `from` (any case) to `to`: every online member, one updated_at. */
  renameGroup(from: string, to: string): Promise<LightResult[]> {
    return this.rename('renameGroup', { from, to });
  }

  /** Renames every location named `from` (any case) to `to`: every online member, one updated_at. */
  renameLocation(from: string, to: string): Promise<LightResult[]> {
    return this.rename('renameLocation', { from, to });
  }

  /** Renames a group or location (`renameGroup`, `renameLocation`): every online member, one updated_at. */
  async rename<N extends RenameOperationName>(name: N, request: RequestOf<N> | Checked<N>): Promise<LightResult[]> {
    const checked = isChecked(request) ? (request as Checked<N>) : this.check(name, request);
    return this.writes.naming.rename(OPERATIONS[name].naming.kind, checked as unknown as Checked<RenameOperationName>);
  }
}

// State Delta, the effects, Clean, Cycle, Paint Pixels, Paint Theme: `service.breathe(selector, request, options)` and
// the like, one per operation of operation-methods.ts, each `perform` by the catalogue's name.
export interface LightService extends OperationMethods {}
addOperationMethods(LightService.prototype as unknown as Parameters<typeof addOperationMethods>[0]);
