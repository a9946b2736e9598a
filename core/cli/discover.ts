// `lightwire discover`: find every light and show what it is and how it is doing.

import { parseArgs } from 'node:util';
import { LightClient } from '../discovery/client.js';
import { LIFX_PORT } from '../discovery/options.js';
import type { LightRecord } from '../discovery/registry.js';
import { LightwireError } from '../errors.js';
import { EXIT, type CliIO, type Command } from './command.js';
import { formatColor, many, parseIntFlag, sleep, table } from './format.js';

const HELP = `Usage: lightwire discover [--broadcast ADDR]... [--host IP[:PORT]]... [--port PORT]
                         [--timeout-ms MS] [--json]

Broadcasts GetService (several times, as lights on busy networks miss single broadcasts), probes the
given hosts by unicast, and lists every light that answered with its serial, address, port, label,
product, power, colour, group, location, firmware and Wi-Fi signal quality.

Options:
  --broadcast ADDR   broadcast address to search (repeatable; default: every IPv4 interface's)
  --host IP[:PORT]   a light reached by unicast, e.g. behind a router (repeatable)
  --port PORT        the port lights listen on (default ${LIFX_PORT})
  --timeout-ms MS    how long to search (default 3000)
  --json             print JSON instead of a table
  -h, --help         show this help

Exit codes: 0 lights found, 1 nothing answered, 2 bad options.`;

export interface DiscoveredLight {
  serial: string;
  address: string;
  port: number;
  label: string | null;
  product: string | null;
  productId: number | null;
  power: string | null;
  color: { hue: number; saturation: number; brightness: number; kelvin: number } | null;
  group: string | null;
  location: string | null;
  firmware: string | null;
  signal: string | null;
  rssi: number | null;
}

export function describeLight(client: LightClient, light: LightRecord): DiscoveredLight {
  const f = light.facts;
  const groupId = f.group?.value.id;
  const locationId = f.location?.value.id;
  return {
    serial: light.serial,
    address: light.address,
    port: light.port,
    label: f.label?.value ?? null,
    product: f.product?.value.name ?? null,
    productId: f.product?.value.productId ?? null,
    power: f.power?.value ?? null,
    color: f.color ? { ...f.color.value } : null,
    group: groupId === undefined ? null : (client.registry.groupLabel(groupId) ?? null),
    location: locationId === undefined ? null : (client.registry.locationLabel(locationId) ?? null),
    firmware: f.firmware ? `${f.firmware.value.major}.${f.firmware.value.minor}` : null,
    signal: f.wifi?.value.quality ?? null,
    rssi: f.wifi?.value.rssi ?? null,
  };
}

export const discoverCommand: Command = {
  name: 'discover',
  summary: 'find the lights on the network and show their state',
  help: HELP,
  async run(args: readonly string[], io: CliIO): Promise<number> {
    let client: LightClient;
    let timeoutMs: number;
    let json: boolean;
    try {
      const { values } = parseArgs({
        args: [...args],
        options: {
          broadcast: { type: 'string', multiple: true },
          host: { type: 'string', multiple: true },
          port: { type: 'string' },
          'timeout-ms': { type: 'string' },
          json: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
        },
      });
      if (values.help) {
        io.stdout(`${HELP}\n`);
        return EXIT.OK;
      }
      timeoutMs = parseIntFlag('timeout-ms', values['timeout-ms'], 3000, 100, 600_000);
      const port = parseIntFlag('port', values.port, LIFX_PORT, 1, 65535);
      json = values.json === true;
      const broadcasts = many(values.broadcast);
      client = new LightClient({
        discovery: {
          ...(broadcasts.length > 0 ? { broadcastAddresses: broadcasts } : {}),
          staticHosts: many(values.host),
          port,
          refreshIntervalMs: 0,
          readTimeoutMs: Math.min(2000, Math.max(500, Math.round(timeoutMs / 2))),
        },
      });
    } catch (err) {
      io.stderr(`lightwire discover: ${(err as Error).message}\n\n${HELP}\n`);
      return EXIT.USAGE;
    }
    const d = client.discoveryOptions;
    const tried = [
      ...d.broadcastAddresses.map((a) => `broadcast ${a}:${d.port}`),
      ...d.staticHosts.map((h) => `host ${h.address}:${h.port}`),
    ];
    if (tried.length === 0) {
      io.stderr('lightwire discover: no broadcast address (no IPv4 interface is up) and no --host given\n');
      return EXIT.FAILURE;
    }
    io.stderr(`Looking for lights (${tried.join(', ')}) for ${timeoutMs} ms...\n`);
    client.on('added', (light) => io.stderr(`  found ${light.serial} at ${light.address}:${light.port}\n`));
    try {
      await client.start();
    } catch (err) {
      io.stderr(`lightwire discover: ${err instanceof LightwireError ? `${err.code}: ` : ''}${(err as Error).message}\n`);
      return EXIT.FAILURE;
    }
    try {
      await sleep(timeoutMs, io.signal);
      const found = client.lights();
      await Promise.all(found.map((l) => Promise.all([client.refreshInfo(l.serial), client.refreshState(l.serial)])));
      const lights = client.lights().map((l) => describeLight(client, l));
      if (lights.length === 0) {
        io.stderr(
          `No light answered. Tried ${tried.join(', ')}.\n` +
            'Check that the lights are on the same network (or give --host for lights behind a router),\n' +
            `that nothing blocks UDP port ${d.port}, and that the lights are powered.\n`,
        );
        if (json) io.stdout('[]\n');
        return EXIT.FAILURE;
      }
      if (json) {
        io.stdout(`${JSON.stringify(lights, null, 2)}\n`);
      } else {
        const rows = lights.map((l) => [
          l.serial,
          `${l.address}:${l.port}`,
          l.label ?? '-',
          l.product ?? '-',
          l.power ?? '-',
          formatColor(l.color ?? undefined),
          l.group ?? '-',
          l.location ?? '-',
          l.firmware ?? '-',
          l.signal === null ? '-' : `${l.signal} (${l.rssi})`,
        ]);
        io.stdout(`${table(['SERIAL', 'ADDRESS', 'LABEL', 'PRODUCT', 'POWER', 'COLOUR', 'GROUP', 'LOCATION', 'FIRMWARE', 'SIGNAL'], rows)}\n`);
        io.stderr(`${lights.length} light${lights.length === 1 ? '' : 's'} found.\n`);
      }
      return EXIT.OK;
    } finally {
      await client.stop();
    }
  },
};
