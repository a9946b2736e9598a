// The table compiler under the field types (core/protocol/field-types.ts): what a field type is, the generated-code
// builder, and the failure helpers generated code calls. Types are described as snippets here; field-types.ts,
// number-types.ts and byte-types.ts declare them.

import { LightwireError } from '../errors.js';

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

export const plus = (at: Offset, n: number): Offset => ({ base: at.base, k: at.k + n });
export const src = (at: Offset): string => (at.k === 0 ? at.base : `${at.base} + ${at.k}`);

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
export function fail(path: string, value: unknown, expected: string): never {
  throw outOfRange(path, value, value === undefined ? 'set' : expected);
}

/** Joins a struct path and a field name ("" at the top). Only evaluated on failure. */
export function join(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

export const lit = (s: string): string => JSON.stringify(s);

/**
 * Wraps a snippet-described type with standalone read/write, compiled on first use: a client that speaks a
 * dozen of the 77 messages never pays for compiling (and keeping) the code of the others.
 */
export function compiled<T>(kind: string, sizeBytes: number, zero: () => T, gen: Gen, extra: object = {}): FieldType<T> {
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

/** Zeroes `n` bytes from `at` in generated code: unrolled stores when short, one fill otherwise. */
export function emitZeros(c: Compiler, at: Offset, n: number): void {
  if (n <= 0) return;
  if (n <= 8) {
    for (let i = 0; i < n; i++) c.emit(`b[${src(plus(at, i))}] = 0;`);
  } else {
    c.emit(`b.fill(0, ${src(at)}, ${src(plus(at, n))});`);
  }
}

/** A type's snippets, or calls to its read/write for a type that has none. */
export function genOf(type: FieldType<unknown>): Gen {
  return (
    type.gen ?? {
      read: (c, at) => `${c.ref(type)}.read(b, ${src(at)})`,
      write: (c, at, v, path) => c.emit(`${c.ref(type)}.write(b, ${src(at)}, ${v}, ${path});`),
    }
  );
}
