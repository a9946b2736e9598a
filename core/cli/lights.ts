// `lightwire list` and `lightwire set`: the light service from a terminal.

import { parseArgs } from 'node:util';
import { stateChangeFrom } from '../control/service.js';
import type { LightResult } from '../control/types.js';
import { LightwireError } from '../errors.js';
import { EXIT, type CliIO, type Command } from './command.js';
import { CONNECT_HELP, CONNECT_OPTIONS, clientFromFlags, withService } from './connect.js';
import { formatColor, table } from './format.js';

const LIST_HELP = `Usage: lightwire list [SELECTOR] [--json] [finding options]

Lists the lights a selector names (default: all) in the shape of the LIFX HTTP API v1 (--json) or as
a table. Selectors: all, id:d073d5000001, label:Desk, group:Office, location:Home, ..., comma lists.

${CONNECT_HELP}

Exit codes: 0 listed, 1 nothing matched or no light answered, 2 bad options.`;

const SET_HELP = `Usage: lightwire set SELECTOR [--power on|off] [--color STR] [--brightness F] [--infrared F]
                     [--duration S] [--fast] [finding options]

Changes the lights a selector names, like PUT /v1/lights/:selector/state, and prints one line per
light with its result (ok, timed_out, offline). Without --fast the current state is read first and a
light that is off gets its new colour before it is powered on.

  --power on|off     power
  --color STR        a colour string: "blue", "hue:120 saturation:1", "kelvin:2700", "#ff8800", ...
  --brightness F     0.0 to 1.0 (overrides the brightness in --color)
  --infrared F       0.0 to 1.0, lights with infrared only
  --duration S       seconds the change takes (default 1)
  --fast             send the end state only, do not wait for the lights

${CONNECT_HELP}

Exit codes: 0 every light ok, 1 some light not ok or nothing matched, 2 bad options.`;

function usage(io: CliIO, name: string, help: string, message: string): number {
  io.stderr(`lightwire ${name}: ${message}\n\n${help}\n`);
  return EXIT.USAGE;
}

/** Coded errors from the service (bad selector, colour, parameter, nothing found) as one clear line. */
export function reportError(io: CliIO, name: string, err: unknown): number {
  if (err instanceof LightwireError) {
    io.stderr(`lightwire ${name}: ${err.message}\n`);
    return err.httpStatus === 404 ? EXIT.FAILURE : err.httpStatus < 500 ? EXIT.USAGE : EXIT.FAILURE;
  }
  throw err;
}

export function printResults(io: CliIO, results: readonly LightResult[], json: boolean): number {
  if (json) io.stdout(`${JSON.stringify({ results }, null, 2)}\n`);
  else io.stdout(`${table(['ID', 'LABEL', 'STATUS'], results.map((r) => [r.id, r.label, r.status + (r.power ? ` (${r.power})` : '')]))}\n`);
  return results.every((r) => r.status === 'ok') ? EXIT.OK : EXIT.FAILURE;
}

export const listCommand: Command = {
  name: 'list',
  summary: 'list lights by selector (the HTTP API v1 light records)',
  help: LIST_HELP,
  async run(args, io) {
    let parsed;
    let prepared;
    try {
      parsed = parseArgs({ args: [...args], allowPositionals: true, options: { ...CONNECT_OPTIONS, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
      if (parsed.values.help) {
        io.stdout(`${LIST_HELP}\n`);
        return EXIT.OK;
      }
      if (parsed.positionals.length > 1) return usage(io, 'list', LIST_HELP, 'give at most one selector');
      prepared = clientFromFlags(parsed.values);
    } catch (err) {
      return usage(io, 'list', LIST_HELP, (err as Error).message);
    }
    const selector = parsed.positionals[0] ?? 'all';
    const json = parsed.values.json === true;
    try {
      return await withService(parsed.values, io, async (service) => {
        const lights = service.list(selector);
        if (json) {
          io.stdout(`${JSON.stringify(lights, null, 2)}\n`);
        } else {
          const rows = lights.map((l) => [
            l.id,
            l.label,
            l.connected ? l.power : 'offline',
            formatColor({ ...l.color, brightness: l.brightness }),
            l.group.name || '-',
            l.location.name || '-',
            l.product.name,
          ]);
          io.stdout(`${table(['ID', 'LABEL', 'POWER', 'COLOUR', 'GROUP', 'LOCATION', 'PRODUCT'], rows)}\n`);
        }
        return EXIT.OK;
      }, prepared);
    } catch (err) {
      return reportError(io, 'list', err);
    }
  },
};

function numberFlag(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new Error(`--${name} must be a number, got ${JSON.stringify(text)}`);
  return n;
}

export const setCommand: Command = {
  name: 'set',
  summary: 'change power, colour, brightness or infrared of lights by selector',
  help: SET_HELP,
  async run(args, io) {
    let parsed;
    let prepared;
    let request;
    try {
      parsed = parseArgs({
        args: [...args],
        allowPositionals: true,
        options: {
          ...CONNECT_OPTIONS,
          power: { type: 'string' },
          color: { type: 'string' },
          brightness: { type: 'string' },
          infrared: { type: 'string' },
          duration: { type: 'string' },
          fast: { type: 'boolean' },
          json: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
        },
      });
      if (parsed.values.help) {
        io.stdout(`${SET_HELP}\n`);
        return EXIT.OK;
      }
      if (parsed.positionals.length !== 1) return usage(io, 'set', SET_HELP, 'give exactly one selector (e.g. all, label:Desk)');
      const v = parsed.values;
      if (v.power !== undefined && v.power !== 'on' && v.power !== 'off') throw new Error('--power must be on or off');
      request = {
        ...(v.power !== undefined ? { power: v.power as 'on' | 'off' } : {}),
        ...(v.color !== undefined ? { color: v.color } : {}),
        ...(v.brightness !== undefined ? { brightness: numberFlag('brightness', v.brightness)! } : {}),
        ...(v.infrared !== undefined ? { infrared: numberFlag('infrared', v.infrared)! } : {}),
        ...(v.duration !== undefined ? { durationS: numberFlag('duration', v.duration)! } : {}),
      };
      if (Object.keys(request).filter((k) => k !== 'durationS').length === 0) {
        return usage(io, 'set', SET_HELP, 'nothing to change: give --power, --color, --brightness or --infrared');
      }
      stateChangeFrom(request);
      prepared = clientFromFlags(v);
    } catch (err) {
      if (err instanceof LightwireError) return reportError(io, 'set', err);
      return usage(io, 'set', SET_HELP, (err as Error).message);
    }
    const selector = parsed.positionals[0]!;
    try {
      return await withService(parsed.values, io, async (service) => {
        const results = await service.setState(selector, request, { fast: parsed.values.fast === true });
        return printResults(io, results, parsed.values.json === true);
      }, prepared);
    } catch (err) {
      return reportError(io, 'set', err);
    }
  },
};
