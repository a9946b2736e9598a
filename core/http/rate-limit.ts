// Rate limits (https://api.developer.lifx.com/docs/rate-limits): a fixed 60-second window per caller (per
// token; per client address when the request has no valid token), and the three X-RateLimit-* headers on every
// answer, errors included.
//
// Without a configured limit nothing is refused: a local API has no reason to copy the cloud's 120 per
// minute (polling integrations hit it). The headers are still sent, because clients read them as numbers
// (the R package `lifx` does), and they report UNENFORCED_LIMIT so a client that waits whenever Remaining
// reaches 0 never waits.

import { LightwireError } from '../index.js';

export const WINDOW_MS = 60_000;
/** What X-RateLimit-Limit reports when no limit is enforced. */
export const UNENFORCED_LIMIT = 1_000_000;
/** Windows are dropped once they expire; the table is swept when it grows past this many callers. */
const SWEEP_ABOVE = 4096;

export type RateLimitHeaders = Readonly<Record<'x-ratelimit-limit' | 'x-ratelimit-remaining' | 'x-ratelimit-reset', string>>;

export interface RateDecision {
  readonly headers: RateLimitHeaders;
  /** RATE_LIMITED when this request is over an enforced limit. */
  readonly error: LightwireError<'RATE_LIMITED'> | null;
  /** Seconds until the window resets (Retry-After). */
  readonly retryAfterS: number;
}

interface Window {
  startMs: number;
  count: number;
}

export interface RateLimiterOptions {
  /** Requests per 60 s per caller; null = count and report, never refuse. */
  readonly limit?: number | null;
  readonly now?: () => number;
}

export class RateLimiter {
  readonly limit: number | null;
  private readonly now: () => number;
  private readonly windows = new Map<string, Window>();

  constructor(options: RateLimiterOptions = {}) {
    const limit = options.limit ?? null;
    if (limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > UNENFORCED_LIMIT)) {
      throw new LightwireError('OPTIONS_INVALID', { option: 'rateLimit', reason: `must be an integer from 1 to ${UNENFORCED_LIMIT} requests per minute` });
    }
    this.limit = limit;
    this.now = options.now ?? Date.now;
  }

  /** Counts one request of `caller` and says whether it may proceed. */
  take(caller: string): RateDecision {
    const now = this.now();
    let w = this.windows.get(caller);
    if (w === undefined || now - w.startMs >= WINDOW_MS) {
      if (w === undefined && this.windows.size >= SWEEP_ABOVE) this.sweep(now);
      w = { startMs: now, count: 0 };
      this.windows.set(caller, w);
    }
    w.count++;
    const limit = this.limit ?? UNENFORCED_LIMIT;
    const resetMs = w.startMs + WINDOW_MS;
    const resetS = Math.ceil(resetMs / 1000);
    const headers: RateLimitHeaders = {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(0, limit - w.count)),
      'x-ratelimit-reset': String(resetS),
    };
    const retryAfterS = Math.max(1, Math.ceil((resetMs - now) / 1000));
    const over = this.limit !== null && w.count > this.limit;
    return {
      headers,
      error: over ? new LightwireError('RATE_LIMITED', { limit, windowS: WINDOW_MS / 1000, resetS }) : null,
      retryAfterS,
    };
  }

  /** How many callers have a live window (tests, and a bound on memory). */
  get callers(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    for (const [caller, w] of this.windows) if (now - w.startMs >= WINDOW_MS) this.windows.delete(caller);
  }
}
