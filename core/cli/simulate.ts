// `lightwire simulate`: runs a fleet of virtual lights until interrupted, with a loopback control endpoint.

import { isIPv4 } from 'node:net';
import { isLightwireError, PORT_MAX } from '../index.js';
import { DEFAULT_PORT, defaultFleet, Fleet, isLoopbackIpv4, loadFleetFile, MAX_LATENCY_MS, startControlServer, type AddressMode, type ControlServer, type FleetSpec } from '../simulator/index.js';
import { choiceValue, intValue, numberValue, parseFlags, shown, usageError, valueError, type FlagSpecs, type Parsed } from './args.js';
import { defineCommand, EXIT } from './command.js';
import { table, untilAborted } from './format.js';

export const MAX_SIMULATED_LIGHTS = 5000;

const SIMULATE_FLAGS = {
  virtual: {
    type: 'string',
    value: 'N',
    help: `N default lights (colour bulbs, a white-to-warm bulb, strips, a candle, a tile\nchain, ...), serials d073d5000001, d073d5000002, ... (1-${MAX_SIMULATED_LIGHTS})`,
    aliases: ['lights'],
  },
  fleet: { type: 'string', value: 'FILE', help: 'lights described in a JSON fleet file (see examples/fleet.json)' },
  mode: {
    type: 'string',
    value: 'ip|port',
    help: 'ip (default): each light has its own address from --base-address, all on --lan-port;\nport: every light on --base-address (default 127.0.0.1) with its own port\n(--lan-port + 1, + 2, ...); discovery broadcasts are answered on --lan-port in both modes',
  },
  'base-address': { type: 'string', value: 'ADDR', help: "first light's address in ip mode (default 127.0.0.2)" },
  'lan-port': { type: 'string', value: 'PORT', help: `the UDP port the lights listen on (default ${DEFAULT_PORT}; 0 = any free port)`, aliases: ['port'] },
  loss: { type: 'string', value: 'P', help: 'probability 0-1 that a light drops an incoming datagram (all lights)' },
  'latency-ms': { type: 'string', value: 'MS', help: 'delay before every reply, ms (all lights)' },
  'control-port': { type: 'string', value: 'PORT', help: 'port of the HTTP control endpoint on 127.0.0.1 (default 0 = any free port)' },
} as const satisfies FlagSpecs;

type SimulateFlags = typeof SIMULATE_FLAGS;

interface SimulateOptions {
  readonly lights?: number;
  readonly fleetFile?: string;
  readonly mode: AddressMode;
  readonly baseAddress?: string;
  readonly port: number;
  readonly loss?: number;
  readonly latencyMs?: number;
  readonly controlPort: number;
}

/** Checks the flags; CLI_USAGE naming the flag as typed otherwise. */
export function simulateOptions(p: Parsed<SimulateFlags>): SimulateOptions {
  const v = p.values;
  if (p.positionals.length > 0) throw usageError(`simulate takes no arguments, got ${p.positionals.map((a) => shown(a)).join(' ')}`);
  if ((v.virtual === undefined) === (v.fleet === undefined)) throw usageError('give exactly one of --virtual N or --fleet FILE');
  const mode = choiceValue(p, 'mode', ['ip', 'port'] as const) ?? 'ip';
  const base = v['base-address'];
  if (base !== undefined && !isIPv4(base)) throw valueError(p.flag('base-address'), base, 'not an IPv4 address (like 127.0.0.2)');
  // Virtual lights live on this machine: an address of a real interface would put them on the LAN.
  if (base !== undefined && !isLoopbackIpv4(base)) throw valueError(p.flag('base-address'), base, 'not a loopback address (127.x.x.x): virtual lights stay on this machine');
  const loss = numberValue(p, 'loss', { min: 0, max: 1, what: 'a probability' });
  const lights = intValue(p, 'virtual', 1, MAX_SIMULATED_LIGHTS);
  const latencyMs = intValue(p, 'latency-ms', 0, MAX_LATENCY_MS);
  return {
    ...(lights === undefined ? {} : { lights }),
    ...(v.fleet === undefined ? {} : { fleetFile: v.fleet }),
    mode,
    ...(base === undefined ? {} : { baseAddress: base }),
    port: intValue(p, 'lan-port', 0, PORT_MAX) ?? DEFAULT_PORT,
    ...(loss === undefined ? {} : { loss }),
    ...(latencyMs === undefined ? {} : { latencyMs }),
    controlPort: intValue(p, 'control-port', 0, PORT_MAX) ?? 0,
  };
}

/** Parses simulate's arguments: 'help', 'version', or the checked options. */
export function parseSimulateArgs(args: readonly string[]): SimulateOptions | 'help' | 'version' {
  const outcome = parseFlags(SIMULATE_FLAGS, args);
  return outcome.kind === 'ok' ? simulateOptions(outcome.parsed) : outcome.kind;
}

export const simulateCommand = defineCommand({
  name: 'simulate',
  summary: 'run virtual lights on this machine until interrupted',
  usage: `lightwire simulate (--virtual N | --fleet FILE) [--mode ip|port] [--base-address ADDR]
                         [--lan-port PORT] [--loss P] [--latency-ms MS] [--control-port PORT]`,
  description: `Runs virtual LIFX lights that answer the LAN protocol on this machine until Ctrl-C, and prints where each
one lives. Find them with a discovery broadcast to 127.255.255.255 on the LAN port
(lightwire discover --broadcast 127.255.255.255 --lan-port PORT).

--loss and --latency-ms override the faults a fleet file gives.`,
  footer: `Control endpoint (loopback only):
  GET   /lights             every light with its state, faults and received-message counts
  GET   /lights/:serial     one light
  PATCH /lights/:serial     {"faults": {...}, "state": {...}}, e.g. {"faults": {"offline": true}}
  DELETE /lights/:serial/records

Exit codes: 0 stopped cleanly, 1 could not bind, 2 bad options or fleet file.`,
  flags: SIMULATE_FLAGS,
  async run(p, io) {
    const options = simulateOptions(p);
    const faults = {
      ...(options.loss === undefined ? {} : { lossProbability: options.loss }),
      ...(options.latencyMs === undefined ? {} : { latencyMs: options.latencyMs }),
    };
    const source: FleetSpec | ReturnType<typeof defaultFleet> =
      options.fleetFile !== undefined ? await loadFleetFile(options.fleetFile) : defaultFleet(options.lights!);
    const fleet = new Fleet(source, {
      mode: options.mode,
      port: options.port,
      ...(options.baseAddress === undefined ? {} : { baseAddress: options.baseAddress }),
    });
    for (const light of fleet.lights) light.setFaults(faults);

    let control: ControlServer;
    try {
      await fleet.start();
    } catch (err) {
      io.stderr(`lightwire simulate: ${isLightwireError(err) ? `${err.code}: ` : ''}${(err as Error).message}\n`);
      return EXIT.FAILURE;
    }
    try {
      control = await startControlServer(fleet, { port: options.controlPort });
    } catch (err) {
      await fleet.stop();
      // The control endpoint is HTTP (TCP): the simulator's ADDRESS_IN_USE text speaks of UDP, the lights' sockets.
      const message = isLightwireError(err, 'ADDRESS_IN_USE')
        ? `${p.flag('control-port')} ${options.controlPort}: TCP port ${options.controlPort} on 127.0.0.1 is already in use; give another port, or 0 for any free one`
        : (err as Error).message;
      io.stderr(`lightwire simulate: ${isLightwireError(err) ? `${err.code}: ` : ''}${message}\n`);
      return EXIT.FAILURE;
    }

    try {
      const rows = fleet.lights.map((l) => [l.serial, l.state.label, l.product.name, `${l.address}:${l.port}`]);
      io.stdout(`${table(['SERIAL', 'LABEL', 'PRODUCT', 'ADDRESS'], rows)}\n`);
      io.stdout(
        `${fleet.lights.length} virtual light${fleet.lights.length === 1 ? '' : 's'} (${options.mode} mode); ` +
          `discovery: broadcast GetService to 127.255.255.255:${fleet.port}\n`,
      );
      io.stdout(`control endpoint: ${control.url}/lights\n`);
      io.stderr('Press Ctrl-C to stop.\n');
      await untilAborted(io.signal);
      return EXIT.OK;
    } finally {
      await control.close();
      await fleet.stop();
    }
  },
});
