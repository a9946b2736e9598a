// The 36-byte header (lan-protocol.md §1.2-1.4) as a field table plus its two flag words.

import { field, hexBytes, reserved, struct, u16, u32, u8 } from './field-types.js';

export const PROTOCOL_NUMBER = 1024;
export const HEADER_BYTES = 36;
/** The target of a tagged (all devices) message: 6 zero bytes of serial. */
export const BROADCAST_TARGET = '000000000000';

export const HEADER_FIELDS = struct([
  field('sizeBytes', u16),
  // protocol:12 | addressable:1 | tagged:1 | origin:2, bit 0 = least significant (§1.3).
  field('frameFlags', u16),
  field('source', u32),
  // Target = 6-byte serial + 2 zero bytes (§1.2).
  field('target', hexBytes(6)),
  reserved(2),
  // Zeros on send; firmware puts "LIFXV2" here (§1.2).
  reserved(6),
  // bit 0 res_required, bit 1 ack_required, bits 2-7 reserved (§1.3).
  field('responseFlags', u8),
  field('sequence', u8),
  // Zeros on send; firmware often puts a clock here (§1.2).
  reserved(8),
  field('type', u16),
  reserved(2),
]);

if (HEADER_FIELDS.sizeBytes !== HEADER_BYTES) throw new Error('header table must be 36 bytes');

const FLAG_ADDRESSABLE = 0x1000;
const FLAG_TAGGED = 0x2000;
const ORIGIN_SHIFT = 14;
const PROTOCOL_MASK = 0x0fff;
const RES_REQUIRED = 0x01;
const ACK_REQUIRED = 0x02;

/** What a sender chooses; everything else in the header is derived. */
export interface HeaderInput {
  readonly source: number;
  readonly sequence: number;
  /** 12 hex digits; omitted or all zero means every device (tagged). */
  readonly target?: string;
  readonly ackRequired?: boolean;
  readonly resRequired?: boolean;
  /** Defaults to "target is all zero" (photons' rule, §1.4). */
  readonly tagged?: boolean;
}

export interface Header {
  readonly sizeBytes: number;
  readonly protocol: number;
  readonly addressable: boolean;
  readonly tagged: boolean;
  /** Accepted on read, never sent (§1.3). */
  readonly origin: number;
  readonly source: number;
  readonly target: string;
  readonly resRequired: boolean;
  readonly ackRequired: boolean;
  readonly sequence: number;
  readonly type: number;
}

const at = (name: string): number => HEADER_FIELDS.offsets.get(name)!;
const OFF_SIZE = at('sizeBytes');
const OFF_FLAGS = at('frameFlags');
const OFF_SOURCE = at('source');
const OFF_TARGET = at('target');
const OFF_RESPONSE = at('responseFlags');
const OFF_SEQUENCE = at('sequence');
const OFF_TYPE = at('type');
const targetType = hexBytes(6);

/** Reads a header; the caller has checked that 36 bytes are there. Reserved bits are masked. */
export function readHeader(buf: Buffer, offset: number): Header {
  const flags = u16.read(buf, offset + OFF_FLAGS);
  const response = buf[offset + OFF_RESPONSE]!;
  return {
    sizeBytes: u16.read(buf, offset + OFF_SIZE),
    protocol: flags & PROTOCOL_MASK,
    addressable: (flags & FLAG_ADDRESSABLE) !== 0,
    tagged: (flags & FLAG_TAGGED) !== 0,
    origin: flags >>> ORIGIN_SHIFT,
    source: u32.read(buf, offset + OFF_SOURCE),
    target: targetType.read(buf, offset + OFF_TARGET),
    resRequired: (response & RES_REQUIRED) !== 0,
    ackRequired: (response & ACK_REQUIRED) !== 0,
    sequence: buf[offset + OFF_SEQUENCE]!,
    type: u16.read(buf, offset + OFF_TYPE),
  };
}

/** Writes a complete header with zeros in every reserved byte and origin 0. */
export function writeHeader(buf: Buffer, offset: number, input: HeaderInput, type: number, sizeBytes: number): void {
  const target = input.target ?? BROADCAST_TARGET;
  const tagged = input.tagged ?? target === BROADCAST_TARGET;
  buf.fill(0, offset, offset + HEADER_BYTES);
  u16.write(buf, offset + OFF_SIZE, sizeBytes, 'header.sizeBytes');
  u16.write(buf, offset + OFF_FLAGS, PROTOCOL_NUMBER | FLAG_ADDRESSABLE | (tagged ? FLAG_TAGGED : 0), 'header.frameFlags');
  u32.write(buf, offset + OFF_SOURCE, input.source, 'header.source');
  targetType.write(buf, offset + OFF_TARGET, target, 'header.target');
  buf[offset + OFF_RESPONSE] = (input.resRequired ? RES_REQUIRED : 0) | (input.ackRequired ? ACK_REQUIRED : 0);
  u8.write(buf, offset + OFF_SEQUENCE, input.sequence, 'header.sequence');
  u16.write(buf, offset + OFF_TYPE, type, 'header.type');
}
