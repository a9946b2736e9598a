// The parent side of the discovery and read-state benchmarks: starts the fleet in its own process, runs every
// measurement in a fresh worker process (Lightwire and each Node peer in turn, same fleet, same run), and prints the
// figures (medians and ranges per client and N; bench/lib/figures.ts), with --json FILE for docs/PERFORMANCE.md.

import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { format, machine, median, summary, type BenchResult, type Figure, type Point } from './figures.js';
import type { ClientName, ExpectedLight, FleetReply, FleetRequest, Task, WorkerConfig, WorkerResult } from './messages.js';
import { assertPrivateNetns } from './net-guard.js';
import { FACTS_ATTEMPTS, FACTS_IN_FLIGHT } from './peers.js';

const ROOT = path.resolve(__dirname, '..', '..');
export const COMPILED = path.join(ROOT, 'node_modules', '.cache', 'lightwire-bench', 'bench', 'lib');
const FLEET_CHILD = path.join(COMPILED, 'fleet-child.js');
const WORKER = path.join(COMPILED, 'worker.js');
/** Plain node for the measured processes: no TypeScript loader (fork would otherwise inherit --import tsx). */
const PLAIN_NODE: string[] = [];
/** Workers may collect garbage on demand: the heap a client holds is measured after full collections. */
const WORKER_NODE: string[] = ['--expose-gc'];
/**
 * The diagnostic settings of V8 that show where a client's memory goes (never how anyone runs a client): each is run at
 * the sizes its option names, and has one figure, its RSS at the end.
 */
const DIAGNOSTICS = {
  // V8's optimizing compilers (Maglev, Turbofan) on the main thread instead of its worker threads.
  'main-thread-compile': {
    flags: ['--no-concurrent-recompilation'],
    what: "V8's optimizing compilers on the main thread",
    effect: "their worker threads' malloc arenas stay empty",
  },
  // By default the young generation's semi-spaces double, up to tens of MiB, as objects survive collections.
  'small-young': {
    flags: ['--max-semi-space-size=2'],
    what: "V8's young generation held at 2 MiB semi-spaces",
    effect: 'the pages it touches while a client allocates stay few',
  },
} as const;
type Diagnostic = keyof typeof DIAGNOSTICS;
const DIAGNOSTIC_NAMES = Object.keys(DIAGNOSTICS) as Diagnostic[];
/** How V8 ran in a measured process: node's defaults, or a diagnostic setting. */
export type V8Setting = 'default' | Diagnostic;
const v8Flags = (v8: V8Setting): string[] => (v8 === 'default' ? WORKER_NODE : [...WORKER_NODE, ...DIAGNOSTICS[v8].flags]);

export const CLIENTS: readonly ClientName[] = ['ours', 'llc', 'nll', 'nl'];
export const LABEL: Record<ClientName, string> = {
  ours: 'Lightwire',
  llc: 'lifx-lan-client 2.1.2',
  nll: 'node-lifx-lan 0.5.0',
  nl: 'node-lifx 0.8.0',
};

export type BenchTask = Exclude<Task, 'baseline' | 'read-facts'>;

export interface SuiteOptions {
  readonly task: BenchTask;
  readonly sizes: readonly number[];
  readonly reps: number;
  readonly capMs: number;
  readonly settleMs: number;
  readonly clients: readonly ClientName[];
  /** The fleet's latency fault: every reply leaves this long after the request arrived (0: none). */
  readonly latencyMs: number;
  /** At these N every client's RSS is also taken at the same age, capMs + settleMs after it was created. */
  readonly sameAgeSizes: readonly number[];
  /** Per diagnostic setting, the N at which every client is also run (as often) with it. */
  readonly diagnosticSizes: Readonly<Record<Diagnostic, readonly number[]>>;
  /**
   * read-state: the N at which every client is also run (as often) at equal work, reading what Lightwire reads of each
   * light with its own API (task read-facts), for the memory figures at equal work.
   */
  readonly factsSizes: readonly number[];
  /** Equal work: its own cap for finding the fleet and another for the reads (minutes for some peers at N=500, paced as peers.ts says). */
  readonly factsCapMs: number;
  /** Equal work: lights read at once and reads per light at most (peers.ts: FACTS_IN_FLIGHT, FACTS_ATTEMPTS). */
  readonly factsInFlight: number;
  readonly factsAttempts: number;
  /** Only the equal-work runs (`--facts-only`): their figures replace those in the --json file, the rest is kept. */
  readonly factsOnly: boolean;
}

/**
 * `--quick` (1 repetition), `--reps K`, `--sizes 10,100`, `--cap-ms`, `--settle-ms`, `--clients ours,llc`, `--latency-ms`,
 * `--same-age-sizes 500` (discovery's default; none for read-state, `--same-age-sizes none` for none),
 * `--main-thread-compile-sizes 500` and `--small-young-sizes 500` (read-state's defaults; none for discovery, whose capped peers
 * cost 30 s a run), `--facts-sizes 10,500` (read-state's default: equal work; none for discovery), `--facts-cap-ms 300000`
 * (the equal-work reads' cap), `--facts-in-flight 20` and `--facts-attempts 3` (peers.ts), `--facts-only` (only the
 * equal-work runs, merged into the --json file).
 */
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
    clients: (value('--clients')?.split(',') ?? CLIENTS).map((c) => {
      if (!CLIENTS.includes(c as ClientName)) throw new Error(`--clients: unknown ${c} (${CLIENTS.join(', ')})`);
      return c as ClientName;
    }),
    latencyMs: Number(value('--latency-ms') ?? 0),
    sameAgeSizes: sizeList(value('--same-age-sizes') ?? (task === 'discovery' ? '500' : 'none')),
    diagnosticSizes: {
      'main-thread-compile': sizeList(value('--main-thread-compile-sizes') ?? (task === 'read-state' ? '500' : 'none')),
      'small-young': sizeList(value('--small-young-sizes') ?? (task === 'read-state' ? '500' : 'none')),
    },
    factsSizes: task === 'read-state' ? sizeList(value('--facts-sizes') ?? '10,500') : [],
    factsCapMs: Number(value('--facts-cap-ms') ?? 300_000),
    factsInFlight: Number(value('--facts-in-flight') ?? FACTS_IN_FLIGHT),
    factsAttempts: Number(value('--facts-attempts') ?? FACTS_ATTEMPTS),
    factsOnly: task === 'read-state' && argv.includes('--facts-only'),
  };
}

/** `500,1000` or `none`. */
const sizeList = (text: string): number[] => text.split(',').filter((v) => v !== 'none').map(Number);

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

  static start(n: number, latencyMs = 0): Promise<FleetProcess> {
    const child = fork(FLEET_CHILD, [String(n), String(latencyMs)], { execArgv: PLAIN_NODE, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
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
  readonly v8: V8Setting;
}

function runWorker(cfg: WorkerConfig, v8: V8Setting = 'default'): Promise<WorkerResult> {
  const child = fork(WORKER, [], { execArgv: v8Flags(v8), stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const output = collectOutput(child);
  // Discovery cap + settle + read cap (or the wait for the same age) + start-up; past this the worker is stuck and
  // is killed (it is our own child).
  const hardLimitMs = cfg.capMs + (cfg.readCapMs ?? cfg.capMs) + 2 * cfg.settleMs + 20_000;
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
  const parts = [`found ${r.found}/${r.n} in ${ms(r.discoveryMs)}`];
  if (r.describedMs !== null) parts.push(`described ${ms(r.describedMs)}`);
  parts.push(`drops ${r.dropsUntilFound}/${r.dropsWholeRun} (client socket ${r.dropsClientSocket})`);
  if (r.task === 'read-state' || r.task === 'read-facts') {
    parts.push(
      `${r.task === 'read-facts' ? 'facts read' : 'read'} ${ms(r.readMs)}: ${r.correct} right, ${r.wrong} wrong, ${r.missing} missing, ` +
        `${r.dropsDuringReads} drops${r.task === 'read-facts' ? `, ${r.retries} read again` : ''}`,
    );
    if (r.wrongExamples.length > 0) parts.push(`e.g. ${r.wrongExamples[0]}`);
  }
  parts.push(
    `peak RSS ${(r.maxRssKiB / 1024).toFixed(1)} MiB, at the end ${(r.endRssKiB / 1024).toFixed(1)} MiB` +
      (r.sameAgeRssKiB === null ? '' : `, at the same age ${(r.sameAgeRssKiB / 1024).toFixed(1)} MiB`) +
      `, heap after GC ${(r.heapAfterGcKiB / 1024).toFixed(1)} MiB`,
    `max ${r.fleetMaxRate} msg/s to a light`,
  );
  const setting = r.v8 === 'default' ? '' : ` (${DIAGNOSTICS[r.v8].flags.join(' ')})`;
  const task = r.task === 'read-facts' ? ' (equal work)' : '';
  return `  N=${r.n} rep ${r.rep + 1} ${r.client.padEnd(6)}${setting}${task} ${parts.join(', ')}`;
}

export interface SuiteResult {
  readonly runs: Run[];
  /** Peak RSS of a worker that loads no client: node and the harness alone, KiB. */
  readonly baselineRssKiB: number;
  readonly baselineHeapKiB: number;
  readonly wholeRunS: number;
}

export async function runSuite(options: SuiteOptions): Promise<SuiteResult> {
  assertPrivateNetns();
  compileChildren();
  const started = performance.now();
  const base = await runWorker({ client: 'ours', task: 'baseline', expected: [], capMs: options.capMs, settleMs: 0 });
  const runs: Run[] = [];
  for (const n of options.sizes) {
    const fleet = await FleetProcess.start(n, options.latencyMs);
    // A client that does not find the fleet within the cap is not run again at this N: each such run costs the cap.
    const capped = new Set<ClientName>();
    const variants: V8Setting[] = ['default', ...DIAGNOSTIC_NAMES.filter((d) => options.diagnosticSizes[d].includes(n))];
    try {
      for (const v8 of options.factsOnly ? [] : variants) {
        for (let rep = 0; rep < options.reps; rep++) {
          // Rotate who goes first, so no client always meets a fleet that has just been busy.
          const order = options.clients.map((_, i) => options.clients[(i + rep) % options.clients.length]!);
          for (const client of order) {
            if (capped.has(client)) continue;
            await fleet.request({ type: 'clear' }, 'cleared');
            const sameAge = options.sameAgeSizes.includes(n) && v8 === 'default' ? { sameAgeMs: options.capMs + options.settleMs } : {};
            const cfg: WorkerConfig = { client, task: options.task, expected: fleet.lights, capMs: options.capMs, settleMs: options.settleMs, ...sameAge };
            const result = await runWorker(cfg, v8);
            const stats = await fleet.request({ type: 'stats' }, 'stats');
            const run: Run = { ...result, rep, fleetMaxRate: stats.maxMessagesPerSecond, v8 };
            runs.push(run);
            if (run.discoveryMs === null || (options.task === 'read-state' && run.readMs === null)) capped.add(client);
            console.error(progress(run));
            // Replies still in flight to the exited worker's port must not land in the next run.
            await sleep(300);
          }
        }
      }
      // Equal work: every client reads every light's facts and state with its own API (one that could not find the
      // fleet is not run again; one that does not read every light is shown with how far it got).
      const factsCapped = new Set<ClientName>();
      for (let rep = 0; options.factsSizes.includes(n) && rep < options.reps; rep++) {
        const order = options.clients.map((_, i) => options.clients[(i + rep) % options.clients.length]!);
        for (const client of order) {
          if (capped.has(client) && !runs.some((r) => r.n === n && r.client === client && r.discoveryMs !== null)) continue;
          if (factsCapped.has(client)) continue;
          await fleet.request({ type: 'clear' }, 'cleared');
          const result = await runWorker({
            client,
            task: 'read-facts',
            expected: fleet.lights,
            // Its own cap for finding the fleet too: lifx-lan-client and node-lifx lose StateService replies when 500
            // lights answer a broadcast at once (their socket keeps Node's receive buffer) and find the last lights on
            // later broadcasts (every 5 s), not always within the read-state cap.
            capMs: options.factsCapMs,
            readCapMs: options.factsCapMs,
            factsInFlight: options.factsInFlight,
            factsAttempts: options.factsAttempts,
            settleMs: options.settleMs,
          });
          const stats = await fleet.request({ type: 'stats' }, 'stats');
          const run: Run = { ...result, rep, fleetMaxRate: stats.maxMessagesPerSecond, v8: 'default' };
          runs.push(run);
          // Its runs that read fewer than every light are all shown (the cap is minutes; one that could not find the
          // fleet in it is not run again).
          if (run.discoveryMs === null) factsCapped.add(client);
          console.error(progress(run));
          await sleep(300);
        }
      }
    } finally {
      await fleet.stop();
    }
  }
  return { runs, baselineRssKiB: base.maxRssKiB, baselineHeapKiB: base.heapAfterGcKiB, wholeRunS: (performance.now() - started) / 1000 };
}

// ---- the figures ----

type Get = (r: Run) => number | null;

/** One figure: a value per client and N over the runs (null: the run did not finish). */
function figure(
  o: SuiteOptions,
  suite: SuiteResult,
  spec: Omit<Figure, 'clients'> & {
    get: Get;
    note?: (rs: readonly Run[], n: number) => string | undefined;
    only?: readonly ClientName[];
    sizes?: readonly number[];
    /** The runs it is taken from: node's defaults unless said otherwise. */
    v8?: V8Setting;
    /** The runs' task: the suite's unless said otherwise. */
    task?: Task;
    /** When a memory figure's point is not compared (Point.partial): by default a run that found fewer than half. */
    partialIf?: (r: Run, n: number) => boolean;
    /** Why, when partialIf is given (Point.partialNote). */
    partialNote?: string;
  },
): Figure {
  const v8 = spec.v8 ?? 'default';
  const task = spec.task ?? o.task;
  const partialIf = spec.partialIf ?? ((r: Run, n: number) => r.found * 2 < n);
  const clients: Record<string, Point[]> = {};
  for (const c of o.clients) {
    if (spec.only && !spec.only.includes(c)) continue;
    clients[LABEL[c]] = (spec.sizes ?? o.sizes)
      .map((n) => {
        const rs = suite.runs.filter((r) => r.n === n && r.client === c && r.v8 === v8 && r.task === task);
        const note = spec.note?.(rs, n);
        const partial = spec.unit === 'MiB' && rs.some((r) => partialIf(r, n));
        const why = partial && spec.partialNote !== undefined ? { partialNote: spec.partialNote } : {};
        return { n, values: rs.map(spec.get), ...(note ? { note } : {}), ...(partial ? { partial: true as const } : {}), ...why };
      })
      .filter((p) => p.values.length > 0);
  }
  const { get: _get, note: _note, only: _only, sizes: _sizes, v8: _v8, task: _task, partialIf: _partialIf, partialNote: _partialNote, ...rest } = spec;
  return { ...rest, clients };
}

function oursAt(f: Figure, n: number): number | undefined {
  const p = f.clients[LABEL.ours]?.find((q) => q.n === n);
  return p === undefined ? undefined : summary(p).median;
}

/** The lowest median among the peers at N that did the whole task (undefined when none did). */
function bestPeerAt(f: Figure, n: number): number | undefined {
  const medians = Object.entries(f.clients)
    .filter(([label]) => label !== LABEL.ours)
    .map(([, points]) => points.find((q) => q.n === n))
    .filter((p): p is Point => p !== undefined && p.partial !== true)
    .map((p) => summary(p).median);
  return medians.length === 0 ? undefined : Math.min(...medians);
}

const unfinished = (what: string) => (rs: readonly Run[], n: number): string | undefined => {
  const worst = rs.find((r) => r.found < n || r.missing > 0);
  return worst === undefined ? undefined : `${what} ${Math.min(...rs.map((r) => r.found - r.missing))}/${n} at worst`;
};

/** The marginal heap per light: the heap after GC at the largest N less at the smallest, per light (KiB). */
function heapPerLight(o: SuiteOptions, suite: SuiteResult, c: ClientName, task: Task = o.task, sizesRun: readonly number[] = o.sizes): number | undefined {
  const runs = suite.runs.filter((r) => r.v8 === 'default' && r.task === task);
  // Only sizes at which the client did the whole task in every run (found every light; at equal work, read them all).
  // At equal work only sizes at which every run read every light; otherwise (as before) one that found them all.
  const sizes = sizesRun.filter((n) => {
    const rs = runs.filter((r) => r.n === n && r.client === c);
    return task === 'read-facts' ? rs.length > 0 && rs.every((r) => r.correct >= n) : rs.some((r) => r.found >= n);
  });
  if (sizes.length < 2) return undefined;
  const lo = Math.min(...sizes);
  const hi = Math.max(...sizes);
  const at = (n: number): number => median(runs.filter((r) => r.n === n && r.client === c).map((r) => r.heapAfterGcKiB));
  return (at(hi) - at(lo)) / (hi - lo);
}

export function result(title: string, o: SuiteOptions, suite: SuiteResult): BenchResult {
  if (o.factsOnly) {
    // Only the equal-work runs: mergeEqualWork puts these into the full run's result.
    const equalWork = equalWorkFigures(o, suite);
    return {
      bench: 'read-state',
      title,
      machine: machine(),
      method: equalWork.method ?? '',
      figures: equalWork.figures,
      ...(equalWork.details === undefined ? {} : { details: equalWork.details }),
    };
  }
  const rmemMax = readFileSync('/proc/sys/net/core/rmem_max', 'utf8').trim();
  const largest = Math.max(...o.sizes);
  const figures: Figure[] = [];
  const latency = o.latencyMs > 0 ? `, replies delayed ${o.latencyMs} ms` : '';
  const found = figure(o, suite, {
    id: `${o.task}-found${o.latencyMs > 0 ? `-latency${o.latencyMs}` : ''}`,
    title: `Time until all N lights are found${latency} (node-lifx-lan: until discover() resolves: 1 s of listening, then every light's info, one light at a time)`,
    unit: 'ms',
    lowerIsBetter: true,
    chart: o.task === 'discovery',
    get: (r) => r.discoveryMs,
    note: (rs, n) => (rs.some((r) => r.discoveryMs === null) ? `found ${Math.min(...rs.map((r) => r.found))}/${n} at worst` : undefined),
  });
  if (o.task === 'discovery') {
    figures.push(found);
    const described = figure(o, suite, {
      id: `discovery-described${o.latencyMs > 0 ? `-latency${o.latencyMs}` : ''}`,
      title: `Time until all N lights are found and described${latency}: product, firmware, group, location, Wi-Fi and state read (Lightwire's first reads)`,
      unit: 'ms',
      lowerIsBetter: true,
      chart: true,
      only: ['ours'],
      get: (r) => r.describedMs,
    });
    const d = oursAt(described, 500);
    figures.push(
      o.latencyMs === 50 && d !== undefined ? { ...described, target: { text: 'under 1.5 s for 500 lights with 50 ms latency', met: d < 1500 } } : described,
      figure(o, suite, {
        id: 'discovery-drops',
        title: 'UDP receive drops until all were found (worst run)',
        unit: 'lights',
        lowerIsBetter: true,
        get: (r) => r.dropsUntilFound,
      }),
    );
  } else {
    const read = figure(o, suite, {
      id: 'read-time',
      title: 'Time to read the state of every light (GetColor; node-lifx-lan at most 20 lights in flight)',
      unit: 'ms',
      lowerIsBetter: true,
      chart: true,
      get: (r) => r.readMs,
      note: unfinished('answered'),
    });
    figures.push(
      read,
      figure(o, suite, {
        id: 'read-right',
        title: 'States read and given to the right light: serial, label, power, colour (every run)',
        unit: 'lights',
        lowerIsBetter: false,
        get: (r) => r.correct,
      }),
      figure(o, suite, {
        id: 'read-wrong',
        title: "Replies given to the wrong light (another light's label or colour; every run)",
        unit: 'lights',
        lowerIsBetter: true,
        get: (r) => r.wrong,
        note: (rs) => rs.find((r) => r.wrongExamples.length > 0)?.wrongExamples[0],
      }),
    );
  }
  const peak = figure(o, suite, { id: `${o.task}-rss-peak`, title: 'Peak RSS of the client process', unit: 'MiB', lowerIsBetter: true, chart: o.task === 'read-state', get: (r) => r.maxRssKiB / 1024 });
  const end = figure(o, suite, { id: `${o.task}-rss-end`, title: 'RSS of the client process at the end of the run (the lights held, before stopping)', unit: 'MiB', lowerIsBetter: true, get: (r) => r.endRssKiB / 1024 });
  const lightest = bestPeerAt(end, 500);
  const ours500 = oursAt(end, 500);
  figures.push(peak, lightest !== undefined && ours500 !== undefined ? { ...end, target: { text: 'Lightwire at most the lightest peer at N=500', met: ours500 <= lightest } } : end);
  const suffix = o.latencyMs > 0 ? `-latency${o.latencyMs}` : '';
  const sameAgeSizes = o.sizes.filter((n) => o.sameAgeSizes.includes(n));
  if (sameAgeSizes.length > 0) {
    const ageS = (o.capMs + o.settleMs) / 1000;
    const sameAge = figure(o, suite, {
      id: `${o.task}-rss-same-age${suffix}`,
      title:
        `RSS of the client process ${ageS} s after it was created, the lights held (every client as old: one that finished early waits, ` +
        'so the idle-time collections V8 makes in a long run count for each)',
      unit: 'MiB',
      lowerIsBetter: true,
      sizes: sameAgeSizes,
      get: (r) => (r.sameAgeRssKiB === null ? null : r.sameAgeRssKiB / 1024),
      note: unfinished('found'),
    });
    const lightestSameAge = bestPeerAt(sameAge, 500);
    const oursSameAge = oursAt(sameAge, 500);
    figures.push(
      lightestSameAge !== undefined && oursSameAge !== undefined
        ? { ...sameAge, target: { text: 'Lightwire at most the lightest peer at N=500, at the same age', met: oursSameAge <= lightestSameAge } }
        : sameAge,
    );
  }
  // Where the RSS at the end lives (at the targets' N): the parts in which the clients differ.
  const partsAt = o.sizes.includes(500) ? [500] : [largest];
  figures.push(
    figure(o, suite, {
      id: `${o.task}-rss-end-v8${suffix}`,
      title: "RSS at the end, V8's part: resident pages of its heap spaces (JS objects, compiled code)",
      unit: 'MiB',
      lowerIsBetter: true,
      sizes: partsAt,
      get: (r) => r.endResident.v8HeapKiB / 1024,
    }),
    figure(o, suite, {
      id: `${o.task}-rss-end-other-anon${suffix}`,
      title:
        "RSS at the end, other anonymous memory: what Node, libuv and V8's compilers and collectors allocate with malloc (and the " +
        'allocator keeps once freed), and heap pages V8 keeps pooled',
      unit: 'MiB',
      lowerIsBetter: true,
      sizes: partsAt,
      get: (r) => r.endResident.otherAnonKiB / 1024,
    }),
  );
  const diagnosticsRun = DIAGNOSTIC_NAMES.map((d) => ({ d, sizes: o.sizes.filter((n) => o.diagnosticSizes[d].includes(n)) })).filter((x) => x.sizes.length > 0);
  for (const { d, sizes } of diagnosticsRun) {
    const { flags, what, effect } = DIAGNOSTICS[d];
    figures.push(
      figure(o, suite, {
        id: `${o.task}-rss-end-${d}${suffix}`,
        title: `RSS at the end with ${what} (node ${flags.join(' ')}), so ${effect}: a diagnostic of where the memory goes, not how a client runs`,
        unit: 'MiB',
        lowerIsBetter: true,
        sizes,
        v8: d,
        get: (r) => r.endRssKiB / 1024,
        note: unfinished(o.task === 'read-state' ? 'answered' : 'found'),
      }),
    );
  }
  figures.push(
    figure(o, suite, { id: `${o.task}-heap`, title: 'V8 heap in use after full collections at the end of the run', unit: 'MiB', lowerIsBetter: true, get: (r) => r.heapAfterGcKiB / 1024 }),
    figure(o, suite, { id: `${o.task}-rate`, title: 'Most messages one light received in any second (every run)', unit: 'msg/s', lowerIsBetter: true, get: (r) => r.fleetMaxRate }),
  );
  const perLight = o.clients
    .map((c) => ({ c, kib: heapPerLight(o, suite, c) }))
    .filter((x): x is { c: ClientName; kib: number } => x.kib !== undefined);
  const oursPerLight = perLight.find((x) => x.c === 'ours')?.kib;
  const details = [
    `Heap per light after GC (the heap at N=${largest} less the heap at N=${Math.min(...o.sizes)}, per light)` +
      (oursPerLight !== undefined ? `; target for Lightwire under 10 KiB: **${oursPerLight < 10 ? 'met' : 'not met'}**` : '') +
      ':',
    '',
    '| client | KiB per light |',
    '|---|---:|',
    ...perLight.map((x) => `| ${LABEL[x.c]} | ${x.kib.toFixed(1)} |`),
  ].join('\n');
  const equalWork = equalWorkFigures(o, suite);
  figures.push(...equalWork.figures);
  return {
    bench: o.latencyMs > 0 ? `${o.task}-latency${o.latencyMs}` : o.task,
    title,
    machine: machine(),
    method:
      `Fleet of N virtual lights (127.0.0.2…, port 56700) in its own process${latency}; net.core.rmem_max ${rmemMax}, private network namespace ` +
      `(loopback only); whole run ${suite.wholeRunS.toFixed(0)} s. Every measurement in a fresh client process (plain node with --expose-gc, ` +
      `compiled JS), the clients in turn (${o.clients.map((c) => LABEL[c]).join(', ')}), ${o.reps} repetition(s) per N and client; median ` +
      `[min–max]; a client that does not finish within ${o.capMs / 1000} s is not run again at that N. Each client keeps its defaults except ` +
      `where it would broadcast beyond this machine or share the lights' port (bench/lib/peers.ts); Lightwire is its LightClient with ` +
      `defaults (first reads of every light found, background refresh). A run ends ${o.settleMs / 1000} s after every light was found (Lightwire: ` +
      `found and described, when that is later), so what discovery set off has run its course. ` +
      (o.task === 'read-state'
        ? `Each worker first finds the fleet with its library's defaults, waits ${o.settleMs / 1000} s for what discovery sets off, then reads every light once ` +
          "(node-lifx-lan is given the fleet's list instead, createDevice() for each light: its discover() reads one light at a time and takes longer than the cap; so it holds its 500 devices without having described them). "
        : '') +
      'A memory figure of a client that held fewer than half of the lights in some run is shown but not compared (it holds next to nothing). ' +
      diagnosticsRun
        .map(({ d, sizes }) => `At N=${sizes.join(', ')} every client also ran ${o.reps} more time(s) with ${DIAGNOSTICS[d].what}, for the diagnostic figure only. `)
        .join('') +
      `A worker that loads no client peaks at ${(suite.baselineRssKiB / 1024).toFixed(1)} MiB RSS (node and the harness).` +
      (equalWork.method === undefined ? '' : `\n\n${equalWork.method}`),
    figures,
    details: equalWork.details === undefined ? details : `${details}\n\n${equalWork.details}`,
  };
}

/** At these N Lightwire's equal-work targets are checked. */
const EQUAL_WORK_N = 500;
/** Lightwire's heap per light at equal work stays under this (KiB). */
const EQUAL_WORK_HEAP_KIB = 4;
const EQUAL_WORK_WHAT = 'label, version, host firmware, group, location, Wi-Fi info and state';

/**
 * Memory at equal work (task read-facts): every client has read, with its own API, each light's label, version, host
 * firmware, group, location, Wi-Fi info and state. Only a client that read every light right in every run at N is
 * compared (a run counts when every light's facts were all read and right).
 */
function equalWorkFigures(o: SuiteOptions, suite: SuiteResult): { figures: Figure[]; details?: string; method?: string } {
  const sizes = o.sizes.filter((n) => o.factsSizes.includes(n) && suite.runs.some((r) => r.n === n && r.task === 'read-facts'));
  if (sizes.length === 0) return { figures: [] };
  const finished = (r: Run): boolean => r.correct >= r.n;
  const readAtWorst = (rs: readonly Run[], n: number): string | undefined =>
    rs.some((r) => !finished(r)) ? `read ${Math.min(...rs.map((r) => r.correct))}/${n} at worst` : undefined;
  const common = {
    task: 'read-facts' as const,
    sizes,
    partialIf: (r: Run) => !finished(r),
    partialNote: 'did not read every light in every run',
    note: readAtWorst,
  };
  const right = figure(o, suite, {
    ...common,
    id: 'read-facts-right',
    title: `Equal work: lights whose ${EQUAL_WORK_WHAT} were all read, with its own API, and were the light's own (every run)`,
    unit: 'lights',
    lowerIsBetter: false,
    get: (r) => r.correct,
  });
  const time = figure(o, suite, {
    ...common,
    id: 'read-facts-time',
    title:
      `Equal work: time from the first request of the reads to the last light read, at most ${o.factsInFlight} lights at once ` +
      "(Lightwire read its facts on discovery, before this: it checks them and reads the state again; see 'found and described')",
    unit: 'ms',
    lowerIsBetter: true,
    get: (r) => (finished(r) ? r.readMs : null),
    note: (rs, n) => {
      const described = rs.map((r) => r.describedMs).filter((v): v is number => v !== null);
      const ours = rs[0]?.client === 'ours' && described.length > 0 ? `found and described in ${format(median(described), 'ms')}` : undefined;
      return readAtWorst(rs, n) ?? ours;
    },
  });
  const rss = figure(o, suite, {
    ...common,
    id: 'read-facts-rss-end',
    title: `Equal work: RSS of the client process at the end of the run, every light's ${EQUAL_WORK_WHAT} read and held`,
    unit: 'MiB',
    lowerIsBetter: true,
    chart: true,
    get: (r) => r.endRssKiB / 1024,
  });
  const heap = figure(o, suite, {
    ...common,
    id: 'read-facts-heap',
    title: `Equal work: V8 heap in use after full collections at the end of the run, every light's ${EQUAL_WORK_WHAT} read`,
    unit: 'MiB',
    lowerIsBetter: true,
    get: (r) => r.heapAfterGcKiB / 1024,
  });
  const retries = figure(o, suite, {
    ...common,
    note: undefined,
    id: 'read-facts-retries',
    title: "Equal work: lights read again (the library's own calls) after a read that failed or came back with another light's facts (every run)",
    unit: 'lights',
    lowerIsBetter: true,
    get: (r) => r.retries,
  });
  const drops = figure(o, suite, {
    ...common,
    note: undefined,
    id: 'read-facts-drops',
    title: 'Equal work: datagrams dropped for a full receive buffer during the reads (UDP RcvbufErrors of the namespace; every run)',
    unit: 'datagrams',
    lowerIsBetter: true,
    get: (r) => r.dropsDuringReads,
  });
  const lightest = bestPeerAt(rss, EQUAL_WORK_N);
  const ours = oursAt(rss, EQUAL_WORK_N);
  const rssWithTarget =
    lightest !== undefined && ours !== undefined ? { ...rss, target: { text: `Lightwire at most the lightest peer at N=${EQUAL_WORK_N}, at equal work`, met: ours <= lightest } } : rss;
  const perLight = o.clients
    .map((c) => ({ c, kib: heapPerLight(o, suite, c, 'read-facts', sizes) }))
    .map((x) => ({ ...x, text: x.kib === undefined ? 'n/a (did not read every light in every run at two sizes)' : x.kib.toFixed(1) }));
  const oursKib = perLight.find((x) => x.c === 'ours')?.kib;
  const details = sizes.length < 2 ? undefined : [
    `Equal work: heap per light after GC (the heap at N=${Math.max(...sizes)} less the heap at N=${Math.min(...sizes)}, per light)` +
      (oursKib !== undefined ? `; target for Lightwire under ${EQUAL_WORK_HEAP_KIB} KiB: **${oursKib < EQUAL_WORK_HEAP_KIB ? 'met' : 'not met'}**` : '') +
      ':',
    '',
    '| client | KiB per light |',
    '|---|---:|',
    ...perLight.map((x) => `| ${LABEL[x.c]} | ${x.text} |`),
  ].join('\n');
  const ownRun = o.factsOnly ? ` Measured in a run of their own (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, whole run ${suite.wholeRunS.toFixed(0)} s).` : '';
  const method =
    `${EQUAL_WORK_METHOD_START} at N=${sizes.join(', ')}, ${o.reps} run(s) per client, the clients in turn on one fleet.${ownRun} After finding the ` +
    `fleet (as above; node-lifx-lan: devices made from the fleet's list) and the settle, each client reads every light's ${EQUAL_WORK_WHAT} with its ` +
    'own API: lifx-lan-client and node-lifx their light methods, and GetGroup and GetLocation through their own packet.create, send and ' +
    "addMessageHandler, as those methods do; node-lifx-lan its deviceGet… methods and lightGet(), one request after the other, 50 ms " +
    "apart as its own getDeviceInfo() spaces them (its calls have no pacing of their own; the other libraries pace a light's requests " +
    "themselves: lifx-lan-client 50 ms apart a light, node-lifx 50 ms apart for the whole client, Lightwire by its transport); Lightwire " +
    'its first reads on discovery (its defaults) read them, and the run checks every fact is held and reads the state again. ' +
    `Every client alike reads at most ${o.factsInFlight} lights at once and reads a light again, with the same calls, when a read failed or ` +
    `came back with another light's facts (at most ${o.factsAttempts} reads a light); the reads have ${o.factsCapMs / 1000} s of their own, ` +
    `and finding the fleet as long again. Why: ${EQUAL_WORK_WHY} ` +
    "A light counts when every reply came and the state (label, power, colour), the version's product and the group's and location's labels " +
    "are the light's (node-lifx-lan's replies must also have the fields of their kind: it can give one kind's reply to another request); " +
    'a client finishes a run when every light counts, and only a client that finished every run at N is compared. What was read is kept ' +
    "(Lightwire's in its registry, the peers' replies in the worker), as an application would keep it; the memory is taken as for the " +
    'other figures, at the end of the run. Each client otherwise keeps its defaults (Lightwire asks for a 4 MiB receive buffer, the peers ' +
    "keep Node's).";
  return { figures: [right, time, rssWithTarget, heap, retries, drops], ...(details === undefined ? {} : { details }), method };
}

/** How the equal-work paragraph of the method starts (mergeEqualWork finds it by this). */
const EQUAL_WORK_METHOD_START = 'Equal work (the "Equal work" figures):';
/** What the peers do when every light is asked at once (bench/lib/peers.ts FACTS_IN_FLIGHT; measured, see the runs). */
const EQUAL_WORK_WHY =
  'asked all at once (3,500 requests at N=500; a run of this bench on 2026-11-28 with 30 s to find the fleet and 60 s for the ' +
  'reads), lifx-lan-client read no light right, node-lifx 127 (127 more with another light\'s facts) and node-lifx-lan 396 (63 ' +
  'wrong). lifx-lan-client and node-lifx match a reply by its type and a sequence number (0–255) shared by every light, so one ' +
  "light's reply answered another light's request, and an unanswered request waits 45 s (their messageHandlerTimeout); node-lifx " +
  'sends one message every 50 ms for the whole client, so requests made at once waited minutes to be sent; node-lifx-lan matches ' +
  'by sequence number alone and resends every 50 ms until answered, so a late duplicate reply answered a later request: even at 20 ' +
  'lights at once, with its requests back to back, it read only 376 and 490 of the 500 in two runs (5 reads a light), none missed ' +
  'with them 50 ms apart. And within ' +
  '30 s lifx-lan-client and node-lifx had found only 464 and 484 of the 500 lights: when 500 lights answer their broadcast at once ' +
  "their socket (Node's default receive buffer) overflows, and they find the rest on later broadcasts (every 5 s), which go on " +
  'overflowing it during the reads (the drops below: mostly those StateService replies).'

/**
 * Puts the equal-work figures of a `--facts-only` run into a full run's result: its read-facts figures, the
 * equal-work paragraph of its method and the equal-work table of its details are replaced, the rest is kept.
 */
export function mergeEqualWork(full: BenchResult, facts: BenchResult): BenchResult {
  // The method's equal-work part: a paragraph of its own, or (results written before it was) a run of sentences.
  const legacy = / At N=[\d, ]+ every client also ran \d+ more time\(s\) at equal work .*?at the end of that run\./s;
  const kept = full.method.split('\n\n')[0]!.replace(legacy, '');
  const details = [full.details?.split('\n\nEqual work:')[0], facts.details].filter((d) => d !== undefined).join('\n\n');
  const { details: _old, ...rest } = full;
  return {
    ...rest,
    method: `${kept}\n\n${facts.method}`,
    figures: [...full.figures.filter((f) => !f.id.startsWith('read-facts-')), ...facts.figures],
    ...(details === '' ? {} : { details }),
  };
}
