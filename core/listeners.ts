// Telling the host's own event listeners, so that none of them can hurt the library or the host process.

import type { EventEmitter } from 'node:events';
import { listenerFailed, type LightwireError } from './errors.js';

/**
 * Calls every listener of `event` in turn, as emit() does, but each on its own: one that throws, or returns a promise
 * that rejects, is handed to `failed` as LISTENER_FAILED, and the listeners after it are still called. No error of a
 * listener reaches the code that emitted (a read, a write) or goes unhandled.
 */
export function tellListeners(emitter: EventEmitter, event: string, args: readonly unknown[], failed: (err: LightwireError<'LISTENER_FAILED'>) => void): void {
  // rawListeners: a once() listener is its wrapper, which removes it when called.
  for (const listener of emitter.rawListeners(event) as ((...a: unknown[]) => unknown)[]) {
    try {
      const result = listener.apply(emitter, args as unknown[]);
      if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') {
        (result as PromiseLike<unknown>).then(undefined, (err: unknown) => failed(listenerFailed(event, err)));
      }
    } catch (err) {
      failed(listenerFailed(event, err));
    }
  }
}

/**
 * Background trouble, told as `'error'` to whoever listens; with nobody listening (an `'error'` event would throw), or
 * an `'error'` listener that throws itself, a process warning reaches the host's log instead.
 */
export function reportError(emitter: EventEmitter, err: Error): void {
  if (emitter.listenerCount('error') > 0) {
    try {
      emitter.emit('error', err);
      return;
    } catch (thrown) {
      err = listenerFailed('error', thrown);
    }
  }
  process.emitWarning(`lightwire: ${err.message}`, { code: 'LIGHTWIRE_BACKGROUND_ERROR' });
}

/**
 * An async listener's rejection, as Node hands it over (captureRejections, [Symbol.for('nodejs.rejection')]). One of an
 * 'error' listener goes to the log: told as 'error' again, it could reject again, without end.
 */
export function reportRejection(emitter: EventEmitter, err: unknown, event: string | symbol): void {
  const failed = listenerFailed(String(event), err);
  if (event === 'error') process.emitWarning(`lightwire: ${failed.message}`, { code: 'LIGHTWIRE_BACKGROUND_ERROR' });
  else reportError(emitter, failed);
}
