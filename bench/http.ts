// HTTP API v1 benchmark (npm run bench:http): autocannon against, in the same run,
//   bare   a bare Fastify route that returns a fixed 100-light body (the ceiling: routing + serialisation),
//   string the same route sending the body pre-serialised (the floor of any cache),
//   list   GET /v1/lights/all through the whole plugin (auth hook, rate limit, selector, List Lights cache),
//   build  the same with the cache off: every request builds the 100 records (service.list) and serialises them,
//   fast   PUT /v1/lights/all/state with fast=true (validation, planning, 100 lights' datagrams queued, 202),
//   flood  the same at a fixed 1,000 requests/s (--rate), each request with a brightness of its own: requests/s
//          achieved, p99, whether every light ends in the last requested state and how long after the last request
//          (fleet clock), and the most messages one light received in any second (counted by the fleet),
// with 100 virtual lights. Three processes, so the load generator does not share a core with what it measures:
// this one (autocannon), a server child (both Fastify servers, the client and the service) and a fleet child
// (the virtual lights). Targets: list at least 50 % of bare's requests per second; flood sustains the rate with p99
// under 10 ms, every light in the last requested state within 200 ms of the last request, no light over 20 messages
// in any second. Prints a table; --json FILE writes the figures for docs/PERFORMANCE.md (bench/report.ts).
//
// Network rule (packets never leave this machine): everything is on 127.0.0.1 and 127.255.255.255; the npm script runs it inside
// `unshare --net` so nothing could leave the machine even by mistake, and this file refuses to run outside one
// unless LIGHTWIRE_BENCH_ANY_NET=1.
//
// Options: --duration S (default 5 per scenario), --connections N (default 10), --lights N (default 100),
// --rate R (flood, default 1000 requests/s), --reps K (flood runs, default 3), --json FILE, --profile DIR (the
// server's CPU profile of each flood run).

import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { machine, type BenchResult, type Point } from './lib/figures.js';

interface Options {
  readonly durationS: number;
  readonly connections: number;
  readonly lights: number;
  readonly rate: number;
  readonly reps: number;
  readonly json: string | undefined;
  readonly profile: string | undefined;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  duration: number;
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}

type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

/**
 * The children (server, fleet) run this file compiled (bench/tsconfig.json), with plain node, like the published
 * package: no TypeScript loader in the measured process (tsx's keepNames wraps every closure it creates).
 */
const COMPILED_SELF = path.resolve(__dirname, '..', 'node_modules', '.cache', 'lightwire-bench', 'bench', 'http.js');

function options(): Options {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((a) => !a.startsWith('--role=')),
    options: {
      duration: { type: 'string' },
      connections: { type: 'string' },
      lights: { type: 'string' },
      rate: { type: 'string' },
      reps: { type: 'string' },
      json: { type: 'string' },
      profile: { type: 'string' },
    },
  });
  const int = (text: string | undefined, fallback: number, min: number, max: number, name: string): number => {
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be an integer from ${min} to ${max}`);
    return n;
  };
  return {
    durationS: int(values.duration, 5, 1, 600, 'duration'),
    connections: int(values.connections, 10, 1, 1000, 'connections'),
    lights: int(values.lights, 100, 1, 1000, 'lights'),
    rate: int(values.rate, 1000, 1, 100_000, 'rate'),
    reps: int(values.reps, 3, 1, 50, 'reps'),
    json: values.json,
    profile: values.profile,
  };
}

const epochNow = (): number => performance.timeOrigin + performance.now();

/** The flood's i-th brightness: 0.2-0.8, never the same twice in a row. */
function floodBrightness(i: number): number {
  return Math.round(200 + ((i * 37) % 600)) / 1000;
}

function role(): string {
  return process.argv.find((a) => a.startsWith('--role='))?.slice('--role='.length) ?? 'main';
}

function onlyLoopback(): boolean {
  return Object.values(os.networkInterfaces()).every((infos) => (infos ?? []).every((i) => i.internal));
}

/** Starts this file in another role and waits for its first message. */
function child<T>(name: string, extra: Record<string, string> = {}): Promise<{ proc: ChildProcess; ready: T }> {
  const proc = fork(COMPILED_SELF, [`--role=${name}`, ...process.argv.slice(2)], {
    execArgv: [],
    env: { ...process.env, ...extra },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    proc.once('message', (ready) => resolve({ proc, ready: ready as T }));
    proc.once('exit', (code) => reject(new Error(`${name} child exited with ${code}`)));
  });
}

// ---- the fleet child: the virtual lights ----

type FleetAsk = { type: 'clear' } | { type: 'check'; brightness: number; lastRequestAtEpochMs: number };

export interface FloodCheck {
  /** Lights on and at the last requested brightness. */
  readonly matched: number;
  readonly lights: number;
  readonly examples: readonly string[];
  /** The latest moment a light changed (power or brightness), ms after the last request was accepted. */
  readonly settledMs: number;
  /** Most messages one light received in any sliding second since the flood began (unicast and broadcast). */
  readonly maxMessagesPerSecond: number;
}

async function fleetRole(o: Options): Promise<void> {
  const { Fleet, defaultFleet } = await import('../core/simulator/index.js');
  const { guardLoopbackSends } = await import('./lib/net-guard.js');
  guardLoopbackSends();
  const fleet = new Fleet(defaultFleet(o.lights), { port: 0, recordLimit: 1 });
  await fleet.start();
  // When each light last changed what the flood changes (power, brightness): checked after every Set it receives.
  const changedAt = new Map<string, number>();
  for (const light of fleet.lights) {
    const receive = light.receive.bind(light);
    light.receive = (packet, from, datagram) => {
      const before = light.state;
      receive(packet, from, datagram);
      if (packet.name === null || !packet.name.startsWith('Set')) return;
      const after = light.state;
      if (after.power !== before.power || after.color.brightness !== before.color.brightness) changedAt.set(light.serial, epochNow());
    };
  }
  process.on('message', (m: FleetAsk) => {
    if (m.type === 'clear') {
      fleet.clearRecords();
      changedAt.clear();
      process.send!({ type: 'cleared' });
      return;
    }
    const examples: string[] = [];
    let matched = 0;
    let settledAt = m.lastRequestAtEpochMs;
    for (const light of fleet.lights) {
      const s = light.state;
      const ok = s.power === 'on' && Math.abs(s.color.brightness - m.brightness) < 0.002;
      if (ok) matched++;
      else if (examples.length < 3) examples.push(`${light.serial}: ${s.power}, brightness ${s.color.brightness.toFixed(3)} (asked ${m.brightness})`);
      settledAt = Math.max(settledAt, changedAt.get(light.serial) ?? 0);
    }
    const check: FloodCheck = {
      matched,
      lights: fleet.lights.length,
      examples,
      settledMs: settledAt - m.lastRequestAtEpochMs,
      maxMessagesPerSecond: fleet.maxMessagesPerSecond(),
    };
    process.send!({ type: 'check', check });
  });
  process.send!({ port: fleet.port });
  process.on('disconnect', () => void fleet.stop().then(() => process.exit(0)));
}

// ---- the server child: our API and the bare route ----

async function serverRole(o: Options): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const { LightService } = await import('../core/index.js');
  const { startServer } = await import('../core/http/index.js');
  const { guardLoopbackSends } = await import('./lib/net-guard.js');
  guardLoopbackSends();
  const fleetPort = Number(process.env.LIGHTWIRE_BENCH_FLEET_PORT);
  const service = await LightService.start({
    discovery: { broadcastAddresses: ['127.255.255.255'], port: fleetPort, burstScheduleMs: [0, 300, 900], refreshIntervalMs: 0 },
    expectLights: o.lights,
    readyTimeoutMs: 15_000,
  });
  await service.ready;
  // The flood's last request: what it asked and when the service accepted it (server clock = fleet clock, one machine).
  let last = { brightness: NaN, atEpochMs: 0, calls: 0 };
  const setState = service.setState.bind(service);
  service.setState = (selector, request, options) => {
    const result = setState(selector, request, options);
    if (options?.fast === true && typeof request.brightness === 'number') last = { brightness: request.brightness, atEpochMs: epochNow(), calls: last.calls + 1 };
    return result;
  };
  // --profile DIR: the server's CPU profile of the flood runs (inspector), for finding where a request's time goes.
  const inspector = o.profile === undefined ? undefined : new (await import('node:inspector')).Session();
  inspector?.connect();
  const post = (method: string, params: Record<string, unknown> = {}): Promise<unknown> =>
    new Promise((resolve, reject) => inspector!.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));
  if (inspector) await post('Profiler.enable').then(() => post('Profiler.setSamplingInterval', { interval: 200 }));
  process.on('message', (m: { type: string }) => {
    if (m.type === 'last') process.send!({ type: 'last', last });
    if (m.type === 'profile-start' && inspector) void post('Profiler.start').then(() => process.send!({ type: 'profiling' }));
    if (m.type === 'profile-stop' && inspector) {
      void post('Profiler.stop').then((r) => {
        const file = path.join(o.profile!, `http-server-${Date.now()}.cpuprofile`);
        writeFileSync(file, JSON.stringify((r as { profile: unknown }).profile));
        process.send!({ type: 'profiled', file });
      });
    }
  });
  const ours = await startServer({ service, port: 0 });
  const uncached = await startServer({ service, port: 0, listCache: false });
  // The bare route: the same 100 records, captured once, through Fastify's default serialiser.
  const body = service.list('all');
  const text = JSON.stringify(body);
  const bare = Fastify({ logger: false });
  bare.get('/v1/lights/all', async () => body);
  bare.get('/v1/lights/all.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(text));
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const barePort = (bare.server.address() as { port: number }).port;
  process.send!({ ours: ours.url, uncached: uncached.url, bare: `http://127.0.0.1:${barePort}/v1`, lights: body.length, bytes: text.length });
  process.on('disconnect', () => {
    void Promise.all([ours.close(), uncached.close(), bare.close()])
      .then(() => service.stop())
      .then(() => process.exit(0));
  });
}

// ---- main: autocannon and the table ----

interface Row {
  readonly name: string;
  readonly what: string;
  readonly result: AutocannonResult;
}

async function measure(autocannon: Autocannon, o: Options, url: string, init: Record<string, unknown> = {}): Promise<AutocannonResult> {
  await autocannon({ url, connections: o.connections, duration: 1, ...init }); // warm-up: JIT, sockets, caches
  return autocannon({ url, connections: o.connections, duration: o.durationS, ...init });
}

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')).join('\n');
}

function ask<T>(proc: ChildProcess, message: Record<string, unknown>, type: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type?: string }): void => {
      if (m.type !== type) return;
      proc.off('message', on);
      resolve(m as T);
    };
    proc.on('message', on);
    proc.send(message);
  });
}

export interface FloodRun {
  readonly rate: number;
  /** Requests answered per second over the run (autocannon's total / duration). */
  readonly achieved: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly check: FloodCheck;
}

/** One flood: fast PUTs at `rate` for the duration, each with its own brightness, then what the fleet shows. */
async function flood(autocannon: Autocannon, o: Options, url: string, fleet: ChildProcess, server: ChildProcess): Promise<FloodRun> {
  let k = 0;
  const requests = [
    {
      method: 'PUT',
      path: new URL(`${url}/lights/all/state`).pathname,
      headers: { 'content-type': 'application/json' },
      setupRequest: (req: Record<string, unknown>) => ({
        ...req,
        body: JSON.stringify({ power: 'on', brightness: floodBrightness(k++), duration: 0, fast: true }),
      }),
    },
  ];
  const init = { url, connections: o.connections, overallRate: o.rate, requests };
  await autocannon({ ...init, duration: 1 }); // warm-up
  await new Promise((r) => setTimeout(r, 500));
  await ask(fleet, { type: 'clear' }, 'cleared');
  if (o.profile !== undefined) await ask(server, { type: 'profile-start' }, 'profiling');
  const result = await autocannon({ ...init, duration: o.durationS });
  if (o.profile !== undefined) console.error(`  server profile: ${(await ask<{ file: string }>(server, { type: 'profile-stop' }, 'profiled')).file}`);
  // Every light has had time to take its last message (two paced turns, 132 ms, and more): then read them all.
  await new Promise((r) => setTimeout(r, 600));
  const { last } = await ask<{ last: { brightness: number; atEpochMs: number } }>(server, { type: 'last' }, 'last');
  const { check } = await ask<{ check: FloodCheck }>(fleet, { type: 'check', brightness: last.brightness, lastRequestAtEpochMs: last.atEpochMs }, 'check');
  return {
    rate: o.rate,
    achieved: result.requests.total / (result.duration || o.durationS),
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    check,
  };
}

const median = (xs: readonly number[]): number => {
  const v = [...xs].sort((a, b) => a - b);
  const m = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
};

const spread = (xs: readonly number[], digits = 0): string =>
  `${median(xs).toFixed(digits)} [${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}]`;

async function main(o: Options): Promise<void> {
  if (!onlyLoopback() && process.env.LIGHTWIRE_BENCH_ANY_NET !== '1') {
    console.error("refusing to run with non-loopback interfaces: use `npm run bench:http` (unshare --net), or set LIGHTWIRE_BENCH_ANY_NET=1");
    process.exit(2);
  }
  const autocannon = require('autocannon') as Autocannon;
  execFileSync(path.join(__dirname, '..', 'node_modules', '.bin', 'tsc'), ['-p', path.join(__dirname, 'tsconfig.json')], { stdio: 'inherit' });
  const fleet = await child<{ port: number }>('fleet');
  const server = await child<{ ours: string; uncached: string; bare: string; lights: number; bytes: number }>('server', {
    LIGHTWIRE_BENCH_FLEET_PORT: String(fleet.ready.port),
  });
  try {
    const { ours, uncached, bare, lights, bytes } = server.ready;
    console.log(`${lights} virtual lights; List Lights body ${bytes} bytes; ${o.connections} connections, ${o.durationS} s per scenario; node ${process.version}, ${os.cpus().length} cores\n`);
    const rows: Row[] = [];
    rows.push({ name: 'bare', what: 'GET bare Fastify route, fixed body', result: await measure(autocannon, o, `${bare}/lights/all`) });
    rows.push({ name: 'string', what: 'GET bare route, pre-serialised body', result: await measure(autocannon, o, `${bare}/lights/all.json`) });
    rows.push({ name: 'list', what: 'GET /v1/lights/all', result: await measure(autocannon, o, `${ours}/lights/all`) });
    rows.push({ name: 'build', what: 'GET /v1/lights/all, cache off', result: await measure(autocannon, o, `${uncached}/lights/all`) });
    rows.push({
      name: 'fast',
      what: 'PUT /v1/lights/all/state fast, unthrottled',
      result: await measure(autocannon, o, `${ours}/lights/all/state`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ power: 'on', brightness: 0.5, duration: 0, fast: true }),
      }),
    });
    const base = rows[0]!.result.requests.average;
    const out: string[][] = [['scenario', 'request', 'req/s', 'p50 ms', 'p99 ms', 'vs bare', 'non-2xx', 'errors']];
    for (const r of rows) {
      out.push([
        r.name,
        r.what,
        r.result.requests.average.toFixed(0),
        r.result.latency.p50.toFixed(1),
        r.result.latency.p99.toFixed(1),
        `${((100 * r.result.requests.average) / base).toFixed(0)} %`,
        String(r.result.non2xx),
        String(r.result.errors + r.result.timeouts),
      ]);
    }
    console.log(table(out));
    console.log("(autocannon's latency histogram counts whole milliseconds: 0 means under 1 ms)");
    const ratio = rows[2]!.result.requests.average / base;
    console.log(`\ntarget: GET /v1/lights/all at least 50 % of bare: ${ratio >= 0.5 ? 'met' : 'NOT met'} (${(100 * ratio).toFixed(0)} %)`);

    const runs: FloodRun[] = [];
    for (let rep = 0; rep < o.reps; rep++) {
      const run = await flood(autocannon, o, ours, fleet.proc, server.proc);
      runs.push(run);
      console.error(
        `  flood ${rep + 1}: ${run.achieved.toFixed(0)} req/s of ${run.rate}, p50 ${run.p50} ms, p99 ${run.p99} ms, max ${run.max} ms, ` +
          `${run.check.matched}/${run.check.lights} lights in the last requested state, last change ${run.check.settledMs.toFixed(0)} ms after the last request, ` +
          `max ${run.check.maxMessagesPerSecond} msg/s to a light, non-2xx ${run.non2xx}, errors ${run.errors}` +
          (run.check.examples.length > 0 ? ` e.g. ${run.check.examples[0]}` : ''),
      );
    }
    const achieved = runs.map((r) => r.achieved);
    const p99 = runs.map((r) => r.p99);
    const settled = runs.map((r) => r.check.settledMs);
    const worstRate = Math.max(...runs.map((r) => r.check.maxMessagesPerSecond));
    const worstMatched = Math.min(...runs.map((r) => r.check.matched));
    console.log(`\nflood: fast PUT /v1/lights/all/state at ${o.rate} requests/s for ${o.durationS} s over ${o.connections} connections, ${lights} lights, ${runs.length} run(s), median [min–max]:`);
    const targets: [string, string, boolean][] = [
      ['requests/s answered', spread(achieved), median(achieved) >= 0.98 * o.rate],
      ['p99 latency, ms', spread(p99), median(p99) < 10],
      ['lights in the last requested state (worst run)', `${worstMatched}/${lights}`, worstMatched === lights],
      ['last change at a light after the last request, ms', spread(settled), Math.max(...settled) <= 200],
      ['most messages one light received in any second (worst run)', String(worstRate), worstRate <= 20],
    ];
    console.log(table([['figure', 'value', 'target'], ...targets.map(([f, v, ok]) => [f, v, ok ? 'met' : 'NOT met'])]));
    if (o.json !== undefined) {
      const one = (values: number[]): Point[] => [{ n: lights, values }];
      const label = 'Lightwire (HTTP API v1, fast)';
      const result: BenchResult = {
        bench: 'http',
        title: 'HTTP API: fast Set State under load',
        machine: machine(),
        method:
          `${lights} virtual lights in one process, the server (LightService and the HTTP API, compiled JS) in another, autocannon in a ` +
          `third, ${o.connections} connections over keep-alive. Flood: PUT /v1/lights/all/state {power: on, brightness: B, duration: 0, ` +
          `fast: true} at a fixed ${o.rate} requests/s for ${o.durationS} s, every request with a brightness of its own; afterwards the ` +
          `fleet reports whether every light shows the last requested state and when it last changed, and the most messages any light ` +
          `received in any second (its sliding count). ${runs.length} run(s); median [min–max]. Latencies are autocannon's, in whole ms.`,
        figures: [
          { id: 'http-rate', title: `Requests answered per second (asked: ${o.rate})`, unit: 'req/s', lowerIsBetter: false, clients: { [label]: one(achieved) }, target: { text: `${o.rate} requests/s sustained`, met: median(achieved) >= 0.98 * o.rate } },
          { id: 'http-p99', title: 'p99 latency, ms', unit: 'ms', lowerIsBetter: true, clients: { [label]: one(p99) }, target: { text: 'under 10 ms', met: median(p99) < 10 } },
          { id: 'http-settled', title: 'Last change at a light after the last request was accepted', unit: 'ms', lowerIsBetter: true, clients: { [label]: one(settled) }, target: { text: 'every light in the last requested state within 200 ms', met: worstMatched === lights && Math.max(...settled) <= 200 } },
          { id: 'http-right', title: 'Lights in the last requested state', unit: 'lights', lowerIsBetter: false, clients: { [label]: one(runs.map((r) => r.check.matched)) } },
          { id: 'http-msgs', title: 'Most messages one light received in any second', unit: 'msg/s', lowerIsBetter: true, clients: { [label]: one(runs.map((r) => r.check.maxMessagesPerSecond)) }, target: { text: 'at most 20', met: worstRate <= 20 } },
        ],
        details: ['Every scenario (one run each, after a 1 s warm-up), as autocannon reports it:', '', '```', table(out), '```'].join('\n'),
      };
      writeFileSync(o.json, `${JSON.stringify(result, null, 2)}\n`);
    }
    if (rows.some((r) => r.result.non2xx > 0 || r.result.errors > 0) || runs.some((r) => r.non2xx > 0 || r.errors > 0)) process.exitCode = 1;
  } finally {
    server.proc.disconnect();
    fleet.proc.disconnect();
  }
}

const o = options();
const r = role();
const run = r === 'fleet' ? fleetRole(o) : r === 'server' ? serverRole(o) : main(o);
run.catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
