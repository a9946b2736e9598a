// `lightwire serve`: the local LIFX HTTP API v1 (core/http) over real lights, or over virtual lights run in
// the same process (--virtual N / --fleet FILE: loopback only, the newcomer's first try).

import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { SceneStore } from '../control/scene-store.js';
import { LightService } from '../control/service.js';
import { LightClient } from '../discovery/client.js';
import { LIFX_PORT } from '../discovery/options.js';
import { LightwireError, isLightwireError } from '../errors.js';
import { parseTokenSpec } from '../http/auth.js';
import { DEFAULT_HOST, DEFAULT_PORT, checkBind, startServer, type RunningServer } from '../http/server.js';
import { UNENFORCED_LIMIT } from '../http/rate-limit.js';
import { defaultFleet } from '../simulator/default-fleet.js';
import { loadFleetFile } from '../simulator/fleet-file.js';
import { Fleet } from '../simulator/fleet.js';
import { EXIT, type CliIO, type Command } from './command.js';
import { defaultScenesPath } from './connect.js';
import { many, parseIntFlag, sleep, untilAborted } from './format.js';
import { MAX_SIMULATED_LIGHTS } from './simulate.js';

/** Where an embedded fleet's discovery broadcast goes: loopback only (ecosystem.md, the network rule). */
export const VIRTUAL_BROADCAST = '127.255.255.255';
/** How long to wait for an embedded fleet to be found and read. */
const VIRTUAL_READY_MS = 10_000;

const HELP = `Usage: lightwire serve [--host 127.0.0.1] [--port 3000] [--token T[:SCOPES]]...
                      [--tls-cert FILE --tls-key FILE [--http-port PORT]] [--rate-limit N]
                      [--broadcast ADDR]... [--light IP[:PORT]]... [--lan-port PORT] [--discover-ms MS]
                      [--virtual N | --fleet FILE] [--scenes FILE]

Serves the LIFX HTTP API v1 locally: a script written for https://api.lifx.com/v1 works against
http://HOST:PORT/v1 by changing only its base URL. Stop with Ctrl-C.

Listening:
  --host ADDR          address to listen on (default ${DEFAULT_HOST}); any address that is not loopback
                       needs a token, or the server refuses to start
  --port PORT          HTTP(S) port (default ${DEFAULT_PORT}; 0 = any free port)
  --token T[:SCOPES]   an access token (repeatable); clients send "Authorization: Bearer T" or Basic
                       with T as the user name. SCOPES, comma-separated: read (list lights and scenes,
                       validate colours) or control (everything; also remote_control:all). Default
                       control. Tokens may also come from $LIGHTWIRE_TOKENS (space-separated).
                       Without any token the API is open to this machine only.
  --tls-cert FILE      PEM certificate: serve HTTPS (with --tls-key)
  --tls-key FILE       PEM private key
  --http-port PORT     with TLS: also listen for plain HTTP here and answer every request 426
  --rate-limit N       requests per minute per token (or per address without one); default: not
                       enforced (the X-RateLimit-* headers still report ${UNENFORCED_LIMIT})

Lights:
  --virtual N          run N virtual lights in this process (loopback, 1-${MAX_SIMULATED_LIGHTS})
  --fleet FILE         run the virtual lights of a fleet file (see examples/fleet.json)
  --broadcast ADDR     broadcast address to search (repeatable; default: every IPv4 interface's)
  --light IP[:PORT]    a light reached by unicast (repeatable)
  --lan-port PORT      the port lights listen on (default ${LIFX_PORT})
  --discover-ms MS     how long to look for lights before listening (default 1500)
  --scenes FILE        the scene file (default $LIGHTWIRE_SCENES or ~/.lightwire/scenes.json)

Exit codes: 0 stopped cleanly, 1 could not start (port in use, lights' sockets), 2 bad options.`;

export interface ServeOptions {
  readonly host: string;
  readonly port: number;
  readonly tokens: readonly string[];
  readonly tlsCertFile?: string;
  readonly tlsKeyFile?: string;
  readonly httpPort?: number;
  readonly rateLimit: number | null;
  readonly broadcasts: readonly string[];
  readonly lights: readonly string[];
  readonly lanPort: number;
  readonly discoverMs: number;
  readonly virtual?: number;
  readonly fleetFile?: string;
  readonly scenesFile: string;
}

class UsageError extends Error {}

/** Parses and checks the flags (and $LIGHTWIRE_TOKENS); UsageError or a LightwireError otherwise. */
export function parseServeArgs(args: readonly string[], env: NodeJS.ProcessEnv = process.env): ServeOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        token: { type: 'string', multiple: true },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'http-port': { type: 'string' },
        'rate-limit': { type: 'string' },
        broadcast: { type: 'string', multiple: true },
        light: { type: 'string', multiple: true },
        'lan-port': { type: 'string' },
        'discover-ms': { type: 'string' },
        virtual: { type: 'string' },
        fleet: { type: 'string' },
        scenes: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) return 'help';
  try {
    const host = values.host ?? DEFAULT_HOST;
    if (host.trim() === '') throw new UsageError('--host must not be empty');
    const tokens = [...many(values.token), ...(env.LIGHTWIRE_TOKENS ?? '').split(/\s+/).filter((t) => t !== '')];
    tokens.forEach((t) => parseTokenSpec(t));
    if ((values['tls-cert'] === undefined) !== (values['tls-key'] === undefined)) {
      throw new UsageError('give both --tls-cert and --tls-key, or neither');
    }
    if (values['http-port'] !== undefined && values['tls-cert'] === undefined) {
      throw new UsageError('--http-port only makes sense with --tls-cert/--tls-key (it answers 426 to plain HTTP)');
    }
    if (values.virtual !== undefined && values.fleet !== undefined) throw new UsageError('give --virtual N or --fleet FILE, not both');
    const embedded = values.virtual !== undefined || values.fleet !== undefined;
    if (embedded && (values.broadcast !== undefined || values.light !== undefined || values['lan-port'] !== undefined)) {
      throw new UsageError('--virtual/--fleet run their own lights on loopback; --broadcast, --light and --lan-port find real ones');
    }
    checkBind(host, tokens.length);
    const options: ServeOptions = {
      host,
      port: parseIntFlag('port', values.port, DEFAULT_PORT, 0, 65535),
      tokens,
      ...(values['tls-cert'] !== undefined ? { tlsCertFile: values['tls-cert'], tlsKeyFile: values['tls-key']! } : {}),
      ...(values['http-port'] !== undefined ? { httpPort: parseIntFlag('http-port', values['http-port'], 0, 0, 65535) } : {}),
      rateLimit: values['rate-limit'] === undefined ? null : parseIntFlag('rate-limit', values['rate-limit'], 0, 1, UNENFORCED_LIMIT),
      broadcasts: many(values.broadcast),
      lights: many(values.light),
      lanPort: parseIntFlag('lan-port', values['lan-port'], LIFX_PORT, 1, 65535),
      discoverMs: parseIntFlag('discover-ms', values['discover-ms'], 1500, 0, 600_000),
      ...(values.virtual !== undefined ? { virtual: parseIntFlag('virtual', values.virtual, 0, 1, MAX_SIMULATED_LIGHTS) } : {}),
      ...(values.fleet !== undefined ? { fleetFile: values.fleet } : {}),
      scenesFile: values.scenes ?? defaultScenesPath(),
    };
    return options;
  } catch (err) {
    if (err instanceof UsageError || isLightwireError(err)) throw err;
    throw new UsageError((err as Error).message);
  }
}

/** A curl command that works against the server as started (with the token, -k for a self-signed cert). */
export function curlLine(url: string, token: string | undefined, tls: boolean): string {
  const auth = token === undefined ? '' : ` -H "Authorization: Bearer ${token}"`;
  return `curl${tls ? ' -k' : ''}${auth} ${url}/lights/all`;
}

function message(err: unknown): string {
  return `${isLightwireError(err) ? `${err.code}: ` : ''}${(err as Error).message}`;
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'serve the LIFX HTTP API v1 locally (real lights, or --virtual N)',
  help: HELP,
  async run(args: readonly string[], io: CliIO): Promise<number> {
    let options: ServeOptions;
    try {
      const parsed = parseServeArgs(args);
      if (parsed === 'help') {
        io.stdout(`${HELP}\n`);
        return EXIT.OK;
      }
      options = parsed;
    } catch (err) {
      io.stderr(`lightwire serve: ${message(err)}\n${err instanceof UsageError ? `\n${HELP}\n` : ''}`);
      return EXIT.USAGE;
    }

    let tls: { cert: Buffer; key: Buffer } | undefined;
    let fleet: Fleet | null = null;
    try {
      if (options.tlsCertFile !== undefined && options.tlsKeyFile !== undefined) {
        tls = { cert: await readFile(options.tlsCertFile), key: await readFile(options.tlsKeyFile) };
      }
      if (options.fleetFile !== undefined) fleet = new Fleet(await loadFleetFile(options.fleetFile), { port: 0 });
      else if (options.virtual !== undefined) fleet = new Fleet(defaultFleet(options.virtual), { port: 0 });
    } catch (err) {
      io.stderr(`lightwire serve: ${message(err)}\n`);
      return EXIT.USAGE;
    }

    let client: LightClient | null = null;
    let server: RunningServer | null = null;
    try {
      const scenes = await SceneStore.open(options.scenesFile, { log: (line) => io.stderr(`${line}\n`) });
      if (fleet !== null) await fleet.start();
      client = new LightClient({
        discovery:
          fleet !== null
            ? { broadcastAddresses: [VIRTUAL_BROADCAST], port: fleet.port }
            : {
                ...(options.broadcasts.length > 0 ? { broadcastAddresses: options.broadcasts } : {}),
                staticHosts: options.lights,
                port: options.lanPort,
              },
      });
      await client.start();
      if (fleet !== null) {
        const found = await client.waitForLights(fleet.lights.length, VIRTUAL_READY_MS).catch(() => client!.lights());
        await Promise.all(found.map((l) => Promise.all([client!.refreshInfo(l.serial), client!.refreshState(l.serial)])));
      } else {
        await sleep(options.discoverMs, io.signal);
      }
      if (io.signal.aborted) return EXIT.OK;
      const service = new LightService(client, { scenes });
      server = await startServer({
        service,
        host: options.host,
        port: options.port,
        tokens: options.tokens,
        rateLimit: options.rateLimit,
        ...(tls ? { tls } : {}),
        ...(options.httpPort !== undefined ? { httpPort: options.httpPort } : {}),
        log: (line) => io.stderr(`${line}\n`),
      });
      const count = client.lights().length;
      const where = fleet !== null ? `${count} virtual light${count === 1 ? '' : 's'} on loopback` : `${count} light${count === 1 ? '' : 's'} found so far`;
      io.stdout(`LIFX HTTP API v1 at ${server.url} (${where})\n`);
      if (server.plainUrl !== null) io.stdout(`plain HTTP at ${server.plainUrl} answers 426 (use https)\n`);
      const token = options.tokens[0] === undefined ? undefined : parseTokenSpec(options.tokens[0]).token;
      io.stdout(`try: ${curlLine(server.url, token, tls !== undefined)}\n`);
      io.stdout(`endpoints: ${server.url}/openapi.json\n`);
      io.stderr('Press Ctrl-C to stop.\n');
      await untilAborted(io.signal);
      return EXIT.OK;
    } catch (err) {
      io.stderr(`lightwire serve: ${message(err)}\n`);
      return err instanceof LightwireError && err.code === 'SERVE_UNSAFE_BIND' ? EXIT.USAGE : EXIT.FAILURE;
    } finally {
      await server?.close();
      await client?.stop();
      await fleet?.stop();
    }
  },
};
