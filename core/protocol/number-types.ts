// Number field types: integers, u64 as bigint, float32, bool and enums, all little-endian
// (https://lan.developer.lifx.com/docs/packet-contents). Compiled as described in field-types.ts.

import { compiled, fail, lit, plus, src, type FieldType, type Gen } from './field-compiler.js';

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

/** An enum stored as an integer type; the name table is used for display only. */
export interface EnumType extends FieldType<number> {
  readonly names: Readonly<Record<number, string>>;
}

export function enumOf(base: FieldType<number>, names: Readonly<Record<number, string>>): EnumType {
  return { ...base, kind: `enum(${base.kind})`, names };
}
