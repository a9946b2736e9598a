// The local scene store: scenes captured from lights, kept in one JSON file that other processes may share.
// The cloud keeps scenes for its users; a local server needs its own store. This file is the store: the scenes in
// memory, the queue of changes and their events; the file on disk (stamp, read, atomic write) is scene-disk.ts.

import * as path from 'node:path';
import { fsPromises, nodeCrypto } from '../builtins.js';
import { LightwireError } from '../errors.js';
import type { FileStamp, SceneStoreFs } from './scene-disk.js';
import {
  compareScenes,
  errorText,
  Invalid,
  isRecord,
  LOCAL_ACCOUNT_UUID,
  makeScene,
  parameterInvalid,
  sceneNameProblem,
  stateOfLight,
  UUID_RE,
  type Scene,
  type SceneState,
} from './scene-file.js';
import { pictureOfLight, picturesOf, sceneRecord, withPictures, type LightPicture, type SceneEffect } from './scene-picture.js';
import type { LightView } from './types.js';

/**
 * scene-disk.ts, loaded by the first scene file opened: the store is part of the library's root, scene files are
 * not on every path, and every module loaded costs heap in every process (its source, its functions).
 */
const disk = (): typeof import('./scene-disk.js') => require('./scene-disk.js') as typeof import('./scene-disk.js');

const SERIAL_RE = /^[0-9a-f]{12}$/i;

/** The parts of node:fs/promises the store uses (declared with the file's code, scene-disk.ts). */
export type { SceneStoreFs } from './scene-disk.js';

export interface SceneWatchOptions {
  /** How often the file is looked at; SCENE_FILE_CHECK_MS by default. */
  readonly intervalMs?: number;
  /** Told when the file cannot be followed (SCENE_STORE_FAILED), once until that clears; the log option by default. */
  readonly onError?: (err: LightwireError) => void;
}

/** How often watch() looks at the scene file for changes made by other processes. */
export const SCENE_FILE_CHECK_MS = 2000;

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

function checkName(name: unknown): string {
  const problem = sceneNameProblem(name);
  if (problem !== null) throw parameterInvalid('name', problem);
  return (name as string).trim();
}

function checkUuid(uuid: unknown, field: string): string {
  if (typeof uuid !== 'string' || !UUID_RE.test(uuid)) throw parameterInvalid(field, 'must be a UUID');
  return uuid.toLowerCase();
}

/**
 * Writes are atomic (temp file in the same directory, fsync, rename over the target, fsync of the
 * directory) and serialised through one promise chain, so concurrent changes all land in order.
 * The file is the truth, also for other processes that share it (Homebridge, Node-RED, the CLI): a change first
 * re-reads a file that changed on disk since this store last read or wrote it, so nobody's scenes are written over,
 * and watch() follows such changes while nothing is changed here.
 * A file that is not JSON or does not validate is renamed to `<file>.corrupt-<epoch ms>` and reported
 * (`problem` + the log callback); the store then starts empty and never writes over the bad bytes.
 */
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
    const stamp = await disk().stampOfFile(o.fs, target);
    if (stamp === null) return new SceneStore(target, o, new Map(), null, null);
    const scenes = await disk().readScenes(o.fs, target);
    if (!(scenes instanceof Invalid)) return new SceneStore(target, o, scenes, null, stamp);
    const movedTo = o.readOnly ? null : await disk().moveAside(o.fs, target, scenes.message, o.now());
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
   * Names are unique in the store: a name used by another scene is PARAMETER_INVALID. A strip's zones and a matrix
   * light's pixels (as its view holds them) and `effects` (by serial: what each light reported running) are kept as
   * the light's picture (scene-picture.ts), beside the state List Scenes shows.
   */
  async capture(name: string, lights: readonly LightView[], options?: { uuid?: string; effects?: ReadonlyMap<string, SceneEffect> }): Promise<Scene> {
    const trimmed = checkName(name);
    if (!Array.isArray(lights) || lights.length === 0) throw parameterInvalid('lights', 'must list at least one light');
    const seen = new Set<string>();
    const states: SceneState[] = [];
    const pictures: (LightPicture | undefined)[] = [];
    lights.forEach((light, i) => {
      const raw: unknown = light;
      if (!isRecord(raw) || typeof raw.serial !== 'string' || !SERIAL_RE.test(raw.serial)) {
        throw parameterInvalid(`lights[${i}]`, 'must be a light view with a 12-hex-digit serial');
      }
      const state = stateOfLight(light);
      if (seen.has(state.selector)) return;
      seen.add(state.selector);
      states.push(state);
      pictures.push(pictureOfLight(light, options?.effects?.get(light.serial.toLowerCase())));
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
      const scene = withPictures(
        makeScene({
          uuid: existing?.uuid ?? requested ?? nodeCrypto().randomUUID(),
          name: trimmed,
          account: { uuid: this.options.accountUuid },
          states,
          created_at: existing?.created_at ?? nowS,
          updated_at: nowS,
        }),
        pictures,
      );
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
      const renamed = withPictures(makeScene({ ...scene, name: trimmed, updated_at: this.nowS() }), picturesOf(scene));
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
        this.seen = await disk().writeScenes(this.options.fs, this.filePath, next);
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
    const stamp = await disk().stampOfFile(this.options.fs, this.filePath);
    if (disk().sameStamp(stamp, this.seen)) return false;
    const next = stamp === null ? new Map<string, Scene>() : await disk().readScenes(this.options.fs, this.filePath);
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
}

function withScene(scenes: ReadonlyMap<string, Scene>, scene: Scene): Map<string, Scene> {
  const next = new Map(scenes);
  next.set(scene.uuid, scene);
  return next;
}

/** The same scenes, value for value (a file re-read after a touch changes nothing). */
function sameScenes(a: ReadonlyMap<string, Scene>, b: ReadonlyMap<string, Scene>): boolean {
  if (a.size !== b.size) return false;
  for (const [uuid, scene] of a) {
    const other = b.get(uuid);
    if (other === undefined || JSON.stringify(sceneRecord(other)) !== JSON.stringify(sceneRecord(scene))) return false;
  }
  return true;
}
