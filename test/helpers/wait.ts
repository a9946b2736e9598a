// Waiting in tests: on a condition, with a bound, never on a clock alone.
// `until` polls what the test checks (a pacer's idle state, a count of received datagrams, the fleet's own state)
// and fails naming what it waited for, so a changed pacing or refresh constant shows up as a clear failure, not a
// flaky assertion after a fixed sleep. `quietFor` is for negative windows only ("nothing arrives within N ms"):
// every call names, in a comment beside it, the constant its window outlasts.

export interface UntilOptions {
  /**
   * What the test waits for, in words (or made when the wait fails, to show the state seen): the failure reads
   * "timed out after N ms waiting for <what>". Without it the condition's own source text names it.
   */
  readonly what?: string | (() => string);
  /** The bound: the condition must hold within this (default 5000 ms, a quarter of mocha's 20 s test timeout). */
  readonly timeoutMs?: number;
  /** How often the condition is polled (default 5 ms). */
  readonly everyMs?: number;
}

export const UNTIL_TIMEOUT_MS = 5000;
const UNTIL_EVERY_MS = 5;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the condition's value once it is truthy; rejects after `timeoutMs` with a message naming `what`. */
export async function until<T>(condition: () => T | Promise<T>, options: UntilOptions = {}): Promise<NonNullable<T>> {
  const timeoutMs = options.timeoutMs ?? UNTIL_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${describe(options.what, condition)}`);
    await pause(options.everyMs ?? UNTIL_EVERY_MS);
  }
}

function describe(what: UntilOptions['what'], condition: () => unknown): string {
  if (typeof what === 'function') return what();
  return what ?? condition.toString().replace(/\s+/g, ' ');
}

/**
 * Lets the event loop go round `count` times (setImmediate runs after each poll phase): I/O already delivered to a
 * socket on this machine, and callbacks it triggers synchronously, have run. A barrier, not a clock.
 */
export async function turns(count = 2): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * A negative window: lets `ms` pass so the test can then assert that nothing happened in it. Use only for that,
 * with a comment naming the constant the window outlasts; anything positive waits with `until`.
 */
export function quietFor(ms: number): Promise<void> {
  return pause(ms);
}
