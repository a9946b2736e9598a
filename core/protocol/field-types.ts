// The only byte code in Lightwire. Every message, the header included, is a table of fields built from
// these types; encode/decode/size are derived from the tables (photons' declarative model).
// All integers and floats are little-endian (https://lan.developer.lifx.com/docs/packet-contents).
// Reserved bytes are written as zeros and skipped on read.
//
// Speed without hand-written codecs: each primitive type also describes its byte code as a JavaScript
// snippet (`gen`), and `struct`/`array` splice the snippets of their fields into one straight-line reader
// and one writer per table, compiled once when the table is built (new Function over generated source).
// Messages stay data; the generated code is derived from the tables exactly like offsets and sizes are.
// Error paths ("SetColor.color.hue") are expressions in that code evaluated only when a check fails.

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
  /** The type's byte code as source snippets, spliced into compiled struct readers/writers. Optional:
   * a type without it is called through read/write instead. */
  readonly gen?: Gen;
}

/** Source snippets of one field type for the table compiler (see Compiler). */
export interface Gen {
  /** Emits any statements it needs, then returns a JS expression for the value at byte offset `at`. */
  read(c: Compiler, at: Offset): string;
  /**
   * Emits statements that check the value held in the JS variable `v` and write it at `at`. `path` is a JS
   * expression for the field path, evaluated only when a check fails.
   */
  write(c: Compiler, at: Offset, v: string, path: string): void;
}

/** A byte offset in generated code: a JS expression plus a constant, so constants fold at generation time. */
export interface Offset {
  readonly base: string;
  readonly k: number;
}

const plus = (at: Offset, n: number): Offset => ({ base: at.base, k: at.k + n });
const src = (at: Offset): string => (at.k === 0 ? at.base : `${at.base} + ${at.k}`);

/** Collects generated statements and the outside values they refer to, then compiles them into a function. */
export class Compiler {
  private readonly refNames: string[] = [];
  private readonly refValues: unknown[] = [];
  private readonly lines: string[] = [];
  private counter = 0;

  /** A name under which generated code can use `value` (a helper, a table, a constant). */
  ref(value: unknown): string {
    const i = this.refValues.indexOf(value);
    if (i !== -1) return this.refNames[i]!;
    const name = `$${this.refNames.length}`;
    this.refNames.push(name);
    this.refValues.push(value);
    return name;
  }

  /** A fresh local variable name. */
  tmp(hint = 't'): string {
    return `${hint}${this.counter++}`;
  }

  emit(line: string): void {
    this.lines.push(line);
  }

  compile<F>(params: readonly string[], returnExpr: string | null, label: string): F {
    const body = [...this.lines, returnExpr === null ? '' : `return ${returnExpr};`].join('\n');
    const source = `"use strict";\nreturn function ${label}(${params.join(', ')}) {\n${body}\n};`;
    return new Function(...this.refNames, source)(...this.refValues) as F;
  }
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

function shown(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `${value.length} items`;
  return String(value);
}

function outOfRange(path: string, value: unknown, expected: string): LightwireError<'VALUE_OUT_OF_RANGE'> {
  return new LightwireError('VALUE_OUT_OF_RANGE', { field: path, value: shown(value), expected });
}

/** Called by generated code when a check fails; a missing value is reported as such. */
function fail(path: string, value: unknown, expected: string): never {
  throw outOfRange(path, value, value === undefined ? 'set' : expected);
}

/** Joins a struct path and a field name ("" at the top). Only evaluated on failure. */
function join(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

const lit = (s: string): string => JSON.stringify(s);

/**
 * Wraps a snippet-described type with standalone read/write, compiled on first use: a client that speaks a
 * dozen of the 77 messages never pays for compiling (and keeping) the code of the others.
 */
function compiled<T>(kind: string, sizeBytes: number, zero: () => T, gen: Gen, extra: object = {}): FieldType<T> {
  const label = kind.replace(/\W+/g, '_');
  type Read = (b: Buffer, o: number) => T;
  type Write = (b: Buffer, o: number, v: T, p: string) => void;
  let read: Read | undefined;
  let write: Write | undefined;
  const compileRead = (): Read => {
    const r = new Compiler();
    const readExpr = gen.read(r, { base: 'o', k: 0 });
    return r.compile<Read>(['b', 'o'], readExpr, `read_${label}`);
  };
  const compileWrite = (): Write => {
    const w = new Compiler();
    gen.write(w, { base: 'o', k: 0 }, 'v', 'p');
    return w.compile<Write>(['b', 'o', 'v', 'p'], null, `write_${label}`);
  };
  const type: FieldType<T> & { read: Read; write: Write } = {
    kind,
    sizeBytes,
    zero,
    gen,
    // The first call compiles and puts the compiled function in place; copies of this object keep working.
    read: (b, o) => {
      read ??= compileRead();
      type.read = read;
      return read(b, o);
    },
    write: (b, o, v, p) => {
      write ??= compileWrite();
      type.write = write;
      write(b, o, v, p);
    },
    ...extra,
  };
  return type;
}

/**
 * An integer type. `fits` is an expression true exactly when `v` is a number that is an integer in range
 * (bit tricks: (v & 0xff) === v holds only for integers 0..255, and is false for NaN, -1, 1.5 and non-numbers).
 */
function integer(kind: string, sizeBytes: 1 | 2 | 4, min: number, max: number): FieldType<number> {
  const expected = `an integer from ${min} to ${max}`;
  const fits: Record<string, (v: string) => string> = {
    u8: (v) => `(${v} & 0xff) === ${v}`,
    u16: (v) => `(${v} & 0xffff) === ${v}`,
    i16: (v) => `((${v} << 16) >> 16) === ${v}`,
    u32: (v) => `(${v} >>> 0) === ${v}`,
  };
  const reads: Record<string, (b: (i: number) => string) => string> = {
    u8: (b) => b(0),
    u16: (b) => `(${b(0)} | (${b(1)} << 8))`,
    i16: (b) => `(((${b(0)} | (${b(1)} << 8)) << 16) >> 16)`,
    u32: (b) => `((${b(0)} | (${b(1)} << 8) | (${b(2)} << 16)) + ${b(3)} * 0x1000000)`,
  };
  // A Uint8Array store keeps the low 8 bits (ToUint8), so each byte is the value shifted right.
  const shifts = [0, 8, 16, 24].slice(0, sizeBytes);
  const fit = fits[kind];
  const read = reads[kind];
  if (fit === undefined || read === undefined) throw new Error(`no integer type ${kind}`);
  const gen: Gen = {
    read: (_c, at) => read((i) => `b[${src(plus(at, i))}]`),
    write: (c, at, v, path) => {
      c.emit(`if (typeof ${v} !== 'number' || !(${fit(v)})) ${c.ref(fail)}(${path}, ${v}, ${lit(expected)});`);
      for (const [i, s] of shifts.entries()) c.emit(`b[${src(plus(at, i))}] = ${s === 0 ? v : `${v} >>> ${s}`};`);
    },
  };
  return compiled(kind, sizeBytes, () => 0, gen);
}

export const u8 = integer('u8', 1, 0, 0xff);
export const u16 = integer('u16', 2, 0, 0xffff);
export const i16 = integer('i16', 2, -0x8000, 0x7fff);
export const u32 = integer('u32', 4, 0, 0xffffffff);

const U64_MAX = (1n << 64n) - 1n;
const readU64 = (b: Buffer, o: number): bigint => b.readBigUInt64LE(o);
const writeU64 = (b: Buffer, o: number, v: bigint): void => void b.writeBigUInt64LE(v, o);

export const u64: FieldType<bigint> = compiled('u64', 8, () => 0n, {
  read: (c, at) => `${c.ref(readU64)}(b, ${src(at)})`,
  write: (c, at, v, path) => {
    c.emit(
      `if (typeof ${v} !== 'bigint' || ${v} < 0n || ${v} > ${c.ref(U64_MAX)}) ` +
        `${c.ref(fail)}(${path}, ${v}, 'a bigint from 0 to 2^64-1');`,
    );
    c.emit(`${c.ref(writeU64)}(b, ${src(at)}, ${v});`);
  },
});

// One shared scratch word converts between float32 and its bytes without Buffer's bounds checks.
const F32 = new Float32Array(1);
const F32_BYTES = new Uint8Array(F32.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const F32_ORDER = LITTLE_ENDIAN ? [0, 1, 2, 3] : [3, 2, 1, 0];

export const f32: FieldType<number> = compiled('f32', 4, () => 0, {
  read: (c, at) => {
    const word = c.ref(F32);
    const bytes = c.ref(F32_BYTES);
    for (const [i, j] of F32_ORDER.entries()) c.emit(`${bytes}[${j}] = b[${src(plus(at, i))}];`);
    const t = c.tmp('f');
    c.emit(`const ${t} = ${word}[0];`);
    return t;
  },
  write: (c, at, v, path) => {
    c.emit(`if (typeof ${v} !== 'number' || ${v} !== ${v}) ${c.ref(fail)}(${path}, ${v}, 'a number');`);
    const bytes = c.ref(F32_BYTES);
    c.emit(`${c.ref(F32)}[0] = ${v};`);
    for (const [i, j] of F32_ORDER.entries()) c.emit(`b[${src(plus(at, i))}] = ${bytes}[${j}];`);
  },
});

/** bool is one byte; any non-zero byte reads as true (firmware writes 0/1). */
export const bool: FieldType<boolean> = compiled('bool', 1, () => false, {
  read: (_c, at) => `(b[${src(at)}] !== 0)`,
  write: (c, at, v, path) => {
    c.emit(`if (typeof ${v} !== 'boolean') ${c.ref(fail)}(${path}, ${v}, 'true or false');`);
    c.emit(`b[${src(at)}] = ${v} ? 1 : 0;`);
  },
});

/** Zeroes `n` bytes from `at` in generated code: unrolled stores when short, one fill otherwise. */
function emitZeros(c: Compiler, at: Offset, n: number): void {
  if (n <= 0) return;
  if (n <= 8) {
    for (let i = 0; i < n; i++) c.emit(`b[${src(plus(at, i))}] = 0;`);
  } else {
    c.emit(`b.fill(0, ${src(at)}, ${src(plus(at, n))});`);
  }
}

const readBytes = (b: Buffer, o: number, n: number): Uint8Array => new Uint8Array(b.subarray(o, o + n));
function writeBytes(b: Buffer, o: number, v: Uint8Array, n: number): void {
  b.set(v, o);
  if (v.length < n) b.fill(0, o + v.length, o + n);
}

/** Raw bytes of a fixed length, as a plain Uint8Array copy. Shorter input is zero-padded. */
export function bytes(sizeBytes: number): FieldType<Uint8Array> {
  return compiled(`bytes(${sizeBytes})`, sizeBytes, () => new Uint8Array(sizeBytes), {
    read: (c, at) => `${c.ref(readBytes)}(b, ${src(at)}, ${sizeBytes})`,
    write: (c, at, v, path) => {
      c.emit(
        `if (!(${v} instanceof Uint8Array) || ${v}.length > ${sizeBytes}) ` +
          `${c.ref(fail)}(${path}, ${v}, ${lit(`at most ${sizeBytes} bytes`)});`,
      );
      c.emit(`${c.ref(writeBytes)}(b, ${src(at)}, ${v}, ${sizeBytes});`);
    },
  });
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** Up to this many bytes, hex is joined from HEX (V8 keeps strings under 13 characters flat when joining). */
const SHORT_HEX_BYTES = 6;
/** Char code -> nibble value, -1 for anything that is not a hex digit. */
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  NIBBLE[i.toString(16).charCodeAt(0)] = i;
  NIBBLE[i.toString(16).toUpperCase().charCodeAt(0)] = i;
}

/** Writes `n` bytes from 2n hex digits; false (with nothing promised about the bytes) when `v` is not that. */
function writeHex(b: Buffer, o: number, v: unknown, n: number): boolean {
  if (typeof v !== 'string' || v.length !== n * 2) return false;
  for (let i = 0; i < n; i++) {
    const hi = v.charCodeAt(2 * i);
    const lo = v.charCodeAt(2 * i + 1);
    const h = hi < 128 ? NIBBLE[hi]! : -1;
    const l = lo < 128 ? NIBBLE[lo]! : -1;
    if ((h | l) < 0) return false;
    b[o + i] = (h << 4) | l;
  }
  return true;
}

/** How many serials readSerial keeps (then it starts afresh): more than a LAN has lights. */
const SERIALS_KEPT = 4096;
/** Serials read lately, by their last four bytes as a signed 32-bit integer: the first two bytes and the hex. */
const SERIALS = new Map<number, { readonly head: number; readonly hex: string }>();

/**
 * A serial (6 bytes) as 12 hex digits: the same string as last time for the same bytes. Every header carries one (the
 * target), and a fleet's packets name the same few hundred, so a packet usually builds no string for it.
 */
function readSerial(b: Buffer, o: number): string {
  const key = b[o + 2]! | (b[o + 3]! << 8) | (b[o + 4]! << 16) | (b[o + 5]! << 24);
  const head = b[o]! | (b[o + 1]! << 8);
  const known = SERIALS.get(key);
  if (known !== undefined && known.head === head) return known.hex;
  const hex = HEX[b[o]!]! + HEX[b[o + 1]!]! + HEX[b[o + 2]!]! + HEX[b[o + 3]!]! + HEX[b[o + 4]!]! + HEX[b[o + 5]!]!;
  if (SERIALS.size >= SERIALS_KEPT) SERIALS.clear();
  SERIALS.set(key, { head, hex });
  return hex;
}

/** Bytes shown as lowercase hex (serials, group and location ids). */
export function hexBytes(sizeBytes: number): FieldType<string> {
  const zero = '00'.repeat(sizeBytes);
  return compiled(`hex(${sizeBytes})`, sizeBytes, () => zero, {
    read: (c, at) => {
      // A serial is read through its cache (readSerial). Other short ones are fastest joined from a table; a longer id
      // (16 bytes: group, location) would be built as a chain of a dozen string pieces that stays in memory as long as
      // the id does, so it is read flat, in one call.
      if (sizeBytes === 6) return `${c.ref(readSerial)}(b, ${src(at)})`;
      if (sizeBytes > SHORT_HEX_BYTES) return `b.toString('hex', ${src(at)}, ${src(plus(at, sizeBytes))})`;
      const table = c.ref(HEX);
      return `(${Array.from({ length: sizeBytes }, (_, i) => `${table}[b[${src(plus(at, i))}]]`).join(' + ')})`;
    },
    write: (c, at, v, path) => {
      c.emit(
        `if (!${c.ref(writeHex)}(b, ${src(at)}, ${v}, ${sizeBytes})) ` +
          `${c.ref(fail)}(${path}, ${v}, ${lit(`${sizeBytes * 2} hex digits`)});`,
      );
    },
  });
}

// ignoreBOM: a label that starts with U+FEFF keeps it; invalid sequences become U+FFFD.
const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Truncates UTF-8 to at most `maxBytes` without splitting a character (photons can cut one mid-character). */
export function utf8Truncated(text: string, maxBytes: number): Buffer {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= maxBytes) return encoded;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the character that does not fit.
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end);
}

// Buffer's own latin1 slicer (what toString('latin1') ends in), without toString's argument handling; it is
// not documented, so toString stands in should a Node release drop it.
type Slice = (this: Buffer, start: number, end: number) => string;
const latin1: Slice =
  (Buffer.prototype as unknown as { latin1Slice?: Slice }).latin1Slice ??
  function (this: Buffer, start: number, end: number): string {
    return this.toString('latin1', start, end);
  };

/** Reads up to the first NUL or `n` bytes; pure ASCII (the common case) skips the UTF-8 decoder. */
function readLabel(b: Buffer, o: number, n: number): string {
  const end = o + n;
  let ascii = 0;
  let i = o;
  for (; i < end; i++) {
    const c = b[i]!;
    if (c === 0) break;
    ascii |= c;
  }
  if (i === o) return '';
  return ascii < 0x80 ? latin1.call(b, o, i) : utf8.decode(b.subarray(o, i));
}

/** Writes UTF-8 cut on a character boundary and NUL-padded; ASCII that fits is stored directly. */
function writeLabel(b: Buffer, o: number, v: string, n: number): void {
  const length = v.length;
  let i = 0;
  if (length <= n) {
    for (; i < length; i++) {
      const c = v.charCodeAt(i);
      if (c > 0x7f) break;
      b[o + i] = c;
    }
  }
  if (i !== length || length > n) {
    const encoded = utf8Truncated(v, n);
    b.set(encoded, o);
    i = encoded.length;
  }
  for (; i < n; i++) b[o + i] = 0;
}

/** A NUL-padded UTF-8 string: truncated on a character boundary, read up to the first NUL (apps NUL-terminate). */
export function label(sizeBytes: number): FieldType<string> {
  return compiled(`label(${sizeBytes})`, sizeBytes, () => '', {
    read: (c, at) => `${c.ref(readLabel)}(b, ${src(at)}, ${sizeBytes})`,
    write: (c, at, v, path) => {
      c.emit(`if (typeof ${v} !== 'string') ${c.ref(fail)}(${path}, ${v}, 'a string');`);
      c.emit(`${c.ref(writeLabel)}(b, ${src(at)}, ${v}, ${sizeBytes});`);
    },
  });
}

/** An enum stored as an integer type; the name table is used for display only. */
export interface EnumType extends FieldType<number> {
  readonly names: Readonly<Record<number, string>>;
}

export function enumOf(base: FieldType<number>, names: Readonly<Record<number, string>>): EnumType {
  return { ...base, kind: `enum(${base.kind})`, names };
}

/** A type's snippets, or calls to its read/write for a type that has none. */
function genOf(type: FieldType<unknown>): Gen {
  return (
    type.gen ?? {
      read: (c, at) => `${c.ref(type)}.read(b, ${src(at)})`,
      write: (c, at, v, path) => c.emit(`${c.ref(type)}.write(b, ${src(at)}, ${v}, ${path});`),
    }
  );
}

/** `v.name` when the name is an identifier, else `v["name"]`. */
const member = (v: string, name: string): string => (/^[A-Za-z_$][\w$]*$/.test(name) ? `${v}.${name}` : `${v}[${lit(name)}]`);

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
  const gaps: { offset: number; bytes: number }[] = [];
  const offsets = new Map<string, number>();
  let sizeBytes = 0;
  for (const spec of fields) {
    if (spec.name === undefined) {
      gaps.push({ offset: sizeBytes, bytes: spec.reservedBytes });
      sizeBytes += spec.reservedBytes;
      continue;
    }
    slots.push({ name: spec.name, offset: sizeBytes, type: spec.type as FieldType<unknown> });
    offsets.set(spec.name, sizeBytes);
    sizeBytes += spec.type.sizeBytes;
  }
  const gen: Gen = {
    // One object literal, so every decoded value of this table has the same shape.
    read: (c, at) => {
      const parts = slots.map((s) => `${lit(s.name)}: ${genOf(s.type).read(c, plus(at, s.offset))}`);
      return `{ ${parts.join(', ')} }`;
    },
    write: (c, at, v, path) => {
      c.emit(`if (typeof ${v} !== 'object' || ${v} === null) ${c.ref(fail)}(${path}, ${v}, 'an object');`);
      // Reserved gaps must be zero even when the target buffer is reused; named fields write all their bytes.
      for (const gap of gaps) emitZeros(c, plus(at, gap.offset), gap.bytes);
      for (const s of slots) {
        const t = c.tmp('v');
        c.emit(`const ${t} = ${member(v, s.name)};`);
        genOf(s.type).write(c, plus(at, s.offset), t, `${c.ref(join)}(${path}, ${lit(s.name)})`);
      }
    },
  };
  type V = StructValue<F>;
  const built = compiled<V>('struct', sizeBytes, () => {
    const out: Record<string, unknown> = {};
    for (const s of slots) out[s.name] = s.type.zero();
    return out as V;
  }, gen);
  return { ...built, fields, offsets };
}

/**
 * A writer of a struct from its named fields' values as arguments, in table order: reserved bytes zeroed and each value
 * checked as the struct's own writer checks it (VALUE_OUT_OF_RANGE naming `<path>.<field>`). For a table written into
 * every datagram (the header) by a caller that has the values at hand: no object of them is built first.
 */
export function argumentWriter(table: StructType<readonly FieldSpec[]>, path: string): (b: Buffer, o: number, ...values: never[]) => void {
  const c = new Compiler();
  const params: string[] = [];
  let at = 0;
  for (const spec of table.fields) {
    if (spec.name === undefined) {
      emitZeros(c, { base: 'o', k: at }, spec.reservedBytes);
      at += spec.reservedBytes;
      continue;
    }
    const v = `v${params.length}`;
    params.push(v);
    genOf(spec.type as FieldType<unknown>).write(c, { base: 'o', k: at }, v, lit(`${path}.${spec.name}`));
    at += spec.type.sizeBytes;
  }
  return c.compile(['b', 'o', ...params], null, `write_args_${path.replace(/\W+/g, '_')}`);
}

/** A fixed-length array. Encoding accepts fewer elements and zero-fills the rest; decoding returns all. */
export interface ArrayType<T> extends FieldType<T[]> {
  readonly element: FieldType<T>;
  readonly count: number;
}

export function array<T>(element: FieldType<T>, count: number): ArrayType<T> {
  const stride = element.sizeBytes;
  const sizeBytes = stride * count;
  const inner = genOf(element as FieldType<unknown>);
  const gen: Gen = {
    read: (c, at) => {
      const out = c.tmp('a');
      const i = c.tmp('i');
      const q = c.tmp('q');
      c.emit(`const ${out} = new Array(${count});`);
      c.emit(`for (let ${i} = 0, ${q} = ${src(at)}; ${i} < ${count}; ${i}++, ${q} += ${stride}) {`);
      c.emit(`${out}[${i}] = ${inner.read(c, { base: q, k: 0 })};`);
      c.emit('}');
      return out;
    },
    write: (c, at, v, path) => {
      c.emit(
        `if (!Array.isArray(${v}) || ${v}.length > ${count}) ${c.ref(fail)}(${path}, ${v}, ${lit(`at most ${count} items`)});`,
      );
      const i = c.tmp('i');
      const q = c.tmp('q');
      const e = c.tmp('e');
      c.emit(`for (let ${i} = 0, ${q} = ${src(at)}; ${i} < ${v}.length; ${i}++, ${q} += ${stride}) {`);
      c.emit(`const ${e} = ${v}[${i}];`);
      inner.write(c, { base: q, k: 0 }, e, `${path} + "[" + ${i} + "]"`);
      c.emit('}');
      c.emit(`if (${v}.length < ${count}) b.fill(0, ${src(at)} + ${v}.length * ${stride}, ${src(plus(at, sizeBytes))});`);
    },
  };
  return compiled<T[]>(`array(${element.kind},${count})`, sizeBytes, () => Array.from({ length: count }, () => element.zero()), gen, {
    element,
    count,
  }) as ArrayType<T>;
}
