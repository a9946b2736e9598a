// The soak benchmark's load: a weighted mix of LIFX HTTP API v1 requests at a steady rate, over keep-alive
// connections, with latencies and answers kept per route.

import http from 'node:http';

export interface RouteContext {
  readonly serials: readonly string[];
  readonly groups: readonly string[];
  readonly sceneId: string;
  readonly random: () => number;
}

export interface Route {
  readonly name: string;
  readonly weight: number;
  request(c: RouteContext): { method: 'GET' | 'PUT' | 'POST'; path: string; body?: Record<string, unknown> };
}

const pick = <T>(list: readonly T[], random: () => number): T => list[Math.floor(random() * list.length)]!;
const light = (c: RouteContext): string => `id:${pick(c.serials, c.random)}`;
const group = (c: RouteContext): string => `group:${encodeURIComponent(pick(c.groups, c.random))}`;
const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** list, set state, fast set, toggle, effects and scenes (issue 12 §5), weighted like a busy household's automations. */
export const ROUTES: readonly Route[] = [
  { name: 'list all', weight: 14, request: () => ({ method: 'GET', path: '/lights/all' }) },
  { name: 'list group', weight: 5, request: (c) => ({ method: 'GET', path: `/lights/${group(c)}` }) },
  { name: 'list one', weight: 5, request: (c) => ({ method: 'GET', path: `/lights/${light(c)}` }) },
  {
    name: 'set state',
    weight: 20,
    request: (c) => ({
      method: 'PUT',
      path: `/lights/${light(c)}/state`,
      body: { power: 'on', color: `hue:${Math.floor(c.random() * 360)} saturation:${round3(c.random())}`, brightness: round3(0.2 + 0.8 * c.random()), duration: 0.5 },
    }),
  },
  { name: 'set group', weight: 3, request: (c) => ({ method: 'PUT', path: `/lights/${group(c)}/state`, body: { brightness: round3(0.3 + 0.7 * c.random()), duration: 1 } }) },
  {
    name: 'fast set',
    weight: 10,
    request: (c) => ({ method: 'PUT', path: `/lights/${light(c)}/state`, body: { color: `kelvin:${2500 + 100 * Math.floor(c.random() * 40)}`, fast: true } }),
  },
  { name: 'fast set all', weight: 2, request: (c) => ({ method: 'PUT', path: '/lights/all/state', body: { brightness: round3(0.4 + 0.6 * c.random()), fast: true } }) },
  { name: 'toggle', weight: 10, request: (c) => ({ method: 'POST', path: `/lights/${light(c)}/toggle`, body: { duration: 0 } }) },
  { name: 'pulse', weight: 5, request: (c) => ({ method: 'POST', path: `/lights/${light(c)}/effects/pulse`, body: { color: 'red', period: 0.5, cycles: 2 } }) },
  { name: 'breathe', weight: 4, request: (c) => ({ method: 'POST', path: `/lights/${light(c)}/effects/breathe`, body: { color: 'blue', period: 1, cycles: 1 } }) },
  { name: 'effects off', weight: 3, request: (c) => ({ method: 'POST', path: `/lights/${light(c)}/effects/off`, body: {} }) },
  { name: 'list scenes', weight: 4, request: () => ({ method: 'GET', path: '/scenes' }) },
  { name: 'activate scene', weight: 2, request: (c) => ({ method: 'PUT', path: `/scenes/scene_id:${c.sceneId}/activate`, body: { duration: 1 } }) },
];

export interface RouteStats {
  count: number;
  /** HTTP status >= 400, or no answer (socket error, timeout). */
  errors: number;
  readonly statuses: Map<number, number>;
  /** Per-light results of the 207 answers. */
  readonly results: { ok: number; timed_out: number; offline: number };
  readonly latenciesMs: number[];
}

export function emptyStats(): RouteStats {
  return { count: 0, errors: 0, statuses: new Map(), results: { ok: 0, timed_out: 0, offline: 0 }, latenciesMs: [] };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** One HTTP request over the agent; resolves with its status and body (never rejects: status 0 on failure). */
export function call(agent: http.Agent, base: URL, method: string, path: string, body: unknown, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method,
        path: `${base.pathname}${path}`,
        headers: payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', () => resolve({ status: 0, text: '' }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, text: '' }));
    req.end(payload);
  });
}

/** Counts the per-light results of a 207 answer (Set State, effects, toggle, scene activation). */
export function countResults(stats: RouteStats, text: string): void {
  try {
    const body = JSON.parse(text) as { results?: { status?: string }[] };
    for (const r of body.results ?? []) {
      if (r.status === 'ok' || r.status === 'timed_out' || r.status === 'offline') stats.results[r.status]++;
    }
  } catch {
    // Not JSON: the status already says what happened.
  }
}
