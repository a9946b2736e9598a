// encode / decode / encodingLength for every message, driven by the tables. Decoding is total: any
// datagram gives a packet or a coded error value, never an exception (lifx-lan-client throws from its socket
// handler when a known type arrives with the wrong payload length).

import { LightwireError } from '../errors.js';
import { HEADER_BYTES, PROTOCOL_NUMBER, readHeader, writeHeader, type Header, type HeaderInput } from './header.js';
import { MESSAGES, MESSAGE_NAME_BY_TYPE, type MessageName, type MessageSpec, type Payload } from './messages/index.js';

export type KnownPacket = {
  [N in MessageName]: { readonly name: N; readonly header: Header; readonly payload: Payload<N> };
}[MessageName];

/** A message type this table does not know (real networks carry some, e.g. 406): payload kept as raw bytes. */
export interface UnknownPacket {
  readonly name: null;
  readonly header: Header;
  readonly payload: Uint8Array;
}

export type Packet = KnownPacket | UnknownPacket;

/** What a sender supplies; a decoded packet is also a valid input (its extra header fields are derived anew). */
export interface PacketInput<N extends MessageName = MessageName> {
  readonly name: N;
  readonly header: HeaderInput;
  readonly payload: Payload<N>;
}

export type DecodeResult =
  | {
      readonly ok: true;
      readonly packet: Packet;
      /**
       * Payload bytes the message's fixed size has and the datagram did not carry, read as zeros (0: the payload was
       * whole). Real clients send such messages and real lights act on them (see decode).
       */
      readonly missingBytes: number;
    }
  | { readonly ok: false; readonly error: LightwireError<'DATAGRAM_TOO_SHORT' | 'SIZE_MISMATCH' | 'PROTOCOL_UNSUPPORTED'> };

interface Entry {
  readonly name: MessageName;
  readonly type: number;
  readonly payload: MessageSpec['payload'];
  readonly payloadBytes: number;
  readonly datagramBytes: number;
}

// Both lookups are derived from MESSAGES once: by name (a null-prototype object, so "toString" is not a
// message) and by type number (a dense array: type numbers are small).
const BY_NAME: Record<string, Entry | undefined> = Object.create(null) as Record<string, Entry | undefined>;
const BY_TYPE: (Entry | undefined)[] = new Array<Entry | undefined>(Math.max(...MESSAGE_NAME_BY_TYPE.keys()) + 1).fill(undefined);
for (const [type, name] of MESSAGE_NAME_BY_TYPE) {
  const spec = MESSAGES[name] as MessageSpec;
  const entry: Entry = {
    name,
    type,
    payload: spec.payload,
    payloadBytes: spec.payload.sizeBytes,
    datagramBytes: HEADER_BYTES + spec.payload.sizeBytes,
  };
  BY_NAME[name] = entry;
  BY_TYPE[type] = entry;
}

function entryOf(name: string): Entry {
  const entry = typeof name === 'string' ? BY_NAME[name] : undefined;
  if (entry === undefined) throw new LightwireError('MESSAGE_UNKNOWN', { message: String(name) });
  return entry;
}

/** Total datagram length of a message: header + its fixed payload. */
export function encodingLength(name: MessageName): number {
  return entryOf(name).datagramBytes;
}

function writeEntry(entry: Entry, input: PacketInput, buf: Buffer, offset: number): number {
  writeHeader(buf, offset, input.header, entry.type, entry.datagramBytes);
  entry.payload.write(buf, offset + HEADER_BYTES, input.payload, entry.name);
  return entry.datagramBytes;
}

/** Writes the datagram at `offset` and returns the number of bytes written. Throws on values that do not fit. */
export function encodeInto<N extends MessageName>(input: PacketInput<N>, buf: Buffer, offset = 0): number {
  const entry = entryOf(input.name);
  if (!Number.isInteger(offset) || offset < 0 || offset + entry.datagramBytes > buf.length) {
    throw new LightwireError('VALUE_OUT_OF_RANGE', {
      field: 'offset',
      value: String(offset),
      expected: `an offset leaving ${entry.datagramBytes} bytes in a ${buf.length}-byte buffer`,
    });
  }
  return writeEntry(entry, input as PacketInput, buf, offset);
}

/** Encodes one datagram into a new Buffer. Throws MESSAGE_UNKNOWN or VALUE_OUT_OF_RANGE (naming the field). */
export function encode<N extends MessageName>(input: PacketInput<N>): Buffer {
  const entry = entryOf(input.name);
  // Every byte is written (reserved ones as zeros), so the uninitialised pool memory never leaks out.
  const buf = Buffer.allocUnsafe(entry.datagramBytes);
  writeEntry(entry, input as PacketInput, buf, 0);
  return buf;
}

/** Decodes one datagram. Never throws. */
export function decode(datagram: Uint8Array): DecodeResult {
  const buf = Buffer.isBuffer(datagram) ? datagram : Buffer.from(datagram.buffer, datagram.byteOffset, datagram.byteLength);
  if (buf.length < HEADER_BYTES) {
    return { ok: false, error: new LightwireError('DATAGRAM_TOO_SHORT', { lengthBytes: buf.length }) };
  }
  const header = readHeader(buf, 0);
  if (header.sizeBytes !== buf.length) {
    return { ok: false, error: new LightwireError('SIZE_MISMATCH', { sizeField: header.sizeBytes, lengthBytes: buf.length }) };
  }
  if (header.protocol !== PROTOCOL_NUMBER) {
    return { ok: false, error: new LightwireError('PROTOCOL_UNSUPPORTED', { protocol: header.protocol }) };
  }
  const entry = header.type < BY_TYPE.length ? BY_TYPE[header.type] : undefined;
  if (entry === undefined) {
    return { ok: true, packet: { name: null, header, payload: new Uint8Array(buf.subarray(HEADER_BYTES)) }, missingBytes: 0 };
  }
  // A shorter payload is read with the missing bytes as zeros, as lights do: clients send only what they use
  // (aiolifx: SetExtendedColorZones with only its colours, a 3-colour SetTileEffect palette, GetTileEffect without
  // its reserved bytes), and a count field (colors_count, palette_count) says how many entries are meant
  // (https://lan.developer.lifx.com/docs/multizone-light-control, https://lan.developer.lifx.com/docs/tile-control).
  // A longer payload is read up to the table's size: bytes past it are not read.
  const missingBytes = Math.max(0, entry.payloadBytes - (buf.length - HEADER_BYTES));
  const source = missingBytes === 0 ? buf : zeroPadded(buf, HEADER_BYTES + entry.payloadBytes);
  const payload = entry.payload.read(source, HEADER_BYTES);
  return { ok: true, packet: { name: entry.name, header, payload } as KnownPacket, missingBytes };
}

/** `buf` followed by zeros up to `lengthBytes`. */
function zeroPadded(buf: Buffer, lengthBytes: number): Buffer {
  const out = Buffer.alloc(lengthBytes);
  buf.copy(out);
  return out;
}

/** Narrows a decoded packet to one message name. */
export function isPacket<N extends MessageName>(
  packet: Packet,
  name: N,
): packet is Extract<KnownPacket, { readonly name: N }> {
  return packet.name === name;
}
