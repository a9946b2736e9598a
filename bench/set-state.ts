// Set state: every light of a virtual fleet to one colour and power on, durationS 0; Lightwire's LightService
// (non-fast: state read, colour then power, acks; fast: end-state messages handed to the socket) against
// lifx-lan-client 2.1.2 setting colour and power with acks (callbacks), same fleet, same run.
// Usage: npm run bench:set-state [-- --quick | --reps K | --sizes 100,500 | --cap-ms MS | --go-at-ms 2200,3900]
//
// Each client process makes two calls: the first of the process (cold) and a second one (warm). Before every call the
// fleet puts every light OFF in one known colour (so colour-then-power is exercised), and every call asks for a colour
// of its own (so an earlier one cannot make a light look right). The fleet notes when each light first shows the
// requested state (checked after every Set it receives) and, after the call, every light is read back and counted.
// npm wraps it in a private network namespace (unshare --net).

import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COMPILED, FleetProcess, collectOutput, compileChildren } from './lib/harness.js';
import type { TargetState } from './lib/messages.js';
import { assertPrivateNetns } from './lib/net-guard.js';
import type { ParentToWorker, SetStateConfig, SetStateMode, SetStateResult, WorkerToParent } from './lib/set-state-worker.js';

const WORKER = path.join(COMPILED, 'set-state-worker.js');
const MODES: readonly SetStateMode[] = ['ours-acked', 'ours-fast', 'theirs'];
const MODE_LABEL: Record<SetStateMode, string> = {
  'ours-acked': 'Lightwire non-fast',
  'ours-fast': 'Lightwire fast',
  theirs: 'lifx-lan-client 2.1.2',
};
/** Where every light starts: off, in a dim warm white no run asks for. */
const START = { power: 'off', color: { hue: 0, saturation: 0, brightness: 0.2, kelvin: 3500 } } as const;
/** How long after the worker's answer the fleet still waits for lights that do not show the target yet. */
const GRACE_MS = 1000;
/** How long before a worker's second (and later) call the fleet is reset. */
const RESET_AHEAD_MS = 150;

interface Options {
  readonly sizes: readonly number[];
  readonly reps: number;
  readonly capMs: number;
  /** When each call of a worker starts, ms after its client was created. */
  readonly goAtMs: readonly number[];
}

function options(argv: readonly string[] = process.argv.slice(2)): Options {
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const quick = argv.includes('--quick');
  return {
    sizes: (value('--sizes') ?? '100,500').split(',').map(Number),
    reps: Number(value('--reps') ?? (quick ? 1 : 3)),
    capMs: Number(value('--cap-ms') ?? 10_000),
    // Ours broadcasts at 0, 0.6, 1.8, 3.6 and 5.6 s after start, lifx-lan-client at 0 and 5 s: both calls (a few
    // hundred ms each) fall in gaps of both, and the first one at least half a second after every light was read.
    goAtMs: (value('--go-at-ms') ?? '2200,3900').split(',').map(Number),
  };
}

/** The k-th run's colour: hue steps by 67° (never near the start colour's 0°), brightness 0.4-0.8. */
function targetFor(k: number): TargetState {
  let hue = (20 + 67 * k) % 360;
  if (hue < 10 || hue > 350) hue = (hue + 20) % 360;
  return { hue, saturation: 1, brightness: Math.round((0.4 + 0.1 * (k % 5)) * 100) / 100, kelvin: 3500 };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Run extends SetStateResult {
  readonly rep: number;
  /** When the client was ready (all found and, ours, read), ms after its creation. */
  readonly readyAtMs: number;
  readonly target: TargetState;
  /** Lights showing the target when read back (after the worker answered, and every light showed it or GRACE_MS). */
  readonly matched: number;
  readonly mismatchExamples: readonly string[];
  /** Lights that showed the target when the client reported done (fleet clock). */
  readonly shownWhenDone: number;
  /** From the start of the timed operation until the last light first showed the target; null if one never did. */
  readonly shownMs: number | null;
  readonly fleetMaxRate: number;
  /** Peak RSS of the worker over its whole life. */
  readonly maxRssKiB: number;
}

/** Messages from a child, one at a time, in order. */
function inbox(child: ChildProcess): () => Promise<WorkerToParent> {
  const queue: WorkerToParent[] = [];
  const waiting: ((m: WorkerToParent) => void)[] = [];
  child.on('message', (m: WorkerToParent) => {
    const w = waiting.shift();
    if (w) w(m);
    else queue.push(m);
  });
  return () => {
    const m = queue.shift();
    return m !== undefined ? Promise.resolve(m) : new Promise((resolve) => waiting.push(resolve));
  };
}

/** One client process: ready, then one call per entry of goAtMs, each on a freshly reset fleet. */
async function runWorker(fleet: FleetProcess, cfg: SetStateConfig, o: Options, rep: number, nextTarget: () => TargetState): Promise<Run[]> {
  const child = fork(WORKER, [], { execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const output = collectOutput(child);
  // Start-up + every call's cap + slack; past this the worker is stuck (it is our own child).
  const timer = setTimeout(() => child.kill('SIGKILL'), Math.max(...o.goAtMs) + (o.goAtMs.length + 1) * (cfg.capMs + GRACE_MS) + 20_000);
  const exited = new Promise<never>((_resolve, reject) =>
    child.once('exit', (code, signal) => reject(new Error(`${cfg.mode} worker (N=${cfg.n}) exited ${code ?? signal}\n${output()}`))),
  );
  exited.catch(() => undefined);
  const next = inbox(child);
  const expect = async <T extends WorkerToParent['type']>(type: T): Promise<Extract<WorkerToParent, { type: T }>> => {
    const m = await Promise.race([next(), exited]);
    if (m.type !== type) throw new Error(`expected ${type} from the ${cfg.mode} worker, got ${m.type}`);
    return m as Extract<WorkerToParent, { type: T }>;
  };
  try {
    await fleet.request({ type: 'reset', power: START.power, color: START.color }, 'reset-done');
    child.send({ type: 'config', ...cfg } satisfies ParentToWorker);
    const ready = await expect('ready');
    const calls: Omit<Run, 'maxRssKiB'>[] = [];
    for (const [i, atMs] of o.goAtMs.entries()) {
      const target = nextTarget();
      if (i > 0) {
        // Reset shortly before the call, not right after the previous one: what a client still sends after reporting
        // done (lifx-lan-client's retransmissions) must not switch lights back on after the reset.
        await sleep(ready.createdEpochMs + atMs - RESET_AHEAD_MS - (performance.timeOrigin + performance.now()));
        await fleet.request({ type: 'reset', power: START.power, color: START.color }, 'reset-done');
      }
      await fleet.request({ type: 'watch', target }, 'watching');
      child.send({ type: 'go', target, atMs } satisfies ParentToWorker);
      const { type: _type, ...result } = await expect('result');
      const doneAtEpochMs = result.doneMs === null ? null : result.startEpochMs + result.doneMs;
      const watched = await fleet.request({ type: 'watch-result', graceMs: GRACE_MS, doneAtEpochMs }, 'watch-result');
      const stats = await fleet.request({ type: 'stats' }, 'stats');
      calls.push({
        ...result,
        rep,
        readyAtMs: ready.readyAtMs,
        target,
        matched: watched.matched,
        shownWhenDone: watched.shownWhenDone,
        mismatchExamples: watched.examples,
        shownMs: watched.allShownAtEpochMs === null ? null : watched.allShownAtEpochMs - result.startEpochMs,
        fleetMaxRate: stats.maxMessagesPerSecond,
      });
    }
    child.send({ type: 'stop' } satisfies ParentToWorker);
    const { maxRssKiB } = await expect('stopped');
    return calls.map((c) => ({ ...c, maxRssKiB }));
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

const ms = (v: number | null): string => (v === null ? '> cap' : v < 10 ? `${v.toFixed(1)} ms` : `${Math.round(v)} ms`);
const CALL_LABEL: Record<number, string> = { 1: 'cold', 2: 'warm' };
const callLabel = (call: number): string => CALL_LABEL[call] ?? `call ${call}`;

function progress(r: Run): string {
  const parts = [
    `found ${r.found}/${r.n}, ready at ${ms(r.readyAtMs)}, call at ${ms(r.startedAtMs)}`,
    `done ${ms(r.doneMs)} (${r.shownWhenDone}/${r.n} lights showed it by then)`,
    `all shown ${ms(r.shownMs)}`,
    `reported ok ${r.reportedOk}/${r.n}${r.reportedOther.length > 0 ? ` (${r.reportedOther.join(', ')})` : ''}`,
    `in requested state ${r.matched}/${r.n}${r.mismatchExamples[0] ? ` e.g. ${r.mismatchExamples[0]}` : ''}`,
  ];
  if (r.sent !== null) parts.push(`sent ${r.sent} (${r.retransmits} retransmits)`);
  parts.push(
    `drops ${r.dropsDuringSet}`,
    `loop busy ${Math.round(r.loopBusy * 100)} %`,
    `peak RSS ${(r.maxRssKiB / 1024).toFixed(1)} MiB`,
    `max ${r.fleetMaxRate} msg/s to a light`,
  );
  return `  N=${r.n} rep ${r.rep + 1} ${r.mode.padEnd(10)} ${callLabel(r.call)} (hue ${r.target.hue}, bri ${r.target.brightness}): ${parts.join(', ')}`;
}

// ---- the tables ----

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

interface Cell {
  readonly text: string;
  readonly value: number;
}

/** Median of a time over the runs, [min–max]; a run that did not finish counts as Infinity. */
function timeCell(runs: readonly Run[], get: (r: Run) => number | null): Cell {
  if (runs.length === 0) return { text: 'n/a', value: NaN };
  const values = runs.map((r) => get(r) ?? Infinity);
  const m = median(values);
  const fmt = (v: number): string => (Number.isFinite(v) ? ms(v) : '> cap');
  const spread = runs.length > 1 ? ` [${fmt(Math.min(...values))}–${fmt(Math.max(...values))}]` : ' (1 run)';
  return { text: fmt(m) + spread, value: m };
}

const worst = (runs: readonly Run[], get: (r: Run) => number): number => Math.min(...runs.map(get));

function mainTable(o: Options, runs: readonly Run[]): { lines: string[]; missed: string[] } {
  const lines = [
    `| N | mode | call | Lightwire | lifx-lan-client 2.1.2 (acked) | ratio | lights in requested state (ours / theirs, worst run) | target |`,
    '|---:|---|---|---:|---:|---:|---|---|',
  ];
  const missed: string[] = [];
  const rows: { mode: SetStateMode; label: string; get: (r: Run) => number | null; factor: number }[] = [
    { mode: 'ours-acked', label: 'non-fast: state read, colour then power, acked', get: (r) => r.doneMs, factor: 1.5 },
    { mode: 'ours-fast', label: 'fast: until setState resolved (handed to the socket)', get: (r) => r.doneMs, factor: 0.5 },
    { mode: 'ours-fast', label: 'fast: until every light shows the new state (fleet)', get: (r) => r.shownMs, factor: 0.5 },
  ];
  const calls = [...new Set(runs.map((r) => r.call))].sort();
  for (const n of o.sizes) {
    for (const row of rows) {
      for (const call of calls) {
        const theirsRuns = runs.filter((r) => r.n === n && r.call === call && r.mode === 'theirs');
        const oursRuns = runs.filter((r) => r.n === n && r.call === call && r.mode === row.mode);
        const theirs = timeCell(theirsRuns, (r) => r.doneMs);
        const ours = timeCell(oursRuns, row.get);
        const q = ours.value / theirs.value;
        const oursRight = oursRuns.length > 0 ? worst(oursRuns, (r) => r.matched) : NaN;
        const theirsRight = theirsRuns.length > 0 ? worst(theirsRuns, (r) => r.matched) : NaN;
        const timeOk = Number.isFinite(q) && q <= row.factor;
        const stateOk = oursRight === n;
        const verdict = timeOk && stateOk ? 'PASS' : 'FAIL';
        const qText = Number.isFinite(q) ? q.toFixed(2) : 'n/a';
        if (verdict === 'FAIL') {
          missed.push(`N=${n} ${row.label}, ${callLabel(call)}${timeOk ? '' : ` (ratio ${qText})`}${stateOk ? '' : ` (${oursRight}/${n} right)`}`);
        }
        lines.push(
          `| ${n} | ${row.label} | ${callLabel(call)} | ${ours.text} | ${theirs.text} | ${qText} | ${oursRight}/${n} / ${theirsRight}/${n} | ` +
            `<= ${row.factor}x and ${n}/${n}: **${verdict}** |`,
        );
      }
    }
  }
  return { lines, missed };
}

function detailTable(o: Options, runs: readonly Run[]): string[] {
  const lines = [
    '| N | client | call | reported done | lights showing it when reported done (worst) | every light shows it | reported ok (worst) | in requested state at the end (worst) | sent (retransmits), median | UDP drops (worst) | event loop busy (median) | peak RSS (median) | most msgs/s to one light (worst) |',
    '|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const calls = [...new Set(runs.map((r) => r.call))].sort();
  for (const n of o.sizes) {
    for (const mode of MODES) {
      for (const call of calls) {
        const rs = runs.filter((r) => r.n === n && r.mode === mode && r.call === call);
        if (rs.length === 0) continue;
        const sent = rs[0]!.sent === null ? 'n/a' : `${median(rs.map((r) => r.sent ?? 0))} (${median(rs.map((r) => r.retransmits ?? 0))})`;
        const other = [...new Set(rs.flatMap((r) => r.reportedOther))];
        lines.push(
          `| ${n} | ${MODE_LABEL[mode]} | ${callLabel(call)} | ${timeCell(rs, (r) => r.doneMs).text} | ${worst(rs, (r) => r.shownWhenDone)}/${n} | ` +
            `${timeCell(rs, (r) => r.shownMs).text} | ` +
            `${worst(rs, (r) => r.reportedOk)}/${n}${other.length > 0 ? ` (${other.join('; ')})` : ''} | ${worst(rs, (r) => r.matched)}/${n} | ${sent} | ` +
            `${Math.max(...rs.map((r) => r.dropsDuringSet))} | ${Math.round(median(rs.map((r) => r.loopBusy)) * 100)} % | ` +
            `${median(rs.map((r) => r.maxRssKiB / 1024)).toFixed(1)} MiB | ${Math.max(...rs.map((r) => r.fleetMaxRate))} |`,
        );
      }
    }
  }
  return lines;
}

async function main(): Promise<void> {
  const o = options();
  assertPrivateNetns();
  compileChildren();
  const started = performance.now();
  const runs: Run[] = [];
  let k = 0;
  const nextTarget = (): TargetState => targetFor(k++);
  for (const n of o.sizes) {
    const fleet = await FleetProcess.start(n);
    try {
      for (let rep = 0; rep < o.reps; rep++) {
        // Rotate who goes first, so no client always meets a fleet that has just been busy.
        const order = MODES.map((_, i) => MODES[(i + rep) % MODES.length]!);
        for (const mode of order) {
          const calls = await runWorker(fleet, { mode, n, capMs: o.capMs }, o, rep, nextTarget);
          for (const run of calls) {
            runs.push(run);
            console.error(progress(run));
            if (run.startedAtMs > o.goAtMs[run.call - 1]! + 50) console.error(`    (started late: planned at ${o.goAtMs[run.call - 1]} ms)`);
          }
          // Datagrams still in flight to the exited worker's port must not land in the next run.
          await sleep(300);
        }
      }
    } finally {
      await fleet.stop();
    }
  }
  const rmemMax = readFileSync('/proc/sys/net/core/rmem_max', 'utf8').trim();
  const { lines, missed } = mainTable(o, runs);
  console.log(
    [
      '## Set state',
      '',
      `node ${process.version}, ${os.cpus().length} CPUs, net.core.rmem_max ${rmemMax}, private network namespace (loopback only); ` +
        `whole run ${((performance.now() - started) / 1000).toFixed(0)} s.`,
      `Fleet of N virtual lights (127.0.0.2…, port 56700) in its own process. Every client runs in a fresh process (plain ` +
        `node, compiled JS) that discovers the fleet (ours also reads every light's info and state, as the service rig ` +
        `does) and then makes two calls setting every light to power on + hue H saturation 1 brightness B kelvin 3500 ` +
        `(ours: setState('all', { power: 'on', color: 'kelvin:3500 hue:H saturation:1 brightness:B' }), kelvin first ` +
        `because a later kelvin: forces saturation 0), ` +
        `duration 0: "cold" is the first call of the process, "warm" the second (at ${o.goAtMs.map((t) => `${t / 1000} s`).join(' and ')} ` +
        `after the client was created, in gaps of both clients' discovery broadcasts). Before each call every light is ` +
        `put OFF in a dim white, and each call asks for its own H and B. ${o.reps} client process(es) per N and mode, the ` +
        `order rotating; medians [min–max]. lifx-lan-client: colour then power per light with callbacks (ack_required, ` +
        `resent every 150 ms, at most 3 sends), its defaults except broadcast 127.255.255.255, an ephemeral port and a ` +
        `4 MiB receive buffer (ours' default); its time is when every callback fired. "every light shows it": from the ` +
        `start of the call until the fleet saw the last light reach the requested state; "in requested state": every ` +
        `light read back from the fleet after the call (power on, brightness, and hue and saturation where the product ` +
        `has colour). Ratio < 1: ours is faster.`,
      '',
      ...lines,
      '',
      ...detailTable(o, runs),
      '',
      missed.length === 0 ? 'All targets met.' : `Targets missed: ${missed.join('; ')}`,
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
