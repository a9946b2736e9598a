// The network doctor's I/O: `runDoctor` looks for lights itself (the CLI: `lightwire doctor`), `serviceReport`
// examines a running service's lights (service-doctor.ts, the dashboard's /api/doctor). Both gather observations (interfaces, port,
// per-light figures from the transport, GetService probes by broadcast and by unicast) and let report.ts judge.

import os from 'node:os';
import { LightwireError } from '../errors.js';
import { LightClient } from '../discovery/client.js';
import { LIFX_PORT, parseHost } from '../discovery/options.js';
import { PORT_MAX } from '../protocol/limits.js';
import type { LightRecord } from '../discovery/registry.js';
import type { LightTransportStats } from '../transport/requester.js';
import { DEFAULT_DOCTOR_WAIT_MS, DEFAULT_PROBE_COUNT, MAX_PROBE_COUNT, PROBE_TIMEOUT_MS } from './on-demand.js';
import { checkPort, hostInterfaces } from './network.js';
import { Prober, type ProbeAnswer } from './probe.js';
import { AddressHistory, parseEndpoint } from './service-doctor.js';
import {
  buildReport,
  showEndpoint,
  type DoctorReport,
  type Endpoint,
  type HostObservation,
  type LightObservation,
} from './report.js';

/** A light that answered none of this many measuring requests is not asked the rest (it is silent). */
const SILENT_AFTER_TIMEOUTS = 3;
/** Measuring requests in flight per light; the transport paces them (at most 20 messages a second per light). */
const PROBES_IN_FLIGHT = 4;
/** GetService probes at once (each holds one of the prober's 256 sequence numbers for ~0.7 s). */
const PROBES_AT_ONCE = 64;

/** Runs `fn` on every item, at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

// ---- measuring ----

interface Window {
  readonly requests: number;
  readonly answered: number;
  readonly attempts: number;
  readonly lostAttempts: number;
  readonly retransmits: number;
  readonly timeouts: number;
  readonly rttMs: readonly number[];
}

const NO_FIGURES: Window = { requests: 0, answered: 0, attempts: 0, lostAttempts: 0, retransmits: 0, timeouts: 0, rttMs: [] };

/** The figures between two snapshots of a light's transport statistics. */
function delta(before: LightTransportStats | undefined, after: LightTransportStats | undefined): Window {
  if (after === undefined) return NO_FIGURES;
  const b = before ?? { requests: 0, answered: 0, timeouts: 0, attempts: 0, lostAttempts: 0, retransmits: 0, rttSamples: 0, recentRttMs: [] };
  const newSamples = Math.min(after.rttSamples - b.rttSamples, after.recentRttMs.length);
  return {
    requests: after.requests - b.requests,
    answered: after.answered - b.answered,
    attempts: after.attempts - b.attempts,
    lostAttempts: after.lostAttempts - b.lostAttempts,
    retransmits: after.retransmits - b.retransmits,
    timeouts: after.timeouts - b.timeouts,
    rttMs: newSamples > 0 ? after.recentRttMs.slice(-newSamples) : [],
  };
}

/** `count` EchoRequests to one light, PROBES_IN_FLIGHT at a time, and its transport figures over them. */
/** Probes one light `count` times (stopping early when `signal` aborts: Ctrl-C reports what was measured). */
async function measure(client: LightClient, serial: string, at: Endpoint, count: number, signal?: AbortSignal): Promise<Window> {
  if (count === 0 || !client.started) return NO_FIGURES;
  const device = { serial, ...at };
  const requester = client.requester;
  const before = requester.lightStats(serial);
  const echoing = new Uint8Array(64);
  let next = 0;
  let answered = 0;
  let timeouts = 0;
  const worker = async (): Promise<void> => {
    while (next < count && client.started && signal?.aborted !== true && !(answered === 0 && timeouts >= SILENT_AFTER_TIMEOUTS)) {
      next++;
      await requester.get(device, 'EchoRequest', { echoing }, { timeoutMs: PROBE_TIMEOUT_MS }).then(
        () => answered++,
        () => timeouts++,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(PROBES_IN_FLIGHT, count) }, worker));
  return delta(before, requester.lightStats(serial));
}

// ---- observations ----

function observe(
  client: LightClient,
  serial: string,
  heardAt: Endpoint | null,
  figures: Window,
  extra: Partial<LightObservation> & Pick<LightObservation, 'broadcastAt' | 'unicastAnswered' | 'expectedAt' | 'previousAddresses'>,
): LightObservation {
  const r = client.registry.peek(serial);
  const f = r?.facts;
  const wifi = f?.wifi?.value;
  const fw = f?.firmware?.value;
  return {
    serial,
    label: f?.label?.value ?? null,
    known: r ? { address: r.address, port: r.port } : heardAt,
    online: r?.online ?? false,
    ...figures,
    signal: wifi ? wifi.quality : null,
    rssi: wifi && wifi.signal > 0 ? wifi.rssi : null,
    product: f?.product?.value.name ?? null,
    firmware: fw ? `${fw.major}.${fw.minor}` : null,
    uptimeS: f?.uptimeS?.value ?? null,
    lastSeenAt: r?.lastSeenAt ?? null,
    ...extra,
  };
}

/** Other ports worth trying at an address that did not answer on its configured one. */
function otherPorts(host: Endpoint, discoveryPort: number, records: readonly LightRecord[]): number[] {
  const ports = new Set<number>([LIFX_PORT, discoveryPort]);
  for (const r of records) if (r.address === host.address) ports.add(r.port);
  ports.delete(host.port);
  return [...ports];
}

async function observeHosts(prober: Prober, client: LightClient, hosts: readonly Endpoint[], history: AddressHistory | null): Promise<HostObservation[]> {
  const records = client.registry.peekAll();
  return Promise.all(
    hosts.map(async (host) => {
      const serials = (await prober.ask([host.address], host.port)).map((a) => a.serial);
      if (serials.length > 0) return { host, serials, otherPorts: [], movedAway: [] };
      const others = await Promise.all(
        otherPorts(host, client.discoveryOptions.port, records).map(async (port) => ({ port, serials: (await prober.ask([host.address], port)).map((a) => a.serial) })),
      );
      return { host, serials: [], otherPorts: others, movedAway: history?.movedFrom(host.address) ?? [] };
    }),
  );
}

function byBroadcast(answers: readonly ProbeAnswer[]): Map<string, Endpoint[]> {
  const map = new Map<string, Endpoint[]>();
  for (const a of answers) map.set(a.serial, [...(map.get(a.serial) ?? []), a.at]);
  return map;
}

// ---- the standalone doctor (lightwire doctor) ----

export interface ExpectedLight {
  readonly serial: string;
  /** Where it should be (the last address known to the user), if given. */
  readonly at: Endpoint | null;
}

/** `SERIAL` or `SERIAL@IP[:PORT]` (the port defaults to `defaultPort`). */
export function parseExpectedLight(text: string, defaultPort = LIFX_PORT): ExpectedLight {
  const m = /^([0-9a-fA-F]{12})(?:@(.+))?$/.exec(text.trim());
  if (m === null) throw new LightwireError('OPTIONS_INVALID', { option: 'expect', reason: `${JSON.stringify(text)} is not SERIAL or SERIAL@IP[:PORT] (a serial is 12 hex digits)` });
  const at = m[2] === undefined ? null : parseHost(m[2], defaultPort);
  return { serial: m[1]!.toLowerCase(), at };
}

export interface DoctorOptions {
  /** Default: every IPv4 interface's broadcast address. */
  readonly broadcastAddresses?: readonly string[];
  /** `IP[:PORT]` of lights reached by unicast. */
  readonly staticHosts?: readonly string[];
  /** The port lights listen on (default 56700). */
  readonly port?: number;
  /** Look for lights at most this long (default 3000 ms); stops early once the expected lights all answered. */
  readonly waitMs?: number;
  /** Requests per light to measure round trips and loss (default 20). */
  readonly probeCount?: number;
  /** Lights that must be healthy: `SERIAL` or `SERIAL@IP[:PORT]`. */
  readonly expect?: readonly string[];
  /** At least this many lights must answer. */
  readonly expectCount?: number;
  /** Check whether UDP 56700 can be bound (default true). */
  readonly checkPort?: boolean;
  /** The interface table to report (tests); default os.networkInterfaces(). */
  readonly interfaces?: NodeJS.Dict<os.NetworkInterfaceInfo[]>;
  readonly signal?: AbortSignal;
}

function sleepUnless(ms: number, signal: AbortSignal | undefined, done: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const start = Date.now();
    const tick = (): void => {
      if (done() || signal?.aborted || Date.now() - start >= ms) return resolve();
      setTimeout(tick, 25);
    };
    tick();
  });
}

export function positiveInt(option: string, value: number | undefined, fallback: number, min: number, max: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min || v > max) throw new LightwireError('OPTIONS_INVALID', { option, reason: `must be an integer from ${min} to ${max}` });
  return v;
}

/** Looks for lights, measures each, probes what did not answer, and judges (report.ts). */
export async function runDoctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  const startedAtMs = Date.now();
  const probeCount = positiveInt('probeCount', options.probeCount, DEFAULT_PROBE_COUNT, 0, MAX_PROBE_COUNT);
  const waitMs = positiveInt('waitMs', options.waitMs, DEFAULT_DOCTOR_WAIT_MS, 0, 600_000);
  const port = positiveInt('port', options.port, LIFX_PORT, 1, PORT_MAX);
  const expected = (options.expect ?? []).map((t) => parseExpectedLight(t, port));
  const client = new LightClient({
    discovery: {
      ...(options.broadcastAddresses ? { broadcastAddresses: options.broadcastAddresses } : {}),
      staticHosts: options.staticHosts ?? [],
      port,
      refreshIntervalMs: 0,
      burstScheduleMs: [0, 300, 900, 1800],
      heartbeatMs: 600_000,
      readTimeoutMs: 1500,
    },
  });
  // What the client reports in the background (no interface with IPv4, a broadcast it cannot send) is what the report
  // is about and says in its own terms (interfaces, routes, problems); unheard, it would also reach stderr as a Node
  // warning.
  client.on('error', () => undefined);
  const d = client.discoveryOptions;
  const prober = await Prober.open();
  const history = new AddressHistory(client);
  try {
    await client.start();
    // With lights or a count to expect, stop looking once they all answered and were read; else look the whole time.
    const enough = (): boolean =>
      (expected.length > 0 || options.expectCount !== undefined) &&
      expected.every((e) => client.registry.has(e.serial)) &&
      (options.expectCount === undefined || client.registry.size >= options.expectCount) &&
      client.describing === 0;
    await sleepUnless(waitMs, options.signal, enough);
    // Lights found late get their first read (facts for the report), bounded by one read deadline.
    await sleepUnless(d.readTimeoutMs + 500, options.signal, () => client.describing === 0);

    // Every light heard: the registry's, those it forgot (answered discovery, never a read), and the broadcast's.
    const broadcast = byBroadcast(await prober.ask(d.broadcastAddresses, port));
    const heard = history.heard();
    for (const r of client.registry.peekAll()) heard.set(r.serial, { address: r.address, port: r.port });
    for (const [serial, at] of broadcast) if (!heard.has(serial) && at[0] !== undefined) heard.set(serial, at[0]);
    const lights = [...heard].sort(([a], [b]) => (a < b ? -1 : 1));
    const figures = new Map<string, Window>();
    const unicast = new Map<string, boolean>();
    const [hosts, expectedProbes, portCheck] = await Promise.all([
      observeHosts(prober, client, d.staticHosts, history),
      Promise.all(expected.map(async (e) => [e.serial, e.at === null ? null : (await prober.ask([e.at.address], e.at.port)).some((a) => a.serial === e.serial)] as const)).then((e) => new Map(e)),
      options.checkPort === false ? Promise.resolve(null) : checkPort(port),
      Promise.all(lights.map(async ([serial, at]) => figures.set(serial, await measure(client, serial, at, probeCount, options.signal)))),
      // A light found only through a static host did not answer the broadcast: check it by unicast too.
      eachLimited(lights, PROBES_AT_ONCE, async ([serial, at]) => {
        if (options.signal?.aborted === true) return;
        unicast.set(serial, (await prober.ask([at.address], at.port)).some((a) => a.serial === serial));
      }),
    ]);
    const observations: LightObservation[] = lights.map(([serial, at]) => {
      const e = expected.find((x) => x.serial === serial);
      return observe(client, serial, at, figures.get(serial) ?? NO_FIGURES, {
        broadcastAt: broadcast.get(serial) ?? [],
        unicastAnswered: unicast.get(serial) ?? null,
        expectedAt: e?.at ?? null,
        previousAddresses: history.previousAddresses(serial),
      });
    });
    for (const e of expected) {
      if (heard.has(e.serial)) continue;
      observations.push(
        observe(client, e.serial, null, NO_FIGURES, {
          broadcastAt: broadcast.get(e.serial) ?? [],
          unicastAnswered: expectedProbes.get(e.serial) ?? null,
          expectedAt: e.at,
          previousAddresses: [],
        }),
      );
    }
    return buildReport({
      startedAtMs,
      endedAtMs: Date.now(),
      interfaces: hostInterfaces(options.interfaces ?? os.networkInterfaces(), d.broadcastAddresses),
      discovery: { broadcastAddresses: d.broadcastAddresses, port, staticHosts: d.staticHosts.map(showEndpoint) },
      port: portCheck,
      probeCount,
      lights: observations,
      hosts,
      expectCount: options.expectCount ?? null,
      expectedSerials: expected.length > 0 ? new Set(expected.map((e) => e.serial)) : null,
    });
  } finally {
    history.stop();
    await client.stop();
    await prober.close();
  }
}


// ---- a running service's doctor (service-doctor.ts) ----

/**
 * A report on a running service's lights: the transport's figures since the start, or since the light last came back
 * online (`backOnline`; probeCount 0), or measured afresh (probeCount > 0, with a broadcast probe).
 */
export async function serviceReport(
  client: LightClient,
  history: AddressHistory,
  backOnline: ReadonlyMap<string, LightTransportStats>,
  probeCount: number,
): Promise<DoctorReport> {
  const startedAtMs = Date.now();
  const d = client.discoveryOptions;
  const records = client.registry.peekAll();
  // The registry's lights, and those it forgot since this doctor started watching (never read).
  const heard = history.heard();
  for (const r of records) heard.set(r.serial, { address: r.address, port: r.port });
  const lights = [...heard].sort(([a], [b]) => (a < b ? -1 : 1));
  const prober = await Prober.open();
  try {
    const silent = lights.filter(([serial]) => !(client.registry.peek(serial)?.online ?? false));
    const figures = new Map<string, Window>();
    const unicast = new Map<string, boolean>();
    const [broadcast, hosts, portCheck] = await Promise.all([
      probeCount > 0 ? prober.ask(d.broadcastAddresses, d.port).then(byBroadcast) : Promise.resolve(null),
      observeHosts(prober, client, d.staticHosts.filter((h) => !records.some((r) => r.address === h.address && r.port === h.port)), history),
      // Over HTTP: holders by name only (another program's command line may carry its secrets).
      checkPort(d.port, { commands: 'name' }),
      Promise.all(
        lights.map(async ([serial, at]) =>
          figures.set(serial, probeCount > 0 ? await measure(client, serial, at, probeCount) : delta(backOnline.get(serial), client.started ? client.requester.lightStats(serial) : undefined)),
        ),
      ),
      eachLimited(silent, PROBES_AT_ONCE, async ([serial, at]) => {
        unicast.set(serial, (await prober.ask([at.address], at.port)).some((a) => a.serial === serial));
      }),
    ]);
    const answeredHosts = d.staticHosts
      .filter((h) => records.some((r) => r.address === h.address && r.port === h.port))
      .map((host) => ({ host, serials: records.filter((r) => r.address === host.address && r.port === host.port).map((r) => r.serial), otherPorts: [], movedAway: [] }));
    const observations = lights.map(([serial, at]) => {
      const previous = history.previousAddresses(serial);
      const last = previous.at(-1);
      const online = client.registry.peek(serial)?.online ?? false;
      return observe(client, serial, at, figures.get(serial) ?? NO_FIGURES, {
        broadcastAt: broadcast === null ? null : (broadcast.get(serial) ?? []),
        unicastAnswered: unicast.get(serial) ?? null,
        // A light that moved is not expected back at its old address: it is judged where it is now.
        expectedAt: online || last === undefined ? null : parseEndpoint(last),
        previousAddresses: previous,
      });
    });
    return buildReport({
      startedAtMs,
      endedAtMs: Date.now(),
      interfaces: hostInterfaces(os.networkInterfaces(), d.broadcastAddresses),
      discovery: { broadcastAddresses: d.broadcastAddresses, port: d.port, staticHosts: d.staticHosts.map(showEndpoint) },
      port: portCheck,
      probeCount,
      lights: observations,
      hosts: [...answeredHosts, ...hosts],
      expectCount: null,
      expectedSerials: null,
    });
  } finally {
    await prober.close();
  }
}
