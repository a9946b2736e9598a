// `lightwire decode HEX`: one datagram, decoded, as JSON in user units.

import { parseArgs } from 'node:util';
import { LightwireError } from '../errors.js';
import { decode } from '../protocol/codec.js';
import { headerToUser, payloadToUserUnits, type UserValue } from '../protocol/units.js';
import { EXIT, type CliIO, type Command } from './command.js';

const HELP = `Usage: lightwire decode [--wire] HEX

Decodes one LIFX LAN datagram given as hex (spaces, colons and a 0x prefix are allowed)
and prints its header and payload as JSON: hue in degrees, saturation and brightness 0-1,
durations in seconds, ids in hex, enums by name.

Options:
  --wire      print the payload in wire units (u16 hue, ms) instead of user units
  -h, --help  show this help

Exit codes: 0 decoded, 2 bad input (not hex, or not a valid datagram).
Example:
  lightwire decode 240000343e80510800000000000000000000000000000000000000000000000002000000`;

/** Accepts "24 00 00 34", "24:00:...", "0x2400..." and plain hex. */
export function parseHex(text: string): Buffer {
  const cleaned = text.trim().replace(/^0x/i, '').replace(/[\s:,-]/g, '');
  if (cleaned.length === 0) throw new LightwireError('HEX_INVALID', { reason: 'nothing to decode' });
  if (!/^[0-9a-f]*$/i.test(cleaned)) {
    const bad = cleaned.match(/[^0-9a-f]/i)?.[0] ?? '?';
    throw new LightwireError('HEX_INVALID', { reason: `character ${JSON.stringify(bad)} is not a hex digit` });
  }
  if (cleaned.length % 2 !== 0) throw new LightwireError('HEX_INVALID', { reason: 'odd number of hex digits' });
  return Buffer.from(cleaned, 'hex');
}

function wireJson(value: unknown): UserValue {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  if (Array.isArray(value)) return value.map(wireJson);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wireJson(v)]));
  }
  return value as UserValue;
}

export const decodeCommand: Command = {
  name: 'decode',
  summary: 'decode one datagram given as hex and print it as JSON',
  help: HELP,
  async run(args: readonly string[], io: CliIO): Promise<number> {
    let parsed;
    try {
      parsed = parseArgs({
        args: [...args],
        allowPositionals: true,
        options: { wire: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      });
    } catch (err) {
      io.stderr(`lightwire decode: ${(err as Error).message}\n\n${HELP}\n`);
      return EXIT.USAGE;
    }
    if (parsed.values.help) {
      io.stdout(`${HELP}\n`);
      return EXIT.OK;
    }
    if (parsed.positionals.length === 0) {
      io.stderr(`lightwire decode: give the datagram as hex\n\n${HELP}\n`);
      return EXIT.USAGE;
    }
    let datagram: Buffer;
    try {
      datagram = parseHex(parsed.positionals.join(''));
    } catch (err) {
      io.stderr(`lightwire decode: ${(err as Error).message}\n`);
      return EXIT.USAGE;
    }
    const result = decode(datagram);
    if (!result.ok) {
      io.stderr(`lightwire decode: ${result.error.code}: ${result.error.message}\n`);
      return EXIT.USAGE;
    }
    const { packet } = result;
    const payload =
      packet.name === null
        ? Buffer.from(packet.payload).toString('hex')
        : parsed.values.wire
          ? wireJson(packet.payload)
          : payloadToUserUnits(packet.name, packet.payload);
    const out = {
      message: packet.name ?? `Unknown(${packet.header.type})`,
      header: headerToUser(packet.header),
      payload,
    };
    io.stdout(`${JSON.stringify(out, null, 2)}\n`);
    return EXIT.OK;
  },
};
