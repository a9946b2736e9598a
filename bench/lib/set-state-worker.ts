// One set-state measurement in a fresh process: one client (Lightwire's LightService, non-fast or fast, or
// lifx-lan-client 2.1.2) sets every light of the fleet (another process) to one colour and power on, twice: the first
// call of the process (cold: nothing of the set path has run or been compiled yet) and a second one (warm).
//
// Over IPC: the parent sends a SetStateConfig; the worker discovers the fleet, gets ready and answers `ready`. For each
// call the parent resets the fleet, arms its watch and sends `go` with the colour; the worker starts the call at the
// time given (counted from the client's creation) and answers with a SetStateResult. Then `stop`: the worker stops the
// client and answers `stopped` with its peak RSS. A fresh process per client makes maxRSS this client's own peak.

import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type { LightResult } from '../../core/index.js';
import type { TargetState } from './messages.js';
import { guardLoopbackSends } from './net-guard.js';
import { rcvbufErrors, socketDrops } from './udp-stats.js';

guardLoopbackSends();

const BROADCAST = '127.255.255.255';
const LIFX_PORT = 56700;
/** Ours uses a 4 MiB receive buffer by default (transport receiveBufferBytes); lifx-lan-client gets the same. */
const RECEIVE_BUFFER_BYTES = 4 * 1024 * 1024;

/** `ours-acked`: setState non-fast (read, colour then power, acks). `ours-fast`: setState fast. `theirs`: lifx-lan-client with acks. */
export type SetStateMode = 'ours-acked' | 'ours-fast' | 'theirs';

export interface SetStateConfig {
  readonly mode: SetStateMode;
  /** How many lights the fleet has. */
  readonly n: number;
  /** Give up on discovery, and on each call, after this long. */
  readonly capMs: number;
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
   * Ours: until setState resolved (fast: every message handed to the socket). Theirs: until the callback of every
   * colour and power message fired (acked, or given up after its retries). null: not within the cap.
   */
  readonly doneMs: number | null;
  /** Lights reported done: ours `status: ok`; theirs both callbacks without error. */
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
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const epochNow = (): number => performance.timeOrigin + performance.now();

function tally(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Ours: LightClient with its defaults except where to broadcast, every light's info and state read, a LightService. */
async function prepareOurs(cfg: SetStateConfig, t0: number): Promise<Prepared & { discoveryMs: number | null }> {
  const { LightService } = await import('../../core/index.js');
  const capMs = Math.max(1, Math.round(cfg.capMs - (performance.now() - t0)));
  const service = new LightService({ discovery: { broadcastAddresses: [BROADCAST], port: LIFX_PORT }, expectLights: cfg.n, readyTimeoutMs: capMs });
  service.on('error', () => undefined);
  const client = service.client;
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
      // kelvin first: in a colour string `kelvin:` forces saturation 0 (http-api-v1.md §6.1), so written last it
      // would turn 'hue:H saturation:1 brightness:B kelvin:3500' into a white; this asks what lifx-lan-client is asked.
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

// lifx-lan-client is untyped JavaScript; this is the part of it the bench uses.
type Callback = (err: Error | null) => void;
interface LlcLight {
  color(hue: number, saturation: number, brightness: number, kelvin: number, duration: number, cb: Callback): void;
  on(duration: number, cb: Callback): void;
}
interface LlcClient {
  devices: Record<string, LlcLight>;
  socket: { setRecvBufferSize(bytes: number): void };
  init(options: Record<string, unknown>, cb: () => void): void;
  on(event: 'light-new', cb: () => void): void;
  on(event: 'error', cb: (err: Error) => void): void;
  address(): { port: number } | null;
  destroy(): void;
}
type LlcModule = { Client: new () => LlcClient };

/**
 * lifx-lan-client with its defaults (50 ms per-light queue, resend after 150 ms, 3 sends for messages with a callback)
 * except: broadcast to 127.255.255.255 (its default is the all-ones broadcast), an ephemeral port (the lights own 56700), and
 * the same 4 MiB receive buffer as ours (with its 208 KiB default it does not find 500 lights within 30 s, see
 * bench:discovery, and this bench is about setting, not finding).
 */
async function prepareTheirs(cfg: SetStateConfig, t0: number): Promise<Prepared & { discoveryMs: number | null }> {
  const { Client } = createRequire(__filename)('lifx-lan-client') as LlcModule;
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
    client.init({ broadcast: BROADCAST, address: '0.0.0.0', port: 0, startDiscovery: true }, () => {
      // The first broadcast leaves on the queue's first tick (50 ms from now): the buffer is set before any reply.
      client.socket.setRecvBufferSize(RECEIVE_BUFFER_BYTES);
      resolve();
    }),
  );
  await Promise.race([allFound, sleep(Math.max(0, cfg.capMs - (performance.now() - t0)))]);
  return {
    discoveryMs,
    found: () => Object.keys(client.devices).length,
    run: ({ hue, saturation, brightness, kelvin }) =>
      new Promise((resolve) => {
        const lights = Object.values(client.devices);
        const other = new Map<string, number>();
        let ok = 0;
        let left = lights.length;
        if (left === 0) resolve({ ok, other });
        for (const light of lights) {
          let callbacks = 0;
          let failed = false;
          const done: Callback = (err) => {
            if (err) {
              failed = true;
              tally(other, `error (${err.message})`);
            }
            if (++callbacks < 2) return;
            if (!failed) ok++;
            if (--left === 0) resolve({ ok, other });
          };
          // Colour first, then power, both with a callback: sent with ack_required and resent until acknowledged.
          // Its units: hue in degrees, saturation and brightness 0-100, duration in ms.
          light.color(hue, saturation * 100, brightness * 100, kelvin, 0, done);
          light.on(0, done);
        }
      }),
    localPort: () => client.address()?.port ?? 0,
    stop: async () => client.destroy(),
  };
}

function send(message: WorkerToParent): Promise<void> {
  return new Promise((resolve) => process.send?.(message, () => resolve()));
}

function nextMessage(): Promise<ParentToWorker> {
  return new Promise((resolve) => process.once('message', (m) => resolve(m as ParentToWorker)));
}

async function measure(cfg: SetStateConfig): Promise<void> {
  // Loading the library is outside every figure.
  if (cfg.mode === 'theirs') createRequire(__filename)('lifx-lan-client');
  else await import('../../core/index.js');
  const t0 = performance.now();
  const prepared = cfg.mode === 'theirs' ? await prepareTheirs(cfg, t0) : await prepareOurs(cfg, t0);
  let message = nextMessage();
  await send({
    type: 'ready',
    found: prepared.found(),
    discoveryMs: prepared.discoveryMs,
    readyAtMs: performance.now() - t0,
    createdEpochMs: performance.timeOrigin + t0,
  });
  for (let call = 1; ; call++) {
    const m = await message;
    if (m.type !== 'go') break;
    await sleep(m.atMs - (performance.now() - t0));
    const before = prepared.counters?.();
    const dropsBefore = rcvbufErrors();
    const elu = performance.eventLoopUtilization();
    const startEpochMs = epochNow();
    const t1 = performance.now();
    const outcome = await Promise.race([prepared.run(m.target), sleep(cfg.capMs).then(() => null)]);
    const doneMs = outcome === null ? null : performance.now() - t1;
    const loopBusy = performance.eventLoopUtilization(elu).utilization;
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
