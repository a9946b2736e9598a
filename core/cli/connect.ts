// Shared by the commands that talk to lights (discover, list, set, scene, serve): the finding flags, and a
// LightService that lives for one command. It says what it is looking for, stops looking as soon as the lights
// wanted have answered (--expect N, an id: selector) or the first discovery round is read, reports lights that
// answered discovery but not the state read, and gives the "No light answered" hint.

import os from 'node:os';
import path from 'node:path';
import { interfaceBroadcastAddresses, LIFX_PORT, LightService, LightwireError, PORT_MAX, SceneStore, type DiscoveryOptionsInput, type LightView } from '../index.js';
import { hostValues, intValue, ipv4Values, type FlagSpecs, type Parsed } from './args.js';
import { EXIT, type CliIO } from './command.js';
import { printable, sleep } from './format.js';

export const FINDING_SECTION = 'Finding lights';
/** The most a command looks for lights by default (discover: the whole time). */
export const DEFAULT_WAIT_MS = 3000;
export const MAX_WAIT_MS = 600_000;
export const MAX_EXPECT = 100_000;
/** At most this many "found" lines while looking. */
const FOUND_LINES = 20;

/**
 * The finding flags. `oldNames`: the commands that used to call --light `--host` and --lan-port `--port` still
 * accept them (serve cannot: its --host and --port are where the HTTP API listens).
 */
export function findingFlags(oldNames: boolean) {
  return {
    broadcast: {
      type: 'string',
      multiple: true,
      value: 'ADDR',
      help: "broadcast address to search (repeatable; default: every IPv4 interface's)",
      section: FINDING_SECTION,
    },
    light: {
      type: 'string',
      multiple: true,
      value: 'IP[:PORT]',
      help: 'a light reached by unicast, e.g. behind a router (repeatable)',
      aliases: oldNames ? ['host'] : [],
      section: FINDING_SECTION,
    },
    'lan-port': {
      type: 'string',
      value: 'PORT',
      help: `the UDP port lights listen on (default ${LIFX_PORT})`,
      aliases: oldNames ? ['port'] : [],
      section: FINDING_SECTION,
    },
    'wait-ms': {
      type: 'string',
      value: 'MS',
      help: `look for lights at most this long (default ${DEFAULT_WAIT_MS})`,
      aliases: ['discover-ms', 'timeout-ms'],
      section: FINDING_SECTION,
    },
    expect: {
      type: 'string',
      value: 'N',
      help: 'stop looking as soon as N lights have answered',
      section: FINDING_SECTION,
    },
  } as const satisfies FlagSpecs;
}

export const SCENES_FLAG = {
  scenes: { type: 'string', value: 'FILE', help: 'the scene file (default $LIGHTWIRE_SCENES or ~/.lightwire/scenes.json)' },
} as const satisfies FlagSpecs;

/** A vendor products.json newer than the package, laid over the bundled product registry. */
export const PRODUCTS_FLAG = {
  products: {
    type: 'string',
    value: 'FILE',
    help: 'a newer vendor products.json (LIFX/products), for lights newer than this\npackage; one that cannot be used is a warning, and the bundled registry is used',
    section: FINDING_SECTION,
  },
} as const satisfies FlagSpecs;

type FindingSpecs = ReturnType<typeof findingFlags>;

export interface Finding {
  /** Empty: every IPv4 interface's broadcast address. */
  readonly broadcasts: readonly string[];
  readonly lights: readonly string[];
  readonly lanPort: number;
  readonly waitMs: number;
  readonly expect: number | undefined;
}

/** Checks the finding flags (a bad one throws CLI_USAGE naming it, before anything is opened). */
export function findingFrom(p: Parsed<FindingSpecs>, defaultWaitMs = DEFAULT_WAIT_MS): Finding {
  return {
    broadcasts: ipv4Values(p, 'broadcast'),
    lights: hostValues(p, 'light'),
    lanPort: intValue(p, 'lan-port', 1, PORT_MAX) ?? LIFX_PORT,
    waitMs: intValue(p, 'wait-ms', 0, MAX_WAIT_MS) ?? defaultWaitMs,
    expect: intValue(p, 'expect', 1, MAX_EXPECT),
  };
}

export function defaultScenesPath(): string {
  return process.env.LIGHTWIRE_SCENES ?? path.join(os.homedir(), '.lightwire', 'scenes.json');
}

/** Where discovery will ask: "broadcast 192.168.1.255:56700", "light 10.0.0.5:56700". */
export function triedList(finding: Finding): string[] {
  const broadcasts = finding.broadcasts.length > 0 ? finding.broadcasts : interfaceBroadcastAddresses();
  return [
    ...broadcasts.map((a) => `broadcast ${a}:${finding.lanPort}`),
    ...finding.lights.map((h) => `light ${h.includes(':') ? h : `${h}:${finding.lanPort}`}`),
  ];
}

/** What to do when no light answered at all. */
export function noLightHint(tried: readonly string[], lanPort: number): string {
  return (
    `No light answered. Tried ${tried.join(', ')}.\n` +
    'Check that the lights are on the same network (or give --light IP for lights behind a router),\n' +
    `that nothing blocks UDP port ${lanPort}, and that the lights are powered.\n`
  );
}

/** The serials an `id:` selector (or a comma list of them) names; null when it names lights any other way. */
export function idSerials(selector: string): Set<string> | null {
  const serials = new Set<string>();
  for (const part of selector.split(',')) {
    const m = /^id:([0-9a-f]{12})(?::random)?(?:\|.*)?$/i.exec(part.trim());
    if (!m) return null;
    serials.add(m[1]!.toLowerCase());
  }
  return serials.size > 0 ? serials : null;
}

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A light that did not answer: it answered discovery but not the state read, or never answered at all. */
export interface Unanswered {
  readonly serial: string;
  /** Where it answered discovery from, when it did. */
  readonly address: string | null;
}

export interface Found {
  readonly service: LightService;
  /** Lights read, online or not now. */
  readonly read: readonly LightView[];
  /** Lights that answered discovery but not the state read, and wanted serials that never answered. */
  readonly unanswered: readonly Unanswered[];
  /** Where discovery asked. */
  readonly tried: readonly string[];
}

/**
 * The scene file for a command that only reads scenes (list, set, scene list, scene activate): a file that does not
 * parse is reported and left where it is (a mistyped --scenes must not move someone's file away), and one that cannot
 * be read at all is a warning, with no scenes then.
 */
export async function openScenesToRead(file: string, io: CliIO): Promise<SceneStore | undefined> {
  try {
    return await SceneStore.open(file, { readOnly: true, log: (m) => io.stderr(`warning: ${m}\n`) });
  } catch (err) {
    if (!(err instanceof LightwireError)) throw err;
    io.stderr(`warning: ${err.message}\n`);
    return undefined;
  }
}

export interface LookOptions {
  /** The command, named in the coded error line when no light answered ("lightwire list: LIGHTS_NOT_FOUND: ..."). */
  readonly command: string;
  /**
   * Runs when no light answered at all (or there was nowhere to look), before the command exits 1: a command with
   * --json prints its empty document here, so a script reading stdout always gets JSON.
   */
  readonly onNone?: (unanswered: readonly Unanswered[]) => void;
  /** Serials that, once all read, end the search (an id: selector); evaluated after start (scenes are open). */
  readonly wanted?: (service: LightService) => ReadonlySet<string> | null;
  /** Look for the whole --wait-ms (discover) instead of until the first discovery round is read. */
  readonly whole?: boolean;
  /**
   * When no light answered: exit 1 with LIGHTS_NOT_FOUND and the hint, without calling `fn` (default true). False
   * (serve): the hint is information, and `fn` runs.
   */
  readonly requireLights?: boolean;
  /** The scene file (opened by the service, which may write it), or a store opened already (openScenesToRead). */
  readonly scenes?: string | SceneStore;
  /** --products: a products.json for the service to lay over the bundled registry. */
  readonly products?: string | undefined;
  readonly discovery?: Partial<DiscoveryOptionsInput>;
  /** Where the LAN socket binds (virtual lights: loopback only); default every interface. */
  readonly bindAddress?: string;
  /** Keep reading the lights in the background (serve); one-shot commands read each light once. */
  readonly keepRefreshing?: boolean;
  /** Runs on the service before it starts (checks that need its rules: a bad request fails before any lookup). */
  readonly before?: (service: LightService) => void;
  /** The exit code when Ctrl-C comes while looking (default 1; serve: 0, Ctrl-C is how it stops). */
  readonly interruptedCode?: number;
}

/** Resolves once `check()` holds (tested now and after each light the service adds), or when `stop` aborts. */
function until(service: LightService, stop: AbortSignal, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      service.off('added', test);
      stop.removeEventListener('abort', done);
      resolve();
    };
    const test = (): void => {
      if (check()) done();
    };
    if (stop.aborted || check()) return resolve();
    service.on('added', test);
    stop.addEventListener('abort', done, { once: true });
  });
}

/**
 * Starts a service, looks for lights (saying so on stderr), reports what did not answer, runs `fn`, and stops
 * the service whatever happens.
 */
export async function withLights(
  finding: Finding,
  io: CliIO,
  options: LookOptions,
  fn: (found: Found) => Promise<number>,
): Promise<number> {
  const service = new LightService({
    discovery: {
      ...(finding.broadcasts.length > 0 ? { broadcastAddresses: [...finding.broadcasts] } : {}),
      staticHosts: [...finding.lights],
      port: finding.lanPort,
      ...(options.keepRefreshing ? {} : { refreshIntervalMs: 0 }),
      ...options.discovery,
    },
    ...(options.bindAddress !== undefined ? { transport: { bindAddress: options.bindAddress } } : {}),
    readyTimeoutMs: Math.max(1, finding.waitMs),
    ...(finding.expect !== undefined && !options.whole ? { expectLights: finding.expect } : {}),
    ...(options.scenes !== undefined ? { scenes: options.scenes } : {}),
    ...(options.products !== undefined ? { products: options.products } : {}),
  });
  options.before?.(service);
  // A coded error says its code, as the CLI's errors do (docs/ERRORS.md): PRODUCTS_FILE_INVALID for a bad --products.
  service.on('error', (err) => io.stderr(`warning: ${err instanceof LightwireError ? `${err.code}: ` : ''}${err.message}\n`));
  const tried = triedList(finding);
  if (tried.length === 0) {
    io.stderr(
      `lightwire ${options.command}: NO_BROADCAST_ADDRESS: no IPv4 interface is up to broadcast on, and no --light was given: ` +
        'nowhere to look for lights.\nGive --broadcast ADDR (127.255.255.255 for virtual lights on this machine) or --light IP[:PORT].\n',
    );
    options.onNone?.([]);
    return EXIT.FAILURE;
  }
  const read = new Set<string>();
  const looking = new AbortController();
  service.on('added', (view) => {
    read.add(view.serial);
    // Once a one-shot command stopped looking, a light that answers late is not news ("found" after "stopped
    // looking" reads as a contradiction); serve keeps saying which lights it finds while it runs.
    if (looking.signal.aborted && !options.keepRefreshing) return;
    if (read.size === FOUND_LINES + 1) io.stderr('  ... (more lights, not listed one by one)\n');
    if (read.size > FOUND_LINES) return;
    const at = service.diagnostics().devices.find((d) => d.serial === view.serial);
    io.stderr(`  found ${view.serial}${view.label ? ` "${printable(view.label)}"` : ''}${at ? ` at ${at.address}:${at.port}` : ''}\n`);
  });
  const stopLooking = (): void => looking.abort();
  io.signal.addEventListener('abort', stopLooking, { once: true });
  try {
    const started = performance.now();
    await service.start();
    const wanted = options.wanted?.(service) ?? null;
    const what =
      wanted !== null ? [...wanted].join(', ') : finding.expect !== undefined ? plural(finding.expect, 'light') : 'lights';
    io.stderr(
      `Looking for ${what} (${tried.join(', ')}) ${options.whole ? 'for' : 'for at most'} ${finding.waitMs} ms` +
        `${options.whole && finding.expect !== undefined ? `, or until ${finding.expect} answered` : ''}...\n`,
    );
    const waits: Promise<void>[] = [until(service, looking.signal, () => wanted !== null && [...wanted].every((s) => read.has(s)))];
    if (options.whole) {
      waits.push(sleep(finding.waitMs, looking.signal));
      if (finding.expect !== undefined) waits.push(until(service, looking.signal, () => read.size >= finding.expect!));
    } else {
      waits.push(service.ready);
    }
    await Promise.race(waits);
    if (options.whole && !io.signal.aborted) {
      // Lights found late in the window get their first read (bounded by one read deadline).
      const pending = (): boolean => service.diagnostics().devices.every((d) => read.has(d.serial));
      const settle = new AbortController();
      await Promise.race([until(service, settle.signal, pending), sleep(service.diagnostics().discovery.readTimeoutMs + 500, looking.signal)]);
      settle.abort();
    }
    looking.abort();
    if (io.signal.aborted) {
      if (options.interruptedCode === undefined) io.stderr('Interrupted.\n');
      return options.interruptedCode ?? EXIT.FAILURE;
    }
    const elapsed = Math.round(performance.now() - started);
    const satisfied = wanted !== null && [...wanted].every((serial) => read.has(serial));
    const enough = finding.expect !== undefined && read.size >= finding.expect;

    // Lights still being read when the search stopped early are not offline: they were not waited for.
    const unanswered: Unanswered[] =
      satisfied || enough
        ? []
        : service
            .diagnostics()
            .devices.filter((d) => !read.has(d.serial))
            .map((d) => ({ serial: d.serial, address: `${d.address}:${d.port}` }));
    for (const serial of wanted ?? []) {
      if (!read.has(serial) && !unanswered.some((u) => u.serial === serial)) unanswered.push({ serial, address: null });
    }
    const views = service.views().filter((v) => read.has(v.serial));
    if (views.length === 0 && unanswered.every((u) => u.address === null)) {
      if (options.requireLights !== false) {
        // An error, with its code like every other: nothing answered, so nothing the command names was found.
        io.stderr(`lightwire ${options.command}: LIGHTS_NOT_FOUND: ${noLightHint(tried, finding.lanPort)}`);
        options.onNone?.(unanswered);
        return EXIT.FAILURE;
      }
      io.stderr(noLightHint(tried, finding.lanPort));
    } else if (satisfied) {
      io.stderr(`${[...wanted!].join(', ')} answered in ${elapsed} ms; stopped looking.\n`);
    } else if (enough) {
      io.stderr(`${plural(views.length, 'light')} answered in ${elapsed} ms, as many as expected; stopped looking.\n`);
    } else {
      io.stderr(`${plural(views.length, 'light')} answered in ${elapsed} ms.\n`);
    }
    if (finding.expect !== undefined && views.length < finding.expect) {
      // Looking also stops once the first discovery round is read: then it did not wait --wait-ms, and says so.
      io.stderr(
        elapsed >= finding.waitMs
          ? `Expected ${plural(finding.expect, 'light')}; ${views.length} answered within ${finding.waitMs} ms.\n`
          : `Expected ${plural(finding.expect, 'light')}; ${views.length} answered by the end of the first discovery round (${elapsed} ms).\n`,
      );
    }
    // Offline only when its state read went unanswered: a light still being described when looking stopped answered.
    const heard = service.diagnostics().devices;
    const stateRead = (serial: string): boolean => heard.some((d) => d.serial === serial && d.read);
    for (const u of unanswered) {
      io.stderr(
        u.address === null
          ? `  offline: ${u.serial} did not answer\n`
          : stateRead(u.serial)
            ? `  not listed: ${u.serial} at ${u.address} answered its state read but was still being described after ${elapsed} ms\n`
            : `  offline: ${u.serial} answered discovery at ${u.address} but not the state read\n`,
      );
    }
    for (const v of views) if (!v.online) io.stderr(`  offline: ${v.serial}${v.label ? ` "${printable(v.label)}"` : ''} stopped answering\n`);
    return await fn({ service, read: views, unanswered, tried });
  } finally {
    looking.abort();
    io.signal.removeEventListener('abort', stopLooking);
    await service.stop();
  }
}
