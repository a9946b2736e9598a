// HTTP API v1 benchmark (npm run bench:http): autocannon against, in the same run,
//   bare   a bare Fastify route that returns a fixed 100-light body (the ceiling: routing + serialisation),
//   string the same route sending the body pre-serialised (the floor of any cache),
//   list   GET /v1/lights/all through the whole plugin (auth hook, rate limit, selector, List Lights cache),
//   build  the same with the cache off: every request builds the 100 records (service.list) and serialises them,
//   fast   PUT /v1/lights/all/state with fast=true (validation, planning, 100 lights' datagrams, 202),
// with 100 virtual lights. Three processes, so the load generator does not share a core with what it measures:
// this one (autocannon), a server child (both Fastify servers, the client and the service) and a fleet child
// (the virtual lights). Target: list at least 50 % of bare's requests per second. Prints a table.
//
// Network rule (ecosystem.md): everything is on 127.0.0.1 and 127.255.255.255; the npm script runs it inside
// `unshare --net` so nothing could leave the machine even by mistake, and this file refuses to run outside one
// unless LIGHTWIRE_BENCH_ANY_NET=1.
//
// Options: --duration S (default 5 per scenario), --connections N (default 10), --lights N (default 100).

import { fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';

interface Options {
  readonly durationS: number;
  readonly connections: number;
  readonly lights: number;
}

interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
}

type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

const SELF = __filename;

function options(): Options {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((a) => !a.startsWith('--role=')),
    options: { duration: { type: 'string' }, connections: { type: 'string' }, lights: { type: 'string' } },
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
  };
}

function role(): string {
  return process.argv.find((a) => a.startsWith('--role='))?.slice('--role='.length) ?? 'main';
}

function onlyLoopback(): boolean {
  return Object.values(os.networkInterfaces()).every((infos) => (infos ?? []).every((i) => i.internal));
}

/** Starts this file in another role and waits for its first message. */
function child<T>(name: string, extra: Record<string, string> = {}): Promise<{ proc: ChildProcess; ready: T }> {
  const proc = fork(SELF, [`--role=${name}`, ...process.argv.slice(2)], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...extra },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    proc.once('message', (ready) => resolve({ proc, ready: ready as T }));
    proc.once('exit', (code) => reject(new Error(`${name} child exited with ${code}`)));
  });
}

// ---- the fleet child: the virtual lights ----

async function fleetRole(o: Options): Promise<void> {
  const { Fleet, defaultFleet } = await import('../core/simulator/index.js');
  const fleet = new Fleet(defaultFleet(o.lights), { port: 0, recordLimit: 1 });
  await fleet.start();
  process.send!({ port: fleet.port });
  process.on('disconnect', () => void fleet.stop().then(() => process.exit(0)));
}

// ---- the server child: our API and the bare route ----

async function serverRole(o: Options): Promise<void> {
  const { default: Fastify } = await import('fastify');
  const { LightService } = await import('../core/index.js');
  const { startServer } = await import('../core/http/index.js');
  const fleetPort = Number(process.env.LIGHTWIRE_BENCH_FLEET_PORT);
  const service = await LightService.start({
    discovery: { broadcastAddresses: ['127.255.255.255'], port: fleetPort, burstScheduleMs: [0, 300, 900], refreshIntervalMs: 0 },
    expectLights: o.lights,
    readyTimeoutMs: 15_000,
  });
  await service.ready;
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

async function main(o: Options): Promise<void> {
  if (!onlyLoopback() && process.env.LIGHTWIRE_BENCH_ANY_NET !== '1') {
    console.error("refusing to run with non-loopback interfaces: use `npm run bench:http` (unshare --net), or set LIGHTWIRE_BENCH_ANY_NET=1");
    process.exit(2);
  }
  const autocannon = require('autocannon') as Autocannon;
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
      what: 'PUT /v1/lights/all/state fast',
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
    const statuses = Object.keys(rows[4]!.result.statusCodeStats).join(', ');
    console.log(`\ntarget: GET /v1/lights/all at least 50 % of bare: ${ratio >= 0.5 ? 'met' : 'NOT met'} (${(100 * ratio).toFixed(0)} %)`);
    console.log(
      `fast Set State answered ${statuses}; its rate is bounded by the transport's pacing of every light ` +
        '(maxMessagesPerSecond, 20 by default): each request sends each light its messages, and 202 comes once they are on the wire.',
    );
    if (rows.some((r) => r.result.non2xx > 0 || r.result.errors > 0)) process.exitCode = 1;
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
