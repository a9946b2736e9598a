// One measurement in a fresh process: one client (ours, lifx-lan-client, node-lifx-lan or node-lifx), one task,
// against the fleet that the parent started in another process. The config arrives over IPC; the result goes back
// the same way. A fresh process per measurement makes process.resourceUsage().maxRSS this client's own peak; the
// process runs with --expose-gc, so the heap a client holds is measured after full collections at the end.
//
// Every client goes through the same adapter and the same measuring code below; they differ only in how they are
// created, how they read one light's state and how the reply is normalised to user units for the check.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import type { Hsbk, PowerState } from '../../core/protocol/index.js';
import type { ExpectedLight, ResidentParts, WorkerConfig, WorkerResult } from './messages.js';
import { guardLoopbackSends } from './net-guard.js';
import { BROADCAST, FACTS_ATTEMPTS, FACTS_IN_FLIGHT, LIFX_PORT, llcInitOptions, loadLlc, loadNll, nllMac, NLL_IN_FLIGHT, NLL_REQUEST_GAP_MS, pool, type LlcClient, type LlcLibrary, type LlcState, type NllDevice, type NllModule } from './peers.js';
import { rcvbufErrors, socketDrops } from './udp-stats.js';

guardLoopbackSends();

export { BROADCAST, LIFX_PORT };

interface Reading {
  /** The serial the reply names, when the library tells (lifx-lan-client does not). */
  readonly serial?: string;
  readonly label: string;
  readonly power: PowerState;
  readonly color: Hsbk;
  /** Equal work: the product id of the version read and the labels of the group and location read. */
  readonly productId?: number;
  readonly group?: string;
  readonly location?: string;
}

type Outcome = { readonly ok: true; readonly got: Reading } | { readonly ok: false; readonly reason: string };

/** The fields of `o` that are defined (strict optional properties take no undefined). */
function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The client does not know this light (yet): nothing was asked. */
const NOT_DISCOVERED: Outcome = Object.freeze({ ok: false, reason: 'not discovered' });

interface Adapter {
  /** Creates the socket and starts discovery with the library's defaults. */
  start(): Promise<void>;
  found(): number;
  onFound(listener: () => void): void;
  /** Ours: called as each found light's first read (facts and state) ends. */
  onDescribed?(listener: () => void): void;
  /** GetColor -> LightState for one light. May never settle (lifx-lan-client sends Gets once, without retries). */
  readState(light: ExpectedLight): Promise<Outcome>;
  /**
   * Equal work (task read-facts): what Lightwire reads of each light, with this library's own API: label, version,
   * host firmware, group, location, Wi-Fi info and state. The reading is the state, its label the label read.
   */
  readFacts(light: ExpectedLight): Promise<Outcome>;
  localPort(): number;
  stop(): Promise<void>;
}

type OurModules = typeof import('../../core/index.js') & typeof import('../../core/protocol/index.js');

/** The facts Lightwire's first reads keep of every light (label and state come with LightState). */
const OUR_FACTS = ['label', 'product', 'firmware', 'group', 'location', 'wifi', 'power', 'color'] as const;

function createOurs({ LightClient, hsbkFromWire, powerFromWire }: OurModules): Adapter {
  // Defaults everywhere (burst schedule, background refresh, first reads on discovery), except where to broadcast.
  const client = new LightClient({ discovery: { broadcastAddresses: [BROADCAST], port: LIFX_PORT } });
  client.on('error', () => undefined);
  const adapter: Adapter = {
    start: () => client.start(),
    found: () => client.registry.size,
    onFound: (listener) => void client.on('added', listener),
    onDescribed: (listener) => void client.on('described', listener),
    readState: async (light) => {
      const device = client.addressOf(light.serial);
      if (device === undefined) return NOT_DISCOVERED;
      try {
        const reply = await client.requester.get(device, 'GetColor', {});
        if (reply.name !== 'LightState') return { ok: false, reason: `got ${reply.name}` };
        return {
          ok: true,
          got: {
            serial: reply.header.target,
            label: reply.payload.label,
            power: powerFromWire(reply.payload.power),
            color: hsbkFromWire(reply.payload.color),
          },
        };
      } catch (err) {
        return { ok: false, reason: err instanceof Error ? err.message : String(err) };
      }
    },
    // Its first reads on discovery read version, host firmware, group, location, Wi-Fi info and state (its defaults):
    // the facts must be held; then the state is read again, as every peer reads it.
    readFacts: async (light) => {
      const facts = client.registry.peek(light.serial)?.facts;
      if (facts === undefined) return NOT_DISCOVERED;
      const lacking = OUR_FACTS.filter((f) => facts[f] === undefined);
      if (lacking.length > 0) return { ok: false, reason: `not read: ${lacking.join(', ')}` };
      const state = await adapter.readState(light);
      if (!state.ok) return state;
      return { ok: true, got: { ...state.got, productId: facts.product!.value.productId, group: facts.group!.value.label, location: facts.location!.value.label } };
    },
    localPort: () => (client as unknown as { endpoint: { port: number } }).endpoint.port,
    stop: () => client.stop(),
  };
  return adapter;
}

function createLlc(library: LlcLibrary): Adapter {
  const { Client, packet } = loadLlc(library, createRequire(__filename));
  const client: LlcClient = new Client();
  client.on('error', () => undefined);
  const held = new Map<string, unknown[]>();
  return {
    // Its defaults (lifx-lan-client: re-broadcast every 5 s, 50 ms per-light queue, 3 sends with ack; node-lifx: one
    // queue for the client, a message every 50 ms), bound and broadcasting as peers.ts says.
    start: () => new Promise((resolve) => client.init(llcInitOptions(library), resolve)),
    found: () => Object.keys(client.devices).length,
    onFound: (listener) => client.on('light-new', listener),
    readState: (light) =>
      new Promise((resolve) => {
        const device = client.devices[light.serial];
        if (device === undefined) return resolve(NOT_DISCOVERED);
        device.getState((err, state) => {
          if (err || !state) return resolve({ ok: false, reason: err?.message ?? 'no state' });
          // getState converts: hue to degrees, saturation and brightness to 0-100 (rounded); power 65535 -> 1.
          const { hue, saturation, brightness, kelvin } = state.color;
          resolve({
            ok: true,
            got: { label: state.label, power: state.power === 0 ? 'off' : 'on', color: { hue, saturation: saturation / 100, brightness: brightness / 100, kelvin } },
          });
        });
      }),
    // Its light methods for label, hardware and firmware version, Wi-Fi info and state; group and location have no
    // method, so their packets go through its own packet.create, send and addMessageHandler, as its methods do.
    readFacts: (light) =>
      new Promise((resolve) => {
        const device = client.devices[light.serial];
        if (device === undefined) return resolve(NOT_DISCOVERED);
        let left = 7;
        let failure: string | undefined;
        let label: string | null = null;
        let state: LlcState | null = null;
        let productId: number | undefined;
        let group: string | undefined;
        let location: string | undefined;
        // What it read is kept, as an application would and as Lightwire's registry does: equal work, equal holdings.
        const facts: unknown[] = [];
        held.set(light.serial, facts);
        const done = (err: Error | null, fact?: unknown): void => {
          if (err && failure === undefined) failure = err.message;
          if (fact !== undefined && fact !== null) facts.push(fact);
          if (--left > 0) return;
          if (failure !== undefined || state === null || label === null) return resolve({ ok: false, reason: failure ?? 'no state' });
          const { hue, saturation, brightness, kelvin } = state.color;
          const color = { hue, saturation: saturation / 100, brightness: brightness / 100, kelvin };
          const power = state.power === 0 ? 'off' : 'on';
          resolve({ ok: true, got: { label, power, color, ...defined({ productId, group, location }) } });
        };
        device.getLabel((err, got) => {
          label = got;
          done(err, got);
        });
        device.getHardwareVersion((err, version) => {
          productId = (version as { productId?: number } | null)?.productId;
          done(err, version);
        });
        device.getFirmwareVersion(done);
        device.getWifiInfo(done);
        for (const [ask, reply] of [['getGroup', 'stateGroup'], ['getLocation', 'stateLocation']] as const) {
          const request = packet.create(ask, { target: device.id }, client.source);
          request.target = device.id;
          client.addMessageHandler(
            reply,
            (err, msg) => {
              if (reply === 'stateGroup') group = msg?.['label'] as string | undefined;
              else location = msg?.['label'] as string | undefined;
              done(err, msg);
            },
            client.send(request),
          );
        }
        device.getState((err, got) => {
          state = got;
          done(err, got);
        });
      }),
    localPort: () => client.address()?.port ?? 0,
    stop: async () => client.destroy(),
  };
}

/**
 * node-lifx-lan: discovery is its discover() (a broadcast, `wait` ms of listening, then every light's info read one
 * light at a time, 50 ms between requests: "found" is when it resolves); reads are lightGet() on devices made from
 * the fleet's list (createDevice), so a read figure does not wait for its discovery, at most NLL_IN_FLIGHT at once.
 */
function createNll(task: WorkerConfig['task'], expected: readonly ExpectedLight[]): Adapter {
  const Lifx: NllModule = loadNll(createRequire(__filename));
  const devices = new Map<string, NllDevice>();
  const listeners: (() => void)[] = [];
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  // What it read is kept, as an application would and as Lightwire's registry does: equal work, equal holdings.
  const held = new Map<string, unknown[]>();
  const readFacts = async (device: NllDevice, serial: string): Promise<{ state: Awaited<ReturnType<NllDevice['lightGet']>>; label: string; productId?: number; group?: string; location?: string }> => {
    const facts: unknown[] = [];
    held.set(serial, facts);
    // Its requests are matched by sequence number alone and resent every 50 ms until answered, so a late duplicate
    // reply can answer a later request (of another light, or of another kind): a reply without the fields of its kind
    // fails the read (it is read again), and the label, version, group, location and state are checked with the light.
    // Its calls have no pacing of their own: 50 ms between one light's requests, as its getDeviceInfo() (what its
    // discover() reads of each light) waits between them; that also keeps its sequence numbers from coming round
    // while a duplicate reply may still be on its way.
    let first = true;
    const ask = async <T>(read: () => Promise<T>, fields: readonly string[]): Promise<T> => {
      if (!first) await sleep(NLL_REQUEST_GAP_MS);
      first = false;
      const reply = await read();
      if (reply === null || typeof reply !== 'object' || fields.some((f) => !(f in reply))) throw new Error(`a reply without ${fields.join(', ')}`);
      facts.push(reply);
      return reply;
    };
    const label = await ask(() => device.deviceGetLabel(), ['label']);
    const version = (await ask(() => device.deviceGetVersion(), ['productId'])) as { productId: number };
    await ask(() => device.deviceGetHostFirmware(), ['build', 'version']);
    const group = (await ask(() => device.deviceGetGroup(), ['guid', 'label'])) as { label: string };
    const location = (await ask(() => device.deviceGetLocation(), ['guid', 'label'])) as { label: string };
    await ask(() => device.deviceGetWifiInfo(), ['signal']);
    const state = await ask(() => device.lightGet(), ['color', 'power', 'label']);
    return { state, label: label.label, productId: version.productId, group: group.label, location: location.label };
  };
  /** One light's requests, awaited in turn, at most NLL_IN_FLIGHT lights in flight; the reading from lightGet(). */
  const gated = async (light: ExpectedLight, facts: boolean): Promise<Outcome> => {
    const device = devices.get(light.serial);
    if (device === undefined) return NOT_DISCOVERED;
    if (inFlight >= NLL_IN_FLIGHT) await new Promise<void>((resolve) => waiting.push(resolve));
    inFlight++;
    try {
      const read = facts ? await readFacts(device, light.serial) : { state: await device.lightGet() };
      const { state } = read;
      // lightGet: hue, saturation and brightness 0-1 (5 decimals), power 0 or 1.
      const { hue, saturation, brightness, kelvin } = state.color;
      const got: Reading = { label: 'label' in read ? read.label : state.label, power: state.power === 0 ? 'off' : 'on', color: { hue: hue * 360, saturation, brightness, kelvin } };
      return { ok: true, got: 'productId' in read ? { ...got, ...defined({ productId: read.productId, group: read.group, location: read.location }) } : got };
    } catch (err) {
      return { ok: false, reason: err instanceof Error ? err.message : String(err) };
    } finally {
      inFlight--;
      waiting.shift()?.();
    }
  };
  return {
    start: async () => {
      if (task === 'read-state' || task === 'read-facts') {
        for (const l of expected) devices.set(l.serial, await Lifx.createDevice({ ip: l.address, mac: nllMac(l.serial) }));
        for (const f of listeners) f();
        return;
      }
      // Found when discover() resolves (its own wait, then each light's info); run in the background like the others.
      void Lifx.discover({ wait: 1000 }).then(
        (list) => {
          for (const d of list) devices.set(d.mac.replace(/:/g, '').toLowerCase(), d);
          for (const f of listeners) f();
        },
        () => undefined,
      );
    },
    found: () => devices.size,
    onFound: (listener) => void listeners.push(listener),
    readState: (light) => gated(light, false),
    readFacts: (light) => gated(light, true),
    localPort: () => 0,
    stop: () => Lifx.destroy().catch(() => undefined),
  };
}

/** Loads a library (outside the timed part) and returns how to create its client. */
async function load(cfg: WorkerConfig): Promise<() => Adapter> {
  const req = createRequire(__filename);
  switch (cfg.client) {
    case 'ours': {
      const modules: OurModules = { ...(await import('../../core/index.js')), ...(await import('../../core/protocol/index.js')) };
      return () => createOurs(modules);
    }
    case 'llc':
      req('lifx-lan-client');
      return () => createLlc('lifx-lan-client');
    case 'nl':
      req('node-lifx');
      return () => createLlc('node-lifx');
    case 'nll':
      loadNll(req);
      return () => createNll(cfg.task, cfg.expected);
  }
}

/** Heap in use after full collections (the process runs with --expose-gc), KiB. */
function heapAfterGcKiB(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed / 1024;
}

/** Where this process's RSS lives now (see ResidentParts). */
function residentParts(): ResidentParts {
  const rssAnon = /^RssAnon:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
  if (rssAnon === null) throw new Error('/proc/self/status has no RssAnon');
  const v8HeapKiB = v8.getHeapSpaceStatistics().reduce((sum, space) => sum + space.physical_space_size, 0) / 1024;
  return { v8HeapKiB, otherAnonKiB: Number(rssAnon[1]) - v8HeapKiB };
}

/**
 * Right light: same serial (when known), label, power and colour (within the rounding of either library); at equal
 * work (`facts`) also the product of the version read and the group's and location's labels.
 */
export function mismatch(expected: ExpectedLight, got: Reading, facts = false): string | null {
  const e = expected.color;
  const c = got.color;
  const hueGap = Math.abs(((c.hue - e.hue + 540) % 360) - 180);
  const problems: string[] = [];
  if (got.serial !== undefined && got.serial !== expected.serial) problems.push(`serial ${got.serial}`);
  if (got.label !== expected.label) problems.push(`label ${JSON.stringify(got.label)}`);
  if (got.power !== expected.power) problems.push(`power ${got.power}`);
  if (hueGap > 1 || Math.abs(c.saturation - e.saturation) > 0.011 || Math.abs(c.brightness - e.brightness) > 0.011 || c.kelvin !== e.kelvin) {
    problems.push(`colour ${c.hue.toFixed(0)}°/${c.saturation.toFixed(2)}/${c.brightness.toFixed(2)}/${c.kelvin}K`);
  }
  if (facts && got.productId !== expected.productId) problems.push(`product ${got.productId}`);
  if (facts && got.group !== expected.group) problems.push(`group ${JSON.stringify(got.group)}`);
  if (facts && got.location !== expected.location) problems.push(`location ${JSON.stringify(got.location)}`);
  return problems.length === 0 ? null : `asked ${expected.serial} (${JSON.stringify(expected.label)}), got ${problems.join(', ')}`;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** No client at all: what node and this harness cost, for reading the RSS figures. */
function baseline(cfg: WorkerConfig): WorkerResult {
  return {
    client: cfg.client,
    task: 'baseline',
    n: 0,
    found: 0,
    discoveryMs: null,
    dropsUntilFound: 0,
    dropsWholeRun: 0,
    dropsClientSocket: 0,
    readMs: null,
    dropsDuringReads: 0,
    undiscovered: 0,
    correct: 0,
    wrong: 0,
    missing: 0,
    retries: 0,
    wrongExamples: [],
    maxRssKiB: process.resourceUsage().maxRSS,
    endRssKiB: process.memoryUsage().rss / 1024,
    endResident: residentParts(),
    sameAgeRssKiB: null,
    heapAfterGcKiB: heapAfterGcKiB(),
    describedMs: null,
  };
}

async function measure(cfg: WorkerConfig): Promise<WorkerResult> {
  if (cfg.task === 'baseline') return baseline(cfg);
  const n = cfg.expected.length;
  const create = await load(cfg);
  const dropsAtStart = rcvbufErrors();
  const t0 = performance.now();
  const adapter = create();
  // Ours: when every light found was described (its first read, facts and state, is over).
  let described = 0;
  let describedMs: number | null = null;
  let allDescribed: (() => void) | undefined;
  const everyLightDescribed = adapter.onDescribed ? new Promise<void>((resolve) => (allDescribed = resolve)) : undefined;
  adapter.onDescribed?.(() => {
    if (++described >= n && describedMs === null) {
      describedMs = performance.now() - t0;
      allDescribed?.();
    }
  });
  let discoveryMs: number | null = null;
  let dropsUntilFound = -1;
  let capped = false;
  const allFound = new Promise<void>((resolve) => {
    adapter.onFound(() => {
      if (!capped && discoveryMs === null && adapter.found() >= n) {
        discoveryMs = performance.now() - t0;
        dropsUntilFound = rcvbufErrors() - dropsAtStart;
        resolve();
      }
    });
  });
  await adapter.start();
  await Promise.race([allFound, sleep(Math.max(0, cfg.capMs - (performance.now() - t0)))]);
  capped = true; // a light found after the cap does not make the run finish
  if (dropsUntilFound < 0) dropsUntilFound = rcvbufErrors() - dropsAtStart;
  const found = adapter.found();
  // Let what discovery set off (our first reads of every light, lifx-lan-client's GetLabel) run its course: ours once
  // it has described every light (within the cap; on a slow network that takes longer than the settle), then all alike.
  if (everyLightDescribed !== undefined && found >= n) {
    await Promise.race([everyLightDescribed, sleep(Math.max(0, cfg.capMs - (performance.now() - t0)))]);
  }
  await sleep(cfg.settleMs);

  let readMs: number | null = null;
  let dropsDuringReads = 0;
  let undiscovered = 0;
  let correct = 0;
  let wrong = 0;
  let missing = 0;
  const wrongExamples: string[] = [];
  let retries = 0;
  if (cfg.task === 'read-state' || cfg.task === 'read-facts') {
    const facts = cfg.task === 'read-facts';
    const readCapMs = cfg.readCapMs ?? cfg.capMs;
    const before = rcvbufErrors();
    const t1 = performance.now();
    let lastAt = t1;
    let overCap = false;
    const outcomes: (Outcome | undefined)[] = new Array(n).fill(undefined);
    const reads = facts
      ? // Equal work: at most FACTS_IN_FLIGHT lights at once, a light whose read failed or came back wrong read again
        // (its own calls), every client alike (see FACTS_IN_FLIGHT).
        pool([...cfg.expected.keys()], cfg.factsInFlight ?? FACTS_IN_FLIGHT, async (i) => {
          const light = cfg.expected[i]!;
          for (let attempt = 0; attempt < (cfg.factsAttempts ?? FACTS_ATTEMPTS) && !overCap; attempt++) {
            if (attempt > 0) retries++;
            const outcome = await adapter.readFacts(light);
            if (overCap) return;
            outcomes[i] = outcome;
            lastAt = performance.now();
            if (outcome === NOT_DISCOVERED || (outcome.ok && mismatch(light, outcome.got, true) === null)) return;
          }
        })
      : Promise.all(
          cfg.expected.map((light, i) =>
            adapter.readState(light).then((outcome) => {
              outcomes[i] = outcome;
              lastAt = performance.now();
            }),
          ),
        );
    await Promise.race([reads, sleep(readCapMs)]);
    overCap = true; // a read that ends after the cap does not count
    dropsDuringReads = rcvbufErrors() - before;
    let unanswered = 0;
    outcomes.forEach((outcome, i) => {
      if (outcome === NOT_DISCOVERED) return void undiscovered++;
      if (outcome === undefined || !outcome.ok) return void unanswered++;
      const problem = mismatch(cfg.expected[i]!, outcome.got, facts);
      if (problem === null) correct++;
      else {
        wrong++;
        if (wrongExamples.length < 3) wrongExamples.push(problem);
      }
    });
    missing = undiscovered + unanswered;
    // The read time covers the lights the client knew and asked; one of them unanswered means it did not finish.
    if (unanswered === 0 && undiscovered < n) readMs = lastAt - t1;
  }

  const endRssKiB = process.memoryUsage().rss / 1024;
  const endResident = residentParts();
  let sameAgeRssKiB: number | null = null;
  if (cfg.sameAgeMs !== undefined) {
    await sleep(Math.max(0, cfg.sameAgeMs - (performance.now() - t0)));
    sameAgeRssKiB = process.memoryUsage().rss / 1024;
  }
  const result: WorkerResult = {
    client: cfg.client,
    task: cfg.task,
    n,
    found,
    discoveryMs,
    dropsUntilFound,
    dropsWholeRun: rcvbufErrors() - dropsAtStart,
    dropsClientSocket: socketDrops(adapter.localPort()),
    readMs,
    dropsDuringReads,
    undiscovered,
    correct,
    wrong,
    missing,
    retries,
    wrongExamples,
    maxRssKiB: process.resourceUsage().maxRSS,
    endRssKiB,
    endResident,
    sameAgeRssKiB,
    heapAfterGcKiB: heapAfterGcKiB(),
    describedMs: described >= n && found >= n ? describedMs : null,
  };
  await adapter.stop();
  return result;
}

async function main(): Promise<void> {
  const cfg = await new Promise<WorkerConfig>((resolve) => process.once('message', (m) => resolve(m as WorkerConfig)));
  const result = await measure(cfg);
  process.send?.(result, () => process.exit(0));
}

if (process.send !== undefined) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
