// Shared by the commands that talk to lights (list, set, scene): discovery flags, and a service that
// lives for one command: start, find the lights, read what they are, run, stop.

import os from 'node:os';
import path from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { LightService } from '../control/service.js';
import { SceneStore } from '../control/scene-store.js';
import { LightClient } from '../discovery/client.js';
import { LIFX_PORT } from '../discovery/options.js';
import type { CliIO } from './command.js';
import { many, parseIntFlag, sleep } from './format.js';

export const CONNECT_OPTIONS = {
  broadcast: { type: 'string', multiple: true },
  host: { type: 'string', multiple: true },
  port: { type: 'string' },
  'discover-ms': { type: 'string' },
  scenes: { type: 'string' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export const CONNECT_HELP = `Finding lights:
  --broadcast ADDR   broadcast address to search (repeatable; default: every IPv4 interface's)
  --host IP[:PORT]   a light reached by unicast (repeatable)
  --port PORT        the port lights listen on (default ${LIFX_PORT})
  --discover-ms MS   how long to look for lights first (default 1500)
  --scenes FILE      the scene file (default $LIGHTWIRE_SCENES or ~/.lightwire/scenes.json)`;

export interface ConnectFlags {
  readonly broadcast?: string | string[] | boolean | (string | boolean)[];
  readonly host?: string | string[] | boolean | (string | boolean)[];
  readonly port?: string | boolean;
  readonly 'discover-ms'?: string | boolean;
  readonly scenes?: string | boolean;
}

export function defaultScenesPath(): string {
  return process.env.LIGHTWIRE_SCENES ?? path.join(os.homedir(), '.lightwire', 'scenes.json');
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Builds the client (validating the flags: a bad one throws before anything is opened). */
export function clientFromFlags(flags: ConnectFlags): { client: LightClient; discoverMs: number } {
  const port = parseIntFlag('port', str(flags.port), LIFX_PORT, 1, 65535);
  const discoverMs = parseIntFlag('discover-ms', str(flags['discover-ms']), 1500, 100, 600_000);
  const broadcasts = many(flags.broadcast);
  const client = new LightClient({
    discovery: {
      ...(broadcasts.length > 0 ? { broadcastAddresses: broadcasts } : {}),
      staticHosts: many(flags.host),
      port,
      refreshIntervalMs: 0,
    },
  });
  return { client, discoverMs };
}

/** Runs `fn` with a service over the lights found; always stops the client. */
export async function withService<T>(
  flags: ConnectFlags,
  io: CliIO,
  fn: (service: LightService) => Promise<T>,
  prepared = clientFromFlags(flags),
): Promise<T> {
  const { client, discoverMs } = prepared;
  const scenesFile = str(flags.scenes) ?? defaultScenesPath();
  const scenes = await SceneStore.open(scenesFile, { log: (message) => io.stderr(`${message}\n`) });
  await client.start();
  try {
    await sleep(discoverMs, io.signal);
    await Promise.all(client.lights().map((l) => Promise.all([client.refreshInfo(l.serial), client.refreshState(l.serial)])));
    return await fn(new LightService(client, { scenes }));
  } finally {
    await client.stop();
  }
}
