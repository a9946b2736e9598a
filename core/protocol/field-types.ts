// The only byte code in Lightwire. Every message, the header included, is a table of fields built from
// these types; encode/decode/size are derived from the tables (lan-protocol.md §2, §7.1).
// All integers and floats are little-endian (§1.1). Reserved bytes are written as zeros and skipped on read.

import { LightwireError } from '../errors.js';

/** The unit a wire field is expressed in, used to show it in user units (core/protocol/units.ts). */
export type WireUnit =
  | 'hue'
  | 'fraction'
  | 'kelvin'
  | 'ms'
  | 'ns'
  | 's'
  | 'power'
  | 'skew'
  | 'epochNs';

export interface FieldType<T> {
  /** What the type is, for tests and the protocol.yml cross-check. */
  readonly kind: string;
  readonly sizeBytes: number;
  /** Reads at `offset`; the caller guarantees `sizeBytes` are available. Never throws. */
  read(buf: Buffer, offset: number): T;
  /** Writes at `offset`; throws VALUE_OUT_OF_RANGE (with `path`) when the value does not fit. */
  write(buf: Buffer, offset: number, value: T, path: string): void;
  /** The value an all-zero field decodes to. */
  zero(): T;
}

export interface Field<N extends string = string, T = unknown> {
  readonly name: N;
  readonly type: FieldType<T>;
  readonly unit?: WireUnit;
}

export interface Reserved {
  readonly name?: undefined;
  readonly reservedBytes: number;
}

export type FieldSpec = Field<string, any> | Reserved;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The value type of a struct, derived from its field table by the compiler. */
export type StructValue<F extends readonly FieldSpec[]> = Simplify<{
  -readonly [E in Extract<F[number], Field<string, any>> as E['name']]: E extends Field<string, infer T> ? T : never;
}>;

export type ValueOf<FT> = FT extends FieldType<infer T> ? T : never;

export function field<const N extends string, T>(name: N, type: FieldType<T>, unit?: WireUnit): Field<N, T> {
  return unit === undefined ? { name, type } : { name, type, unit };
}

export function reserved(bytes: number): Reserved {
  return { reservedBytes: bytes };
}

function outOfRange(path: string, value: unknown, expected: string): LightwireError<'VALUE_OUT_OF_RANGE'> {
  const shown = typeof value === 'bigint' ? `${value}n` : typeof value === 'string' ? JSON.stringify(value) : String(value);
  return new LightwireError('VALUE_OUT_OF_RANGE', { field: path, value: shown, expected });
}

function integer(kind: string, sizeBytes: 1 | 2 | 4, min: number, max: number): FieldType<number> {
  const expected = `an integer from ${min} to ${max}`;
  const check = (value: number, path: string): void => {
    if (!Number.isInteger(value) || value < min || value > max) throw outOfRange(path, value, expected);
  };
  switch (kind) {
    case 'u8':
      return {
        kind, sizeBytes, zero: () => 0,
        read: (b, o) => b[o]!,
        write: (b, o, v, p) => { check(v, p); b[o] = v; },
      };
    case 'u16':
      return {
        kind, sizeBytes, zero: () => 0,
        read: (b, o) => b[o]! | (b[o + 1]! << 8),
        write: (b, o, v, p) => { check(v, p); b[o] = v & 0xff; b[o + 1] = v >>> 8; },
      };
    case 'i16':
      return {
        kind, sizeBytes, zero: () => 0,
        read: (b, o) => ((b[o]! | (b[o + 1]! << 8)) << 16) >> 16,
        write: (b, o, v, p) => { check(v, p); b[o] = v & 0xff; b[o + 1] = (v >> 8) & 0xff; },
      };
    case 'u32':
      return {
        kind, sizeBytes, zero: () => 0,
        read: (b, o) => (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16)) + b[o + 3]! * 0x1000000,
        write: (b, o, v, p) => {
          check(v, p);
          b[o] = v & 0xff; b[o + 1] = (v >>> 8) & 0xff; b[o + 2] = (v >>> 16) & 0xff; b[o + 3] = v >>> 24;
        },
      };
    default:
      throw new Error(`no integer type ${kind}`);
  }
}

export const u8 = integer('u8', 1, 0, 0xff);
export const u16 = integer('u16', 2, 0, 0xffff);
export const i16 = integer('i16', 2, -0x8000, 0x7fff);
export const u32 = integer('u32', 4, 0, 0xffffffff);

const U64_MAX = (1n << 64n) - 1n;
export const u64: FieldType<bigint> = {
  kind: 'u64',
  sizeBytes: 8,
  zero: () => 0n,
  read: (b, o) => b.readBigUInt64LE(o),
  write: (b, o, v, p) => {
    if (typeof v !== 'bigint' || v < 0n || v > U64_MAX) throw outOfRange(p, v, 'a bigint from 0 to 2^64-1');
    b.writeBigUInt64LE(v, o);
  },
};

export const f32: FieldType<number> = {
  kind: 'f32',
  sizeBytes: 4,
  zero: () => 0,
  read: (b, o) => b.readFloatLE(o),
  write: (b, o, v, p) => {
    if (typeof v !== 'number' || Number.isNaN(v)) throw outOfRange(p, v, 'a number');
    b.writeFloatLE(v, o);
  },
};

/** bool is one byte; any non-zero byte reads as true (firmware writes 0/1). */
export const bool: FieldType<boolean> = {
  kind: 'bool',
  sizeBytes: 1,
  zero: () => false,
  read: (b, o) => b[o] !== 0,
  write: (b, o, v, p) => {
    if (typeof v !== 'boolean') throw outOfRange(p, v, 'true or false');
    b[o] = v ? 1 : 0;
  },
};

/** Raw bytes of a fixed length, as a plain Uint8Array copy. Shorter input is zero-padded. */
export function bytes(sizeBytes: number): FieldType<Uint8Array> {
  return {
    kind: `bytes(${sizeBytes})`,
    sizeBytes,
    zero: () => new Uint8Array(sizeBytes),
    read: (b, o) => new Uint8Array(b.subarray(o, o + sizeBytes)),
    write: (b, o, v, p) => {
      if (!(v instanceof Uint8Array) || v.length > sizeBytes) throw outOfRange(p, v, `at most ${sizeBytes} bytes`);
      b.set(v, o);
      if (v.length < sizeBytes) b.fill(0, o + v.length, o + sizeBytes);
    },
  };
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const HEX_PATTERN = /^(?:[0-9a-f]{2})*$/i;

/** Bytes shown as lowercase hex (serials, group and location ids). */
export function hexBytes(sizeBytes: number): FieldType<string> {
  const zero = '00'.repeat(sizeBytes);
  return {
    kind: `hex(${sizeBytes})`,
    sizeBytes,
    zero: () => zero,
    read: (b, o) => {
      let s = '';
      for (let i = 0; i < sizeBytes; i++) s += HEX[b[o + i]!]!;
      return s;
    },
    write: (b, o, v, p) => {
      if (typeof v !== 'string' || v.length !== sizeBytes * 2 || !HEX_PATTERN.test(v)) {
        throw outOfRange(p, v, `${sizeBytes * 2} hex digits`);
      }
      b.write(v, o, sizeBytes, 'hex');
    },
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** Truncates UTF-8 to at most `maxBytes` without splitting a character (lan-protocol.md §2.2, §7.3 pitfall 2). */
export function utf8Truncated(text: string, maxBytes: number): Buffer {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= maxBytes) return encoded;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the character that does not fit.
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end);
}

/** A NUL-padded UTF-8 string: truncated on a character boundary, read up to the first NUL (§2.2). */
export function label(sizeBytes: number): FieldType<string> {
  return {
    kind: `label(${sizeBytes})`,
    sizeBytes,
    zero: () => '',
    read: (b, o) => {
      const end = b.indexOf(0, o);
      const stop = end === -1 || end > o + sizeBytes ? o + sizeBytes : end;
      if (stop === o) return '';
      // Pure ASCII is the common case; latin1 of ASCII equals its UTF-8.
      let ascii = true;
      for (let i = o; i < stop; i++) if (b[i]! > 0x7f) { ascii = false; break; }
      return ascii ? b.toString('latin1', o, stop) : utf8.decode(b.subarray(o, stop));
    },
    write: (b, o, v, p) => {
      if (typeof v !== 'string') throw outOfRange(p, v, 'a string');
      const encoded = utf8Truncated(v, sizeBytes);
      b.set(encoded, o);
      b.fill(0, o + encoded.length, o + sizeBytes);
    },
  };
}

/** An enum stored as an integer type; the name table is used for display only. */
export interface EnumType extends FieldType<number> {
  readonly names: Readonly<Record<number, string>>;
}

export function enumOf(base: FieldType<number>, names: Readonly<Record<number, string>>): EnumType {
  return { ...base, kind: `enum(${base.kind})`, names };
}

export interface StructType<F extends readonly FieldSpec[]> extends FieldType<StructValue<F>> {
  readonly fields: F;
  /** Byte offset of every named field inside the struct. */
  readonly offsets: ReadonlyMap<string, number>;
}

interface Slot {
  readonly name: string;
  readonly offset: number;
  readonly type: FieldType<unknown>;
}

export function struct<const F extends readonly FieldSpec[]>(fields: F): StructType<F> {
  const slots: Slot[] = [];
  const offsets = new Map<string, number>();
  let sizeBytes = 0;
  for (const spec of fields) {
    if (spec.name === undefined) {
      sizeBytes += spec.reservedBytes;
      continue;
    }
    slots.push({ name: spec.name, offset: sizeBytes, type: spec.type as FieldType<unknown> });
    offsets.set(spec.name, sizeBytes);
    sizeBytes += spec.type.sizeBytes;
  }
  const names = slots.map((s) => s.name);
  type V = StructValue<F>;
  return {
    kind: 'struct',
    sizeBytes,
    fields,
    offsets,
    zero: () => {
      const out: Record<string, unknown> = {};
      for (const s of slots) out[s.name] = s.type.zero();
      return out as V;
    },
    read: (b, o) => {
      const out: Record<string, unknown> = {};
      for (let i = 0; i < slots.length; i++) {
        const s = slots[i]!;
        out[s.name] = s.type.read(b, o + s.offset);
      }
      return out as V;
    },
    write: (b, o, v, p) => {
      if (typeof v !== 'object' || v === null) throw outOfRange(p, v, 'an object');
      // Reserved gaps must be zero even when the target buffer is reused.
      b.fill(0, o, o + sizeBytes);
      const record = v as Record<string, unknown>;
      for (let i = 0; i < slots.length; i++) {
        const s = slots[i]!;
        const value = record[s.name];
        if (value === undefined) throw outOfRange(p ? `${p}.${names[i]}` : names[i]!, value, 'set');
        s.type.write(b, o + s.offset, value, p ? `${p}.${s.name}` : s.name);
      }
    },
  };
}

/** A fixed-length array. Encoding accepts fewer elements and zero-fills the rest; decoding returns all. */
export interface ArrayType<T> extends FieldType<T[]> {
  readonly element: FieldType<T>;
  readonly count: number;
}

export function array<T>(element: FieldType<T>, count: number): ArrayType<T> {
  const stride = element.sizeBytes;
  const sizeBytes = stride * count;
  return {
    kind: `array(${element.kind},${count})`,
    element,
    count,
    sizeBytes,
    zero: () => Array.from({ length: count }, () => element.zero()),
    read: (b, o) => {
      const out = new Array<T>(count);
      for (let i = 0; i < count; i++) out[i] = element.read(b, o + i * stride);
      return out;
    },
    write: (b, o, v, p) => {
      if (!Array.isArray(v) || v.length > count) throw outOfRange(p, Array.isArray(v) ? `${v.length} items` : v, `at most ${count} items`);
      for (let i = 0; i < v.length; i++) element.write(b, o + i * stride, v[i] as T, `${p}[${i}]`);
      if (v.length < count) b.fill(0, o + v.length * stride, o + sizeBytes);
    },
  };
}
