// One set-state measurement in a fresh process: one client sets every light of the fleet (another process) to one
// colour and power on, twice: the first call of the process (cold: nothing of the set path has run or been compiled
// yet) and a second one (warm). Clients (SetStateMode):
//   ours-acked  Lightwire's LightService, non-fast: confirmed writes (colour then power where the light is off)
//   ours-fast   Lightwire's LightService, fast: end-state messages queued, no acks
//   llc-acked   lifx-lan-client 2.1.2, colour and power with callbacks (ack_required, resent)
//   llc-fast    lifx-lan-client 2.1.2, colour and power without callbacks (no ack)
//   nll         node-lifx-lan 0.5.0, colour then power per light, each awaited (res_required, resent every 50 ms),
//               at most 20 lights in flight (its sequence numbers are shared by all lights: its best setting)
//   nl-acked    node-lifx 0.8.0, colour and power with callbacks (ack_required)
//   nl-fast     node-lifx 0.8.0, colour and power without callbacks
//   floor       no library: the colour and the power encoded once, copied per light (target and sequence written in)
//               and handed to one dgram socket in a loop (its lookup answering at once, so each send() is its system
//               call); the least any client can take here
//
// Over IPC: the parent sends a SetStateConfig; the worker finds the fleet, gets ready and answers `ready`. For each
// call the parent resets the fleet, arms its watch and sends `go` with the colour; the worker starts the call at the
// time given (counted from the client's creation) and answers with a SetStateResult. Then `stop`: the worker stops the
// client and answers `stopped` with its peak RSS. A fresh process per client makes maxRSS this client's own peak.
//
// Every datagram any client sends goes through guardLoopbackSends (127.0.0.0/8 only), which also counts the unicast
// ones: "handed to the socket" is when the call's 2N-th unicast datagram was given to socket.send().

import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type { LightResult } from '../../core/index.js';
import type { TargetState } from './messages.js';
import { guardLoopbackSends, onSend } from './net-guard.js';
import { BROADCAST, LIFX_PORT, llcInitOptions, loadLlc, loadNll, nllMac, NLL_IN_FLIGHT, pool, type LlcCallback, type LlcLibrary, type LlcLight } from './peers.js';
import { rcvbufErrors, socketDrops } from './udp-stats.js';

guardLoopbackSends();

/** Ours uses a 4 MiB receive buffer by default (transport receiveBufferBytes); lifx-lan-client gets the same. */
const RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;

export type SetStateMode = 'ours-acked' | 'ours-fast' | 'llc-acked' | 'llc-fast' | 'nll' | 'nl-acked' | 'nl-fast' | 'floor';

export interface SetStateConfig {
  readonly mode: SetStateMode;
  /** How many lights the fleet has. */
  readonly n: number;
  /** Give up on discovery, and on each call, after this long. */
  readonly capMs: number;
  /** The fleet's lights (node-lifx-lan's devices are made from it: its discovery reads lights one at a time). */
  readonly lights: readonly { readonly serial: string; readonly address: string }[];
  /** Write a CPU profile of the warm (second) call here (node:inspector, sampled every 50 µs). */
  readonly cpuProfFile?: string;
}

export type ParentToWorker =
  | ({ readonly type: 'config' } & SetStateConfig)
  /**
   * Start a call at `atMs` after the client was created (or at once if that has passed). Both clients re-broadcast
   * discovery on a schedule (ours at 0, 0.6, 1.8, 3.6, 5.6 s…, lifx-lan-client every 5 s): the parent places the
   * calls in gaps of both, so that a fleet answering a broadcast is not part of a figure.
   */
  | { readonly type: 'go'; readonly target: TargetState; readonly atMs: number }
  /**
   * Sent once the fleet has read every light back: until then the client keeps running, as it would in an
   * application, so that what it still sends after reporting done (retransmissions) reaches the lights.
   */
  | { readonly type: 'stop' };

export type WorkerToParent =
  /** readyAtMs: after the client's creation, when every light was found and (ours) read; createdEpochMs: the creation. */
  | { readonly type: 'ready'; readonly found: number; readonly discoveryMs: number | null; readonly readyAtMs: number; readonly createdEpochMs: number }
  | ({ readonly type: 'result' } & SetStateResult)
  | { readonly type: 'stopped'; readonly maxRssKiB: number };

export interface SetStateResult {
  readonly mode: SetStateMode;
  readonly n: number;
  /** 1: the first call in the process (cold), 2: the second (warm). */
  readonly call: number;
  readonly found: number;
  readonly discoveryMs: number | null;
  /** performance.timeOrigin + performance.now() when the call began (compare with the fleet's watch). */
  readonly startEpochMs: number;
  /** When the call began, ms after the client was created. */
  readonly startedAtMs: number;
  /**
   * Until the call reported done: ours when setState resolved (non-fast: every light acknowledged; fast: every message
   * queued, a quiet light's handed to the socket); acked peers when every callback fired (acknowledged, or given up
   * after its retries); fire-and-forget peers when their calls returned. null: not within the cap.
   */
  readonly doneMs: number | null;
  /** Until the call's 2N-th unicast datagram was handed to socket.send() (colour and power for every light). */
  readonly handedMs: number | null;
  /** Lights reported done: ours `status: ok`; acked peers both callbacks without error; fire-and-forget peers: n/a (N). */
  readonly reportedOk: number;
  /** What was reported otherwise, e.g. `timed_out ×3`, `error ×2 (No LIFX response after max resend limit of 3)`. */
  readonly reportedOther: readonly string[];
  /** Datagrams the client sent during the call, and how many of them were retransmissions (ours only). */
  readonly sent: number | null;
  readonly retransmits: number | null;
  /** Udp RcvbufErrors (network namespace) during the call. */
  readonly dropsDuringSet: number;
  readonly dropsClientSocket: number;
  /** Share of the call's time the client's event loop was busy (performance.eventLoopUtilization): 1 = CPU-bound. */
  readonly loopBusy: number;
}

interface Prepared {
  readonly found: () => number;
  /** The timed operation; resolves with what the library reported per light. */
  readonly run: (target: TargetState) => Promise<{ ok: number; other: Map<string, number> }>;
  readonly counters?: () => { sent: number; retransmits: number };
  readonly localPort: () => number;
  readonly stop: () => Promise<void>;
  readonly discoveryMs: number | null;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const epochNow = (): number => performance.timeOrigin + performance.now();

function tally(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Ours: LightClient with its defaults except where to broadcast, every light's info and state read, a LightService. */
async function prepareOurs(cfg: SetStateConfig, t0: number): Promise<Prepared> {
  const { LightClient, LightService } = await import('../../core/index.js');
  const capMs = Math.max(1, Math.round(cfg.capMs - (performance.now() - t0)));
  // The client is the bench's own, for its counters; handed in unstarted, the service starts and stops it.
  const client = new LightClient({ discovery: { broadcastAddresses: [BROADCAST], port: LIFX_PORT } });
  const service = new LightService({ client, expectLights: cfg.n, readyTimeoutMs: capMs });
  service.on('error', () => undefined);
  await service.start();
  const lights = await client.waitForLights(cfg.n, capMs);
  const discoveryMs = lights.length >= cfg.n ? performance.now() - t0 : null;
  // Facts (product, hence capabilities) and state of every light: the service's own first reads.
  await service.ready;
  const fast = cfg.mode === 'ours-fast';
  return {
    discoveryMs,
    found: () => client.registry.size,
    run: async ({ hue, saturation, brightness, kelvin }) => {
      // kelvin first: in a colour string `kelvin:` forces saturation 0, so written last it
      // would turn 'hue:H saturation:1 brightness:B kelvin:3500' into a white; this asks what the peers are asked.
      const color = `kelvin:${kelvin} hue:${hue} saturation:${saturation} brightness:${brightness}`;
      const results: LightResult[] = await service.setState('all', { power: 'on', color, durationS: 0 }, { fast });
      const other = new Map<string, number>();
      let ok = 0;
      for (const r of results) {
        if (r.status === 'ok') ok++;
        else tally(other, r.status);
      }
      return { ok, other };
    },
    counters: () => ({ sent: client.requester.stats.sent, retransmits: client.requester.stats.retransmits }),
    localPort: () => (client as unknown as { endpoint: { port: number } }).endpoint.port,
    stop: () => service.stop(),
  };
}

/** Colour then power for every light; with callbacks when `acked` (resolved when all fired), else at once. */
function setAll(lights: readonly LlcLight[], t: TargetState, acked: boolean): Promise<{ ok: number; other: Map<string, number> }> {
  const other = new Map<string, number>();
  if (!acked) {
    // Units: hue in degrees, saturation and brightness 0-100, duration in ms.
    for (const light of lights) {
      light.color(t.hue, t.saturation * 100, t.brightness * 100, t.kelvin, 0);
      light.on(0);
    }
    return Promise.resolve({ ok: lights.length, other });
  }
  return new Promise((resolve) => {
    let ok = 0;
    let left = lights.length;
    if (left === 0) resolve({ ok, other });
    for (const light of lights) {
      let callbacks = 0;
      let failed = false;
      const done: LlcCallback = (err) => {
        if (err) {
          failed = true;
          tally(other, `error (${err.message})`);
        }
        if (++callbacks < 2) return;
        if (!failed) ok++;
        if (--left === 0) resolve({ ok, other });
      };
      light.color(t.hue, t.saturation * 100, t.brightness * 100, t.kelvin, 0, done);
      light.on(0, done);
    }
  });
}

/**
 * lifx-lan-client (or node-lifx) with its defaults (lifx-lan-client: 50 ms per-light queue, resend after 150 ms, 3
 * sends for messages with a callback; node-lifx: one queue for the whole client, a message every 50 ms) except:
 * broadcast to 127.255.255.255 (their default is the all-ones broadcast), a port of its own (see below) and the same
 * 4 MiB receive buffer as ours (lifx-lan-client with its 208 KiB default does not
 * find 500 lights within 30 s, see bench:discovery, and this bench is about setting, not finding).
 */
async function prepareLlc(cfg: SetStateConfig, t0: number, library: LlcLibrary): Promise<Prepared> {
  const { Client } = loadLlc(library, createRequire(__filename));
  const client = new Client();
  client.on('error', () => undefined);
  let discoveryMs: number | null = null;
  const allFound = new Promise<void>((resolve) => {
    client.on('light-new', () => {
      if (discoveryMs === null && Object.keys(client.devices).length >= cfg.n) {
        discoveryMs = performance.now() - t0;
        resolve();
      }
    });
  });
  await new Promise<void>((resolve) =>
    client.init(llcInitOptions(library), () => {
      // The first broadcast leaves on the queue's first tick: the buffer is set before any reply.
      client.socket.setRecvBufferSize(RECEIVE_BUFFER_BYTES);
      resolve();
    }),
  );
  await Promise.race([allFound, sleep(Math.max(0, cfg.capMs - (performance.now() - t0)))]);
  const acked = cfg.mode === 'llc-acked' || cfg.mode === 'nl-acked';
  return {
    discoveryMs,
    found: () => Object.keys(client.devices).length,
    run: (t) => setAll(Object.values(client.devices), t, acked),
    localPort: () => client.address()?.port ?? 0,
    stop: async () => client.destroy(),
  };
}

/**
 * node-lifx-lan: its devices made from the fleet's list (createDevice; its discover() reads every light's info one
 * light at a time, 50 ms apart), patched to run here (peers.ts).
 */
async function prepareNll(cfg: SetStateConfig, t0: number): Promise<Prepared> {
  const Lifx = loadNll(createRequire(__filename));
  const devices = await Promise.all(cfg.lights.map((l) => Lifx.createDevice({ ip: l.address, mac: nllMac(l.serial) })));
  return {
    discoveryMs: performance.now() - t0,
    found: () => devices.length,
    run: async (t) => {
      const other = new Map<string, number>();
      let ok = 0;
      await pool(devices, NLL_IN_FLIGHT, async (device) => {
        try {
          await device.lightSetColor({ color: { hue: t.hue / 360, saturation: t.saturation, brightness: t.brightness, kelvin: t.kelvin }, duration: 0 });
          await device.lightSetPower({ level: 1, duration: 0 });
          ok++;
        } catch (err) {
          tally(other, `error (${(err as Error).message})`);
        }
      });
      return { ok, other };
    },
    localPort: () => 0,
    stop: () => Lifx.destroy().catch(() => undefined),
  };
}

/**
 * The floor: no library. Each message encoded once (our codec) and copied per light with its target and sequence,
 * every datagram handed to a plain socket in a loop: the least work any client can do, timed like the clients.
 */
async function prepareFloor(cfg: SetStateConfig, t0: number): Promise<Prepared> {
  const dgram = await import('node:dgram');
  const { encode, hsbkToWire } = await import('../../core/protocol/index.js');
  // Like Lightwire's socket (transport/udp.ts), its destinations are resolved at once, so send() makes the system call
  // there and then (with Node's default lookup the call would come on a later tick, after the figure is taken).
  const socket = dgram.createSocket({ type: 'udp4', lookup: (host, _options, callback) => callback(null, host, 4) });
  await new Promise<void>((resolve) => socket.bind(0, '0.0.0.0', resolve));
  let sequence = 0;
  return {
    discoveryMs: performance.now() - t0,
    found: () => cfg.lights.length,
    run: async (t) => {
      // The timed part starts when run() is called: encoding is included, as every client encodes too. The least
      // encoding there is: each of the two messages once, then a copy per light with its target and sequence written
      // in (the frame address: target at byte 8, sequence at byte 23, https://lan.developer.lifx.com/docs/header-description).
      const color = hsbkToWire({ hue: t.hue, saturation: t.saturation, brightness: t.brightness, kelvin: t.kelvin });
      const header = { source: 0x4c575746, target: cfg.lights[0]!.serial, sequence: 0 };
      const templates = [
        encode({ name: 'SetColor', header, payload: { color, durationMs: 0 } }),
        encode({ name: 'SetLightPower', header, payload: { level: 65535, durationMs: 0 } }),
      ];
      const datagrams: [Buffer, string][] = [];
      for (const l of cfg.lights) {
        for (const template of templates) {
          const d = Buffer.allocUnsafe(template.length);
          d.set(template);
          d.write(l.serial, 8, 6, 'hex');
          d[23] = sequence++ & 0xff;
          datagrams.push([d, l.address]);
        }
      }
      for (const [d, address] of datagrams) socket.send(d, LIFX_PORT, address);
      return { ok: cfg.lights.length, other: new Map() };
    },
    localPort: () => socket.address().port,
    stop: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** Starts the V8 sampling profiler; the function returned stops it and writes the profile to a file. */
async function startProfile(): Promise<(file: string) => Promise<void>> {
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 50 });
  await session.post('Profiler.start');
  return async (file) => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

function send(message: WorkerToParent): Promise<void> {
  return new Promise((resolve) => process.send?.(message, () => resolve()));
}

function nextMessage(): Promise<ParentToWorker> {
  return new Promise((resolve) => process.once('message', (m) => resolve(m as ParentToWorker)));
}

const PREPARE: Record<SetStateMode, (cfg: SetStateConfig, t0: number) => Promise<Prepared>> = {
  'ours-acked': prepareOurs,
  'ours-fast': prepareOurs,
  'llc-acked': (cfg, t0) => prepareLlc(cfg, t0, 'lifx-lan-client'),
  'llc-fast': (cfg, t0) => prepareLlc(cfg, t0, 'lifx-lan-client'),
  nll: prepareNll,
  'nl-acked': (cfg, t0) => prepareLlc(cfg, t0, 'node-lifx'),
  'nl-fast': (cfg, t0) => prepareLlc(cfg, t0, 'node-lifx'),
  floor: prepareFloor,
};

const LIBRARY: Record<SetStateMode, string> = {
  'ours-acked': '../../core/index.js',
  'ours-fast': '../../core/index.js',
  'llc-acked': 'lifx-lan-client',
  'llc-fast': 'lifx-lan-client',
  nll: 'node-lifx-lan',
  'nl-acked': 'node-lifx',
  'nl-fast': 'node-lifx',
  floor: '../../core/protocol/index.js',
};

async function measure(cfg: SetStateConfig): Promise<void> {
  // Loading the library is outside every figure.
  if (cfg.mode.startsWith('ours')) await import('../../core/index.js');
  else if (cfg.mode === 'floor') await import('../../core/protocol/index.js');
  else createRequire(__filename)(LIBRARY[cfg.mode]);
  const t0 = performance.now();
  const prepared = await PREPARE[cfg.mode](cfg, t0);
  let message = nextMessage();
  await send({
    type: 'ready',
    found: prepared.found(),
    discoveryMs: prepared.discoveryMs,
    readyAtMs: performance.now() - t0,
    createdEpochMs: performance.timeOrigin + t0,
  });
  // Unicast datagrams handed to socket.send() (net-guard's hook): the call's 2N-th is when every light's colour and
  // power were handed over, retransmissions aside.
  let unicast = 0;
  let handedAt: number | null = null;
  let handedAfter = Infinity;
  onSend((address) => {
    if (address === BROADCAST) return;
    if (++unicast === handedAfter) handedAt = performance.now();
  });
  for (let call = 1; ; call++) {
    const m = await message;
    if (m.type !== 'go') break;
    await sleep(m.atMs - (performance.now() - t0));
    const before = prepared.counters?.();
    const dropsBefore = rcvbufErrors();
    const elu = performance.eventLoopUtilization();
    const startEpochMs = epochNow();
    handedAt = null;
    handedAfter = unicast + 2 * cfg.n;
    const profiling = call === 2 && cfg.cpuProfFile !== undefined ? await startProfile() : undefined;
    const t1 = performance.now();
    const outcome = await Promise.race([prepared.run(m.target), sleep(cfg.capMs).then(() => null)]);
    const doneMs = outcome === null ? null : performance.now() - t1;
    if (profiling !== undefined) await profiling(cfg.cpuProfFile!);
    const loopBusy = performance.eventLoopUtilization(elu).utilization;
    // Fire-and-forget peers hand their datagrams over from their queues after the call returned: wait for them.
    for (let waited = 0; handedAt === null && waited < cfg.capMs; waited += 10) await sleep(10);
    const handedMs = handedAt === null ? null : (handedAt as number) - t1;
    const after = prepared.counters?.();
    message = nextMessage();
    await send({
      type: 'result',
      mode: cfg.mode,
      n: cfg.n,
      call,
      found: prepared.found(),
      discoveryMs: prepared.discoveryMs,
      startEpochMs,
      startedAtMs: t1 - t0,
      doneMs,
      handedMs,
      reportedOk: outcome?.ok ?? 0,
      reportedOther: outcome === null ? ['no answer within the cap'] : [...outcome.other].map(([what, count]) => `${what} ×${count}`),
      sent: before && after ? after.sent - before.sent : null,
      retransmits: before && after ? after.retransmits - before.retransmits : null,
      dropsDuringSet: rcvbufErrors() - dropsBefore,
      dropsClientSocket: socketDrops(prepared.localPort()),
      loopBusy,
    });
  }
  await prepared.stop();
}

async function main(): Promise<void> {
  const first = await nextMessage();
  if (first.type !== 'config') throw new Error(`expected a config, got ${first.type}`);
  await measure(first);
  // Peak RSS over the worker's whole life: discovery, the calls and what the client did until told to stop.
  await send({ type: 'stopped', maxRssKiB: process.resourceUsage().maxRSS });
  process.exit(0);
}

if (process.send !== undefined) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
