// A service call HomeKit waits on, answered within the response timeout whatever the LAN does.

import { allOk, type LightResult } from '../core/index.js';

/**
 * Runs `work` and resolves once every light it names confirmed; rejects with `failure()` (HAP's "No Response") when
 * one did not, when it failed (`onError` hears why), or when `timeoutMs` passed first.
 */
export function bounded(work: () => Promise<LightResult[]>, timeoutMs: number, failure: () => Error, onError: (err: Error) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(failure()), timeoutMs);
    Promise.resolve()
      .then(work)
      .then(
        (results) => {
          if (allOk(results)) resolve();
          else reject(failure());
        },
        (err: unknown) => {
          onError(err as Error);
          reject(failure());
        },
      )
      .finally(() => clearTimeout(timer));
  });
}
