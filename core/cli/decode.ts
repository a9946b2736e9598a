// `lightwire decode HEX`: one datagram, decoded, as JSON in user units.

import { LightwireError } from '../index.js';
import { decode, headerToUser, payloadToUserUnits, type UserValue } from '../protocol/index.js';
import { shown, usageError, type FlagSpecs } from './args.js';
import { defineCommand, EXIT } from './command.js';

const DECODE_FLAGS = {
  wire: { type: 'boolean', help: 'print the payload in wire units (u16 hue, ms) instead of user units' },
} as const satisfies FlagSpecs;

/** Accepts "24 00 00 34", "24:00:...", "0x2400..." and plain hex. */
export function parseHex(text: string): Buffer {
  const cleaned = text.trim().replace(/^0x/i, '').replace(/[\s:,-]/g, '');
  if (cleaned.length === 0) throw new LightwireError('HEX_INVALID', { reason: 'nothing to decode' });
  if (!/^[0-9a-f]*$/i.test(cleaned)) {
    const bad = cleaned.match(/[^0-9a-f]/i)?.[0] ?? '?';
    throw new LightwireError('HEX_INVALID', { reason: `character ${shown(bad)} is not a hex digit` });
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

export const decodeCommand = defineCommand({
  name: 'decode',
  summary: 'decode one datagram given as hex and print it as JSON',
  usage: 'lightwire decode [--wire] HEX',
  description: `Decodes one LIFX LAN datagram given as hex (spaces, colons and a 0x prefix are allowed)
and prints its header and payload as JSON: hue in degrees, saturation and brightness 0-1,
durations in seconds, ids in hex, enums by name.`,
  footer: `Exit codes: 0 decoded, 2 bad input (not hex, or not a valid datagram).
Example:
  lightwire decode 240000343e80510800000000000000000000000000000000000000000000000002000000`,
  flags: DECODE_FLAGS,
  async run(p, io) {
    if (p.positionals.length === 0) throw usageError('give the datagram as hex');
    const datagram = parseHex(p.positionals.join(''));
    const result = decode(datagram);
    if (!result.ok) {
      io.stderr(`lightwire decode: ${result.error.code}: ${result.error.message}\n`);
      return EXIT.USAGE;
    }
    const { packet } = result;
    const payload =
      packet.name === null
        ? Buffer.from(packet.payload).toString('hex')
        : p.values.wire
          ? wireJson(packet.payload)
          : payloadToUserUnits(packet.name, packet.payload);
    const out = {
      message: packet.name ?? `Unknown(${packet.header.type})`,
      header: headerToUser(packet.header),
      payload,
    };
    io.stdout(`${JSON.stringify(out, null, 2)}\n`);
    if (result.missingBytes > 0) io.stderr(`note: the payload is ${result.missingBytes} bytes short of ${out.message}'s size; they were read as zeros\n`);
    return EXIT.OK;
  },
});
