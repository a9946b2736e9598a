// The parent side of the discovery and read-state benchmarks: starts the fleet in its own process, runs every
// measurement in a fresh worker process (ours and lifx-lan-client alternately, same fleet, same run), and prints
// one table with medians, the ratio and pass/fail against the targets of issue 3.

import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClientName, ExpectedLight, FleetReply, FleetRequest, Task, WorkerConfig, WorkerResult } from './messages.js';
import { assertPrivateNetns } from './net-guard.js';

const ROOT = path.resolve(__dirname, '..', '..');
export const COMPILED = path.join(ROOT, 'node_modules', '.cache', 'lightwire-bench', 'bench', 'lib');
const FLEET_CHILD = path.join(COMPILED, 'fleet-child.js');
const WORKER = path.join(COMPILED, 'worker.js');
/** Plain node for the measured processes: no TypeScript loader (fork would otherwise inherit --import tsx). */
const PLAIN_NODE: string[] = [];

export const CLIENTS: readonly ClientName[] = ['ours', 'theirs'];
export const LABEL: Record<ClientName, string> = { ours: 'Lightwire', theirs: 'lifx-lan-client 2.1.2' };

export type BenchTask = Exclude<Task, 'baseline'>;

export interface SuiteOptions {
  readonly task: BenchTask;
  readonly sizes: readonly number[];
  readonly reps: number;
  readonly capMs: number;
  readonly settleMs: number;
}

/** `--quick` (1 repetition), `--reps K`, `--sizes 10,100`, `--cap-ms`, `--settle-ms`. */
export function suiteOptions(task: BenchTask, argv: readonly string[] = process.argv.slice(2)): SuiteOptions {
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const quick = argv.includes('--quick');
  return {
    task,
    sizes: (value('--sizes') ?? '10,100,500').split(',').map(Number),
    reps: Number(value('--reps') ?? (quick ? 1 : 3)),
    capMs: Number(value('--cap-ms') ?? 30_000),
    settleMs: Number(value('--settle-ms') ?? 1500),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Compiles the worker, the fleet child and the core they import (bench/tsconfig.json), so they run as plain JS. */
export function compileChildren(): void {
  execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', path.join(ROOT, 'bench', 'tsconfig.json')], { stdio: 'inherit' });
}

export function collectOutput(child: ChildProcess): () => string {
  let text = '';
  const keep = (chunk: Buffer): void => {
    text = (text + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => text;
}

export class FleetProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly lights: readonly ExpectedLight[],
  ) {}

  static start(n: number): Promise<FleetProcess> {
    const child = fork(FLEET_CHILD, [String(n)], { execArgv: PLAIN_NODE, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const output = collectOutput(child);
    return new Promise((resolve, reject) => {
      child.once('message', (m: FleetReply) => {
        if (m.type === 'ready') resolve(new FleetProcess(child, m.lights));
        else reject(new Error(`fleet of ${n} failed: ${m.type === 'failed' ? m.reason : m.type}\n${output()}`));
      });
      child.once('exit', (code) => reject(new Error(`fleet of ${n} exited (${code})\n${output()}`)));
    });
  }

  request<T extends FleetReply['type']>(message: FleetRequest, expect: T): Promise<Extract<FleetReply, { type: T }>> {
    return new Promise((resolve, reject) => {
      this.child.once('message', (m: FleetReply) => (m.type === expect ? resolve(m as Extract<FleetReply, { type: T }>) : reject(new Error(m.type))));
      this.child.send(message);
    });
  }

  async stop(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.send({ type: 'stop' } satisfies FleetRequest);
    await Promise.race([exited, sleep(5000)]);
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

export interface Run extends WorkerResult {
  readonly rep: number;
  /** Most messages one virtual light received in a sliding second during this run. */
  readonly fleetMaxRate: number;
}

function runWorker(cfg: WorkerConfig): Promise<WorkerResult> {
  const child = fork(WORKER, [], { execArgv: PLAIN_NODE, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const output = collectOutput(child);
  // Discovery cap + settle + read cap + start-up; past this the worker is stuck and is killed (it is our own child).
  const hardLimitMs = 2 * cfg.capMs + cfg.settleMs + 20_000;
  return new Promise((resolve, reject) => {
    let result: WorkerResult | undefined;
    const timer = setTimeout(() => child.kill('SIGKILL'), hardLimitMs);
    child.once('message', (m: WorkerResult) => {
      result = m;
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (result !== undefined) resolve(result);
      else reject(new Error(`${cfg.client} worker (${cfg.task}, N=${cfg.expected.length}) exited ${code ?? signal} without a result\n${output()}`));
    });
    child.send(cfg);
  });
}

function progress(r: Run): string {
  const ms = (v: number | null): string => (v === null ? '> cap' : `${Math.round(v)} ms`);
  const parts = [`found ${r.found}/${r.n} in ${ms(r.discoveryMs)}`, `drops ${r.dropsUntilFound}/${r.dropsWholeRun} (client socket ${r.dropsClientSocket})`];
  if (r.task === 'read-state') {
    parts.push(`read ${ms(r.readMs)}: ${r.correct} right, ${r.wrong} wrong, ${r.missing} missing, ${r.dropsDuringReads} drops`);
    if (r.wrongExamples.length > 0) parts.push(`e.g. ${r.wrongExamples[0]}`);
  }
  parts.push(`peak RSS ${(r.maxRssKiB / 1024).toFixed(1)} MiB`, `max ${r.fleetMaxRate} msg/s to a light`);
  return `  N=${r.n} rep ${r.rep + 1} ${r.client.padEnd(6)} ${parts.join(', ')}`;
}

export interface SuiteResult {
  readonly runs: Run[];
  /** Peak RSS of a worker that loads no client: node and the harness alone, KiB. */
  readonly baselineRssKiB: number;
}

export async function runSuite(options: SuiteOptions): Promise<SuiteResult> {
  assertPrivateNetns();
  compileChildren();
  const base = await runWorker({ client: 'ours', task: 'baseline', expected: [], capMs: options.capMs, settleMs: 0 });
  const runs: Run[] = [];
  for (const n of options.sizes) {
    const fleet = await FleetProcess.start(n);
    // A client that does not find the fleet within the cap is not run again at this N: each such run costs the cap.
    const capped = new Set<ClientName>();
    try {
      for (let rep = 0; rep < options.reps; rep++) {
        // Alternate who goes first, so neither always meets a fleet that has just been busy.
        const order = rep % 2 === 0 ? CLIENTS : [...CLIENTS].reverse();
        for (const client of order) {
          if (capped.has(client)) continue;
          await fleet.request({ type: 'clear' }, 'cleared');
          const result = await runWorker({ client, task: options.task, expected: fleet.lights, capMs: options.capMs, settleMs: options.settleMs });
          const stats = await fleet.request({ type: 'stats' }, 'stats');
          const run: Run = { ...result, rep, fleetMaxRate: stats.maxMessagesPerSecond };
          runs.push(run);
          if (run.discoveryMs === null) capped.add(client);
          console.error(progress(run));
          // Replies still in flight to the exited worker's port must not land in the next run.
          await sleep(300);
        }
      }
    } finally {
      await fleet.stop();
    }
  }
  return { runs, baselineRssKiB: base.maxRssKiB };
}

// ---- the table ----

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

function fmtMs(v: number): string {
  if (!Number.isFinite(v)) return 'n/a';
  return v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`;
}

interface Cell {
  readonly text: string;
  /** The figure the ratio and the targets use (Infinity = did not finish within the cap). */
  readonly value: number;
}

type Verdict = 'PASS' | 'FAIL';

interface RowSpec {
  readonly metric: string;
  readonly cell: (runs: readonly Run[], n: number) => Cell;
  /** Show ours / theirs (for figures where lower is better). */
  readonly ratio: boolean;
  readonly target?: { readonly text: (n: number) => string; readonly check: (ours: Cell, theirs: Cell, n: number) => boolean };
}

/** Median time; Infinity (shown as "> cap") for runs that did not finish; [min–max] over the runs. */
function timeCell(runs: readonly Run[], get: (r: Run) => number | null, capMs: number, unfinished: (r: Run) => string): Cell {
  if (runs.length === 0) return { text: 'n/a', value: NaN };
  const values = runs.map((r) => get(r) ?? Infinity);
  const m = median(values);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const worst = runs[values.indexOf(hi)]!;
  let text = Number.isFinite(m) ? fmtMs(m) : `> ${fmtMs(capMs)} (${unfinished(worst)})`;
  if (runs.length > 1) text += ` [${fmtMs(lo)}–${Number.isFinite(hi) ? fmtMs(hi) : '> cap'}]`;
  else if (Number.isFinite(m)) text += ' (1 run)';
  return { text, value: m };
}

/** The worst run's figure (largest, or smallest with `worst: 'min'`). */
function worstCell(runs: readonly Run[], get: (r: Run) => number, worst: 'max' | 'min', format: (v: number, r: Run) => string = (v) => String(v)): Cell {
  if (runs.length === 0) return { text: 'n/a', value: NaN };
  const values = runs.map(get);
  const v = worst === 'max' ? Math.max(...values) : Math.min(...values);
  return { text: format(v, runs[values.indexOf(v)]!), value: v };
}

function rssCell(runs: readonly Run[]): Cell {
  if (runs.length === 0) return { text: 'n/a', value: NaN };
  const values = runs.map((r) => r.maxRssKiB / 1024);
  const v = median(values);
  const spread = runs.length > 1 ? ` [${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}]` : ' (1 run)';
  return { text: `${v.toFixed(1)} MiB${spread}`, value: v };
}

function rows(o: SuiteOptions): RowSpec[] {
  const settleS = `${o.settleMs / 1000} s`;
  const common: RowSpec[] = [
    {
      metric: 'peak RSS of the client process (median [min–max])',
      cell: rssCell,
      ratio: true,
      target: { text: () => 'ours <= theirs', check: (ours, theirs) => ours.value <= theirs.value },
    },
    {
      metric: 'most messages one light received in a second (worst run)',
      cell: (runs) => worstCell(runs, (r) => r.fleetMaxRate, 'max'),
      ratio: false,
    },
  ];
  if (o.task === 'discovery') {
    return [
      {
        metric: 'time until all N lights are found (median [min–max])',
        cell: (runs, n) => timeCell(runs, (r) => r.discoveryMs, o.capMs, (r) => `found ${r.found}/${n}`),
        ratio: true,
        target: { text: () => '< 1 s', check: (ours) => ours.value < 1000 },
      },
      {
        metric: 'UDP receive drops until all found (worst run)',
        cell: (runs) => worstCell(runs, (r) => r.dropsUntilFound, 'max'),
        ratio: false,
        target: { text: () => '0', check: (ours) => ours.value === 0 },
      },
      {
        metric: `UDP receive drops, discovery and the ${settleS} after it (worst run; at the client's socket)`,
        cell: (runs) => worstCell(runs, (r) => r.dropsWholeRun, 'max', (v, r) => `${v} (${r.dropsClientSocket})`),
        ratio: false,
      },
      ...common,
    ];
  }
  return [
    {
      metric: 'time to read the state of every light it found (median [min–max])',
      cell: (runs) => timeCell(runs, (r) => r.readMs, o.capMs, (r) => `${r.n - r.missing}/${r.n} answered`),
      ratio: true,
      target: { text: () => 'ours <= theirs', check: (ours, theirs) => Number.isFinite(ours.value) && !(ours.value > theirs.value) },
    },
    {
      metric: 'states read and given to the right light: serial, label, power, colour (worst run)',
      cell: (runs, n) =>
        worstCell(runs, (r) => r.correct, 'min', (v, r) => `${v}/${n}` + (r.undiscovered > 0 ? ` (${r.undiscovered} not found before the reads)` : '')),
      ratio: false,
      target: { text: (n) => `${n}/${n}`, check: (ours, _theirs, n) => ours.value === n },
    },
    {
      metric: 'replies given to the wrong light (worst run)',
      cell: (runs) => worstCell(runs, (r) => r.wrong, 'max', (v, r) => (v > 0 && r.wrongExamples[0] ? `${v}, e.g. ${r.wrongExamples[0]}` : String(v))),
      ratio: false,
      target: { text: () => '0', check: (ours) => ours.value === 0 },
    },
    {
      metric: 'UDP receive drops during the reads (worst run)',
      cell: (runs) => worstCell(runs, (r) => r.dropsDuringReads, 'max'),
      ratio: false,
    },
    ...common,
  ];
}

function ratioText(ours: Cell, theirs: Cell, capMs: number): string {
  if (!Number.isFinite(ours.value) || Number.isNaN(theirs.value)) return 'n/a';
  if (theirs.value === Infinity) return `< ${(ours.value / capMs).toFixed(3)}`;
  if (theirs.value === 0) return 'n/a';
  return (ours.value / theirs.value).toFixed(2);
}

export interface Report {
  readonly text: string;
  /** Per metric (with a target) and N: ours passes? */
  readonly verdicts: { readonly metric: string; readonly n: number; readonly verdict: Verdict; readonly ours: string; readonly theirs: string }[];
}

export function report(title: string, o: SuiteOptions, suite: SuiteResult): Report {
  const lines: string[] = [];
  const verdicts: Report['verdicts'][number][] = [];
  lines.push(`| N | metric | ${LABEL.ours} | ${LABEL.theirs} | ratio ours/theirs | target for ours |`);
  lines.push('|---:|---|---:|---:|---:|---|');
  for (const n of o.sizes) {
    for (const spec of rows(o)) {
      const pick = (c: ClientName): Run[] => suite.runs.filter((r) => r.n === n && r.client === c);
      const ours = spec.cell(pick('ours'), n);
      const theirs = spec.cell(pick('theirs'), n);
      let target = '';
      if (spec.target) {
        const verdict: Verdict = spec.target.check(ours, theirs, n) ? 'PASS' : 'FAIL';
        verdicts.push({ metric: spec.metric, n, verdict, ours: ours.text, theirs: theirs.text });
        target = `${spec.target.text(n)}: **${verdict}**`;
      }
      lines.push(`| ${n} | ${spec.metric} | ${ours.text} | ${theirs.text} | ${spec.ratio ? ratioText(ours, theirs, o.capMs) : ''} | ${target} |`);
    }
  }
  const rmemMax = readFileSync('/proc/sys/net/core/rmem_max', 'utf8').trim();
  const header = [
    `## ${title}`,
    '',
    `node ${process.version}, ${os.cpus().length} CPUs, net.core.rmem_max ${rmemMax}, private network namespace (loopback only).`,
    `Fleet of N virtual lights (127.0.0.2…, port 56700) in its own process; every measurement in a fresh client process ` +
      `(plain node, compiled JS), ours and lifx-lan-client alternating; ${o.reps} repetition(s) per N and client ` +
      `(a client that hits the ${fmtMs(o.capMs)} cap is not run again at that N). Ratio < 1: ours is lower.`,
    `Peak RSS of a worker process that loads no client (node + this harness): ${(suite.baselineRssKiB / 1024).toFixed(1)} MiB.`,
    '',
  ];
  return { text: [...header, ...lines].join('\n'), verdicts };
}
