// `lightwire serve`: the local LIFX HTTP API v1 (core/http) over real lights, or over virtual lights run in
// the same process (--virtual N / --fleet FILE: loopback only, the newcomer's first try).

import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { createSecureContext } from 'node:tls';
import {
  checkBind,
  DEFAULT_HOST,
  DEFAULT_PORT,
  listenHostProblem,
  parseTokenSpec,
  startServer,
  UNENFORCED_LIMIT,
  type LogLevel,
  type RunningServer,
} from '../http/index.js';
import { PORT_MAX } from '../index.js';
import { defaultFleet, Fleet, loadFleetFile, LOOPBACK_ADDRESS, LOOPBACK_BROADCAST } from '../simulator/index.js';
import { choiceValue, intValue, parseFlags, shown, usageError, valueError, type FlagSpecs, type Parsed } from './args.js';
import { defineCommand, EXIT, type CliIO } from './command.js';
import { defaultScenesPath, findingFlags, findingFrom, plural, PRODUCTS_FLAG, SCENES_FLAG, withLights, type Finding } from './connect.js';
import { untilAborted } from './format.js';
import { MAX_SIMULATED_LIGHTS } from './simulate.js';

/** Where an embedded fleet's discovery broadcast goes: loopback only (never a real network). */
/** How long to wait at most for an embedded fleet to be found and read. */
const VIRTUAL_READY_MS = 10_000;

export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export const LOG_FORMATS = ['text', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const LISTENING = 'Listening';
const LIGHTS = 'Lights';

const SERVE_FLAGS = {
  host: { type: 'string', value: 'ADDR', help: `address to listen on (default ${DEFAULT_HOST}); any address that is not loopback\nneeds a token, or the server refuses to start`, section: LISTENING },
  port: { type: 'string', value: 'PORT', help: `HTTP(S) port (default ${DEFAULT_PORT}; 0 = any free port)`, section: LISTENING },
  token: {
    type: 'string',
    multiple: true,
    value: 'T[:SCOPES]',
    help: `an access token (repeatable); clients send "Authorization: Bearer T" or Basic
with T as the user name. SCOPES, comma-separated: read (list lights and scenes,
validate colours) or control (everything; also remote_control:all). Default
control. Tokens may also come from $LIGHTWIRE_TOKENS (space-separated).
Without any token the API is open to this machine only.`,
    section: LISTENING,
  },
  'tls-cert': { type: 'string', value: 'FILE', help: 'PEM certificate: serve HTTPS (with --tls-key)', section: LISTENING },
  'tls-key': { type: 'string', value: 'FILE', help: 'PEM private key', section: LISTENING },
  'http-port': { type: 'string', value: 'PORT', help: 'with TLS: also listen for plain HTTP here and answer every request 426', section: LISTENING },
  'rate-limit': {
    type: 'string',
    value: 'N',
    help: `requests per minute per token (or per address without one); default: not\nenforced (the X-RateLimit-* headers still report ${UNENFORCED_LIMIT})`,
    section: LISTENING,
  },
  'log-level': {
    type: 'string',
    value: 'LEVEL',
    help: `one log line per request at info, failures (5xx) at error; debug adds each incoming\nrequest; ${LOG_LEVELS.join(', ')} (default info)`,
    section: LISTENING,
  },
  'log-format': { type: 'string', value: 'text|json', help: 'text lines (default), or the JSON lines of Fastify\'s pino logger', section: LISTENING },
  virtual: { type: 'string', value: 'N', help: `run N virtual lights in this process (loopback, 1-${MAX_SIMULATED_LIGHTS})`, section: LIGHTS },
  fleet: { type: 'string', value: 'FILE', help: 'run the virtual lights of a fleet file (see examples/fleet.json)', section: LIGHTS },
  scenes: { ...SCENES_FLAG.scenes, section: LIGHTS },
  ...findingFlags(false),
  ...PRODUCTS_FLAG,
} as const satisfies FlagSpecs;

type ServeFlags = typeof SERVE_FLAGS;

export interface ServeOptions {
  readonly host: string;
  readonly port: number;
  readonly tokens: readonly string[];
  readonly tlsCertFile?: string;
  readonly tlsKeyFile?: string;
  readonly httpPort?: number;
  readonly rateLimit: number | null;
  readonly logLevel: LogLevel;
  readonly logFormat: LogFormat;
  /** Real lights: where and how long to look. */
  readonly finding: Finding;
  readonly virtual?: number;
  readonly fleetFile?: string;
  readonly scenesFile: string;
  /** --products: a newer products.json laid over the bundled registry. */
  readonly productsFile: string | undefined;
}

/** Checks the flags (and $LIGHTWIRE_TOKENS); CLI_USAGE naming the flag as typed, or SERVE_UNSAFE_BIND. */
export function serveOptions(p: Parsed<ServeFlags>, env: NodeJS.ProcessEnv = process.env): ServeOptions {
  const v = p.values;
  if (p.positionals.length > 0) throw usageError(`serve takes no arguments, got ${p.positionals.map((a) => shown(a)).join(' ')}`);
  const host = v.host ?? DEFAULT_HOST;
  if (host.trim() === '') throw valueError(p.flag('host'), host, 'must not be empty');
  const hostProblem = listenHostProblem(host);
  if (hostProblem !== null) throw valueError(p.flag('host'), host, hostProblem);
  for (const t of v.token) {
    try {
      parseTokenSpec(t);
    } catch (err) {
      throw valueError(p.flag('token'), t, (err as Error).message);
    }
  }
  const envTokens = (env.LIGHTWIRE_TOKENS ?? '').split(/\s+/).filter((t) => t !== '');
  for (const t of envTokens) {
    try {
      parseTokenSpec(t);
    } catch (err) {
      throw usageError(`$LIGHTWIRE_TOKENS ${JSON.stringify(t)}: ${(err as Error).message}`);
    }
  }
  const tokens = [...v.token, ...envTokens];
  if ((v['tls-cert'] === undefined) !== (v['tls-key'] === undefined)) throw usageError('give both --tls-cert and --tls-key, or neither');
  if (v['http-port'] !== undefined && v['tls-cert'] === undefined) {
    throw usageError(`${p.flag('http-port')} only makes sense with --tls-cert/--tls-key (it answers 426 to plain HTTP)`);
  }
  if (v.virtual !== undefined && v.fleet !== undefined) throw usageError('give --virtual N or --fleet FILE, not both');
  const embedded = v.virtual !== undefined || v.fleet !== undefined;
  const realOnly = (['broadcast', 'light', 'lan-port'] as const).filter((n) => p.given(n));
  if (embedded && realOnly.length > 0) {
    throw usageError(`${v.virtual !== undefined ? p.flag('virtual') : p.flag('fleet')} runs its own lights on loopback; ${realOnly.map((n) => p.flag(n)).join(', ')} find${realOnly.length === 1 ? 's' : ''} real ones`);
  }
  checkBind(host, tokens);
  const rateLimit = intValue(p, 'rate-limit', 1, UNENFORCED_LIMIT);
  const httpPort = intValue(p, 'http-port', 0, PORT_MAX);
  const virtual = intValue(p, 'virtual', 1, MAX_SIMULATED_LIGHTS);
  return {
    host,
    port: intValue(p, 'port', 0, PORT_MAX) ?? DEFAULT_PORT,
    tokens,
    ...(v['tls-cert'] !== undefined ? { tlsCertFile: v['tls-cert'], tlsKeyFile: v['tls-key']! } : {}),
    ...(httpPort !== undefined ? { httpPort } : {}),
    rateLimit: rateLimit ?? null,
    logLevel: choiceValue(p, 'log-level', LOG_LEVELS) ?? 'info',
    logFormat: choiceValue(p, 'log-format', LOG_FORMATS) ?? 'text',
    finding: findingFrom(p, embedded ? VIRTUAL_READY_MS : undefined),
    ...(virtual !== undefined ? { virtual } : {}),
    ...(v.fleet !== undefined ? { fleetFile: v.fleet } : {}),
    scenesFile: v.scenes ?? defaultScenesPath(),
    productsFile: v.products,
  };
}

/** Parses serve's arguments: 'help', 'version', or the checked options (tests, and anyone embedding serve). */
export function parseServeArgs(args: readonly string[], env: NodeJS.ProcessEnv = process.env): ServeOptions | 'help' | 'version' {
  const outcome = parseFlags(SERVE_FLAGS, args);
  return outcome.kind === 'ok' ? serveOptions(outcome.parsed, env) : outcome.kind;
}

/** A curl command that works against the server as started (with the token, -k for a self-signed cert). */
export function curlLine(url: string, token: string | undefined, tls: boolean): string {
  const auth = token === undefined ? '' : ` -H "Authorization: Bearer ${token}"`;
  return `curl${tls ? ' -k' : ''}${auth} ${url}/lights/all`;
}

const LEVEL_NAMES: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** One pino JSON line as text: "2026-01-02T03:04:05.678Z INFO  GET /v1/lights/all 200 1.2ms". */
export function textLogLine(json: string): string {
  let o: { level?: number; time?: number; msg?: string; req?: { method?: string; url?: string }; err?: { message?: string } };
  try {
    o = JSON.parse(json) as typeof o;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = typeof o.time === 'number' ? new Date(o.time).toISOString() : '-';
  const level = (LEVEL_NAMES[o.level ?? 30] ?? String(o.level)).padEnd(5);
  const req = o.req?.method !== undefined ? ` ${o.req.method} ${o.req.url ?? ''}` : '';
  const err = o.err?.message !== undefined ? `: ${o.err.message}` : '';
  return `${time} ${level} ${o.msg ?? ''}${req}${err}\n`;
}

/**
 * What to do when a listener cannot open: the port is taken, needs privileges, or the address is not ours. Null for
 * any other error; for these, err.code is a string (EADDRINUSE, ...), which serve prints first.
 */
export function listenAdvice(err: unknown, options: ServeOptions): string | null {
  const e = err as { code?: unknown; port?: unknown; address?: unknown };
  // A host name that does not resolve (ENOTFOUND, or EAI_AGAIN with no DNS at all) fails when listening starts.
  if (e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN' || e.code === 'EAI_NONAME') {
    return `${options.host} does not resolve to an address (${e.code}); give one of this machine's addresses (--host 127.0.0.1 for this machine only).`;
  }
  if (typeof e.code !== 'string' || !['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL'].includes(e.code)) return null;
  const port = typeof e.port === 'number' ? e.port : options.port;
  const flag = options.httpPort !== undefined && port === options.httpPort && port !== options.port ? '--http-port' : '--port';
  const where = `port ${port} on ${typeof e.address === 'string' ? e.address : options.host}`;
  if (e.code === 'EADDRINUSE') {
    return `${where} is already in use (another lightwire serve, or another server).\n` +
      `Stop the other process, or give another port: ${flag} N (${flag} 0 picks a free one).`;
  }
  if (e.code === 'EACCES') return `${where} needs privileges this process does not have; give a port above 1023: ${flag} N.`;
  return `${options.host} is not an address of this machine; give one of its addresses (--host 127.0.0.1 for this machine only).`;
}

/** A listener that cannot open, said with its code first (EADDRINUSE, ...) and what to do; any other error is thrown. */
function printListenFailure(io: CliIO, err: unknown, options: ServeOptions): void {
  const advice = listenAdvice(err, options);
  if (advice === null) throw err;
  io.stderr(`lightwire serve: ${(err as { code: string }).code}: ${advice}\n`);
}

/**
 * Opens and closes each port serve will listen on, before it spends a discovery round looking for lights: a port
 * that is taken (or needs privileges) is said at once, not after --wait-ms. Port 0 is always free. Listening for real
 * still reports the rare port taken in between.
 */
async function portsFree(options: ServeOptions): Promise<unknown> {
  for (const port of [options.port, options.httpPort]) {
    if (port === undefined || port === 0) continue;
    const failure = await new Promise<unknown>((resolve) => {
      const probe = createServer();
      probe.once('error', resolve);
      probe.listen({ host: options.host, port, exclusive: true }, () => probe.close(() => resolve(undefined)));
    });
    if (failure !== undefined) return failure;
  }
  return undefined;
}

async function readFlagFile(flag: string, file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    throw valueError(flag, file, (err as Error).message);
  }
}

/** A certificate and key TLS can use together, checked before any lookup (exit 2 naming the flag, not an OpenSSL code after discovery). */
function checkTlsPair(tls: { cert: Buffer; key: Buffer }, options: ServeOptions, flag: (n: keyof ServeFlags) => string): void {
  try {
    createSecureContext({ cert: tls.cert });
  } catch (err) {
    throw valueError(flag('tls-cert'), options.tlsCertFile!, `not a PEM certificate TLS can use (${(err as Error).message})`);
  }
  try {
    createSecureContext({ key: tls.key });
  } catch (err) {
    throw valueError(flag('tls-key'), options.tlsKeyFile!, `not a PEM private key TLS can use (${(err as Error).message})`);
  }
  try {
    createSecureContext(tls);
  } catch (err) {
    throw valueError(flag('tls-key'), options.tlsKeyFile!, `does not belong to the certificate in ${options.tlsCertFile!} (${(err as Error).message})`);
  }
}

export const serveCommand = defineCommand({
  name: 'serve',
  summary: 'serve the LIFX HTTP API v1 locally (real lights, or --virtual N)',
  usage: `lightwire serve [--host 127.0.0.1] [--port 3000] [--token T[:SCOPES]]...
                      [--tls-cert FILE --tls-key FILE [--http-port PORT]] [--rate-limit N]
                      [--log-level LEVEL] [--log-format text|json] [--scenes FILE]
                      [--virtual N | --fleet FILE | finding options]`,
  description: `Serves the LIFX HTTP API v1 locally: a script written for https://api.lifx.com/v1 works against
http://HOST:PORT/v1 by changing only its base URL.

Checks first that its port is free, then listens once the first discovery round has been read
(or --expect N lights have answered, at most --wait-ms); lights found later are served as they answer.
Logs one line per request on stderr. Stop with Ctrl-C.`,
  footer: 'Exit codes: 0 stopped cleanly, 1 could not start (port in use, lights\' sockets), 2 bad options.',
  flags: SERVE_FLAGS,
  async run(p, io) {
    const options = serveOptions(p);
    const flag = (n: keyof ServeFlags): string => p.flag(n);
    const tls =
      options.tlsCertFile !== undefined && options.tlsKeyFile !== undefined
        ? { cert: await readFlagFile(flag('tls-cert'), options.tlsCertFile), key: await readFlagFile(flag('tls-key'), options.tlsKeyFile) }
        : undefined;
    if (tls !== undefined) checkTlsPair(tls, options, flag);
    const taken = await portsFree(options);
    if (taken !== undefined) {
      printListenFailure(io, taken, options);
      return EXIT.FAILURE;
    }
    let fleet: Fleet | null = null;
    // Virtual lights and the client that talks to them stay on loopback: the fleet hears discovery on the
    // loopback broadcast address alone, and the client binds 127.0.0.1.
    const onLoopback = { port: 0, listenAddress: LOOPBACK_BROADCAST };
    if (options.fleetFile !== undefined) fleet = new Fleet(await loadFleetFile(options.fleetFile), onLoopback);
    else if (options.virtual !== undefined) fleet = new Fleet(defaultFleet(options.virtual), onLoopback);
    try {
      if (fleet !== null) await fleet.start();
      const finding: Finding =
        fleet === null
          ? options.finding
          : { ...options.finding, broadcasts: [LOOPBACK_BROADCAST], lights: [], lanPort: fleet.port, expect: options.finding.expect ?? fleet.lights.length };
      return await withLights(
        finding,
        io,
        { command: 'serve', requireLights: false, keepRefreshing: true, interruptedCode: EXIT.OK, scenes: options.scenesFile, products: options.productsFile, ...(fleet !== null ? { bindAddress: LOOPBACK_ADDRESS } : {}) },
        async ({ service, read }) => serveUntilStopped(io, options, service, tls, fleet !== null ? `${plural(read.length, 'virtual light')} on loopback` : `${plural(read.length, 'light')} found so far`),
      );
    } finally {
      await fleet?.stop();
    }
  },
});

async function serveUntilStopped(
  io: CliIO,
  options: ServeOptions,
  service: Parameters<typeof startServer>[0]['service'],
  tls: { cert: Buffer; key: Buffer } | undefined,
  where: string,
): Promise<number> {
  let server: RunningServer;
  try {
    server = await startServer({
      service,
      host: options.host,
      port: options.port,
      tokens: [...options.tokens],
      rateLimit: options.rateLimit,
      ...(tls ? { tls } : {}),
      ...(options.httpPort !== undefined ? { httpPort: options.httpPort } : {}),
      logLevel: options.logLevel,
      logStream: { write: (line: string) => io.stderr(options.logFormat === 'json' ? line : textLogLine(line)) },
      log: (line) => io.stderr(`${line}\n`),
    });
  } catch (err) {
    printListenFailure(io, err, options);
    return EXIT.FAILURE;
  }
  try {
    io.stdout(`LIFX HTTP API v1 at ${server.url} (${where})\n`);
    if (server.plainUrl !== null) io.stdout(`plain HTTP at ${server.plainUrl} answers 426 (use https)\n`);
    const token = options.tokens[0] === undefined ? undefined : parseTokenSpec(options.tokens[0]).token;
    io.stdout(`try: ${curlLine(server.url, token, tls !== undefined)}\n`);
    io.stdout(`endpoints: ${server.url}/openapi.json\n`);
    // On a server with tokens this is a one-time sign-in link, like a notebook server's: it works once.
    if (server.dashboardUrl) io.stdout(`dashboard: ${server.dashboardUrl}\n`);
    io.stderr('Press Ctrl-C to stop.\n');
    await untilAborted(io.signal);
    return EXIT.OK;
  } finally {
    await server.close();
  }
}
