// The light service's background errors (its `error` event) in the Homebridge log: each message at most once per
// ERROR_LOG_INTERVAL_MS, said as the user's trouble it is (the scenes file, the products file, else the network).

import type { Logging } from 'homebridge';
import { LightwireError } from '../core/index.js';

/** The same background error is logged at most once in this period. */
export const ERROR_LOG_INTERVAL_MS = 60_000;

export class BackgroundErrors {
  private readonly logged = new Map<string, number>();

  constructor(
    private readonly log: Logging,
    private readonly now: () => number,
  ) {}

  report(err: Error): void {
    const now = this.now();
    const last = this.logged.get(err.message);
    if (last !== undefined && now - last < ERROR_LOG_INTERVAL_MS) return;
    this.logged.set(err.message, now);
    // The scene file's trouble is the config's scenes.file (the lights go on without scenes), not the network's.
    const scenes = err instanceof LightwireError && err.code.startsWith('SCENE_STORE_');
    // So is the products file's (discovery.productsFile): the lights go on with the bundled products.
    const products = err instanceof LightwireError && err.code === 'PRODUCTS_FILE_INVALID';
    this.log.warn(
      scenes
        ? `Scenes (scenes.file): ${err.message}; the lights work without scenes.`
        : products
          ? `Products (discovery.productsFile): ${err.code}: ${err.message}`
          : `Network: ${err.message}`,
    );
  }
}
