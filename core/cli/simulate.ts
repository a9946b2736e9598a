// `lightwire simulate`: runs a fleet of virtual lights until interrupted, with a loopback control endpoint.

import { parseArgs } from 'node:util';
import { isLightwireError } from '../errors.js';
import { parseIpv4 } from '../simulator/addresses.js';
import { startControlServer, type ControlServer } from '../simulator/control.js';
import { defaultFleet } from '../simulator/default-fleet.js';
import { Fleet, DEFAULT_PORT, type AddressMode } from '../simulator/fleet.js';
import { loadFleetFile, MAX_LATENCY_MS, type FleetSpec } from '../simulator/fleet-file.js';
import { EXIT, type CliIO, type Command } from './command.js';
import { table, untilAborted } from './format.js';

export const MAX_SIMULATED_LIGHTS = 5000;

const HELP = `Usage: lightwire simulate (--lights N | --fleet FILE) [--mode ip|port] [--base-address ADDR]
                         [--port PORT] [--loss P] [--latency-ms MS] [--control-port PORT]

Runs virtual LIFX lights that answer the LAN protocol on this machine until Ctrl-C, and prints where each
one lives. Find them with a discovery broadcast to 127.255.255.255 on the port.

Options:
  --lights N            N default lights (colour bulbs, a white-to-warm bulb, strips, a candle, a tile
                        chain, ...), serials d073d5000001, d073d5000002, ... (1-${MAX_SIMULATED_LIGHTS})
  --fleet FILE          lights described in a JSON fleet file (see examples/fleet.json)
  --mode ip|port        ip (default): each light has its own address from --base-address, all on --port;
                        port: every light on --base-address (default 127.0.0.1) with its own port
                        (--port + 1, + 2, ...); discovery broadcasts are answered on --port in both modes
  --base-address ADDR   first light's address in ip mode (default 127.0.0.2)
  --port PORT           discovery port (default ${DEFAULT_PORT}; 0 = any free port)
  --loss P              probability 0-1 that a light drops an incoming datagram (all lights)
  --latency-ms MS       delay before every reply, ms (all lights)
  --control-port PORT   port of the HTTP control endpoint on 127.0.0.1 (default 0 = any free port)
  -h, --help            show this help

--loss and --latency-ms override the faults a fleet file gives.

Control endpoint (loopback only):
  GET   /lights             every light with its state, faults and received-message counts
  GET   /lights/:serial     one light
  PATCH /lights/:serial     {"faults": {...}, "state": {...}}, e.g. {"faults": {"offline": true}}
  DELETE /lights/:serial/records

Exit codes: 0 stopped cleanly, 1 could not bind, 2 bad options or fleet file.`;

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

class UsageError extends Error {}

function intFlag(name: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return n;
}

/** Parses and checks the flags; UsageError with a readable message otherwise. */
export function parseSimulateArgs(args: readonly string[]): SimulateOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        lights: { type: 'string' },
        fleet: { type: 'string' },
        mode: { type: 'string' },
        'base-address': { type: 'string' },
        port: { type: 'string' },
        loss: { type: 'string' },
        'latency-ms': { type: 'string' },
        'control-port': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) return 'help';
  if ((values.lights === undefined) === (values.fleet === undefined)) {
    throw new UsageError('give exactly one of --lights N or --fleet FILE');
  }
  const mode = values.mode ?? 'ip';
  if (mode !== 'ip' && mode !== 'port') throw new UsageError(`--mode must be ip or port, got ${JSON.stringify(mode)}`);
  const base = values['base-address'];
  if (base !== undefined && parseIpv4(base) === null) {
    throw new UsageError(`--base-address must be an IPv4 address like 127.0.0.2, got ${JSON.stringify(base)}`);
  }
  let loss: number | undefined;
  if (values.loss !== undefined) {
    loss = Number(values.loss);
    if (values.loss.trim() === '' || !Number.isFinite(loss) || loss < 0 || loss > 1) {
      throw new UsageError(`--loss must be a probability from 0 to 1, got ${JSON.stringify(values.loss)}`);
    }
  }
  const lights = intFlag('lights', values.lights, 1, MAX_SIMULATED_LIGHTS);
  const latencyMs = intFlag('latency-ms', values['latency-ms'], 0, MAX_LATENCY_MS);
  return {
    ...(lights === undefined ? {} : { lights }),
    ...(values.fleet === undefined ? {} : { fleetFile: values.fleet }),
    mode,
    ...(base === undefined ? {} : { baseAddress: base }),
    port: intFlag('port', values.port, 0, 65535) ?? DEFAULT_PORT,
    ...(loss === undefined ? {} : { loss }),
    ...(latencyMs === undefined ? {} : { latencyMs }),
    controlPort: intFlag('control-port', values['control-port'], 0, 65535) ?? 0,
  };
}

export const simulateCommand: Command = {
  name: 'simulate',
  summary: 'run virtual lights on this machine until interrupted',
  help: HELP,
  async run(args: readonly string[], io: CliIO): Promise<number> {
    let options: SimulateOptions;
    try {
      const parsed = parseSimulateArgs(args);
      if (parsed === 'help') {
        io.stdout(`${HELP}\n`);
        return EXIT.OK;
      }
      options = parsed;
    } catch (err) {
      io.stderr(`lightwire simulate: ${(err as Error).message}\n\n${HELP}\n`);
      return EXIT.USAGE;
    }

    let fleet: Fleet;
    try {
      const faults = {
        ...(options.loss === undefined ? {} : { lossProbability: options.loss }),
        ...(options.latencyMs === undefined ? {} : { latencyMs: options.latencyMs }),
      };
      const source: FleetSpec | ReturnType<typeof defaultFleet> =
        options.fleetFile !== undefined
          ? await loadFleetFile(options.fleetFile)
          : defaultFleet(options.lights!);
      const fleetOptions = {
        mode: options.mode,
        port: options.port,
        ...(options.baseAddress === undefined ? {} : { baseAddress: options.baseAddress }),
      };
      fleet = new Fleet(source, fleetOptions);
      for (const light of fleet.lights) light.setFaults(faults);
    } catch (err) {
      io.stderr(`lightwire simulate: ${isLightwireError(err) ? `${err.code}: ` : ''}${(err as Error).message}\n`);
      return EXIT.USAGE;
    }

    let control: ControlServer | null = null;
    try {
      await fleet.start();
      control = await startControlServer(fleet, { port: options.controlPort });
    } catch (err) {
      await fleet.stop();
      io.stderr(`lightwire simulate: ${isLightwireError(err) ? `${err.code}: ` : ''}${(err as Error).message}\n`);
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
};
