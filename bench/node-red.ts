// Node-RED side by side: Lightwire's nodes (the packed package) and node-red-contrib-node-lifx 0.11.0 (the package
// users install today, built from its source by bench/lib/node-red-peer.ts), each in a real Node-RED 5 of its own,
// one after the other against the same fleet of 100 virtual lights in another process (lib/fleet-child.ts), which
// notes when each light shows what it was asked to and counts what every light receives.
//
// One flow each, as a user would write it: an inject node -> the package's set node (colour and power).
//   - Lightwire: one lightwire-set-state node; msg.selector names the 1, 10 or 100 lights.
//   - node-red-contrib-node-lifx: its node-lifx-in node controls one light (its lightID), so the inject is wired to
//     1, 10 or 100 of them.
// Figures:
//   - set: ms from the inject (POST /inject/:id, the editor's inject button) until the fleet shows every light on in
//     the new colour, after the flow itself turned them off (so each package knows the lights are off);
//   - sustained: the most messages a second one set node takes on 1 light and on 100 lights while the fleet still
//     shows the last message's colour on every light within LAG_MS of when it was sent, with no light receiving more
//     than the vendor's 20 messages in any second (counted by the fleet). A function node in the flow sends the
//     messages at the rate (the same code in both flows); each rate is tried twice before it counts as too fast;
//   - RSS of the Node-RED process after those runs, idle; and Node-RED with no LIFX package as the floor.
// Usage: npm run bench:node-red [-- --reps K --json FILE --only lightwire|peer|fast]   (npm wraps it in `unshare --net --pid --mount-proc`, so
// /proc shows the namespace's processes and the runtime's RSS is read by its pid; the peer's build
// runs first, outside it: it needs the registry)

import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startNodeRed, type FlowNode, type NodeRed } from '../test/nodes/e2e/node-red.js';
import { machine, median, publish, type BenchResult, type Figure, type Point } from './lib/figures.js';
import { compileChildren, FleetProcess } from './lib/harness.js';
import type { TargetState } from './lib/messages.js';
import { assertPrivateNetns, guardLoopbackSends } from './lib/net-guard.js';
import { PEER_DIR, PEER_NAME, peerBuilt, peerVersion } from './lib/node-red-peer.js';

assertPrivateNetns();
guardLoopbackSends();

const ROOT = path.resolve(__dirname, '..');
const LIGHTS = 100;
const SET_SIZES = [1, 10, 100] as const;
const RATE_SIZES = [1, 100] as const;
/** The rates tried, in messages a second, until one is too fast (twice). */
const RATES: Record<number, readonly number[]> = {
  1: [2, 5, 8, 10, 12, 15, 18, 20, 30, 50, 100, 200, 500, 1000],
  100: [0.5, 1, 2, 5, 8, 10, 12, 15, 18, 20, 30, 50, 100, 200],
};
/** Results lag when the last message's colour shows on some light later than this after it was sent. */
const LAG_MS = 250;
/** The vendor's pacing: at most 20 messages a second to one light (https://lan.developer.lifx.com/docs/communicating-with-device). */
const MAX_PER_LIGHT_PER_S = 20;
/** How long each rate is held. */
const RATE_SECONDS = 3;
/** How long a light has no message before a timed set (transport pacing: a quiet light takes a burst at once). */
const QUIET_MS = 1100;
const CAP_MS = 15_000;
const KELVIN = 3500;
const NODE_RED_VERSION = (JSON.parse(readFileSync(path.join(ROOT, 'node_modules', 'node-red', 'package.json'), 'utf8')) as { version: string }).version;

const epochNow = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const hex16 = (prefix: string, i: number): string => `${prefix}${i.toString(16).padStart(16 - prefix.length, '0')}`;

/** What one message asks of the lights, in neither package's words. */
interface Ask {
  readonly power: 'on' | 'off';
  /** Degrees, whole. */
  readonly hue: number;
  /** 0-1 in whole percent (the peer takes percent). */
  readonly brightness: number;
}

/**
 * The function node that sends msg.payload.payloads at msg.payload.ratePerS (message i when i / rate seconds have
 * passed since the first), each with msg.selector when there is one. Same code in both flows.
 */
const PACE = `
const { ratePerS, payloads } = msg.payload;
const selector = msg.selector;
const t0 = Date.now();
let i = 0;
function tick() {
  const due = Math.min(payloads.length, Math.floor(((Date.now() - t0) * ratePerS) / 1000) + 1);
  while (i < due) {
    const m = { payload: payloads[i++] };
    if (selector !== undefined) m.selector = selector;
    node.send(m);
  }
  if (i < payloads.length) setTimeout(tick, Math.max(1, Math.min(20, (t0 + (i * 1000) / ratePerS) - Date.now())));
}
tick();
return null;
`;

interface Runtime {
  readonly label: string;
  readonly red: NodeRed;
  /** Fires the flow's inject: one message to `n` lights. */
  set(n: number, ask: Ask): Promise<void>;
  /** Fires the pacing inject: `asks` to `n` lights at `ratePerS`. */
  pace(n: number, ratePerS: number, asks: readonly Ask[]): Promise<void>;
  stop(): Promise<void>;
}

async function inject(red: NodeRed, id: string, props: Record<string, unknown>): Promise<void> {
  const res = await red.api('POST', `/inject/${id}`, {
    __user_inject_props__: Object.entries(props).map(([p, v]) => (typeof v === 'string' ? { p, v, vt: 'str' } : { p, v: JSON.stringify(v), vt: 'json' })),
  });
  if (res.status !== 200) throw new Error(`POST /inject/${id}: ${res.status} ${JSON.stringify(res.body)}`);
}

// ---- Lightwire: one set node, msg.selector ----

const lightwirePayload = (a: Ask): Record<string, unknown> =>
  a.power === 'off' ? { power: 'off', duration: 0 } : { power: 'on', color: `hue:${a.hue} saturation:1`, brightness: a.brightness, duration: 0 };

/** `fast`: the set node's "fast" box ticked (send without reading the lights first or waiting for their acks). */
async function startLightwire(serials: readonly string[], fast = false): Promise<Runtime> {
  const tab = 'a0000000000000ab';
  const ids = { config: 'c000000000000001', set: '5e00000000000001', inject: '1000000000000001', paceInject: '1000000000000002', pace: 'f000000000000001' };
  const flows: FlowNode[] = [
    { id: tab, type: 'tab', label: 'Lightwire bench' },
    // A real network's settings: broadcast (here the loopback one) on the LIFX port; everything else the defaults.
    { id: ids.config, type: 'lightwire-config', name: 'LAN', virtual: false, broadcast: '127.255.255.255', hosts: '', subnets: '', lanPort: 56700, refreshS: '', durationS: '', timeoutS: '', http: false },
    { id: ids.set, type: 'lightwire-set-state', z: tab, name: 'set', config: ids.config, selector: 'all', duration: '', fast, wires: [[], []] },
    { id: ids.inject, type: 'inject', z: tab, name: 'set', props: [{ p: 'payload' }], payload: '{}', payloadType: 'json', repeat: '', once: false, wires: [[ids.set]] },
    { id: ids.paceInject, type: 'inject', z: tab, name: 'pace', props: [{ p: 'payload' }], payload: '{}', payloadType: 'json', repeat: '', once: false, wires: [[ids.pace]] },
    { id: ids.pace, type: 'function', z: tab, name: 'pace', func: PACE, outputs: 1, wires: [[ids.set]] },
  ];
  const red = await startNodeRed({ flows });
  const selector = (n: number): string => (n === serials.length ? 'all' : serials.slice(0, n).map((s) => `id:${s}`).join(','));
  return {
    label: `Lightwire ${packageVersion()}${fast ? ', fast' : ''}`,
    red,
    set: (n, ask) => inject(red, ids.inject, { payload: lightwirePayload(ask), selector: selector(n) }),
    pace: (n, ratePerS, asks) => inject(red, ids.paceInject, { payload: { ratePerS, payloads: asks.map(lightwirePayload) }, selector: selector(n) }),
    stop: () => red.stop(),
  };
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

// ---- node-red-contrib-node-lifx: one node-lifx-in node per light ----

/** Its payload: on, hue (degrees), saturation and bri in percent, kelvin. */
const peerPayload = (a: Ask): Record<string, unknown> =>
  a.power === 'off' ? { on: false } : { on: true, hue: a.hue, saturation: 100, bri: Math.round(a.brightness * 100), kelvin: KELVIN };

/** A directory whose node_modules holds node-red (this repository's) and, unless `bare`, the peer's build. */
async function modulesDir(bare: boolean): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-nr-bench-'));
  await mkdir(path.join(dir, 'node_modules'));
  await symlink(path.join(ROOT, 'node_modules', 'node-red'), path.join(dir, 'node_modules', 'node-red'), 'dir');
  if (!bare) await symlink(PEER_DIR, path.join(dir, 'node_modules', PEER_NAME), 'dir');
  return dir;
}

async function startPeer(serials: readonly string[]): Promise<Runtime> {
  const tab = 'b0000000000000ab';
  const server = 'c000000000000002';
  const light = (i: number): string => hex16('d0', i + 1);
  const setInject = (n: number): string => hex16('1a', n);
  const paceInject = (n: number): string => hex16('2a', n);
  const pace = (n: number): string => hex16('fa', n);
  const to = (n: number): string[] => serials.slice(0, n).map((_, i) => light(i));
  const flows: FlowNode[] = [
    { id: tab, type: 'tab', label: 'node-red-contrib-node-lifx bench' },
    // Its settings for a real network: the broadcast address (here the loopback one); poll interval its default.
    { id: server, type: 'node-lifx-server', name: 'Lifx Server', address: '', broadcast: '127.255.255.255', lights: '', interval: '10000' },
    ...serials.map((serial, i) => ({ id: light(i), type: 'node-lifx-in', z: tab, name: '', server, lightID: serial, wires: [] })),
    ...SET_SIZES.map((n) => ({ id: setInject(n), type: 'inject', z: tab, name: `set ${n}`, props: [{ p: 'payload' }], payload: '{}', payloadType: 'json', repeat: '', once: false, wires: [to(n)] })),
    ...RATE_SIZES.flatMap((n) => [
      { id: paceInject(n), type: 'inject', z: tab, name: `pace ${n}`, props: [{ p: 'payload' }], payload: '{}', payloadType: 'json', repeat: '', once: false, wires: [[pace(n)]] },
      { id: pace(n), type: 'function', z: tab, name: `pace ${n}`, func: PACE, outputs: 1, wires: [to(n)] },
    ]),
  ];
  const dir = await modulesDir(false);
  const red = await startNodeRed({ flows, modules: dir });
  return {
    label: `${PEER_NAME} ${peerVersion()}`,
    red,
    set: (n, ask) => inject(red, setInject(n), { payload: peerPayload(ask) }),
    pace: (n, ratePerS, asks) => inject(red, paceInject(n), { payload: { ratePerS, payloads: asks.map(peerPayload) } }),
    stop: async () => {
      await red.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// ---- the measurements ----

const targetOf = (a: Ask): TargetState => ({ power: a.power, hue: a.hue, saturation: 1, brightness: a.brightness, kelvin: KELVIN });

/** ms from firing until the fleet shows `ask` on every one of `serials`; null if it did not within `graceMs`. */
async function timeShown(fleet: FleetProcess, serials: readonly string[], ask: Ask, fire: () => Promise<void>, graceMs = CAP_MS): Promise<{ ms: number | null; examples: readonly string[] }> {
  await fleet.request({ type: 'watch', target: targetOf(ask), serials }, 'watching');
  const t0 = epochNow();
  await fire();
  const r = await fleet.request({ type: 'watch-result', graceMs, doneAtEpochMs: null }, 'watch-result');
  return { ms: r.allShownAtEpochMs === null ? null : Math.max(0, r.allShownAtEpochMs - t0), examples: r.examples };
}

/** Every one of the lights off, through the flow itself (so the package knows); retried while it is finding them. */
async function allOff(fleet: FleetProcess, rt: Runtime, serials: readonly string[], patienceMs: number): Promise<void> {
  const until = Date.now() + patienceMs;
  for (;;) {
    const { ms, examples } = await timeShown(fleet, serials, { power: 'off', hue: 0, brightness: 0 }, () => rt.set(serials.length, { power: 'off', hue: 0, brightness: 0 }), 3000);
    if (ms !== null) return;
    if (Date.now() > until) throw new Error(`${rt.label}: not every light turned off: ${examples.join('; ')}`);
  }
}

/** The k-th timed colour: every one a change from the one before. */
const colour = (k: number): Ask => ({ power: 'on', hue: (53 * k + 10) % 300, brightness: (30 + 10 * (k % 5)) / 100 });

async function setTimes(fleet: FleetProcess, rt: Runtime, serials: readonly string[], reps: number): Promise<Record<number, (number | null)[]>> {
  const out: Record<number, (number | null)[]> = {};
  for (const n of SET_SIZES) {
    const lights = serials.slice(0, n);
    out[n] = [];
    for (let k = 0; k < reps; k++) {
      await allOff(fleet, rt, lights, CAP_MS);
      await sleep(QUIET_MS);
      const ask = colour(k);
      const { ms, examples } = await timeShown(fleet, lights, ask, () => rt.set(n, ask));
      if (ms === null) console.error(`${rt.label}: set on ${n} did not show within ${CAP_MS} ms: ${examples.join('; ')}`);
      out[n]!.push(ms);
    }
    console.error(`${rt.label}: set on ${n}: ${out[n]!.map((v) => (v === null ? '> cap' : v.toFixed(1))).join(', ')} ms`);
  }
  return out;
}

interface RateStep {
  readonly ratePerS: number;
  readonly lagMs: number | null;
  readonly maxPerLightPerS: number;
  /** Set messages each light received per message sent (2 = colour and power each time; below 1 = superseded sets dropped). */
  readonly setsPerLightPerMessage: number;
  /** Which Set messages the lights received, all together. */
  readonly setByName: Readonly<Record<string, number>>;
  readonly ok: boolean;
}

/** Waits until the fleet has received no Set message for a second (a client's backlog drained), at most `capMs`. */
async function drained(fleet: FleetProcess, capMs: number): Promise<void> {
  let last = -1;
  const until = Date.now() + capMs;
  while (Date.now() < until) {
    const { setMessages } = await fleet.request({ type: 'stats' }, 'stats');
    if (setMessages === last) return;
    last = setMessages;
    await sleep(1000);
  }
}

async function rateStep(fleet: FleetProcess, rt: Runtime, lights: readonly string[], ratePerS: number, step: number): Promise<RateStep> {
  const count = Math.max(4, Math.round(ratePerS * RATE_SECONDS));
  // Intermediate brightness 20-60 %, the last one 90 or 80 % (alternating per step): the last is never an earlier one.
  const last: Ask = { power: 'on', hue: step % 2 === 0 ? 330 : 320, brightness: step % 2 === 0 ? 0.9 : 0.8 };
  const asks: Ask[] = Array.from({ length: count - 1 }, (_, i) => ({ power: 'on' as const, hue: (37 * i) % 300, brightness: (20 + 10 * (i % 5)) / 100 }));
  asks.push(last);
  await fleet.request({ type: 'clear' }, 'cleared');
  await sleep(QUIET_MS);
  const lastDueAfterMs = ((count - 1) * 1000) / ratePerS;
  const { ms } = await timeShown(fleet, lights, last, () => rt.pace(lights.length, ratePerS, asks), lastDueAfterMs + 10_000);
  const stats = await fleet.request({ type: 'stats' }, 'stats');
  const lagMs = ms === null ? null : Math.max(0, ms - lastDueAfterMs);
  const result: RateStep = {
    ratePerS,
    lagMs,
    maxPerLightPerS: stats.maxMessagesPerSecond,
    setsPerLightPerMessage: stats.setMessages / lights.length / count,
    setByName: stats.setByName,
    ok: lagMs !== null && lagMs <= LAG_MS && stats.maxMessagesPerSecond <= MAX_PER_LIGHT_PER_S,
  };
  if (!result.ok) await drained(fleet, 60_000);
  return result;
}

/**
 * The rates every package is asked to keep up with for the same-work RSS: up to the vendor's 20 messages a second to a
 * light, past which a package that sends every message cannot show them all (where the peer stops).
 */
const SAME_WORK_MAX_PER_S = MAX_PER_LIGHT_PER_S;

/**
 * The rates on 1 and on 100 lights, each until one is too fast (twice): first every rate up to SAME_WORK_MAX_PER_S on
 * both sizes, then `between` (the same-work RSS sample), then the higher rates for a package still keeping up.
 */
async function sustained(fleet: FleetProcess, rt: Runtime, serials: readonly string[], between: () => Promise<void>): Promise<Record<number, { best: number; steps: RateStep[] }>> {
  const out: Record<number, { best: number; steps: RateStep[]; stopped: boolean }> = {};
  let step = 0;
  const ladder = async (n: number, rates: readonly number[]): Promise<void> => {
    const lights = serials.slice(0, n);
    const got = (out[n] ??= { best: 0, steps: [], stopped: false });
    for (const rate of rates) {
      if (got.stopped) return;
      let s = await rateStep(fleet, rt, lights, rate, step++);
      got.steps.push(s);
      if (!s.ok) {
        s = await rateStep(fleet, rt, lights, rate, step++);
        got.steps.push(s);
      }
      const shown = `lag ${s.lagMs === null ? '> cap' : `${s.lagMs.toFixed(0)} ms`}, max ${s.maxPerLightPerS}/s a light, ${s.setsPerLightPerMessage.toFixed(2)} Set a light a message: ${JSON.stringify(s.setByName)}`;
      console.error(`${rt.label}: ${n} light(s) at ${rate}/s: ${s.ok ? 'keeps up' : 'lags'} (${shown})`);
      if (!s.ok) got.stopped = true;
      else got.best = rate;
    }
  };
  for (const n of RATE_SIZES) {
    // Every light on in a known colour first.
    const ready = await timeShown(fleet, serials.slice(0, n), colour(99), () => rt.set(n, colour(99)));
    if (ready.ms === null) throw new Error(`${rt.label}: lights not on before the rates: ${ready.examples.join('; ')}`);
    await ladder(n, RATES[n]!.filter((r) => r <= SAME_WORK_MAX_PER_S));
  }
  await between();
  for (const n of RATE_SIZES) await ladder(n, RATES[n]!.filter((r) => r > SAME_WORK_MAX_PER_S));
  return Object.fromEntries(RATE_SIZES.map((n) => [n, { best: out[n]!.best, steps: out[n]!.steps }]));
}

/** VmRSS and VmHWM of a process, MiB. */
function rssOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}

interface ClientResult {
  readonly label: string;
  readonly set: Record<number, (number | null)[]>;
  readonly rates: Record<number, { best: number; steps: RateStep[] }>;
  /** Once every light was found and set once, 5 s idle. */
  readonly rssFound: { rssMiB: number; peakMiB: number };
  /** After the set runs and the rates up to SAME_WORK_MAX_PER_S (the same work for every package), 5 s idle. */
  readonly rssSameWork: { rssMiB: number; peakMiB: number };
  readonly rss: { rssMiB: number; peakMiB: number };
}

async function measure(fleet: FleetProcess, rt: Runtime, serials: readonly string[], reps: number): Promise<ClientResult> {
  try {
    // Until the runtime has found and can set every light (each package's own discovery).
    await allOff(fleet, rt, serials, 60_000);
    await sleep(5000);
    const rssFound = rssOf(rt.red.pid);
    const set = await setTimes(fleet, rt, serials, reps);
    let rssSameWork = { rssMiB: NaN, peakMiB: NaN };
    const rates = await sustained(fleet, rt, serials, async () => {
      await drained(fleet, 30_000);
      await sleep(5000);
      rssSameWork = rssOf(rt.red.pid);
    });
    await drained(fleet, 30_000);
    await sleep(5000);
    const rss = rssOf(rt.red.pid);
    console.error(`${rt.label}: RSS ${rss.rssMiB.toFixed(1)} MiB (peak ${rss.peakMiB.toFixed(1)})`);
    if (/TypeError|ReferenceError|unhandled/i.test(rt.red.log())) console.error(`${rt.label}: its log shows errors:\n${rt.red.log().slice(-3000)}`);
    return { label: rt.label, set, rates, rssFound, rssSameWork, rss };
  } finally {
    await rt.stop();
  }
}

/** Node-RED with no LIFX package, an inject and a debug node, idle as long as a measured runtime is at its end. */
async function floorRss(): Promise<{ rssMiB: number; peakMiB: number }> {
  const dir = await modulesDir(true);
  const red = await startNodeRed({
    flows: [
      { id: 'e0000000000000ab', type: 'tab', label: 'floor' },
      { id: 'e000000000000001', type: 'inject', z: 'e0000000000000ab', props: [{ p: 'payload' }], payload: '', payloadType: 'date', repeat: '', once: false, wires: [['e000000000000002']] },
      { id: 'e000000000000002', type: 'debug', z: 'e0000000000000ab', active: true, tosidebar: true, complete: 'payload', wires: [] },
    ],
    modules: dir,
  });
  try {
    await sleep(10_000);
    return rssOf(red.pid);
  } finally {
    await red.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function toResult(clients: readonly ClientResult[], floor: { rssMiB: number; peakMiB: number }, reps: number): BenchResult {
  const ours = clients.find((c) => c.label.startsWith('Lightwire'))!;
  const peer = clients.find((c) => !c.label.startsWith('Lightwire'))!;
  const fast = clients.find((c) => c.label.endsWith(', fast'));
  const also = (f: (c: ClientResult) => Point[]): Record<string, Point[]> => (fast === undefined ? {} : { [fast.label]: f(fast) });
  // Largest N first: the page's summary shows a figure at its first point.
  const setPoints = (c: ClientResult): Point[] => [...SET_SIZES].reverse().map((n) => ({ n, values: c.set[n]! }));
  const ratePoints = (c: ClientResult): Point[] =>
    [...RATE_SIZES].reverse().map((n) => ({ n, values: [c.rates[n]!.best], ...(c.rates[n]!.best === RATES[n]!.at(-1) ? { note: 'the highest rate tried' } : {}) }));
  const med = (c: ClientResult, n: number): number => median(c.set[n]!.map((v) => v ?? Infinity));
  const setAhead = SET_SIZES.every((n) => med(ours, n) < med(peer, n));
  const rateAhead = RATE_SIZES.every((n) => ours.rates[n]!.best > peer.rates[n]!.best);
  /** One RSS figure: each package, the "fast" variant and Node-RED alone; `target`: below the peer. */
  const rssFigure = (id: string, title: string, pick: (c: ClientResult) => { rssMiB: number }, target: boolean): Figure => ({
    id,
    title,
    unit: 'MiB',
    lowerIsBetter: true,
    clients: {
      [ours.label]: [{ n: LIGHTS, values: [pick(ours).rssMiB] }],
      [peer.label]: [{ n: LIGHTS, values: [pick(peer).rssMiB] }],
      ...also((c) => [{ n: LIGHTS, values: [pick(c).rssMiB] }]),
      [`Node-RED ${NODE_RED_VERSION} alone (floor)`]: [{ n: LIGHTS, values: [floor.rssMiB], note: 'no LIFX package, no lights' }],
    },
    ...(target ? { target: { text: `below ${peer.label}`, met: pick(ours).rssMiB < pick(peer).rssMiB } } : {}),
  });
  const figures: Figure[] = [
    {
      id: 'nr-set-shown',
      title: 'Inject -> set colour and power, until the fleet shows every light changed',
      unit: 'ms',
      lowerIsBetter: true,
      chart: true,
      clients: { [ours.label]: setPoints(ours), [peer.label]: setPoints(peer), ...also(setPoints) },
      target: { text: `ahead of ${peer.label} at every N`, met: setAhead },
    },
    {
      id: 'nr-sustained',
      title: `Messages a second one set node takes before results lag (last colour shown within ${LAG_MS} ms, at most ${MAX_PER_LIGHT_PER_S} messages a second to a light)`,
      unit: 'msg/s',
      lowerIsBetter: false,
      clients: { [ours.label]: ratePoints(ours), [peer.label]: ratePoints(peer), ...also(ratePoints) },
      target: { text: `ahead of ${peer.label} on 1 and on 100 lights`, met: rateAhead },
    },
    rssFigure('nr-rss-found', 'RSS of the Node-RED runtime once it found the 100 lights and set them once, 5 s idle', (c) => c.rssFound, true),
    rssFigure(
      'nr-rss-same-work',
      `RSS of the Node-RED runtime after the set runs and the rates up to ${SAME_WORK_MAX_PER_S} messages a second (the same work for each package), 5 s idle, holding 100 lights`,
      (c) => c.rssSameWork,
      true,
    ),
    // Not a target: a package that keeps up runs the higher rates too (more work); nr-rss-same-work compares.
    rssFigure('nr-rss', 'RSS of the Node-RED runtime after the set and sustained runs (each package up to the rate it lags at), 5 s idle, holding 100 lights', (c) => c.rss, false),
  ];
  const stepRows = clients.flatMap((c) =>
    RATE_SIZES.flatMap((n) =>
      c.rates[n]!.steps.map(
        (s) =>
          `| ${c.label} | ${n} | ${s.ratePerS} | ${s.lagMs === null ? '> cap' : `${s.lagMs.toFixed(0)} ms`} | ${s.maxPerLightPerS} | ${s.setsPerLightPerMessage.toFixed(2)} | ` +
          `${Object.entries(s.setByName).map(([name, count]) => `${name} ${count}`).join(', ')} | ${!s.ok && s.lagMs !== null && s.lagMs <= LAG_MS ? 'over 20/s' : s.ok ? 'keeps up' : 'lags'} |`,
      ),
    ),
  );
  const details = [
    '#### Every rate tried',
    '',
    'Lag: from when the last message was due until the fleet showed its colour on every light. Max/s: most messages one light received in a sliding second. ' +
      'Set/light/msg: Set messages each light received per message sent (2: colour and power every time; below 1: superseded sets were dropped, the last one always sent).',
    '',
    '| package | lights | msg/s | lag | max/s a light | Set/light/msg | Set messages received | |',
    '|---|---:|---:|---:|---:|---:|---|---|',
    ...stepRows,
    '',
    `Peak RSS (VmHWM) over the whole run: ${clients.map((c) => `${c.label} ${c.rss.peakMiB.toFixed(1)} MiB`).join(', ')}; Node-RED alone ${floor.peakMiB.toFixed(1)} MiB.`,
    '',
    ...shortfalls(ours, peer, fast, floor),
  ].join('\n');
  return {
    bench: 'node-red',
    title: 'Node-RED: Lightwire against node-red-contrib-node-lifx',
    machine: machine(),
    method:
      `Each package in a real Node-RED ${NODE_RED_VERSION} of its own (Lightwire as the packed tarball installed; ${peer.label} built from its source at ` +
      `${peerCommit()} with its npm dependencies from the registry, lifx-lan-client ${peerDependencyVersion()}), one after the other against the same fleet of ` +
      `${LIGHTS} virtual lights in another process, on loopback in a private network namespace. One flow each: an inject node wired to the package's set node ` +
      `(Lightwire: one lightwire-set-state node, msg.selector naming the lights; ${peer.label}: one node-lifx-in node per light, its only way, so the inject is ` +
      `wired to 1, 10 or 100 of them). Set: from firing the inject (the admin API's POST /inject/:id, the editor's button) until the fleet shows every light on ` +
      `in the new colour, after the flow itself turned them off, ${reps} runs per N. Sustained: a function node in the flow (the same code in both) sends ` +
      `${RATE_SECONDS} s of messages at each rate; a rate is kept up when the fleet shows the last message's colour on every light within ${LAG_MS} ms of when it ` +
      `was due and no light received more than ${MAX_PER_LIGHT_PER_S} messages in any second (the vendor's pacing); each rate is tried twice before it counts as too fast. ` +
      `RSS: VmRSS of the Node-RED process, 5 s idle, once it found every light and set it once; after the set runs and every rate up to ${SAME_WORK_MAX_PER_S} messages a second on both sizes (the same work for each package: the rates above it are run after this sample, by a package still keeping up); and after all the runs; the floor is Node-RED with an inject and a debug node, 10 s after start. Both packages keep their defaults otherwise (Lightwire refreshes every light every 10 s, ` +
      `${peer.label} polls every light every 5 s); "Lightwire, fast" is the same flow with the set node's "fast" box ticked (each message sent ` +
      `without reading the lights first or waiting for acks), shown beside, not in place of, the default. The machine has 2 cores shared with other work ` +
      `while measuring (load average ${os.loadavg().map((l) => l.toFixed(1)).join(', ')} at the end): expect noise.`,
    figures,
    details,
  };
}

/** Where Lightwire's default is not ahead: the figure, by how much, and what it would take (the reasons are read off the tables above). */
function shortfalls(ours: ClientResult, peer: ClientResult, fast: ClientResult | undefined, floor: { rssMiB: number }): string[] {
  const out: string[] = [];
  const pct = (a: number, b: number): string => `${Math.round((100 * Math.abs(a - b)) / b)} %`;
  const rateShort = RATE_SIZES.filter((n) => ours.rates[n]!.best <= peer.rates[n]!.best);
  if (rateShort.length > 0) {
    const said = rateShort.map((n) => `${ours.rates[n]!.best} against ${peer.rates[n]!.best} on ${n} light${n === 1 ? '' : 's'} (${pct(ours.rates[n]!.best, peer.rates[n]!.best)} fewer)`).join(', ');
    out.push(
      `**Short: sustained messages, default set node**: ${said}. The default set node confirms every write (each light acknowledges it) and ` +
        `runs a light's writes in turn, a waiting one giving way to a newer one that sets all it sets; ${peer.label} sends each SetColor ` +
        `without waiting for an answer. See "Every rate tried" for where the lag came from (Set messages a light got, most a second)` +
        (fast === undefined ? '.' : `; with "fast" ticked: ${RATE_SIZES.map((n) => `${fast.rates[n]!.best} on ${n}`).join(', ')}.`),
    );
  }
  const rssFoundShort = ours.rssFound.rssMiB >= peer.rssFound.rssMiB;
  const rssSameShort = ours.rssSameWork.rssMiB >= peer.rssSameWork.rssMiB;
  if (rssFoundShort || rssSameShort) {
    out.push(
      '',
      `**Short: RSS**: Lightwire's runtime ${ours.rssFound.rssMiB.toFixed(1)} MiB against ${peer.rssFound.rssMiB.toFixed(1)} once the lights were found ` +
        `(${(ours.rssFound.rssMiB - peer.rssFound.rssMiB).toFixed(1)} MiB), ${ours.rssSameWork.rssMiB.toFixed(1)} against ${peer.rssSameWork.rssMiB.toFixed(1)} ` +
        `after the same runs (${(ours.rssSameWork.rssMiB - peer.rssSameWork.rssMiB).toFixed(1)} MiB, ${pct(ours.rssSameWork.rssMiB, peer.rssSameWork.rssMiB)}); ` +
        `Node-RED alone ${floor.rssMiB.toFixed(1)} MiB. One sample each on a shared machine: a few MiB either way is V8's heap sizing, not the package.`,
    );
  }
  return out;
}

function peerCommit(): string {
  return readFileSync(path.join(PEER_DIR, '.lightwire-commit'), 'utf8').trim().slice(0, 12);
}

function peerDependencyVersion(): string {
  return (JSON.parse(readFileSync(path.join(PEER_DIR, 'node_modules', 'lifx-lan-client', 'package.json'), 'utf8')) as { version: string }).version;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const i = argv.indexOf('--reps');
  const reps = i >= 0 ? Number(argv[i + 1]) : 7;
  if (!peerBuilt()) throw new Error(`${PEER_NAME} is not built in ${PEER_DIR}: run node --import tsx bench/lib/node-red-peer.ts (npm run bench:node-red does)`);
  compileChildren();
  const fleet = await FleetProcess.start(LIGHTS);
  const serials = fleet.lights.map((l) => l.serial);
  const clients: ClientResult[] = [];
  // --only lightwire|peer|fast: one client, printed as it goes and not published (for working on one of them).
  const o = argv.indexOf('--only');
  const only = o >= 0 ? argv[o + 1] : undefined;
  const starts: Record<string, () => Promise<Runtime>> = {
    lightwire: () => startLightwire(serials),
    peer: () => startPeer(serials),
    fast: () => startLightwire(serials, true),
  };
  if (only !== undefined && !Object.hasOwn(starts, only)) throw new Error(`--only takes ${Object.keys(starts).join(', ')}`);
  try {
    for (const [name, start] of Object.entries(starts)) if (only === undefined || only === name) clients.push(await measure(fleet, await start(), serials, reps));
  } finally {
    await fleet.stop();
  }
  if (only !== undefined) return;
  const floor = await floorRss();
  publish(toResult(clients, floor, reps), argv);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
