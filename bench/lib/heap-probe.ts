// What Lightwire's client holds per light, quickly: the equal-work run of bench/read-state.ts (the read-facts-heap
// figure) for Lightwire alone, without the rest of the suite, and with --snapshot DIR a heap snapshot of the worker at
// each N, taken right where the worker takes its heap figure (after its full collections), compared by constructor.
// The fleet and the worker are the suite's own (compiled by it: fleet-child.ts, worker.ts); only a preload is added
// to the worker, which writes the snapshot after the worker's second gc() call. With --service the client process is
// this file's own instead: a LightService with its defaults (what Homebridge, Node-RED and the HTTP API run) that
// lists every light (views built) once its first round is read.
// Usage (inside a private network namespace, as the npm bench scripts run):
//   unshare --net --pid --fork --kill-child bash -c 'ip link set lo up && exec node --import tsx bench/lib/heap-probe.ts 10,500 [--reps K] [--snapshot DIR] [--service]'

import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COMPILED, compileChildren, FleetProcess } from './harness.js';
import type { ExpectedLight, WorkerConfig, WorkerResult } from './messages.js';
import { assertPrivateNetns } from './net-guard.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Wraps gc(): the worker calls it twice for its heap figure (heapAfterGcKiB); the snapshot is taken after the second. */
const PRELOAD = `
const v8 = require('node:v8');
const original = globalThis.gc;
let calls = 0;
globalThis.gc = () => {
  original();
  if (++calls === 2 && process.env.HEAP_PROBE_SNAPSHOT) v8.writeHeapSnapshot(process.env.HEAP_PROBE_SNAPSHOT);
};
`;

/** How many lights List Lights shows with a label of the fleet's (in a function of its own: its list is let go). */
function listedRight(service: { list(selector: string): readonly { label: string }[] }, expected: readonly ExpectedLight[]): number {
  const labels = new Set(expected.map((l) => l.label));
  return service.list('all').filter((l) => labels.has(l.label)).length;
}

/** The --service client process: a LightService over the fleet, every light listed, the heap after full collections. */
async function serviceChild(cfg: WorkerConfig): Promise<WorkerResult> {
  const { LightService } = await import('../../core/index.js');
  const n = cfg.expected.length;
  const service = new LightService({ discovery: { broadcastAddresses: ['127.255.255.255'], port: 56700 }, expectLights: n });
  service.on('error', () => undefined);
  await service.start();
  await service.ready;
  const deadline = Date.now() + cfg.capMs;
  while (service.views().length < n && Date.now() < deadline) await sleep(100);
  await sleep(cfg.settleMs);
  const correct = listedRight(service, cfg.expected);
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  gc();
  const heapAfterGcKiB = process.memoryUsage().heapUsed / 1024;
  const endRssKiB = process.memoryUsage().rss / 1024;
  await service.stop();
  return { n, correct, heapAfterGcKiB, endRssKiB } as WorkerResult;
}

function runWorker(cfg: WorkerConfig, snapshot: string | undefined, preload: string, service: boolean): Promise<WorkerResult> {
  const env = { ...process.env, ...(snapshot === undefined ? {} : { HEAP_PROBE_SNAPSHOT: snapshot }) };
  const child = service
    ? fork(__filename, ['--service-child'], { execArgv: ['--import', 'tsx', '--expose-gc', '--require', preload], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    : fork(path.join(COMPILED, 'worker.js'), [], { execArgv: ['--expose-gc', '--require', preload], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let result: WorkerResult | undefined;
    child.once('message', (m: WorkerResult) => (result = m));
    child.once('exit', (code) => (result === undefined ? reject(new Error(`worker exited ${code}`)) : resolve(result)));
    child.send(cfg);
  });
}

interface Group {
  count: number;
  bytes: number;
}

/** Self size per kind of node (objects by constructor, arrays, strings, numbers, code) of a .heapsnapshot. */
function bySelfSize(file: string): Map<string, Group> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const out = new Map<string, Group>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + iType]!]!;
    const name = snap.strings[snap.nodes[i + iName]!]!;
    const key = type === 'object' || type === 'closure' ? `${type}:${name}` : type.includes('string') ? 'string' : type === 'number' || type === 'bigint' ? type : `${type}:${name.slice(0, 60)}`;
    const e = out.get(key) ?? { count: 0, bytes: 0 };
    e.count++;
    e.bytes += snap.nodes[i + iSize]!;
    out.set(key, e);
  }
  return out;
}

async function main(): Promise<void> {
  assertPrivateNetns();
  const argv = process.argv.slice(2);
  const flag = (name: string): string | undefined => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const sizes = (argv[0] ?? '10,500').split(',').map(Number);
  const reps = Number(flag('--reps') ?? 1);
  const snapDir = flag('--snapshot');
  compileChildren();
  const preload = path.join(os.tmpdir(), `heap-probe-preload-${process.pid}.cjs`);
  writeFileSync(preload, PRELOAD);
  const results: WorkerResult[] = [];
  const snapshots = new Map<number, string>();
  for (const n of sizes) {
    const fleet = await FleetProcess.start(n);
    try {
      for (let rep = 0; rep < reps; rep++) {
        const snapshot = snapDir !== undefined && rep === 0 ? path.join(snapDir, `probe-${n}.heapsnapshot`) : undefined;
        const r = await runWorker({ client: 'ours', task: 'read-facts', expected: fleet.lights, capMs: 30_000, settleMs: 1500 }, snapshot, preload, argv.includes('--service'));
        if (snapshot !== undefined) snapshots.set(n, snapshot);
        results.push(r);
        console.log(`N=${n}: ${r.correct} right, heap after GC ${(r.heapAfterGcKiB / 1024).toFixed(2)} MiB, RSS at the end ${(r.endRssKiB / 1024).toFixed(1)} MiB`);
        await sleep(300);
      }
    } finally {
      await fleet.stop();
    }
  }
  const lo = Math.min(...sizes);
  const hi = Math.max(...sizes);
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const heap = (n: number): number => median(results.filter((r) => r.n === n).map((r) => r.heapAfterGcKiB));
  const rss = (n: number): number => median(results.filter((r) => r.n === n).map((r) => r.endRssKiB));
  console.log(`heap per light ${((heap(hi) - heap(lo)) / (hi - lo)).toFixed(2)} KiB; RSS at the end ${(rss(lo) / 1024).toFixed(1)} / ${(rss(hi) / 1024).toFixed(1)} MiB (N=${lo} / ${hi})`);
  if (snapDir !== undefined) {
    const a = bySelfSize(snapshots.get(lo)!);
    const b = bySelfSize(snapshots.get(hi)!);
    const rows = [...b.entries()]
      .map(([k, v]) => ({ k, count: v.count - (a.get(k)?.count ?? 0), bytes: v.bytes - (a.get(k)?.bytes ?? 0) }))
      .sort((x, y) => y.bytes - x.bytes)
      .slice(0, Number(flag('--rows') ?? 30));
    let total = 0;
    for (const v of b.values()) total += v.bytes;
    for (const v of a.values()) total -= v.bytes;
    console.log(`snapshot self sizes, N=${hi} less N=${lo}, per light: ${(total / (hi - lo)).toFixed(0)} B in all`);
    for (const r of rows) console.log(`${(r.bytes / (hi - lo)).toFixed(0).padStart(7)} B ${(r.count / (hi - lo)).toFixed(2).padStart(8)} nodes  ${r.k}`);
  }
}

if (process.argv.includes('--service-child')) {
  process.once('message', (cfg: WorkerConfig) => void serviceChild(cfg).then((r) => process.send!(r, () => process.exit(0))));
} else {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
