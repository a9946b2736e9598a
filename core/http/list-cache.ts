// List Lights from a warm cache (no discovery per request). Building
// 100 light records costs far more than sending them, and pollers ask for the same selector again and again,
// so the serialised answer is kept per raw selector until something could have changed it:
// * any event of the service's lights (a light added, changed, gone offline or back): cleared at once;
// * any write through this API: cleared once it has run;
// * otherwise at most TTL_MS, which bounds how stale the silent fields are (last_seen, seconds_since_seen,
//   both second-resolution).
// `:random` selectors and `scene_id:` selectors (whose scenes may change) are never cached.

import type { LightService } from '../index.js';

export const LIST_CACHE_TTL_MS = 500;
const MAX_ENTRIES = 64;

export class ListCache {
  private readonly entries = new Map<string, { readonly body: string; readonly atMs: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = LIST_CACHE_TTL_MS,
  ) {}

  /** Whether answers for this raw (still percent-encoded) selector may be cached. */
  static cacheable(rawSelector: string): boolean {
    let text: string;
    try {
      text = decodeURIComponent(rawSelector).toLowerCase();
    } catch {
      return false;
    }
    return !text.includes('random') && !text.includes('scene_id');
  }

  get(rawSelector: string): string | undefined {
    const entry = this.entries.get(rawSelector);
    if (entry === undefined) return undefined;
    if (this.now() - entry.atMs >= this.ttlMs) {
      this.entries.delete(rawSelector);
      return undefined;
    }
    return entry.body;
  }

  set(rawSelector: string, body: string): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(rawSelector, { body, atMs: this.now() });
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

const LIGHT_EVENTS = ['added', 'changed', 'offline', 'online'] as const;

/**
 * Calls `onChange` on every event of the service's lights (added, changed, offline, online); returns what stops it.
 * An object without events (a test double of the v1 API) is followed by nothing: its answers age out by TTL_MS.
 */
export function followLightEvents(service: object, onChange: () => void): () => void {
  const events = service as Partial<Pick<LightService, 'on' | 'off'>>;
  if (typeof events.on !== 'function' || typeof events.off !== 'function') return () => undefined;
  const on = events.on.bind(service);
  const off = events.off.bind(service);
  for (const event of LIGHT_EVENTS) on(event, onChange);
  return () => {
    for (const event of LIGHT_EVENTS) off(event, onChange);
  };
}
