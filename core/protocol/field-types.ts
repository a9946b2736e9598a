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
//
// This file declares field tables, struct and array, and is the entry for all field types. The rest of the byte code:
// field-compiler.ts (the FieldType contract, the code generator and its failure helpers), number-types.ts (integers,
// float, bool, enums) and byte-types.ts (raw bytes, hex ids, labels).

import { compiled, emitZeros, fail, genOf, join, lit, plus, src, Compiler, type FieldType, type Gen } from './field-compiler.js';

export { Compiler, type FieldType, type Gen, type Offset } from './field-compiler.js';
export { bool, enumOf, f32, i16, u16, u32, u64, u8, type EnumType } from './number-types.js';
export { bytes, hexBytes, label, utf8Truncated } from './byte-types.js';

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
