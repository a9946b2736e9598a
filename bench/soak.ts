// Soak benchmark (npm run bench:soak; issue 12 §5): ten minutes (--duration-s) of mixed LIFX HTTP API v1 traffic (list,
// set state, fast set, toggle, effects, scenes: bench/lib/soak-load.ts) over 200 virtual lights (--lights) with 5 % loss
// each way (--loss). Three processes: the fleet (bench/lib/soak-fleet.ts), the server (LightService + startServer,
// bench/lib/soak-server.ts), both compiled and run with plain node, and this one, which makes the load at a steady rate
// (--rps, at most --connections requests in flight). Every --sample-s seconds: requests served, errors, and the
// server's (and the fleet's) RSS, heap and open handles. At the end: p50 / p99 per route.
//
// Memory investigation: --expose-gc also reports the heap right after a full GC (the live set) in each sample;
// --snapshot-at-s 30,300 writes server heap snapshots (under node_modules/.cache/lightwire-soak/snapshots);
// --alloc-profile-s 30 samples the server's allocations (freed ones included) for 30 s and prints the top sites;
// --server-node-option=--max-semi-space-size=16 (repeatable) passes node/V8 options to the server child;
// --in-process-fleet runs the lights inside the server process, as `lightwire serve --virtual N` does
// (--record-limit N sets its per-light packet records; by default the fleet shares FLEET_RECORD_BUDGET).
//
// Network rule: loopback only; the npm script runs it inside `unshare --net`, this file refuses to run
// where another interface exists, and every process checks every datagram's destination (bench/lib/net-guard.ts).

import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { assertPrivateNetns, guardLoopbackSends } from './lib/net-guard.js';
import type { MemorySample, SoakChildReply, SoakChildRequest, SoakServerConfig } from './lib/soak-messages.js';
import { call, countResults, emptyStats, percentile, ROUTES, type RouteContext, type RouteStats } from './lib/soak-load.js';

const ROOT = path.resolve(__dirname, '..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'lightwire-soak');
const COMPILED = path.join(CACHE, 'bench', 'lib');
const MB = 1024 * 1024;

interface Options {
  readonly durationS: number;
  readonly lights: number;
  readonly loss: number;
  readonly rps: number;
  readonly connections: number;
  readonly sampleS: number;
  readonly exposeGc: boolean;
  readonly snapshotAtS: readonly number[];
  readonly inProcessFleet: boolean;
  readonly recordLimit: number | null;
  readonly requestTimeoutMs: number;
  readonly allocProfileS: number;
  /** Extra node options for the server child, e.g. --max-semi-space-size=16. */
  readonly serverNodeOptions: readonly string[];
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      'duration-s': { type: 'string' },
      lights: { type: 'string' },
      loss: { type: 'string' },
      rps: { type: 'string' },
      connections: { type: 'string' },
      'sample-s': { type: 'string' },
      'expose-gc': { type: 'boolean' },
      'snapshot-at-s': { type: 'string' },
      'in-process-fleet': { type: 'boolean' },
      'record-limit': { type: 'string' },
      'alloc-profile-s': { type: 'string' },
      'server-node-option': { type: 'string', multiple: true },
    },
  });
  const num = (name: string, text: string | undefined, fallback: number, min: number, max: number, integer = true): number => {
    const n = text === undefined ? fallback : Number(text);
    if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
      console.error(`--${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${text}`);
      process.exit(2);
    }
    return n;
  };
  return {
    durationS: num('duration-s', values['duration-s'], 600, 5, 86_400),
    lights: num('lights', values.lights, 200, 1, 1000),
    loss: num('loss', values.loss, 0.05, 0, 0.9, false),
    rps: num('rps', values.rps, 50, 1, 5000),
    connections: num('connections', values.connections, 16, 1, 512),
    sampleS: num('sample-s', values['sample-s'], 10, 1, 600),
    exposeGc: values['expose-gc'] === true,
    snapshotAtS: (values['snapshot-at-s'] ?? '').split(',').filter((s) => s !== '').map((s) => num('snapshot-at-s', s, 0, 0, 86_400)),
    inProcessFleet: values['in-process-fleet'] === true,
    recordLimit: values['record-limit'] === undefined ? null : num('record-limit', values['record-limit'], 0, 1, 1_000_000),
    requestTimeoutMs: 15_000,
    allocProfileS: num('alloc-profile-s', values['alloc-profile-s'], 0, 0, 3600),
    serverNodeOptions: values['server-node-option'] ?? [],
  };
}

function child(file: string, args: readonly string[], execArgv: readonly string[]): Promise<{ proc: ChildProcess; ready: Extract<SoakChildReply, { type: 'ready' }> }> {
  const proc = fork(path.join(COMPILED, file), [...args], { execArgv: [...execArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    const onMessage = (m: SoakChildReply): void => {
      if (m.type === 'ready') {
        proc.off('message', onMessage);
        resolve({ proc, ready: m });
      } else if (m.type === 'failed') reject(new Error(`${file}: ${m.reason}`));
    };
    proc.on('message', onMessage);
    proc.once('exit', (code) => reject(new Error(`${file} exited with ${code} before it was ready`)));
  });
}

const mb = (bytes: number | null): string => (bytes === null ? '-' : (bytes / MB).toFixed(1));

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')).join('\n');
}

function handlesText(h: Readonly<Record<string, number>>): string {
  const total = Object.values(h).reduce((a, b) => a + b, 0);
  const parts = Object.entries(h)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`);
  return `${total} (${parts.join(', ')})`;
}

async function main(o: Options): Promise<void> {
  assertPrivateNetns();
  guardLoopbackSends();
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', path.join(ROOT, 'bench', 'lib', 'tsconfig.soak.json')], { stdio: 'inherit' });

  const fleet = o.inProcessFleet ? null : await child('soak-fleet.js', [String(o.lights), String(o.loss), String(o.loss), String(o.sampleS * 1000)], []);
  const config: SoakServerConfig = {
    fleetPort: fleet?.ready.port ?? 0,
    lights: o.lights,
    sampleMs: o.sampleS * 1000,
    scenesFile: path.join(os.tmpdir(), `lightwire-soak-scenes-${process.pid}.json`),
    snapshotAtS: o.snapshotAtS,
    snapshotDir: path.join(CACHE, 'snapshots'),
    inProcessFleet: o.inProcessFleet,
    lossIn: o.loss,
    lossOut: o.loss,
    recordLimit: o.recordLimit,
    allocProfileS: o.allocProfileS,
  };
  const startedReadyMs = performance.now();
  const server = await child('soak-server.js', [JSON.stringify(config)], [...(o.exposeGc ? ['--expose-gc'] : []), ...o.serverNodeOptions]);
  const { url, sceneId, serials, groups } = server.ready;
  console.log(
    `${serials!.length} of ${o.lights} virtual lights read in ${((performance.now() - startedReadyMs) / 1000).toFixed(1)} s; ${(o.loss * 100).toFixed(0)} % loss each way; ` +
      `fleet ${o.inProcessFleet ? `in the server process (records ${o.recordLimit ?? 'the default budget'} per light)` : 'in its own process'}; ` +
      `${o.rps} requests/s, at most ${o.connections} in flight, for ${o.durationS} s; node ${process.version}, ${os.cpus().length} cores` +
      (o.exposeGc ? '; server with --expose-gc (live heap after a full GC each sample)' : '') +
      (o.serverNodeOptions.length > 0 ? `; server node options ${o.serverNodeOptions.join(' ')}` : ''),
  );

  const samples: MemorySample[] = [];
  const stats = new Map<string, RouteStats>(ROUTES.map((r) => [r.name, emptyStats()]));
  let served = 0;
  let errors = 0;
  let skipped = 0;
  let lastServed = 0;
  let lastErrors = 0;
  const t0 = performance.now();
  const lastFleet: { sample: MemorySample | null } = { sample: null };
  const onSample = (m: SoakChildReply): void => {
    if (m.type === 'snapshot') console.log(`  heap snapshot: ${m.file}`);
    if (m.type === 'allocations') {
      const perS = m.totalBytes / m.seconds;
      console.log(`  server allocations over the first ${m.seconds} s (sampled, freed objects included): ${mb(perS)} MB/s; top sites:`);
      for (const a of m.top) console.log(`    ${mb(a.bytes / m.seconds).padStart(6)} MB/s  ${((100 * a.bytes) / m.totalBytes).toFixed(1).padStart(5)} %  ${a.site}`);
    }
    if (m.type !== 'sample') return;
    const s = { ...m.sample, atS: Math.round((performance.now() - t0) / 1000) };
    samples.push(s);
    if (s.role === 'fleet') {
      lastFleet.sample = s;
      return;
    }
    const rate = (served - lastServed) / o.sampleS;
    const errs = errors - lastErrors;
    lastServed = served;
    lastErrors = errors;
    console.log(
      `t=${String(s.atS).padStart(4)} s  served ${String(served).padStart(7)} (${rate.toFixed(0)}/s, ${errs} errors)  server rss ${mb(s.rssBytes)} MB  heap ${mb(s.heapUsedBytes)}/${mb(s.heapTotalBytes)} MB` +
        `${s.heapAfterGcBytes === null ? '' : `  live ${mb(s.heapAfterGcBytes)} MB`}  ext ${mb(s.externalBytes)} MB  handles ${handlesText(s.handles)}` +
        `${lastFleet.sample ? `  fleet rss ${mb(lastFleet.sample.rssBytes)} MB` : ''}  ${Object.entries(s.extra).map(([k, v]) => `${k} ${v}`).join(' ')}`,
    );
  };
  server.proc.on('message', onSample);
  fleet?.proc.on('message', onSample);
  fleet?.proc.send({ type: 'go' } satisfies SoakChildRequest);
  server.proc.send({ type: 'go' } satisfies SoakChildRequest);

  // ---- the load: a steady rate, at most `connections` in flight (a request due while all are busy is skipped) ----
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.connections });
  const base = new URL(url!);
  let seed = 12345;
  const random = (): number => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed / 4294967296;
  };
  const context: RouteContext = { serials: serials!, groups: groups!, sceneId: sceneId!, random };
  const totalWeight = ROUTES.reduce((n, r) => n + r.weight, 0);
  const chooseRoute = (): (typeof ROUTES)[number] => {
    let x = random() * totalWeight;
    for (const r of ROUTES) if ((x -= r.weight) < 0) return r;
    return ROUTES.at(-1)!;
  };
  let inFlight = 0;
  const endAt = t0 + o.durationS * 1000;
  const intervalMs = 1000 / o.rps;
  let next = t0;
  const pending = new Set<Promise<void>>();
  while (performance.now() < endAt) {
    const now = performance.now();
    if (now < next) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, next - now)));
      continue;
    }
    next += intervalMs;
    if (inFlight >= o.connections) {
      skipped++;
      continue;
    }
    const route = chooseRoute();
    const req = route.request(context);
    const s = stats.get(route.name)!;
    inFlight++;
    const started = performance.now();
    const p = call(agent, base, req.method, req.path, req.body, o.requestTimeoutMs).then(({ status, text }) => {
      inFlight--;
      s.count++;
      s.latenciesMs.push(performance.now() - started);
      s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1);
      if (status === 0 || status >= 400) {
        s.errors++;
        errors++;
      } else if (status === 207) countResults(s, text);
      served++;
    });
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }
  await Promise.all(pending);
  const elapsedS = (performance.now() - t0) / 1000;
  // One more sample after the load (the server's rest state).
  await new Promise((resolve) => setTimeout(resolve, o.sampleS * 1000 + 200));
  agent.destroy();

  // ---- report ----
  console.log(`\n${served} requests served in ${elapsedS.toFixed(0)} s (${(served / elapsedS).toFixed(1)}/s); errors ${errors} (${((100 * errors) / Math.max(1, served)).toFixed(2)} %); ${skipped} not sent (all ${o.connections} connections busy)\n`);
  const rows: string[][] = [['route', 'requests', 'errors', 'p50 ms', 'p99 ms', 'max ms', 'statuses', 'per-light ok / timed_out / offline']];
  for (const r of ROUTES) {
    const s = stats.get(r.name)!;
    const sorted = [...s.latenciesMs].sort((a, b) => a - b);
    const lightResults = s.results.ok + s.results.timed_out + s.results.offline;
    rows.push([
      r.name,
      String(s.count),
      String(s.errors),
      percentile(sorted, 50).toFixed(1),
      percentile(sorted, 99).toFixed(1),
      (sorted.at(-1) ?? NaN).toFixed(0),
      [...s.statuses].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}:${v}`).join(' '),
      lightResults === 0 ? '' : `${s.results.ok} / ${s.results.timed_out} / ${s.results.offline}`,
    ]);
  }
  console.log(table(rows));
  const serverSamples = samples.filter((s) => s.role === 'server');
  const first = serverSamples[0];
  const peak = serverSamples.reduce((a, s) => (s.rssBytes > a.rssBytes ? s : a), serverSamples[0]!);
  const last = serverSamples.at(-1);
  if (first && last) {
    console.log(
      `\nserver RSS ${mb(first.rssBytes)} MB at the start, peak ${mb(peak.rssBytes)} MB (t=${peak.atS} s), ${mb(last.rssBytes)} MB at the end; ` +
        `heap used ${mb(first.heapUsedBytes)} -> ${mb(last.heapUsedBytes)} MB` +
        (last.heapAfterGcBytes !== null ? `; live heap after GC ${mb(first.heapAfterGcBytes)} -> ${mb(last.heapAfterGcBytes)} MB` : '') +
        `; handles ${handlesText(first.handles)} -> ${handlesText(last.handles)}`,
    );
  }
  server.proc.send({ type: 'stop' } satisfies SoakChildRequest);
  fleet?.proc.send({ type: 'stop' } satisfies SoakChildRequest);
  await Promise.all([server.proc, fleet?.proc].filter((p): p is ChildProcess => p !== undefined).map((p) => new Promise((resolve) => (p.exitCode !== null ? resolve(null) : p.once('exit', resolve)))));
  if (errors > 0) process.exitCode = 1;
}

main(options()).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
