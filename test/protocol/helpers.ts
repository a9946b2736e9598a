// Shared by the protocol tests: fast-check arbitraries derived from the field tables, the expected decoded
// header of an encode input, and the location of the vendor data in test/fixtures/vendor (protocol.yml,
// products.json; see the README there for their source).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { parse } from 'yaml';
import {
  BROADCAST_TARGET,
  HEADER_BYTES,
  MESSAGES,
  PROTOCOL_NUMBER,
  type Header,
  type HeaderInput,
  type MessageName,
  type MessageSpec,
} from '../../core/protocol/index.js';
import type { ArrayType, FieldSpec, FieldType, StructType } from '../../core/protocol/field-types.js';

// ---- vendor data ----

/** LIFX's protocol.yml and products.json, copied into the repository (test/fixtures/vendor/README.md). */
export const VENDOR_DIR = path.resolve(__dirname, '../fixtures/vendor');
export const vendorFile = (name: string): string => path.join(VENDOR_DIR, name);

type YmlSection = Record<string, Record<string, unknown>>;

/**
 * protocol.yml (fe8871b) with what upstream published after it (protocol-additions.yml, transcribed from two
 * regenerations of upstream; see its header): new packets, fields and namespaces added, enum values and union
 * members appended to protocol.yml's own.
 */
export function vendorProtocol(): unknown {
  const base = parse(readFileSync(vendorFile('protocol.yml'), 'utf8')) as Record<string, YmlSection>;
  const more = parse(readFileSync(vendorFile('protocol-additions.yml'), 'utf8')) as Record<string, YmlSection>;
  for (const [name, e] of Object.entries(more.enums ?? {})) {
    const into = base.enums![name] as { values: unknown[] };
    into.values = [...into.values, ...(e as { values: unknown[] }).values];
  }
  for (const [name, u] of Object.entries(more.unions ?? {})) {
    const into = base.unions![name] as { fields: unknown[] };
    into.fields = [...into.fields, ...(u as { fields: unknown[] }).fields];
  }
  Object.assign(base.fields!, more.fields ?? {});
  for (const [ns, packets] of Object.entries(more.packets ?? {})) base.packets![ns] = { ...base.packets![ns], ...packets };
  return base;
}

// ---- arbitraries from field tables ----

const isStruct = (t: FieldType<unknown>): t is StructType<readonly FieldSpec[]> => 'fields' in t;
const isArray = (t: FieldType<unknown>): t is ArrayType<unknown> => 'element' in t && 'count' in t;

/** Code points that survive a UTF-8 round trip (no NUL, which ends a label, and no lone surrogates). */
const codePoint = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x01, max: 0x7f }) },
  { weight: 2, arbitrary: fc.integer({ min: 0x80, max: 0x7ff }) },
  { weight: 2, arbitrary: fc.integer({ min: 0x800, max: 0xd7ff }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xe000, max: 0xffff }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }) },
);

/** A label that fits `maxBytes` of UTF-8: code points are taken while they fit. */
export function labelArbitrary(maxBytes: number): fc.Arbitrary<string> {
  return fc.array(codePoint, { maxLength: maxBytes }).map((cps) => {
    let text = '';
    let used = 0;
    for (const cp of cps) {
      const ch = String.fromCodePoint(cp);
      const n = Buffer.byteLength(ch, 'utf8');
      if (used + n > maxBytes) break;
      text += ch;
      used += n;
    }
    return text;
  });
}

const sizeIn = (kind: string): number => Number(/\((\d+)\)/.exec(kind)?.[1]);

/** A random valid value for a field type, built from its kind (and, for structs/arrays, from its table). */
export function arbitraryFor(type: FieldType<unknown>): fc.Arbitrary<unknown> {
  if (isStruct(type)) {
    const shape: Record<string, fc.Arbitrary<unknown>> = {};
    for (const spec of type.fields) if (spec.name !== undefined) shape[spec.name] = arbitraryFor(spec.type as FieldType<unknown>);
    return fc.record(shape, { noNullPrototype: true });
  }
  if (isArray(type)) {
    // Decoding returns every slot, so a round-trip value has exactly `count` elements.
    return fc.array(arbitraryFor(type.element), { minLength: type.count, maxLength: type.count });
  }
  const kind = type.kind.startsWith('enum(') ? type.kind.slice(5, -1) : type.kind;
  switch (kind) {
    case 'u8':
      return fc.integer({ min: 0, max: 0xff });
    case 'u16':
      return fc.integer({ min: 0, max: 0xffff });
    case 'i16':
      return fc.integer({ min: -0x8000, max: 0x7fff });
    case 'u32':
      return fc.integer({ min: 0, max: 0xffffffff });
    case 'u64':
      return fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
    case 'f32':
      // Any float32 except NaN (which has no single bit pattern to compare): -0 and infinities included.
      return fc.double({ noNaN: true }).map(Math.fround);
    case 'bool':
      return fc.boolean();
  }
  if (kind.startsWith('bytes(')) return fc.uint8Array({ minLength: sizeIn(kind), maxLength: sizeIn(kind) });
  if (kind.startsWith('hex(')) {
    return fc.uint8Array({ minLength: sizeIn(kind), maxLength: sizeIn(kind) }).map((b) => Buffer.from(b).toString('hex'));
  }
  if (kind.startsWith('label(')) return labelArbitrary(sizeIn(kind));
  throw new Error(`no arbitrary for field kind ${type.kind}`);
}

export const headerInputArbitrary: fc.Arbitrary<HeaderInput> = fc.record(
  {
    source: fc.integer({ min: 0, max: 0xffffffff }),
    sequence: fc.integer({ min: 0, max: 0xff }),
    target: fc.oneof(
      fc.constant(BROADCAST_TARGET),
      fc.uint8Array({ minLength: 6, maxLength: 6 }).map((b) => Buffer.from(b).toString('hex')),
    ),
    ackRequired: fc.boolean(),
    resRequired: fc.boolean(),
    tagged: fc.boolean(),
  },
  { requiredKeys: ['source', 'sequence'] },
);

export function payloadArbitrary(name: MessageName): fc.Arbitrary<Record<string, unknown>> {
  return arbitraryFor((MESSAGES[name] as MessageSpec).payload as FieldType<unknown>) as fc.Arbitrary<Record<string, unknown>>;
}

/** The header `decode` must return for a datagram we encoded from `input` (derived fields included). */
export function expectedHeader(input: HeaderInput, name: MessageName): Header {
  const spec = MESSAGES[name] as MessageSpec;
  const target = input.target ?? BROADCAST_TARGET;
  return {
    sizeBytes: HEADER_BYTES + spec.payload.sizeBytes,
    protocol: PROTOCOL_NUMBER,
    addressable: true,
    tagged: input.tagged ?? target === BROADCAST_TARGET,
    origin: 0,
    source: input.source,
    target,
    resRequired: input.resRequired === true,
    ackRequired: input.ackRequired === true,
    sequence: input.sequence,
    type: spec.type,
  };
}

/** Every field's byte count, reserved ones included. */
export function fieldSizes(fields: readonly FieldSpec[]): number[] {
  return fields.map((f) => (f.name === undefined ? f.reservedBytes : f.type.sizeBytes));
}

export { isArray, isStruct };
