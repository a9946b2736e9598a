// What every network benchmark reports, in one shape: figures (a quantity per client and per fleet size N, every
// run's value kept), printed as markdown tables of medians and ranges, written as JSON (--json FILE) for
// bench/report.ts, which builds docs/PERFORMANCE.md and its SVG charts from them.

import { writeFileSync } from 'node:fs';
import os from 'node:os';

export type Unit = 'ms' | 'MiB' | 'KiB' | 'lights' | 'datagrams' | 'msg/s' | 'req/s' | 'x';

/** One client's runs at one N: a value per run, null for a run that did not finish within the cap. */
export interface Point {
  readonly n: number;
  readonly values: readonly (number | null)[];
  /** Shown after the cell, e.g. how many lights a run that did not finish had done. */
  readonly note?: string;
  /**
   * A memory figure of a client that in some run held fewer than half of the N lights (found fewer): shown, but not
   * compared with Lightwire's, which held every light. Memory that holds no lights is not the lightest way to hold N.
   */
  readonly partial?: true;
  /** Why the point is not compared, when not for holding fewer than half of the lights. */
  readonly partialNote?: string;
}

export interface Figure {
  readonly id: string;
  readonly title: string;
  readonly unit: Unit;
  /** Lower is better (times, memory); false for counts of lights done right. */
  readonly lowerIsBetter: boolean;
  /** Client label -> its points, by N. Clients in the order they are shown. */
  readonly clients: Readonly<Record<string, readonly Point[]>>;
  /** The target for Lightwire, in words, and whether it was met (undefined: no target). */
  readonly target?: { readonly text: string; readonly met: boolean };
  /** Draw a chart of this figure against N. */
  readonly chart?: boolean;
}

export interface Machine {
  readonly node: string;
  readonly cpus: number;
  readonly cpuModel: string;
  readonly platform: string;
  readonly date: string;
}

export interface BenchResult {
  readonly bench: string;
  readonly title: string;
  readonly machine: Machine;
  /** How it was measured, in a paragraph. */
  readonly method: string;
  readonly figures: readonly Figure[];
  /** Markdown printed after the figures (details tables). */
  readonly details?: string;
}

export function machine(): Machine {
  return {
    node: process.version,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model.trim() ?? 'unknown',
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    date: new Date().toISOString(),
  };
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Median, min and max over a point's runs; a run that did not finish counts as Infinity. */
export function summary(p: Point): { median: number; min: number; max: number; runs: number; unfinished: number } {
  const values = p.values.map((v) => (v === null ? Infinity : v));
  return {
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
    runs: values.length,
    unfinished: p.values.filter((v) => v === null).length,
  };
}

export function format(v: number, unit: Unit): string {
  if (!Number.isFinite(v)) return v > 0 ? '> cap' : 'n/a';
  switch (unit) {
    case 'ms':
      return v >= 10_000 ? `${(v / 1000).toFixed(1)} s` : v < 10 ? `${v.toFixed(1)} ms` : `${Math.round(v)} ms`;
    case 'MiB':
      return `${v.toFixed(1)} MiB`;
    case 'KiB':
      return `${v.toFixed(1)} KiB`;
    case 'x':
      return `${v.toFixed(2)}x`;
    default:
      return `${Math.round(v)}`;
  }
}

/** "12 ms [10–15]": median [min–max]; "> cap" for a median that did not finish. */
export function cell(p: Point | undefined, unit: Unit): string {
  if (p === undefined || p.values.length === 0) return '–';
  const s = summary(p);
  let text = format(s.median, unit);
  if (s.runs > 1) text += ` [${format(s.min, unit)}–${format(s.max, unit)}]`;
  const notes = [p.note, p.partial === true ? `not compared: ${p.partialNote ?? 'held fewer than half of the lights'}` : undefined].filter((x) => x !== undefined);
  if (notes.length > 0) text += ` (${notes.join('; ')})`;
  return text;
}

/** A figure as a markdown table: one row per N, one column per client. */
export function figureTable(f: Figure): string[] {
  const clients = Object.keys(f.clients);
  const sizes = [...new Set(clients.flatMap((c) => f.clients[c]!.map((p) => p.n)))].sort((a, b) => a - b);
  const lines = [`| N | ${clients.join(' | ')} |`, `|---:|${clients.map(() => '---:').join('|')}|`];
  for (const n of sizes) lines.push(`| ${n} | ${clients.map((c) => cell(f.clients[c]!.find((p) => p.n === n), f.unit)).join(' | ')} |`);
  return lines;
}

export function markdown(result: BenchResult, level = 2): string {
  const h = '#'.repeat(level);
  const out = [`${h} ${result.title}`, '', result.method, ''];
  for (const f of result.figures) {
    out.push(`${h}# ${f.title}`, '');
    if (f.target) out.push(`Target: ${f.target.text}: **${f.target.met ? 'met' : 'not met'}**.`, '');
    out.push(...figureTable(f), '');
  }
  if (result.details) out.push(result.details, '');
  return out.join('\n');
}

/** Prints the result's tables; with `--json FILE` in argv, writes it for bench/report.ts. */
export function publish(result: BenchResult, argv: readonly string[] = process.argv.slice(2)): void {
  console.log(markdown(result));
  const i = argv.indexOf('--json');
  if (i >= 0 && argv[i + 1]) writeFileSync(argv[i + 1]!, `${JSON.stringify(result, null, 2)}\n`);
}
