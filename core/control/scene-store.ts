// The local scene store: scenes captured from lights, kept in one JSON file, listed in the HTTP API's
// shape (List Scenes) and turned into per-light requests on activation (Activate Scene). The cloud keeps
// scenes for its users; a local server needs its own store.
//
// File format: `{ "version": 1, "scenes": [Scene, ...] }`, scenes in list order, pretty-printed.
// Writes are atomic (temp file in the same directory, fsync, rename over the target, fsync of the
// directory) and serialised through one promise chain, so concurrent changes all land in order.
// The file is the truth, also for other processes that share it (Homebridge, Node-RED, the CLI): a change first
// re-reads a file that changed on disk since this store last read or wrote it, so nobody's scenes are written over,
// and watch() follows such changes while nothing is changed here.
// A file that is not JSON or does not validate is renamed to `<file>.corrupt-<epoch ms>` and reported
// (`problem` + the log callback); the store then starts empty and never writes over the bad bytes.

import * as path from 'node:path';
import { fsPromises, nodeCrypto } from '../builtins.js';
import { LightwireError, quoted } from '../errors.js';
import { DEFAULT_DURATION_S, DURATION_MAX_S, KELVIN_MAX, KELVIN_MIN, type PowerState } from '../protocol/index.js';
import type { LightView, PartialHsbk } from './types.js';

// ---- the API shape (List Scenes) ----

export interface SceneColor {
  /** Degrees, 0-360. */
  readonly hue: number;
  /** 0-1. */
  readonly saturation: number;
  /** Integer, 1500-9000 (the colour-string range). */
  readonly kelvin: number;
}

/**
 * One light's part of a scene, keys as the API emits them. `selector` plus any of `power`,
 * `brightness` (0-1) and `color`. Two extensions, both optional and both named by the
 * activation's `ignore` list: `infrared` (0-1; captured from lights with infrared, whose IR
 * level is part of what a scene restores) and `duration` (seconds; never captured, honoured when a
 * hand-written or imported file carries it, and overridden by the activation's duration).
 */
export interface SceneState {
  readonly brightness?: number;
  readonly color?: SceneColor;
  readonly duration?: number;
  readonly infrared?: number;
  readonly power?: PowerState;
  readonly selector: string;
}

/** A scene as `GET /scenes` lists it; timestamps are Unix seconds. */
export interface Scene {
  readonly uuid: string;
  readonly name: string;
  readonly account: { readonly uuid: string };
  readonly states: readonly SceneState[];
  readonly created_at: number;
  readonly updated_at: number;
}

export const SCENE_FILE_VERSION = 1;
export const SCENE_NAME_MAX_CHARS = 64;
/** Owner of captured scenes when no account is configured: there is no cloud account locally. */
export const LOCAL_ACCOUNT_UUID = '00000000-0000-0000-0000-000000000000';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SERIAL_RE = /^[0-9a-f]{12}$/i;

// ---- validation shared by the file loader and the public methods ----

class Invalid extends Error {}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkKeys(value: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(value)) {
    // Unknown keys are rejected rather than dropped: the next write would otherwise lose them silently.
    if (!allowed.includes(key)) throw new Invalid(`${where} has an unknown key ${quoted(key)}`);
  }
}

function inRange(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;
}

function checkNumber(value: unknown, min: number, max: number, where: string): number {
  if (!inRange(value, min, max)) throw new Invalid(`${where} must be a number from ${min} to ${max}`);
  return value;
}

/** Trimmed, 1-64 characters (code points); returns the reason it is not, or the name. */
/** Why `name` cannot name a scene, or null when it can (checked again by capture and rename). */
export function sceneNameProblem(name: unknown): string | null {
  if (typeof name !== 'string') return 'must be a string';
  const trimmed = name.trim();
  if (trimmed.length === 0) return 'must not be empty';
  if ([...trimmed].length > SCENE_NAME_MAX_CHARS) return `must be at most ${SCENE_NAME_MAX_CHARS} characters`;
  return null;
}

function parseState(raw: unknown, where: string): SceneState {
  if (!isRecord(raw)) throw new Invalid(`${where} must be an object`);
  checkKeys(raw, ['selector', 'power', 'brightness', 'color', 'infrared', 'duration'], where);
  if (typeof raw.selector !== 'string' || raw.selector.trim() === '') {
    throw new Invalid(`${where}.selector must be a non-empty string`);
  }
  const state: Mutable<SceneState> = { selector: raw.selector };
  if (raw.brightness !== undefined) state.brightness = checkNumber(raw.brightness, 0, 1, `${where}.brightness`);
  if (raw.color !== undefined) {
    const c = raw.color;
    if (!isRecord(c)) throw new Invalid(`${where}.color must be an object`);
    // Some cloud scene payloads carry the brightness inside the colour (LIFX's kit reads it): taken as the state's
    // brightness unless it has its own, which wins as it does in Set State.
    checkKeys(c, ['hue', 'saturation', 'kelvin', 'brightness'], `${where}.color`);
    const kelvin = checkNumber(c.kelvin, KELVIN_MIN, KELVIN_MAX, `${where}.color.kelvin`);
    if (!Number.isInteger(kelvin)) throw new Invalid(`${where}.color.kelvin must be an integer`);
    state.color = Object.freeze({
      hue: checkNumber(c.hue, 0, 360, `${where}.color.hue`),
      saturation: checkNumber(c.saturation, 0, 1, `${where}.color.saturation`),
      kelvin,
    });
    if (c.brightness !== undefined) {
      const inColor = checkNumber(c.brightness, 0, 1, `${where}.color.brightness`);
      state.brightness ??= inColor;
    }
  }
  if (raw.duration !== undefined) state.duration = checkNumber(raw.duration, 0, DURATION_MAX_S, `${where}.duration`);
  if (raw.infrared !== undefined) state.infrared = checkNumber(raw.infrared, 0, 1, `${where}.infrared`);
  if (raw.power !== undefined) {
    if (raw.power !== 'on' && raw.power !== 'off') throw new Invalid(`${where}.power must be "on" or "off"`);
    state.power = raw.power;
  }
  return freezeState(state);
}

/** Keys in the order the API's examples print them (alphabetical inside a state). */
function freezeState(s: SceneState): SceneState {
  const out = {} as Mutable<SceneState>;
  if (s.brightness !== undefined) out.brightness = s.brightness;
  if (s.color !== undefined) out.color = s.color;
  if (s.duration !== undefined) out.duration = s.duration;
  if (s.infrared !== undefined) out.infrared = s.infrared;
  if (s.power !== undefined) out.power = s.power;
  out.selector = s.selector;
  return Object.freeze(out);
}

function checkTimestamp(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new Invalid(`${where} must be a non-negative integer (Unix seconds)`);
  }
  return value;
}

function parseScene(raw: unknown, where: string): Scene {
  if (!isRecord(raw)) throw new Invalid(`${where} must be an object`);
  checkKeys(raw, ['uuid', 'name', 'account', 'states', 'created_at', 'updated_at'], where);
  if (typeof raw.uuid !== 'string' || !UUID_RE.test(raw.uuid)) throw new Invalid(`${where}.uuid must be a UUID`);
  const problem = sceneNameProblem(raw.name);
  if (problem !== null) throw new Invalid(`${where}.name ${problem}`);
  if (!isRecord(raw.account)) throw new Invalid(`${where}.account must be an object`);
  checkKeys(raw.account, ['uuid'], `${where}.account`);
  if (typeof raw.account.uuid !== 'string' || !UUID_RE.test(raw.account.uuid)) {
    throw new Invalid(`${where}.account.uuid must be a UUID`);
  }
  if (!Array.isArray(raw.states)) throw new Invalid(`${where}.states must be an array`);
  const states = raw.states.map((s, i) => parseState(s, `${where}.states[${i}]`));
  return makeScene({
    uuid: raw.uuid.toLowerCase(),
    name: (raw.name as string).trim(),
    account: { uuid: raw.account.uuid.toLowerCase() },
    states,
    created_at: checkTimestamp(raw.created_at, `${where}.created_at`),
    updated_at: checkTimestamp(raw.updated_at, `${where}.updated_at`),
  });
}

function parseFile(text: string): Map<string, Scene> {
  let doc: unknown;
  try {
    // A byte-order mark (Windows editors write one) is not part of the JSON.
    doc = JSON.parse(text.startsWith('\uFEFF') ? text.slice(1) : text);
  } catch (err) {
    throw new Invalid(`not JSON: ${errorText(err)}`);
  }
  if (!isRecord(doc)) throw new Invalid('the top level must be an object');
  checkKeys(doc, ['version', 'scenes'], 'the top level');
  if (doc.version !== SCENE_FILE_VERSION) {
    throw new Invalid(`version must be ${SCENE_FILE_VERSION}, not ${quoted(doc.version)}`);
  }
  if (!Array.isArray(doc.scenes)) throw new Invalid('scenes must be an array');
  const scenes = new Map<string, Scene>();
  doc.scenes.forEach((raw, i) => {
    const scene = parseScene(raw, `scenes[${i}]`);
    if (scenes.has(scene.uuid)) throw new Invalid(`scenes[${i}].uuid ${scene.uuid} is used twice`);
    scenes.set(scene.uuid, scene);
  });
  return scenes;
}

function makeScene(s: Scene): Scene {
  return Object.freeze({
    uuid: s.uuid,
    name: s.name,
    account: Object.freeze({ uuid: s.account.uuid }),
    states: Object.freeze([...s.states]),
    created_at: s.created_at,
    updated_at: s.updated_at,
  });
}

/** Binary (code unit) order: the same on every machine, whatever its locale. */
function compareScenes(a: Scene, b: Scene): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0;
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code !== undefined && !err.message.startsWith(code) ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

/** One state per light from what the view holds now. Zones of multizone lights are not part of the API's scene shape. */
function stateOfLight(light: LightView): SceneState {
  const state: Mutable<SceneState> = { selector: `id:${light.serial.toLowerCase()}` };
  if (light.power !== null) state.power = light.power;
  if (light.color !== null) {
    // Readings come from u16 wire values; clamp so that what capture writes always loads again.
    state.brightness = clamp(light.color.brightness, 0, 1);
    state.color = Object.freeze({
      hue: clamp(light.color.hue, 0, 360),
      saturation: clamp(light.color.saturation, 0, 1),
      kelvin: clamp(Math.round(light.color.kelvin), KELVIN_MIN, KELVIN_MAX),
    });
  }
  if (light.capabilities.infrared && light.infrared !== null) state.infrared = clamp(light.infrared, 0, 1);
  return freezeState(state);
}

// ---- the store ----

/** The parts of node:fs/promises the store uses; tests pass one that fails on purpose. */
export type SceneStoreFs = Pick<typeof import('node:fs/promises'), 'readFile' | 'open' | 'rename' | 'unlink' | 'mkdir' | 'lstat' | 'stat'>;

export interface SceneWatchOptions {
  /** How often the file is looked at; SCENE_FILE_CHECK_MS by default. */
  readonly intervalMs?: number;
  /** Told when the file cannot be followed (SCENE_STORE_FAILED), once until that clears; the log option by default. */
  readonly onError?: (err: LightwireError) => void;
}

/** How often watch() looks at the scene file for changes made by other processes. */
export const SCENE_FILE_CHECK_MS = 2000;

/** What the file was when the store last read or wrote it: another process's write changes at least one of these. */
interface FileStamp {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

function stampOf(stats: { readonly ino: number; readonly size: number; readonly mtimeMs: number }): FileStamp {
  return { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs };
}

function sameStamp(a: FileStamp | null, b: FileStamp | null): boolean {
  return a === b || (a !== null && b !== null && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs);
}

export interface SceneStoreOptions {
  /** Owner written into captured scenes (`account.uuid`); default LOCAL_ACCOUNT_UUID. */
  readonly accountUuid?: string;
  /** Epoch milliseconds, like Date.now (the default). Scenes store whole Unix seconds. */
  readonly now?: () => number;
  /** Told about a corrupt file that was moved aside (or, read-only, left as it was). */
  readonly log?: (message: string) => void;
  /**
   * For a reader that never changes scenes (a command that lists or activates them): a corrupt file is reported and
   * left where it is, and every change is refused (SCENE_STORE_FAILED).
   */
  readonly readOnly?: boolean;
  /** File system to use; node:fs/promises by default. */
  readonly fs?: SceneStoreFs;
}

interface ResolvedOptions {
  readonly accountUuid: string;
  readonly readOnly: boolean;
  readonly now: () => number;
  readonly log: (message: string) => void;
  readonly fs: SceneStoreFs;
}

function optionsInvalid(option: string, reason: string): LightwireError<'OPTIONS_INVALID'> {
  return new LightwireError('OPTIONS_INVALID', { option, reason });
}

function resolveOptions(filePath: unknown, options: SceneStoreOptions | undefined): ResolvedOptions {
  if (typeof filePath !== 'string' || filePath.trim() === '') throw optionsInvalid('filePath', 'must be a non-empty path');
  const o: Record<string, unknown> = options === undefined ? {} : (options as unknown as Record<string, unknown>);
  if (!isRecord(o)) throw optionsInvalid('options', 'must be an object');
  const accountUuid = o.accountUuid ?? LOCAL_ACCOUNT_UUID;
  if (typeof accountUuid !== 'string' || !UUID_RE.test(accountUuid)) throw optionsInvalid('accountUuid', 'must be a UUID');
  for (const key of ['now', 'log'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'function') throw optionsInvalid(key, 'must be a function');
  }
  if (o.fs !== undefined && !isRecord(o.fs)) throw optionsInvalid('fs', 'must be an object');
  if (o.readOnly !== undefined && typeof o.readOnly !== 'boolean') throw optionsInvalid('readOnly', 'must be true or false');
  return Object.freeze({
    accountUuid: accountUuid.toLowerCase(),
    readOnly: o.readOnly === true,
    now: (o.now as (() => number) | undefined) ?? Date.now,
    log: (o.log as ((message: string) => void) | undefined) ?? (() => {}),
    fs: (o.fs as SceneStoreFs | undefined) ?? fsPromises(),
  });
}

function parameterInvalid(field: string, reason: string): LightwireError<'PARAMETER_INVALID'> {
  return new LightwireError('PARAMETER_INVALID', { field, reason });
}

function checkName(name: unknown): string {
  const problem = sceneNameProblem(name);
  if (problem !== null) throw parameterInvalid('name', problem);
  return (name as string).trim();
}

function checkUuid(uuid: unknown, field: string): string {
  if (typeof uuid !== 'string' || !UUID_RE.test(uuid)) throw parameterInvalid(field, 'must be a UUID');
  return uuid.toLowerCase();
}

export class SceneStore {
  /** Absolute path of the scene file. */
  readonly filePath: string;
  /** Set when the file was corrupt at open (and moved aside, unless read-only); null otherwise. */
  readonly problem: LightwireError<'SCENE_STORE_CORRUPT'> | null;

  private readonly options: ResolvedOptions;
  private scenes: ReadonlyMap<string, Scene>;
  /** The file as this store last read or wrote it; null when there was none. */
  private seen: FileStamp | null;
  /** Every change (and every re-read) runs after the previous one has been written (or has failed). */
  private queue: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<(scenes: Scene[]) => void>();
  private watchers = 0;
  private watchTimer: ReturnType<typeof setInterval> | undefined;
  /** The last trouble watch() logged, so a file left broken is said once, not every few seconds. */
  private watchProblem: string | undefined;

  private constructor(
    filePath: string,
    options: ResolvedOptions,
    scenes: ReadonlyMap<string, Scene>,
    problem: LightwireError<'SCENE_STORE_CORRUPT'> | null,
    seen: FileStamp | null,
  ) {
    this.filePath = filePath;
    this.options = options;
    this.scenes = scenes;
    this.problem = problem;
    this.seen = seen;
  }

  /**
   * Loads the store. Missing file: empty store (the file and its directories are created on the first
   * write). Invalid file: moved aside (left as it is when read-only), reported, empty store. Unreadable file, or
   * an invalid one that cannot be moved aside: rejects with SCENE_STORE_FAILED (the bad file must not be
   * overwritten later).
   */
  static async open(filePath: string, options?: SceneStoreOptions): Promise<SceneStore> {
    const o = resolveOptions(filePath, options);
    const target = path.resolve(filePath);
    const stamp = await stampOfFile(o, target);
    if (stamp === null) return new SceneStore(target, o, new Map(), null, null);
    const scenes = await readScenes(o, target);
    if (!(scenes instanceof Invalid)) return new SceneStore(target, o, scenes, null, stamp);
    const movedTo = o.readOnly ? null : await moveAside(o, target, scenes.message);
    const problem = new LightwireError('SCENE_STORE_CORRUPT', { path: target, movedTo, reason: scenes.message });
    o.log(problem.message);
    // Moved aside, there is no file now; left where it is (read-only), it is what this store has seen.
    return new SceneStore(target, o, new Map(), problem, movedTo === null ? stamp : null);
  }

  /**
   * Re-reads the file if another process changed it (or removed it: no scenes then) since this store last read or
   * wrote it, and resolves true when the scenes changed. A file that is not valid now is SCENE_STORE_FAILED and
   * changes nothing, in memory or on disk: whoever is editing it by hand gets to finish.
   */
  reload(): Promise<boolean> {
    return this.inQueue(() => this.follow());
  }

  /**
   * Follows the file while nothing changes here: every `intervalMs` (SCENE_FILE_CHECK_MS by default) it is re-read
   * if it changed on disk, and onChange listeners hear of new scenes. Trouble (SCENE_STORE_FAILED: a file left
   * invalid) goes to `onError`, by default the log option, once until it clears. The timer does not keep the process
   * alive. Only the first watch() call's interval and onError are used while it runs. Returns the function that stops
   * watching (each watch() call its own; the file is checked while any is left).
   */
  watch(options: SceneWatchOptions = {}): () => void {
    if (!isRecord(options)) throw optionsInvalid('options', 'must be an object');
    const intervalMs = options.intervalMs ?? SCENE_FILE_CHECK_MS;
    if (typeof intervalMs !== 'number' || !Number.isFinite(intervalMs) || intervalMs < 10) {
      throw optionsInvalid('intervalMs', 'must be a number of milliseconds, 10 or more');
    }
    if (options.onError !== undefined && typeof options.onError !== 'function') throw optionsInvalid('onError', 'must be a function');
    const onError = options.onError ?? ((err: LightwireError) => this.options.log(err.message));
    this.watchers++;
    if (this.watchTimer === undefined) {
      this.watchTimer = setInterval(() => {
        this.reload().then(
          () => (this.watchProblem = undefined),
          (err: unknown) => {
            const coded = err instanceof LightwireError ? err : new LightwireError('SCENE_STORE_FAILED', { path: this.filePath, reason: errorText(err) });
            if (coded.message !== this.watchProblem) onError(coded);
            this.watchProblem = coded.message;
          },
        );
      }, intervalMs);
      this.watchTimer.unref?.();
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      if (--this.watchers > 0 || this.watchTimer === undefined) return;
      clearInterval(this.watchTimer);
      this.watchTimer = undefined;
    };
  }

  /**
   * Calls `listener` with the whole list (list()'s order) after the scenes changed: a change made here, or one read
   * from the file (reload(), watch()). A listener that throws is ignored. Returns the function that removes it.
   */
  onChange(listener: (scenes: Scene[]) => void): () => void {
    if (typeof listener !== 'function') throw optionsInvalid('listener', 'must be a function');
    const own = (scenes: Scene[]): void => listener(scenes);
    this.listeners.add(own);
    return () => void this.listeners.delete(own);
  }

  /** Every scene, by name, then uuid. */
  list(): Scene[] {
    return [...this.scenes.values()].sort(compareScenes);
  }

  /** The scene with this uuid (case-insensitive); SCENE_NOT_FOUND otherwise. */
  get(uuid: string): Scene {
    const scene = typeof uuid === 'string' ? this.scenes.get(uuid.toLowerCase()) : undefined;
    if (scene === undefined) throw new LightwireError('SCENE_NOT_FOUND', { sceneId: String(uuid) });
    return scene;
  }

  /** The selectors a scene names, for `scene_id:` selectors (types.ts SceneSelectors); undefined = no such scene. */
  readonly sceneSelectors = (sceneId: string): readonly string[] | undefined =>
    this.scenes.get(sceneId.toLowerCase())?.states.map((s) => s.selector);

  /**
   * Captures one state per light (duplicates by serial are kept once) and stores it as a scene.
   * With `uuid`: creates or replaces that scene. Without: replaces the scene of the same name, if any,
   * else creates one with a random v4 uuid. A replaced scene keeps its uuid and created_at.
   * Names are unique in the store: a name used by another scene is PARAMETER_INVALID.
   */
  async capture(name: string, lights: readonly LightView[], options?: { uuid?: string }): Promise<Scene> {
    const trimmed = checkName(name);
    if (!Array.isArray(lights) || lights.length === 0) throw parameterInvalid('lights', 'must list at least one light');
    const seen = new Set<string>();
    const states: SceneState[] = [];
    lights.forEach((light, i) => {
      const raw: unknown = light;
      if (!isRecord(raw) || typeof raw.serial !== 'string' || !SERIAL_RE.test(raw.serial)) {
        throw parameterInvalid(`lights[${i}]`, 'must be a light view with a 12-hex-digit serial');
      }
      const state = stateOfLight(light);
      if (seen.has(state.selector)) return;
      seen.add(state.selector);
      states.push(state);
    });
    if (options !== undefined && !isRecord(options)) throw parameterInvalid('options', 'must be an object');
    const requested = options?.uuid === undefined ? undefined : checkUuid(options.uuid, 'uuid');

    return this.change((scenes) => {
      const byName = [...scenes.values()].sort(compareScenes).find((s) => s.name === trimmed);
      const existing = requested !== undefined ? scenes.get(requested) : byName;
      if (byName !== undefined && byName.uuid !== existing?.uuid) {
        throw parameterInvalid('name', `is already used by scene ${byName.uuid}`);
      }
      const nowS = this.nowS();
      const scene = makeScene({
        uuid: existing?.uuid ?? requested ?? nodeCrypto().randomUUID(),
        name: trimmed,
        account: { uuid: this.options.accountUuid },
        states,
        created_at: existing?.created_at ?? nowS,
        updated_at: nowS,
      });
      return { next: withScene(scenes, scene), result: scene };
    });
  }

  /** Deletes a scene; false when there was none with this uuid (nothing is written then). */
  async remove(uuid: string): Promise<boolean> {
    const id = typeof uuid === 'string' ? uuid.toLowerCase() : '';
    return this.change((scenes) => {
      if (!scenes.has(id)) return { next: scenes, result: false };
      const next = new Map(scenes);
      next.delete(id);
      return { next, result: true };
    });
  }

  /** Renames a scene (SCENE_NOT_FOUND; PARAMETER_INVALID for a bad name or one another scene uses). */
  async rename(uuid: string, name: string): Promise<Scene> {
    const trimmed = checkName(name);
    return this.change((scenes) => {
      const scene = typeof uuid === 'string' ? scenes.get(uuid.toLowerCase()) : undefined;
      if (scene === undefined) throw new LightwireError('SCENE_NOT_FOUND', { sceneId: String(uuid) });
      if (scene.name === trimmed) return { next: scenes, result: scene };
      const other = [...scenes.values()].find((s) => s.name === trimmed);
      if (other !== undefined) throw parameterInvalid('name', `is already used by scene ${other.uuid}`);
      const renamed = makeScene({ ...scene, name: trimmed, updated_at: this.nowS() });
      return { next: withScene(scenes, renamed), result: renamed };
    });
  }

  /** Resolves once every change queued so far has been written or has failed. */
  async flush(): Promise<void> {
    await this.queue;
  }

  private nowS(): number {
    return Math.floor(this.options.now() / 1000);
  }

  /**
   * Runs `fn` on the scenes as of the previous change, writes the result, and only then makes it the
   * store's state: a failed write leaves both the file and memory as they were.
   */
  private change<T>(fn: (scenes: ReadonlyMap<string, Scene>) => { next: ReadonlyMap<string, Scene>; result: T }): Promise<T> {
    return this.inQueue(async () => {
      // Another process's scenes are kept: the change applies to the file as it is now.
      await this.follow();
      const { next, result } = fn(this.scenes);
      if (next !== this.scenes && this.options.readOnly) {
        throw new LightwireError('SCENE_STORE_FAILED', { path: this.filePath, reason: 'it was opened read-only' });
      }
      if (next !== this.scenes) {
        this.seen = await this.write(next);
        this.replace(next);
      }
      return result;
    });
  }

  private inQueue<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** In the queue: takes in what another process did to the file since this store last read or wrote it. */
  private async follow(): Promise<boolean> {
    const stamp = await stampOfFile(this.options, this.filePath);
    if (sameStamp(stamp, this.seen)) return false;
    const next = stamp === null ? new Map<string, Scene>() : await readScenes(this.options, this.filePath);
    if (next instanceof Invalid) {
      throw new LightwireError('SCENE_STORE_FAILED', {
        path: this.filePath,
        reason: `it was changed on disk and is not valid now (${next.message}); nothing is written over it until it is fixed or removed`,
      });
    }
    this.seen = stamp;
    if (sameScenes(this.scenes, next)) return false;
    this.replace(next);
    return true;
  }

  private replace(next: ReadonlyMap<string, Scene>): void {
    this.scenes = next;
    if (this.listeners.size === 0) return;
    const list = this.list();
    for (const listener of [...this.listeners]) {
      try {
        listener(list);
      } catch {
        // A listener's trouble is its own: the store and the other listeners carry on.
      }
    }
  }

  /** Writes the file atomically; resolves with what it now is on disk. */
  private async write(scenes: ReadonlyMap<string, Scene>): Promise<FileStamp> {
    const { fs } = this.options;
    const dir = path.dirname(this.filePath);
    const body = `${JSON.stringify({ version: SCENE_FILE_VERSION, scenes: [...scenes.values()].sort(compareScenes) }, null, 2)}\n`;
    const temp = path.join(dir, `.${path.basename(this.filePath)}.${process.pid}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`);
    let created = false;
    let stamp: FileStamp;
    try {
      await ensureDirectory(fs, dir);
      const handle = await fs.open(temp, 'wx', 0o644);
      created = true;
      try {
        await handle.writeFile(body, 'utf8');
        await handle.sync();
        // The temp file's own stamp: renamed, it is the scene file (the same inode), whatever else happens to the
        // path later.
        stamp = stampOf(await handle.stat());
      } finally {
        await handle.close();
      }
      await fs.rename(temp, this.filePath);
      created = false;
    } catch (err) {
      if (created) await fs.unlink(temp).catch(() => {});
      throw new LightwireError('SCENE_STORE_FAILED', { path: this.filePath, reason: `cannot write it: ${errorText(err)}` });
    }
    await syncDirectory(fs, dir);
    return stamp;
  }
}

function withScene(scenes: ReadonlyMap<string, Scene>, scene: Scene): Map<string, Scene> {
  const next = new Map(scenes);
  next.set(scene.uuid, scene);
  return next;
}

/**
 * Creates `dir` and its missing parents, one level at a time. Not mkdir({ recursive: true }): Node 24's spins for ever
 * where a parent cannot be created (a path under /proc), and the host process with it.
 */
async function ensureDirectory(fs: SceneStoreFs, dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = dir; ; ) {
    try {
      if ((await fs.stat(at)).isDirectory()) break;
      throw Object.assign(new Error(`${at} is not a directory`), { code: 'ENOTDIR' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    missing.push(at);
    const parent = path.dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const d of missing.reverse()) {
    try {
      await fs.mkdir(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** Makes the rename durable. Best effort: some platforms and file systems cannot open a directory. */
async function syncDirectory(fs: SceneStoreFs, dir: string): Promise<void> {
  try {
    const handle = await fs.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // The file itself was fsynced before the rename; the directory entry is the only thing at risk.
  }
}

function cannotRead(target: string, err: unknown): LightwireError<'SCENE_STORE_FAILED'> {
  return new LightwireError('SCENE_STORE_FAILED', { path: target, reason: `cannot read it: ${errorText(err)}` });
}

/**
 * The file's stamp; null when there is no file. Taken before the file is read, so that a write landing in between is
 * seen by the next look.
 */
async function stampOfFile(o: ResolvedOptions, target: string): Promise<FileStamp | null> {
  try {
    return stampOf(await o.fs.stat(target));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw cannotRead(target, err);
  }
}

/** The file's scenes, an Invalid when it does not parse (a file removed since its stamp was taken has none). */
async function readScenes(o: ResolvedOptions, target: string): Promise<Map<string, Scene> | Invalid> {
  let text: string;
  try {
    text = await o.fs.readFile(target, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw cannotRead(target, err);
  }
  try {
    return parseFile(text);
  } catch (err) {
    if (!(err instanceof Invalid)) throw err;
    return err;
  }
}

/** The same scenes, value for value (a file re-read after a touch changes nothing). */
function sameScenes(a: ReadonlyMap<string, Scene>, b: ReadonlyMap<string, Scene>): boolean {
  if (a.size !== b.size) return false;
  for (const [uuid, scene] of a) {
    const other = b.get(uuid);
    if (other === undefined || JSON.stringify(other) !== JSON.stringify(scene)) return false;
  }
  return true;
}

/** Renames a corrupt file to `<file>.corrupt-<epoch ms>[-n]`, never over an existing file. */
async function moveAside(o: ResolvedOptions, target: string, reason: string): Promise<string> {
  const base = `${target}.corrupt-${Math.floor(o.now())}`;
  try {
    for (let n = 1; ; n += 1) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      const taken = await o.fs.lstat(candidate).then(
        () => true,
        (err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return false;
          throw err;
        },
      );
      if (taken) continue;
      await o.fs.rename(target, candidate);
      return candidate;
    }
  } catch (err) {
    throw new LightwireError('SCENE_STORE_FAILED', {
      path: target,
      reason: `it is not valid (${reason}) and cannot be moved aside: ${errorText(err)}`,
    });
  }
}

// ---- activation (Activate Scene) ----

export const SCENE_IGNORE_KEYS = Object.freeze([
  'power',
  'infrared',
  'duration',
  'intensity',
  'hue',
  'saturation',
  'brightness',
  'kelvin',
] as const);
export type SceneIgnoreKey = (typeof SCENE_IGNORE_KEYS)[number];

/** A Set State hash applied to every state of the scene (Activate Scene's `overrides`), in user units. */
export interface SceneOverrides {
  readonly power?: PowerState;
  /** A colour string; parsed by whoever sends the request. */
  readonly color?: string;
  readonly brightness?: number;
  readonly infrared?: number;
  readonly durationS?: number;
}

export interface SceneActivation {
  /** The activation's `duration` (seconds); overrides the scene's stored durations. */
  readonly durationS?: number;
  /** Properties of the scene to leave unapplied (Activate Scene's `ignore`). */
  readonly ignore?: readonly string[];
  readonly overrides?: SceneOverrides;
}

/**
 * The request for one selector of a scene. `color` is what is left of the stored colour after `ignore`;
 * `colorString` replaces it entirely when the overrides carry a colour (exactly one of the two, or
 * neither). As in Set State, `brightness` overrides any brightness inside the colour.
 */
export interface SceneStateChange {
  readonly selector: string;
  readonly power?: PowerState;
  readonly color?: PartialHsbk;
  readonly colorString?: string;
  readonly brightness?: number;
  readonly infrared?: number;
  readonly durationS: number;
}

function checkActivation(activate: SceneActivation): ReadonlySet<SceneIgnoreKey> {
  if (!isRecord(activate)) throw parameterInvalid('activation', 'must be an object');
  if (activate.durationS !== undefined && !inRange(activate.durationS, 0, DURATION_MAX_S)) {
    throw parameterInvalid('duration', `must be a number from 0 to ${DURATION_MAX_S}`);
  }
  const ignore = new Set<SceneIgnoreKey>();
  if (activate.ignore !== undefined) {
    if (!Array.isArray(activate.ignore)) throw parameterInvalid('ignore', 'must be an array');
    for (const key of activate.ignore) {
      if (!(SCENE_IGNORE_KEYS as readonly unknown[]).includes(key)) {
        throw parameterInvalid('ignore', `${quoted(key)} is not one of ${SCENE_IGNORE_KEYS.join(', ')}`);
      }
      ignore.add(key as SceneIgnoreKey);
    }
  }
  const o = activate.overrides;
  if (o !== undefined) {
    if (!isRecord(o)) throw parameterInvalid('overrides', 'must be an object');
    if (o.power !== undefined && o.power !== 'on' && o.power !== 'off') {
      throw parameterInvalid('overrides.power', 'must be "on" or "off"');
    }
    if (o.color !== undefined && (typeof o.color !== 'string' || o.color.trim() === '')) {
      throw parameterInvalid('overrides.color', 'must be a non-empty colour string');
    }
    if (o.brightness !== undefined && !inRange(o.brightness, 0, 1)) {
      throw parameterInvalid('overrides.brightness', 'must be a number from 0 to 1');
    }
    if (o.infrared !== undefined && !inRange(o.infrared, 0, 1)) {
      throw parameterInvalid('overrides.infrared', 'must be a number from 0 to 1');
    }
    if (o.durationS !== undefined && !inRange(o.durationS, 0, DURATION_MAX_S)) {
      throw parameterInvalid('overrides.duration', `must be a number from 0 to ${DURATION_MAX_S}`);
    }
  }
  return ignore;
}

/**
 * What to send to one selector when activating a scene. Pure. Order of precedence:
 * 1. `ignore` removes the scene's own values: power, infrared, duration, hue, saturation, kelvin,
 *    brightness (`intensity` is the same as `brightness`).
 * 2. `overrides` then replace values property by property and always apply, ignored or not — they are
 *    the caller's explicit request. A colour string replaces hue, saturation and kelvin entirely; the
 *    scene's separate `brightness` stays unless ignored or overridden.
 * 3. durationS = overrides.durationS, else the activation's durationS, else the state's stored
 *    `duration` (unless ignored), else 1 s (Set State's default).
 * Throws PARAMETER_INVALID for an unknown ignore key or an out-of-range value.
 */
export function sceneStateToChange(state: SceneState, activate: SceneActivation = {}): SceneStateChange {
  const ignore = checkActivation(activate);
  const o = activate.overrides ?? {};
  const out: Mutable<SceneStateChange> = { selector: state.selector, durationS: 0 };

  const power = o.power ?? (ignore.has('power') ? undefined : state.power);
  if (power !== undefined) out.power = power;

  if (o.color !== undefined) {
    out.colorString = o.color;
  } else if (state.color !== undefined) {
    const color: Mutable<PartialHsbk> = {};
    if (!ignore.has('hue')) color.hue = state.color.hue;
    if (!ignore.has('saturation')) color.saturation = state.color.saturation;
    if (!ignore.has('kelvin')) color.kelvin = state.color.kelvin;
    if (Object.keys(color).length > 0) out.color = Object.freeze(color);
  }

  const brightnessIgnored = ignore.has('brightness') || ignore.has('intensity');
  const brightness = o.brightness ?? (brightnessIgnored ? undefined : state.brightness);
  if (brightness !== undefined) out.brightness = brightness;

  const infrared = o.infrared ?? (ignore.has('infrared') ? undefined : state.infrared);
  if (infrared !== undefined) out.infrared = infrared;

  out.durationS =
    o.durationS ?? activate.durationS ?? (ignore.has('duration') ? undefined : state.duration) ?? DEFAULT_DURATION_S;
  return Object.freeze(out);
}
