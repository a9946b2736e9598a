// The 36-byte header as a field table plus its two flag words (https://lan.developer.lifx.com/docs/packet-contents).

import { writeHex } from './byte-types.js';
import { argumentWriter, field, hexBytes, reserved, struct, u16, u32, u8, type FieldType, type ValueOf } from './field-types.js';

export const PROTOCOL_NUMBER = 1024;
export const HEADER_BYTES = 36;
/** The target of a tagged (all devices) message: 6 zero bytes of serial. */
export const BROADCAST_TARGET = '000000000000';

export const HEADER_FIELDS = struct([
  field('sizeBytes', u16),
  // protocol:12 | addressable:1 | tagged:1 | origin:2, bit 0 = least significant.
  field('frameFlags', u16),
  field('source', u32),
  // Target = 6-byte serial + 2 zero bytes.
  field('target', hexBytes(6)),
  reserved(2),
  // Zeros on send; firmware puts "LIFXV2" here.
  reserved(6),
  // bit 0 res_required, bit 1 ack_required, bits 2-7 reserved.
  field('responseFlags', u8),
  field('sequence', u8),
  // Zeros on send; firmware often puts a clock here.
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
  /** Defaults to "target is all zero" (photons' rule). */
  readonly tagged?: boolean;
}

export interface Header {
  readonly sizeBytes: number;
  readonly protocol: number;
  readonly addressable: boolean;
  readonly tagged: boolean;
  /** Accepted on read (older firmware replies with origin 1), never sent. */
  readonly origin: number;
  readonly source: number;
  readonly target: string;
  readonly resRequired: boolean;
  readonly ackRequired: boolean;
  readonly sequence: number;
  readonly type: number;
}

type HeaderFields = ValueOf<typeof HEADER_FIELDS>;

/** Where a header field is and how it reads, from the table. */
function slot<K extends keyof HeaderFields>(name: K): (buf: Buffer, offset: number) => HeaderFields[K] {
  const spec = HEADER_FIELDS.fields.find((f) => f.name === name);
  const at = HEADER_FIELDS.offsets.get(name);
  if (spec?.name === undefined || at === undefined) throw new Error(`header table has no field ${name}`);
  const type = spec.type as FieldType<HeaderFields[K]>;
  return (buf, offset) => type.read(buf, offset + at);
}

const SIZE = slot('sizeBytes');
const FRAME_FLAGS = slot('frameFlags');
const SOURCE = slot('source');
const TARGET = slot('target');
const RESPONSE_FLAGS = slot('responseFlags');
const SEQUENCE = slot('sequence');
const TYPE = slot('type');

/**
 * Reads a header; the caller has checked that 36 bytes are there. Reserved bytes and bits are ignored. Each
 * field is read where the table puts it, straight into the Header (every datagram received has one: no object of the
 * raw fields in between).
 */
export function readHeader(buf: Buffer, offset: number): Header {
  const flags = FRAME_FLAGS(buf, offset);
  const response = RESPONSE_FLAGS(buf, offset);
  return {
    sizeBytes: SIZE(buf, offset),
    protocol: flags & PROTOCOL_MASK,
    addressable: (flags & FLAG_ADDRESSABLE) !== 0,
    tagged: (flags & FLAG_TAGGED) !== 0,
    origin: flags >>> ORIGIN_SHIFT,
    source: SOURCE(buf, offset),
    target: TARGET(buf, offset),
    resRequired: (response & RES_REQUIRED) !== 0,
    ackRequired: (response & ACK_REQUIRED) !== 0,
    sequence: SEQUENCE(buf, offset),
    type: TYPE(buf, offset),
  };
}

/** The header's named fields, in table order: what WRITE_HEADER takes. */
const HEADER_ORDER = ['sizeBytes', 'frameFlags', 'source', 'target', 'responseFlags', 'sequence', 'type'] as const;
if (HEADER_FIELDS.fields.flatMap((f) => (f.name === undefined ? [] : [f.name])).join() !== HEADER_ORDER.join()) {
  throw new Error('header table fields are not in the order WRITE_HEADER takes them');
}
const WRITE_HEADER = argumentWriter(HEADER_FIELDS, 'header') as unknown as (
  buf: Buffer,
  offset: number,
  sizeBytes: number,
  frameFlags: number,
  source: number,
  target: string,
  responseFlags: number,
  sequence: number,
  type: number,
) => void;

/**
 * Writes a complete header with zeros in every reserved byte and origin 0 (we never send origin). Each value is
 * checked by its field's type (VALUE_OUT_OF_RANGE naming `header.<field>`) and written where the table puts it, with
 * no object of the raw fields in between (every request sent has a header).
 */
export function writeHeader(buf: Buffer, offset: number, input: HeaderInput, type: number, sizeBytes: number): void {
  const target = input.target ?? BROADCAST_TARGET;
  const tagged = input.tagged ?? target === BROADCAST_TARGET;
  WRITE_HEADER(
    buf,
    offset,
    sizeBytes,
    PROTOCOL_NUMBER | FLAG_ADDRESSABLE | (tagged ? FLAG_TAGGED : 0),
    input.source,
    target,
    (input.resRequired ? RES_REQUIRED : 0) | (input.ackRequired ? ACK_REQUIRED : 0),
    input.sequence,
    type,
  );
}

const TARGET_AT = HEADER_FIELDS.offsets.get('target')!;
const SEQUENCE_AT = HEADER_FIELDS.offsets.get('sequence')!;
const FRAME_FLAGS_AT = HEADER_FIELDS.offsets.get('frameFlags')!;

/**
 * A copy of an encoded datagram (encode()) for another device and sequence number, every other byte the same: a
 * fleet's lights sent one payload cost one encoding, then a copy each. undefined when the copy would not be what
 * encode() makes of it: a target that is not 12 hex digits (encode() says why) or the broadcast one, a tagged datagram,
 * a sequence number that is not a byte.
 */
export function readdressed(datagram: Buffer, target: string, sequence: number): Buffer | undefined {
  if (datagram.length < HEADER_BYTES || (datagram.readUInt16LE(FRAME_FLAGS_AT) & FLAG_TAGGED) !== 0 || target === BROADCAST_TARGET) return undefined;
  if (!Number.isInteger(sequence) || sequence < 0 || sequence > 0xff) return undefined;
  // Every byte is copied, so the uninitialised pool memory never leaks out.
  const copy = Buffer.allocUnsafe(datagram.length);
  copy.set(datagram);
  if (!writeHex(copy, TARGET_AT, target, 6)) return undefined;
  copy[SEQUENCE_AT] = sequence;
  return copy;
}
