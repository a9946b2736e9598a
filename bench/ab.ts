// Before and after in one run: the set-state, read-state and discovery benchmarks of two checkouts of Lightwire (a
// base commit's worktree and the change's), Lightwire's clients only, taken in turns (A B B A ...) so that whatever the
// machine does meanwhile falls on both. Each checkout runs its own bench/*.ts with its own library; this script only
// starts them (one repetition per call, --json) and sets their figures side by side: median [min-max] per side, and
// the change of the medians against the base's own range (run to run).
// Usage (inside a private network namespace, as npm's bench scripts do):
//   unshare --net --pid --fork --kill-child bash -c 'ip link set lo up && exec node --import tsx bench/ab.ts \
//     --base ../base-checkout --new . [--rounds 5] [--benches set-state,read-state,discovery] [--sizes 500] [--json FILE]'
// Each checkout needs a node_modules of its own directory (symlinks to one shared set of packages are fine): the
// benchmarks compile their workers and the library into node_modules/.cache/lightwire-bench, which two checkouts
// sharing one node_modules would overwrite for each other.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { median, type BenchResult } from './lib/figures.js';
import { assertPrivateNetns } from './lib/net-guard.js';

const BENCHES = ['set-state', 'read-state', 'discovery'] as const;
type Bench = (typeof BENCHES)[number];

/** Lightwire's clients only, and none of the diagnostics: the figures a change of the library can move. */
const ARGS: Record<Bench, (sizes: string) => string[]> = {
  'set-state': (sizes) => ['--sizes', sizes, '--modes', 'ours-acked,ours-fast'],
  'read-state': (sizes) => ['--sizes', sizes, '--clients', 'ours', '--main-thread-compile-sizes', 'none', '--small-young-sizes', 'none', '--facts-sizes', 'none'],
  discovery: (sizes) => ['--sizes', sizes, '--clients', 'ours', '--same-age-sizes', 'none'],
};

interface Options {
  readonly base: string;
  readonly next: string;
  readonly rounds: number;
  readonly benches: readonly Bench[];
  readonly sizes: string;
  readonly json: string | undefined;
}

function options(argv: readonly string[] = process.argv.slice(2)): Options {
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const base = value('--base');
  const next = value('--new');
  if (base === undefined || next === undefined) throw new Error('--base DIR and --new DIR are required (two checkouts)');
  const benches = (value('--benches')?.split(',') ?? [...BENCHES]) as Bench[];
  for (const b of benches) if (!BENCHES.includes(b)) throw new Error(`--benches: unknown ${b} (${BENCHES.join(', ')})`);
  const modules = [base, next].map((dir) => realpathSync(path.join(dir, 'node_modules')));
  if (modules[0] === modules[1]) throw new Error(`both checkouts use ${modules[0]}: give each a node_modules directory of its own`);
  return { base: path.resolve(base), next: path.resolve(next), rounds: Number(value('--rounds') ?? 5), benches, sizes: value('--sizes') ?? '500', json: value('--json') };
}

type Side = 'base' | 'new';

/** One call of one checkout's benchmark: its figures. */
function runOnce(dir: string, bench: Bench, sizes: string, out: string): BenchResult {
  execFileSync(process.execPath, ['--import', 'tsx', `bench/${bench}.ts`, '--reps', '1', ...ARGS[bench](sizes), '--json', out], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return JSON.parse(readFileSync(out, 'utf8')) as BenchResult;
}

/** figure id / client / N -> values per side. */
type Table = Map<string, { title: string; unit: string; lowerIsBetter: boolean; values: Record<Side, number[]> }>;

function add(table: Table, bench: Bench, side: Side, result: BenchResult): void {
  for (const figure of result.figures) {
    for (const [client, points] of Object.entries(figure.clients)) {
      for (const point of points) {
        const key = `${bench} | ${figure.title} | ${client} | ${point.n}`;
        let row = table.get(key);
        if (row === undefined) table.set(key, (row = { title: figure.title, unit: figure.unit, lowerIsBetter: figure.lowerIsBetter, values: { base: [], new: [] } }));
        for (const v of point.values) if (v !== null) row.values[side].push(v);
      }
    }
  }
}

const fmt = (v: number): string => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
const cell = (vs: readonly number[]): string => (vs.length === 0 ? '-' : `${fmt(median(vs))} [${fmt(Math.min(...vs))}-${fmt(Math.max(...vs))}]`);

function report(table: Table, o: Options): string {
  const lines = [
    `Before/after, ${o.rounds} round(s) in turns; base ${o.base}, new ${o.next}; ${os.cpus().length} CPUs, node ${process.version}.`,
    'Worse than the run-to-run range: the new median is outside the base range, on the worse side.',
    '',
    '| bench | figure | client | N | unit | base | new | change | worse than range |',
    '|---|---|---|---:|---|---:|---:|---:|---|',
  ];
  for (const [key, row] of table) {
    const { base, new: next } = row.values;
    if (base.length === 0 || next.length === 0) continue;
    const b = median(base);
    const n = median(next);
    const change = b === 0 ? (n === 0 ? '0 %' : '-') : `${n >= b ? '+' : ''}${(((n - b) / b) * 100).toFixed(1)} %`;
    const worse = row.lowerIsBetter ? n > Math.max(...base) : n < Math.min(...base);
    lines.push(`| ${key} | ${row.unit} | ${cell(base)} | ${cell(next)} | ${change} | ${worse ? 'yes' : ''} |`);
  }
  return lines.join('\n');
}

function main(): void {
  assertPrivateNetns();
  const o = options();
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'lightwire-ab-'));
  const table: Table = new Map();
  for (let round = 0; round < o.rounds; round++) {
    // A B, then B A: a drift of the machine over the run weighs on both sides alike.
    const order: Side[] = round % 2 === 0 ? ['base', 'new'] : ['new', 'base'];
    for (const bench of o.benches) {
      for (const side of order) {
        const dir = side === 'base' ? o.base : o.next;
        const out = path.join(scratch, `${bench}-${side}-${round}.json`);
        console.error(`round ${round + 1}/${o.rounds}: ${bench}, ${side}`);
        add(table, bench, side, runOnce(dir, bench, o.sizes, out));
      }
    }
  }
  const text = report(table, o);
  console.log(text);
  if (o.json !== undefined) writeFileSync(o.json, JSON.stringify({ options: o, rows: Object.fromEntries(table) }, null, 2));
}

main();
