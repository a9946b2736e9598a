// The service's scenes: the scene file it opens (a file that cannot be opened disables scenes, not the lights, and
// every scene operation answers with why), followed while the service runs (other processes share it), and a scene
// found by uuid or by name. Activation plans each stored state as a Set State (scene-activation.ts).

import { LightwireError } from '../errors.js';
import type { Scene } from './scene-file.js';
import { SceneStore } from './scene-store.js';

export class SceneRoom {
  private store: SceneStore | undefined;
  /** Why the scene file could not be opened (open()): scene operations fail with it. */
  private failure: LightwireError | undefined;
  /** Stops following the scene file and its changes (set while following). */
  private unfollow: (() => void) | undefined;

  constructor(
    private readonly file: string | undefined,
    store: SceneStore | undefined,
    /** Background trouble: a file moved aside, a file that cannot be opened or read. */
    private readonly onError: (err: Error) => void,
  ) {
    this.store = store;
  }

  /** Where scenes live, once opened. */
  get scenes(): SceneStore | undefined {
    return this.store;
  }

  /** Opens the scene file once (if one is configured). */
  async open(): Promise<void> {
    if (this.file === undefined || this.store !== undefined || this.failure !== undefined) return;
    try {
      this.store = await SceneStore.open(this.file);
      // A file that did not parse was moved aside (the store starts empty): said once, with its code.
      if (this.store.problem !== null) this.onError(this.store.problem);
    } catch (err) {
      // A scene file that cannot be opened (a folder, no permission) disables scenes, not the lights: it is
      // reported now, and every scene operation answers with it.
      if (!(err instanceof LightwireError)) throw err;
      this.failure = err;
      this.onError(err);
    }
  }

  /** Follows the scene file (changes made by other processes sharing it); `tell` gets every new list. */
  follow(tell: (scenes: readonly Scene[]) => void): void {
    const store = this.store;
    if (store === undefined || this.unfollow !== undefined) return;
    const unwatch = store.watch({ onError: this.onError });
    const off = store.onChange(tell);
    this.unfollow = () => {
      unwatch();
      off();
    };
  }

  stop(): void {
    this.unfollow?.();
    this.unfollow = undefined;
  }

  /** List Scenes. */
  list(): Scene[] {
    return this.store ? this.store.list() : [];
  }

  /** The store a capture writes to: OPTIONS_INVALID without a scene file, or why it could not be opened. */
  forCapture(): SceneStore {
    if (this.failure) throw this.failure;
    if (!this.store) throw new LightwireError('OPTIONS_INVALID', { option: 'scenes', reason: 'no scene file is configured' });
    return this.store;
  }

  /** Reads the file again if it changed (a scene another process captured a moment ago is found). */
  async reload(): Promise<void> {
    // A file left invalid keeps the scenes as they were (the watch reports it).
    if (this.failure === undefined) await this.store?.reload().catch(() => false);
  }

  /** A scene by its uuid, or by its name (names are unique: capturing a name again replaces that scene). */
  find(uuidOrName: string): Scene {
    if (this.failure) throw this.failure;
    if (!this.store) throw new LightwireError('SCENE_NOT_FOUND', { sceneId: uuidOrName });
    const store = this.store;
    try {
      return store.get(uuidOrName);
    } catch (err) {
      const named = store.list().find((s) => s.name === uuidOrName);
      if (named === undefined) throw err;
      return named;
    }
  }
}
