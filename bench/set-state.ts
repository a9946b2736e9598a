// Set state: every light of a virtual fleet to one colour and power on, durationS 0, by Lightwire's LightService
// (non-fast: confirmed writes; fast: end-state messages queued) and by the Node peers in the same run on the same
// fleet: lifx-lan-client 2.1.2 (acked and fire-and-forget), node-lifx-lan 0.5.0 (each write awaited, at most 20
// lights in flight) and node-lifx 0.8.0 (acked and fire-and-forget). See lib/set-state-worker.ts for each client.
// Usage: npm run bench:set-state [-- --quick | --reps K | --sizes 10,100,500,1000 | --modes ours-acked,nll |
//        --cap-ms MS | --go-at-ms 2200,3900 | --cpu-prof-dir DIR | --json FILE]
//
// Each client process makes two calls: the first of the process (cold) and a second one (warm). Before every call the
// fleet puts every light OFF in one known colour (so colour-then-power is exercised), and every call asks for a colour
// of its own (so an earlier one cannot make a light look right). The fleet notes when each light first shows the
// requested state (checked after every Set it receives) and, after the call, every light is read back and counted:
// what each client really achieved. npm wraps it in a private network namespace (unshare --net).

import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { machine, publish, summary, type Figure, type Point } from './lib/figures.js';
import { COMPILED, FleetProcess, collectOutput, compileChildren } from './lib/harness.js';
import type { TargetState } from './lib/messages.js';
import { assertPrivateNetns } from './lib/net-guard.js';
import type { ParentToWorker, SetStateConfig, SetStateMode, SetStateResult, WorkerToParent } from './lib/set-state-worker.js';

const WORKER = path.join(COMPILED, 'set-state-worker.js');
const MODES: readonly SetStateMode[] = ['ours-acked', 'ours-fast', 'llc-acked', 'llc-fast', 'nll', 'nl-acked', 'nl-fast', 'floor'];
export const MODE_LABEL: Record<SetStateMode, string> = {
  'ours-acked': 'Lightwire',
  'ours-fast': 'Lightwire fast',
  'llc-acked': 'lifx-lan-client 2.1.2',
  'llc-fast': 'lifx-lan-client 2.1.2, no ack',
  nll: 'node-lifx-lan 0.5.0 (≤20 in flight)',
  'nl-acked': 'node-lifx 0.8.0',
  'nl-fast': 'node-lifx 0.8.0, no ack',
  floor: 'bare dgram loop (floor)',
};
const CONFIRMED: readonly SetStateMode[] = ['ours-acked', 'llc-acked', 'nll', 'nl-acked'];
const UNCONFIRMED: readonly SetStateMode[] = ['ours-fast', 'llc-fast', 'nl-fast', 'floor'];
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
  readonly modes: readonly SetStateMode[];
  /** When each call of a worker starts, ms after its client was created. */
  readonly goAtMs: readonly number[];
  /** `--cpu-prof-dir DIR`: every worker writes a CPU profile of its warm call there (for finding where a call's time goes). */
  readonly cpuProfDir: string | undefined;
}

function options(argv: readonly string[] = process.argv.slice(2)): Options {
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const quick = argv.includes('--quick');
  const modes = (value('--modes')?.split(',') ?? MODES) as SetStateMode[];
  for (const m of modes) if (!MODES.includes(m)) throw new Error(`--modes: unknown ${m} (${MODES.join(', ')})`);
  return {
    sizes: (value('--sizes') ?? '100,500').split(',').map(Number),
    reps: Number(value('--reps') ?? (quick ? 1 : 3)),
    capMs: Number(value('--cap-ms') ?? 10_000),
    modes,
    // Ours broadcasts at 0, 0.6, 1.8, 3.6 and 5.6 s after start, lifx-lan-client and node-lifx every 5 s: both calls
    // (a few hundred ms each) fall in gaps of all, and the first one at least half a second after every light was read.
    goAtMs: (value('--go-at-ms') ?? '2200,3900').split(',').map(Number),
    cpuProfDir: value('--cpu-prof-dir'),
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
    `handed to the socket ${ms(r.handedMs)}`,
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

// ---- the figures ----

/** A time per client and N: a run counts as unfinished (null) unless every light ended in the requested state. */
function timeFigure(
  id: string,
  title: string,
  o: Options,
  runs: readonly Run[],
  modes: readonly SetStateMode[],
  call: number,
  get: (r: Run) => number | null,
  target?: { text: string; n: number; check: (oursMedian: number) => boolean },
): Figure {
  const clients: Record<string, Point[]> = {};
  for (const mode of modes.filter((m) => o.modes.includes(m))) {
    clients[MODE_LABEL[mode]] = o.sizes
      .map((n) => {
        const rs = runs.filter((r) => r.n === n && r.mode === mode && r.call === call);
        const worst = Math.min(...rs.map((r) => r.matched));
        const values = rs.map((r) => (r.matched === r.n ? get(r) : null));
        return { n, values, ...(rs.length > 0 && worst < n ? { note: `worst run ${worst}/${n} right` } : {}) };
      })
      .filter((p) => p.values.length > 0);
  }
  let t: Figure['target'];
  if (target) {
    const oursLabel = Object.keys(clients)[0]!;
    const p = clients[oursLabel]?.find((q) => q.n === target.n);
    t = { text: target.text, met: p !== undefined && target.check(summary(p).median) };
  }
  return { id, title, unit: 'ms', lowerIsBetter: true, clients, chart: true, ...(t ? { target: t } : {}) };
}

/**
 * The fast set against the floor, from the same run: the median of Lightwire fast's times to hand every datagram to
 * the socket divided by the median of the bare dgram loop's (the issue's measure: "13 ms against 7.1, 1.8x"), with the
 * spread of the ratio taken repetition by repetition (each repetition's two client processes) as a note.
 */
const RATIO_TARGET = 1.3;
const RATIO_SIZES = [500, 1000];

function floorRatioFigure(handed: Figure, call: number): Figure {
  const ours = handed.clients[MODE_LABEL['ours-fast']] ?? [];
  const floor = handed.clients[MODE_LABEL.floor] ?? [];
  const points: Point[] = [];
  for (const o of ours) {
    const f = floor.find((p) => p.n === o.n);
    if (f === undefined) continue;
    const a = summary(o).median;
    const b = summary(f).median;
    // A median that did not finish (every light set and handed over) has no ratio: shown as > cap.
    const ratio = Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : null;
    const perRep = o.values
      .map((v, i) => (v === null || f.values[i] === null || f.values[i] === undefined || f.values[i]! <= 0 ? null : v / f.values[i]!))
      .filter((v): v is number => v !== null);
    const note = perRep.length > 1 ? `repetition by repetition ${Math.min(...perRep).toFixed(2)}x–${Math.max(...perRep).toFixed(2)}x` : undefined;
    points.push({ n: o.n, values: [ratio], ...(note ? { note } : {}) });
  }
  const label = `${MODE_LABEL['ours-fast']} / ${MODE_LABEL.floor}`;
  const when = call === 2 ? 'warm' : 'cold (the first call of the process)';
  const figure: Figure = {
    id: `set-fast-floor-ratio-${callLabel(call)}`,
    title:
      `Fast set of N lights, ${when}: Lightwire's time to hand every datagram to the socket against the bare dgram loop's (the floor), ` +
      'median over median, same run',
    unit: 'x',
    lowerIsBetter: true,
    clients: { [label]: points },
  };
  if (call !== 2) return figure;
  const checked = RATIO_SIZES.map((n) => points.find((p) => p.n === n)).filter((p): p is Point => p !== undefined);
  const met = checked.length === RATIO_SIZES.length && checked.every((p) => summary(p).median <= RATIO_TARGET);
  return { ...figure, target: { text: `Lightwire at most ${RATIO_TARGET}x the floor at N = ${RATIO_SIZES.join(' and ')}`, met } };
}

function rightFigure(o: Options, runs: readonly Run[]): Figure {
  const clients: Record<string, Point[]> = {};
  for (const mode of o.modes) {
    clients[MODE_LABEL[mode]] = o.sizes
      .map((n) => ({ n, values: runs.filter((r) => r.n === n && r.mode === mode).map((r) => r.matched) }))
      .filter((p) => p.values.length > 0);
  }
  return { id: 'set-right', title: 'Lights in the requested state at the end, read back from the fleet (every call)', unit: 'lights', lowerIsBetter: false, clients };
}

function rssFigure(o: Options, runs: readonly Run[]): Figure {
  const clients: Record<string, Point[]> = {};
  for (const mode of o.modes) {
    clients[MODE_LABEL[mode]] = o.sizes
      .map((n) => ({ n, values: runs.filter((r) => r.n === n && r.mode === mode && r.call === 1).map((r) => r.maxRssKiB / 1024) }))
      .filter((p) => p.values.length > 0);
  }
  return { id: 'set-rss', title: 'Peak RSS of the client process (finding, reading and two calls)', unit: 'MiB', lowerIsBetter: true, clients };
}

function detailTable(o: Options, runs: readonly Run[]): string[] {
  const lines = [
    '| N | client | call | reported done | handed to the socket | every light shows it | reported ok (worst) | in requested state (worst) | sent (retransmits), median | UDP drops (worst) | event loop busy (median) | most msgs/s to one light (worst) |',
    '|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const calls = [...new Set(runs.map((r) => r.call))].sort();
  const med = (xs: number[]): number => summary({ n: 0, values: xs }).median;
  const t = (rs: readonly Run[], get: (r: Run) => number | null): string => {
    const p = summary({ n: 0, values: rs.map(get) });
    return rs.length > 1 ? `${ms(Number.isFinite(p.median) ? p.median : null)} [${ms(p.min)}–${ms(Number.isFinite(p.max) ? p.max : null)}]` : ms(get(rs[0]!));
  };
  for (const n of o.sizes) {
    for (const mode of o.modes) {
      for (const call of calls) {
        const rs = runs.filter((r) => r.n === n && r.mode === mode && r.call === call);
        if (rs.length === 0) continue;
        const sent = rs[0]!.sent === null ? 'n/a' : `${med(rs.map((r) => r.sent ?? 0))} (${med(rs.map((r) => r.retransmits ?? 0))})`;
        const other = [...new Set(rs.flatMap((r) => r.reportedOther))];
        lines.push(
          `| ${n} | ${MODE_LABEL[mode]} | ${callLabel(call)} | ${t(rs, (r) => r.doneMs)} | ${t(rs, (r) => r.handedMs)} | ${t(rs, (r) => r.shownMs)} | ` +
            `${Math.min(...rs.map((r) => r.reportedOk))}/${n}${other.length > 0 ? ` (${other.join('; ')})` : ''} | ${Math.min(...rs.map((r) => r.matched))}/${n} | ${sent} | ` +
            `${Math.max(...rs.map((r) => r.dropsDuringSet))} | ${Math.round(med(rs.map((r) => r.loopBusy)) * 100)} % | ${Math.max(...rs.map((r) => r.fleetMaxRate))} |`,
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
    const lights = fleet.lights.map((l) => ({ serial: l.serial, address: l.address }));
    // A client that does not finish a call within the cap is not run again at this N: each such run costs the cap.
    const capped = new Set<SetStateMode>();
    try {
      for (let rep = 0; rep < o.reps; rep++) {
        // Rotate who goes first, so no client always meets a fleet that has just been busy.
        const order = o.modes.map((_, i) => o.modes[(i + rep) % o.modes.length]!);
        for (const mode of order) {
          if (capped.has(mode)) continue;
          const prof = o.cpuProfDir === undefined ? {} : { cpuProfFile: path.resolve(o.cpuProfDir, `${mode}-${n}-rep${rep + 1}-warm.cpuprofile`) };
          const calls = await runWorker(fleet, { mode, n, capMs: o.capMs, lights, ...prof }, o, rep, nextTarget);
          for (const run of calls) {
            runs.push(run);
            console.error(progress(run));
            if (run.startedAtMs > o.goAtMs[run.call - 1]! + 50) console.error(`    (started late: planned at ${o.goAtMs[run.call - 1]} ms)`);
            if (run.doneMs === null || run.handedMs === null) capped.add(mode);
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
  const at500 = (text: string, limit: number): { text: string; n: number; check: (m: number) => boolean } => ({ text, n: 500, check: (m) => m < limit });
  const figures: Figure[] = [];
  for (const call of [2, 1]) {
    const when = call === 2 ? 'warm' : 'cold (the first call of the process)';
    const handed = timeFigure(`set-fast-handed-${callLabel(call)}`, `Fast set of N lights, ${when}: until every datagram was handed to the socket`, o, runs, UNCONFIRMED, call,
      (r) => r.handedMs, call === 2 ? at500('Lightwire under 10 ms for 500 lights', 10) : undefined);
    figures.push(
      timeFigure(`set-confirmed-${callLabel(call)}`, `Confirmed set of N lights, ${when}: until every light acknowledged (colour and power)`, o, runs, CONFIRMED, call, (r) => r.doneMs,
        call === 2 ? at500('Lightwire under 50 ms for 500 lights, every one verified by the fleet', 50) : undefined),
      handed,
      floorRatioFigure(handed, call),
      timeFigure(`set-fast-shown-${callLabel(call)}`, `Fast set of N lights, ${when}: until the fleet saw every light in the new state`, o, runs, UNCONFIRMED, call, (r) => r.shownMs),
      timeFigure(`set-confirmed-shown-${callLabel(call)}`, `Confirmed set of N lights, ${when}: until the fleet saw every light in the new state`, o, runs, CONFIRMED, call, (r) => r.shownMs),
    );
  }
  figures.push(rightFigure(o, runs), rssFigure(o, runs));
  publish({
    bench: 'set-state',
    title: 'Set state',
    machine: machine(),
    method:
      `Fleet of N virtual lights (127.0.0.2…, port 56700) in its own process; net.core.rmem_max ${rmemMax}, private network namespace ` +
      `(loopback only); whole run ${((performance.now() - started) / 1000).toFixed(0)} s. Every client runs in a fresh process (plain node, ` +
      `compiled JS) that finds the fleet (ours also reads every light's info and state, as a service does) and then makes two calls setting ` +
      `every light to power on + hue H saturation 1 brightness B kelvin 3500, duration 0: "cold" is the first call of the process, "warm" ` +
      `the second (at ${o.goAtMs.map((t) => `${t / 1000} s`).join(' and ')} after the client was created, in gaps of every client's discovery ` +
      `broadcasts). Before each call every light is put OFF in a dim white behind the client's back, and each call asks for its own H and B. ` +
      `${o.reps} client process(es) per N and client, the order rotating; median [min–max]; a run counts only if every light ended in the ` +
      `requested state (read back from the fleet), otherwise "> cap" with the worst run's count; a client that does not finish within ` +
      `${o.capMs / 1000} s is not run again at that N. Confirmed: Lightwire non-fast (setState resolves when every light acknowledged), ` +
      `lifx-lan-client and node-lifx with callbacks (ack_required, resent), node-lifx-lan awaiting each write's State reply with at most ` +
      `${20} lights in flight. Fast: Lightwire fast (setState resolves once every message is queued; a quiet light's go out within the ` +
      `call), lifx-lan-client and node-lifx without callbacks; "handed to the socket" is when the call's 2N-th unicast datagram was given ` +
      `to socket.send() (counted in the client process; Lightwire's socket makes each send's system call within send(), the peers' ` +
      `with Node's default lookup on a later tick). "bare dgram loop (floor)" is no library: the colour and the power encoded once, ` +
      `copied per light with its target and sequence written in, and handed in a loop to one socket that, like Lightwire's, sends ` +
      `within send(): the least any client can take on this machine.`,
    figures,
    details: ['Every run, median [min–max] over the client processes:', '', ...detailTable(o, runs)].join('\n'),
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
