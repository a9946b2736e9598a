// Builds docs/PERFORMANCE.md and its SVG charts (docs/images/perf-*.svg) from the benchmarks' JSON results
// (bench/results/*.json, written by `npm run bench`, each bench with --json): for every figure the table of medians
// and ranges per client and N, a chart of it against N where it scales, the targets and whether they were met, and
// the machine, Node version and date the figures were taken on.
// Usage: node --import tsx bench/report.ts [--results bench/results] [--out docs/PERFORMANCE.md]

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { figureTable, format, summary, type BenchResult, type Figure, type Point } from './lib/figures.js';

const ROOT = path.resolve(__dirname, '..');
/** The order of the sections; a result file that is missing is left out (and said so). */
const ORDER = ['set-state', 'http', 'discovery', 'discovery-latency50', 'read-state', 'homebridge', 'node-red', 'codec'] as const;
/** The chart the README shows. */
export const HEADLINE_CHART = 'perf-set-confirmed-warm.svg';

const COLORS = ['#d9480f', '#1971c2', '#2f9e44', '#ae3ec9', '#f08c00', '#0c8599', '#868e96'];

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A log-scale axis from lo to hi (data units) onto [a, b] (pixels). */
function logScale(lo: number, hi: number, a: number, b: number): (v: number) => number {
  const l = Math.log10(lo);
  const h = Math.log10(hi);
  return (v) => a + ((Math.log10(v) - l) / (h - l || 1)) * (b - a);
}

/** Round numbers for a log axis between lo and hi. */
function ticks(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v);
    }
  }
  return out;
}

/**
 * A line chart of a figure against N, both axes logarithmic: per client its medians joined by a line, each with a
 * bar from the fastest to the slowest run; a run that did not finish is drawn as an open circle at the top ("> cap").
 */
export function chart(f: Figure): string {
  const W = 720;
  const H = 400;
  const left = 70;
  const right = 220;
  const top = 46;
  const bottom = 50;
  const clients = Object.keys(f.clients);
  const sizes = [...new Set(clients.flatMap((c) => f.clients[c]!.map((p) => p.n)))].sort((a, b) => a - b);
  const finite = clients.flatMap((c) => f.clients[c]!.flatMap((p) => p.values.filter((v): v is number => v !== null && Number.isFinite(v) && v > 0)));
  const anyUnfinished = clients.some((c) => f.clients[c]!.some((p) => p.values.some((v) => v === null)));
  const lo = Math.max(Math.min(...finite) / 1.5, 0.05);
  const hi = Math.max(...finite) * (anyUnfinished ? 3 : 1.5);
  const x = sizes.length > 1 ? logScale(sizes[0]!, sizes.at(-1)!, left + 20, W - right - 20) : () => (left + W - right) / 2;
  const y = logScale(lo, hi, H - bottom, top);
  const capY = top - 4;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="${left}" y="22" font-size="14" font-weight="bold">${escape(f.title.length > 95 ? `${f.title.slice(0, 92)}…` : f.title)}</text>`,
    `<text x="${left}" y="38" fill="#555">${escape(`${f.unit}, log scale; median and range over the runs${f.lowerIsBetter ? '; lower is better' : ''}`)}</text>`,
  ];
  for (const t of ticks(lo, hi)) {
    out.push(`<line x1="${left}" x2="${W - right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#e9ecef"/>`);
    const label = f.unit === 'ms' && t >= 1000 ? `${t / 1000} s` : `${t}`;
    out.push(`<text x="${left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end" fill="#555">${escape(label)}</text>`);
  }
  for (const n of sizes) {
    out.push(`<line x1="${x(n).toFixed(1)}" x2="${x(n).toFixed(1)}" y1="${top}" y2="${H - bottom}" stroke="#f1f3f5"/>`);
    out.push(`<text x="${x(n).toFixed(1)}" y="${H - bottom + 16}" text-anchor="middle" fill="#333">${n}</text>`);
  }
  out.push(`<text x="${(left + W - right) / 2}" y="${H - 12}" text-anchor="middle" fill="#333">N (lights)</text>`);
  out.push(`<line x1="${left}" x2="${W - right}" y1="${H - bottom}" y2="${H - bottom}" stroke="#333"/>`);
  out.push(`<line x1="${left}" x2="${left}" y1="${top}" y2="${H - bottom}" stroke="#333"/>`);
  if (anyUnfinished) out.push(`<text x="${W - right + 4}" y="${capY + 4}" fill="#555">&gt; cap</text>`);
  clients.forEach((c, i) => {
    const color = COLORS[i % COLORS.length]!;
    const pts = [...f.clients[c]!].sort((a, b) => a.n - b.n);
    const at = (p: Point): { px: number; py: number; capped: boolean } => {
      const s = summary(p);
      const capped = !Number.isFinite(s.median);
      return { px: x(p.n), py: capped ? capY : y(Math.max(s.median, lo)), capped };
    };
    const line = pts.map(at);
    if (line.length > 1) out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${line.map((q) => `${q.px.toFixed(1)},${q.py.toFixed(1)}`).join(' ')}"/>`);
    for (const p of pts) {
      const s = summary(p);
      const q = at(p);
      if (Number.isFinite(s.min)) {
        const y1 = y(Math.max(s.min, lo));
        const y2 = Number.isFinite(s.max) ? y(Math.max(s.max, lo)) : capY;
        out.push(`<line x1="${q.px.toFixed(1)}" x2="${q.px.toFixed(1)}" y1="${y1.toFixed(1)}" y2="${y2.toFixed(1)}" stroke="${color}" stroke-width="1.5"/>`);
      }
      out.push(
        q.capped
          ? `<circle cx="${q.px.toFixed(1)}" cy="${q.py.toFixed(1)}" r="4" fill="#fff" stroke="${color}" stroke-width="2"/>`
          : `<circle cx="${q.px.toFixed(1)}" cy="${q.py.toFixed(1)}" r="3.5" fill="${color}"/>`,
      );
    }
    const ly = top + 8 + i * 20;
    out.push(`<line x1="${W - right + 12}" x2="${W - right + 32}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/>`);
    out.push(`<text x="${W - right + 38}" y="${ly + 4}" fill="#222">${escape(c.length > 28 ? `${c.slice(0, 27)}…` : c)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** Lightwire's median and the best peer's at N (when both ran), for the summary. */
function headline(f: Figure, n: number): { ours: string; peer: string; ratio: string } | undefined {
  const labels = Object.keys(f.clients);
  const oursLabel = labels.find((l) => l.startsWith('Lightwire'));
  if (oursLabel === undefined) return undefined;
  const ours = f.clients[oursLabel]!.find((p) => p.n === n);
  if (ours === undefined) return undefined;
  const om = summary(ours).median;
  let best: { label: string; median: number; note?: string } | undefined;
  for (const l of labels) {
    if (l.startsWith('Lightwire')) continue;
    // The floor is not a peer: it is what any client's sends cost here.
    if (l.includes('(floor)')) continue;
    const p = f.clients[l]!.find((q) => q.n === n);
    // A peer that held fewer than half of the lights (Point.partial) is shown in the tables, not compared.
    if (p === undefined || p.partial === true) continue;
    const m = summary(p).median;
    if (best === undefined || (f.lowerIsBetter ? m < best.median : m > best.median)) best = { label: l, median: m, ...(p.note ? { note: p.note } : {}) };
  }
  const q = best !== undefined && Number.isFinite(best.median) && Number.isFinite(om) && best.median > 0 ? om / best.median : NaN;
  const ratio = Number.isNaN(q) ? (best !== undefined && !Number.isFinite(best.median) && Number.isFinite(om) ? '< 0.01 (peer > cap)' : '–') : q < 0.1 ? q.toPrecision(2) : q.toFixed(2);
  // What the peer did not finish (lights it did not find or read) stays next to its figure in the summary too.
  const peer = best === undefined ? '–' : `${format(best.median, f.unit)} (${best.label}${best.note ? `; ${best.note}` : ''})`;
  return { ours: format(om, f.unit), peer, ratio };
}

/** A client that did not find (or read) every light holds fewer: its memory figures say so, from the figure that counts. */
function carryNotes(results: BenchResult[]): void {
  for (const r of results) {
    const counted = r.figures.find((f) => f.id.includes('-found') || f.id === 'read-time');
    if (counted === undefined) continue;
    // The equal-work figures (read-facts-*) count their own runs and carry their own notes.
    (r as unknown as { figures: Figure[] }).figures = r.figures.map((f) =>
      f.unit !== 'MiB' || f.id.startsWith('read-facts-')
        ? f
        : {
            ...f,
            clients: Object.fromEntries(
              Object.entries(f.clients).map(([label, points]) => [
                label,
                points.map((p) => {
                  const note = counted.clients[label]?.find((q) => q.n === p.n)?.note;
                  return note !== undefined && p.note === undefined ? { ...p, note } : p;
                }),
              ]),
            ),
          },
    );
  }
}

function main(): void {
  const argv = process.argv.slice(2);
  const value = (flag: string, fallback: string): string => {
    const i = argv.indexOf(flag);
    return i >= 0 && argv[i + 1] ? argv[i + 1]! : fallback;
  };
  const resultsDir = path.resolve(ROOT, value('--results', 'bench/results'));
  const outFile = path.resolve(ROOT, value('--out', 'docs/PERFORMANCE.md'));
  const imagesDir = path.join(path.dirname(outFile), 'images');
  mkdirSync(imagesDir, { recursive: true });
  const results: BenchResult[] = [];
  const missing: string[] = [];
  for (const name of ORDER) {
    const file = path.join(resultsDir, `${name}.json`);
    if (existsSync(file)) results.push(JSON.parse(readFileSync(file, 'utf8')) as BenchResult);
    else missing.push(name);
  }
  if (results.length === 0) throw new Error(`no results in ${resultsDir}: run npm run bench first`);
  carryNotes(results);
  const m = results[0]!.machine;
  const dates = results.map((r) => r.machine.date).sort();
  const lines: string[] = [
    '# Performance',
    '',
    '<!-- Generated by bench/report.ts from bench/results/*.json (npm run bench); edit those, not this file. -->',
    '',
    `Lightwire measured against the Node LIFX LAN libraries in the same runs, on the same virtual fleets: ` +
      `lifx-lan-client 2.1.2, node-lifx-lan 0.5.0 and node-lifx 0.8.0. Each figure is the median over several client processes ` +
      `with the range [fastest–slowest]; "> cap" means a run did not finish in the time allowed, with how far it got. ` +
      `What every client really achieved is counted by the fleet (lights really set, replies given to the right light).`,
    '',
    `Machine: ${m.cpuModel}, ${m.cpus} CPUs (shared with other work while measuring: expect noise), ${m.platform}; Node ${m.node}; ` +
      `measured ${dates[0]!.slice(0, 10)}${dates.at(-1)!.slice(0, 10) !== dates[0]!.slice(0, 10) ? ` to ${dates.at(-1)!.slice(0, 10)}` : ''}. ` +
      `Every network benchmark runs on loopback inside a private network namespace; nothing leaves the machine.`,
    '',
    'Run them all with `npm run bench` (about half an hour), which rewrites this page; one at a time with `npm run bench:set-state`, ' +
      '`bench:http`, `bench:discovery`, `bench:read-state`, `bench:homebridge`, `bench:node-red` and `bench:codec` (see each file in bench/ for its options).',
    '',
  ];
  // Summary: every figure with a target, and the headline comparisons at N = 500.
  const summaryRows: string[] = ['| figure | N | Lightwire | best peer | ratio | target |', '|---|---:|---:|---:|---:|---|'];
  for (const r of results) {
    for (const f of r.figures) {
      const n = Object.values(f.clients)
        .flatMap((ps) => ps.map((p) => p.n))
        .includes(500)
        ? 500
        : Object.values(f.clients)[0]?.[0]?.n;
      if (n === undefined || (!f.target && !f.chart)) continue;
      const h = headline(f, n);
      if (h === undefined) continue;
      summaryRows.push(`| ${r.title}: ${f.title} | ${n} | ${h.ours} | ${h.peer} | ${h.ratio} | ${f.target ? `${f.target.text}: **${f.target.met ? 'met' : 'not met'}**` : ''} |`);
    }
  }
  lines.push('## Summary', '', `![Confirmed set of N lights against the peers](images/${HEADLINE_CHART})`, '', ...summaryRows, '');
  if (missing.length > 0) lines.push(`Not in this report (no results): ${missing.join(', ')}.`, '');
  for (const r of results) {
    lines.push(`## ${r.title}`, '', r.method, '');
    if (r.machine.date !== m.date) lines.push(`Measured ${r.machine.date.slice(0, 16).replace('T', ' ')} UTC, Node ${r.machine.node}.`, '');
    for (const f of r.figures) {
      lines.push(`### ${f.title}`, '');
      if (f.target) lines.push(`Target: ${f.target.text}: **${f.target.met ? 'met' : 'not met'}**.`, '');
      if (f.chart) {
        const file = `perf-${f.id}.svg`;
        writeFileSync(path.join(imagesDir, file), chart(f));
        lines.push(`![${f.title}](images/${file})`, '');
      }
      lines.push(...figureTable(f), '');
    }
    if (r.details) lines.push(r.details, '');
  }
  writeFileSync(outFile, `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}`);
  console.log(`wrote ${path.relative(ROOT, outFile)} and its charts in ${path.relative(ROOT, imagesDir)}`);
}

if (require.main === module) main();
