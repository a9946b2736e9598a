// The small status under each node: the config node's health ("5 lights, 1 offline") until a node has done
// something, then its last outcome ("3 ok, 1 timed out") or its last error code.

import { allOk, LightwireError, type LightResult } from '../core/index.js';
import type { Health } from './connection.js';

export interface NodeStatus {
  readonly fill: 'red' | 'green' | 'yellow' | 'blue' | 'grey';
  readonly shape: 'dot' | 'ring';
  readonly text: string;
}

const STATUS_WORDS: Readonly<Record<LightResult['status'], string>> = Object.freeze({
  ok: 'ok',
  timed_out: 'timed out',
  offline: 'offline',
});

/** "3 ok, 1 timed out": counts per status, in the order ok, timed out, offline. */
export function resultsText(results: readonly LightResult[]): string {
  if (results.length === 0) return 'no lights';
  const counts = new Map<LightResult['status'], number>();
  for (const r of results) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  return (Object.keys(STATUS_WORDS) as LightResult['status'][])
    .filter((s) => counts.has(s))
    .map((s) => `${counts.get(s)} ${STATUS_WORDS[s]}`)
    .join(', ');
}

export function resultsStatus(results: readonly LightResult[]): NodeStatus {
  const ok = results.filter((r) => r.status === 'ok').length;
  const fill = allOk(results) ? 'green' : ok > 0 ? 'yellow' : 'red';
  return { fill, shape: fill === 'green' ? 'dot' : 'ring', text: resultsText(results) };
}

export function errorCode(err: unknown): string {
  if (err instanceof LightwireError) return err.code;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'error';
}

export function errorStatus(err: unknown): NodeStatus {
  return { fill: 'red', shape: 'ring', text: errorCode(err) };
}

export function healthText(health: Health): string {
  switch (health.state) {
    case 'idle':
      return 'idle';
    case 'starting':
      return 'starting';
    case 'failed':
      return `failed: ${health.error ? errorCode(health.error) : 'error'}`;
    default: {
      // The lights work without the HTTP endpoint; that it did not start stays in sight, not only in the log.
      const http = health.httpError ? `, HTTP failed: ${errorCode(health.httpError)}` : '';
      if (health.lights === 0) return `${health.state === 'searching' ? 'searching' : 'no lights found'}${http}`;
      const lights = `${health.lights} light${health.lights === 1 ? '' : 's'}`;
      return `${health.offline > 0 ? `${lights}, ${health.offline} offline` : lights}${http}`;
    }
  }
}

export function healthStatus(health: Health): NodeStatus {
  const text = healthText(health);
  switch (health.state) {
    case 'failed':
      return { fill: 'red', shape: 'ring', text };
    case 'idle':
    case 'starting':
      return { fill: 'grey', shape: 'ring', text };
    default:
      if (health.lights === 0) return { fill: 'yellow', shape: 'ring', text };
      return { fill: health.offline > 0 || health.httpError ? 'yellow' : 'green', shape: 'dot', text };
  }
}
