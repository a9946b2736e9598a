// encode / decode / encodingLength for every message, driven by the tables. Decoding is total: any
// datagram gives a packet or a coded error value, never an exception (lan-protocol.md §1.7, §7.3 pitfall 7).

import { LightwireError } from '../errors.js';
import { HEADER_BYTES, PROTOCOL_NUMBER, readHeader, writeHeader, type Header, type HeaderInput } from './header.js';
import { MESSAGES, MESSAGE_NAME_BY_TYPE, isMessageName, type MessageName, type MessageSpec, type Payload } from './messages/index.js';

export type KnownPacket = {
  [N in MessageName]: { readonly name: N; readonly header: Header; readonly payload: Payload<N> };
}[MessageName];

/** A message type this table does not know (real networks carry some, §1.5): payload kept as raw bytes. */
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
  | { readonly ok: true; readonly packet: Packet }
  | {
      readonly ok: false;
      readonly error: LightwireError<'DATAGRAM_TOO_SHORT' | 'SIZE_MISMATCH' | 'PROTOCOL_UNSUPPORTED' | 'PAYLOAD_TOO_SHORT'>;
    };

function specOf(name: string): MessageSpec {
  if (!isMessageName(name)) throw new LightwireError('MESSAGE_UNKNOWN', { message: String(name) });
  return MESSAGES[name] as MessageSpec;
}

/** Total datagram length of a message: header + its fixed payload. */
export function encodingLength(name: MessageName): number {
  return HEADER_BYTES + specOf(name).payload.sizeBytes;
}

/** Writes the datagram at `offset` and returns the number of bytes written. Throws on values that do not fit. */
export function encodeInto<N extends MessageName>(input: PacketInput<N>, buf: Buffer, offset = 0): number {
  const spec = specOf(input.name);
  const sizeBytes = HEADER_BYTES + spec.payload.sizeBytes;
  if (offset < 0 || offset + sizeBytes > buf.length) {
    throw new LightwireError('VALUE_OUT_OF_RANGE', {
      field: 'offset',
      value: String(offset),
      expected: `an offset leaving ${sizeBytes} bytes in a ${buf.length}-byte buffer`,
    });
  }
  writeHeader(buf, offset, input.header, spec.type, sizeBytes);
  spec.payload.write(buf, offset + HEADER_BYTES, input.payload, `${input.name}`);
  return sizeBytes;
}

export function encode<N extends MessageName>(input: PacketInput<N>): Buffer {
  const buf = Buffer.allocUnsafe(encodingLength(input.name));
  encodeInto(input, buf, 0);
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
  const name = MESSAGE_NAME_BY_TYPE.get(header.type);
  if (name === undefined) {
    return { ok: true, packet: { name: null, header, payload: new Uint8Array(buf.subarray(HEADER_BYTES)) } };
  }
  const spec = MESSAGES[name] as MessageSpec;
  const payloadBytes = buf.length - HEADER_BYTES;
  if (payloadBytes < spec.payload.sizeBytes) {
    return {
      ok: false,
      error: new LightwireError('PAYLOAD_TOO_SHORT', {
        messageName: name,
        type: header.type,
        payloadBytes,
        neededBytes: spec.payload.sizeBytes,
      }),
    };
  }
  // A longer payload still decodes: newer firmware may append fields (§1.5).
  const payload = spec.payload.read(buf, HEADER_BYTES);
  return { ok: true, packet: { name, header, payload } as KnownPacket };
}

/** Narrows a decoded packet to one message name. */
export function isPacket<N extends MessageName>(
  packet: Packet,
  name: N,
): packet is Extract<KnownPacket, { readonly name: N }> {
  return packet.name === name;
}
