// Cross-check of our message tables against LIFX's protocol.yml (test/fixtures/vendor/protocol.yml, v0.9, with what
// upstream added since: protocol-additions.yml there): every
// packet has a table entry with the same type number and payload size; top-level fields agree in order,
// size and name (reserved ones included); and the flattened leaves agree in size and kind, with `<Name>`
// resolved to enums/fields/packets, `[N]type` repeated N times, `[N]byte` one N-byte leaf and a union one
// opaque leaf.

import assert from 'node:assert/strict';
import { BUTTON_TARGETS, ENUMS, MESSAGES, MESSAGE_NAMES, MESSAGE_NAME_BY_TYPE, type MessageName, type MessageSpec } from '../../core/protocol/index.js';
import type { FieldSpec, FieldType } from '../../core/protocol/field-types.js';
import { isArray, isStruct, vendorProtocol } from './helpers.js';

interface YmlField {
  readonly name?: string;
  readonly type: string;
  readonly size_bytes: number;
}
interface YmlGroup {
  readonly size_bytes: number;
  readonly fields: readonly YmlField[];
}
interface YmlPacket extends YmlGroup {
  readonly pkt_type: number;
}
interface Yml {
  readonly enums: Record<string, { readonly type: string; readonly values: readonly { readonly name: string; readonly value: number }[] }>;
  readonly fields: Record<string, YmlGroup>;
  readonly unions: Record<string, YmlGroup>;
  readonly packets: Record<string, Record<string, YmlPacket>>;
}

/**
 * Packet names that are not simply the yml name, the yml name without its namespace (DeviceGetService ->
 * GetService), or verb first (LightGetPower -> GetLightPower). These are photons' names, which most
 * libraries use, or our clearer ones for the extended zone messages.
 */
const PACKET_RENAMES: Record<string, MessageName> = {
  LightGet: 'GetColor',
  RelayGetPower: 'GetRPower',
  RelaySetPower: 'SetRPower',
  RelayStatePower: 'StateRPower',
  MultiZoneExtendedSetColorZones: 'SetExtendedColorZones',
  MultiZoneExtendedGetColorZones: 'GetExtendedColorZones',
  MultiZoneExtendedStateMultiZone: 'StateExtendedColorZones',
};

/**
 * Field names where ours does not start with the yml name (first letter lowered). `payload` would read badly
 * as packet.payload.payload, so the echoed bytes are called `echoing` (photons' name).
 */
const FIELD_RENAMES: Record<string, string> = { Payload: 'echoing' };

/** What may follow the yml name in ours: nothing, a unit (Ms, Ns, S) or a plural s (Parameter -> parameters). */
const NAME_SUFFIXES = ['', 'Ms', 'Ns', 'S', 's'];

/** protocol.yml packet namespace -> the word its packet names start with. */
const NAMESPACE_WORDS: Record<string, string> = {
  device: 'Device',
  light: 'Light',
  multi_zone: 'MultiZone',
  tile: 'Tile',
  relay: 'Relay',
  button: 'Button',
  sensor: 'Sensor',
};

const PRIMITIVES: Record<string, string> = {
  uint8: 'u8',
  uint16: 'u16',
  uint32: 'u32',
  uint64: 'u64',
  int16: 'i16',
  float32: 'f32',
  bool: 'bool',
};

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

function namesMatch(ymlName: string, ours: string): boolean {
  const renamed = FIELD_RENAMES[ymlName];
  if (renamed !== undefined) return ours === renamed;
  const base = lowerFirst(ymlName);
  return NAME_SUFFIXES.some((suffix) => ours === base + suffix);
}

function packetNameMatches(ymlName: string, namespaceWord: string, ours: string): boolean {
  if (PACKET_RENAMES[ymlName] !== undefined) return ours === PACKET_RENAMES[ymlName];
  const rest = ymlName.startsWith(namespaceWord) ? ymlName.slice(namespaceWord.length) : ymlName;
  const verb = /^(Get|Set|State)/.exec(rest)?.[1];
  return ours === ymlName || ours === rest || (verb !== undefined && ours === verb + namespaceWord + rest.slice(verb.length));
}

/** A leaf: "kind:bytes", where every raw byte run (bytes, hex, label, union) is "bytes". */
type Leaf = string;

class YmlModel {
  readonly packets = new Map<number, { name: string; namespace: string; packet: YmlPacket }>();
  constructor(readonly yml: Yml) {
    for (const [namespace, group] of Object.entries(yml.packets)) {
      for (const [name, packet] of Object.entries(group)) {
        if (this.packets.has(packet.pkt_type)) throw new Error(`protocol.yml declares type ${packet.pkt_type} twice`);
        this.packets.set(packet.pkt_type, { name, namespace, packet });
      }
    }
  }

  /** The field list a `<Name>` stands for, when it names fields or a packet; undefined for enums and unions. */
  group(name: string): YmlGroup | undefined {
    if (this.yml.fields[name] !== undefined) return this.yml.fields[name];
    for (const ns of Object.values(this.yml.packets)) if (ns[name] !== undefined) return ns[name];
    return undefined;
  }

  leaves(type: string, sizeBytes: number): Leaf[] {
    if (type === 'reserved') return [`reserved:${sizeBytes}`];
    const primitive = PRIMITIVES[type];
    if (primitive !== undefined) return [`${primitive}:${sizeBytes}`];
    const repeat = /^\[(\d+)\](.+)$/.exec(type);
    if (repeat !== null) {
      const count = Number(repeat[1]);
      const element = repeat[2]!;
      if (element === 'byte') return [`bytes:${count}`];
      return Array.from({ length: count }, () => this.leaves(element, sizeBytes / count)).flat();
    }
    const ref = /^<(\w+)>$/.exec(type)?.[1];
    if (ref === undefined) throw new Error(`protocol.yml type ${type} is not understood`);
    const enumType = this.yml.enums[ref];
    if (enumType !== undefined) return [`${PRIMITIVES[enumType.type]}:${sizeBytes}`];
    if (this.yml.unions[ref] !== undefined) return [`bytes:${sizeBytes}`];
    const group = this.group(ref);
    if (group === undefined) throw new Error(`protocol.yml refers to unknown <${ref}>`);
    return group.fields.flatMap((f) => this.leaves(f.type, f.size_bytes));
  }
}

function ourLeaves(type: FieldType<unknown>): Leaf[] {
  if (isStruct(type)) return ourFieldLeaves(type.fields);
  if (isArray(type)) return Array.from({ length: type.count }, () => ourLeaves(type.element)).flat();
  const kind = type.kind.startsWith('enum(') ? type.kind.slice(5, -1) : type.kind;
  if (/^(bytes|hex|label)\(/.test(kind)) return [`bytes:${type.sizeBytes}`];
  return [`${kind}:${type.sizeBytes}`];
}

function ourFieldLeaves(fields: readonly FieldSpec[]): Leaf[] {
  return fields.flatMap((f) => (f.name === undefined ? [`reserved:${f.reservedBytes}`] : ourLeaves(f.type as FieldType<unknown>)));
}

/**
 * Compares one level of fields in order (reserved or named, size, name), then recurses where both sides
 * are groups of fields (a struct against <Fields>/<Packet>, or arrays of them). Returns the mismatches.
 */
function compareFields(model: YmlModel, yml: readonly YmlField[], ours: readonly FieldSpec[], where: string): string[] {
  const problems: string[] = [];
  if (yml.length !== ours.length) problems.push(`${where}: protocol.yml has ${yml.length} fields, ours ${ours.length}`);
  for (let i = 0; i < Math.min(yml.length, ours.length); i++) {
    const y = yml[i]!;
    const o = ours[i]!;
    const at = `${where}[${i}]`;
    const ymlReserved = y.type === 'reserved';
    if (ymlReserved !== (o.name === undefined)) {
      problems.push(`${at}: protocol.yml ${ymlReserved ? 'reserved' : y.name}, ours ${o.name ?? 'reserved'}`);
      continue;
    }
    const size = o.name === undefined ? o.reservedBytes : o.type.sizeBytes;
    if (size !== y.size_bytes) problems.push(`${at} ${y.name ?? 'reserved'}: ${y.size_bytes} bytes in protocol.yml, ${size} ours`);
    if (o.name === undefined || y.name === undefined) continue;
    if (!namesMatch(y.name, o.name)) problems.push(`${at}: protocol.yml name ${y.name}, ours ${o.name}`);
    // Recurse into nested groups: a struct, or an array whose element is a struct.
    const ref = /^(?:\[\d+\])?<(\w+)>$/.exec(y.type)?.[1];
    const group = ref === undefined ? undefined : model.group(ref);
    let ourType = o.type as FieldType<unknown>;
    if (isArray(ourType)) ourType = ourType.element;
    if (group !== undefined && isStruct(ourType)) problems.push(...compareFields(model, group.fields, ourType.fields, `${where}.${o.name}`));
  }
  return problems;
}

describe('message tables against protocol.yml', () => {
  let model: YmlModel;

  before(() => {
    model = new YmlModel(vendorProtocol() as Yml);
  });

  it('has a table entry for every packet of protocol.yml, and no entry that protocol.yml lacks', () => {
    const ymlTypes = [...model.packets.keys()].sort((a, b) => a - b);
    const ourTypes = MESSAGE_NAMES.map((n) => (MESSAGES[n] as MessageSpec).type).sort((a, b) => a - b);
    assert.deepEqual(ourTypes, ymlTypes);
    assert.equal(ymlTypes.length, 79);
  });

  it('names each message after its protocol.yml packet (namespace dropped or moved after the verb, or a listed rename)', () => {
    const wrong: string[] = [];
    const used = new Set<string>();
    for (const [type, { name, namespace }] of model.packets) {
      const ours = MESSAGE_NAME_BY_TYPE.get(type)!;
      const word = NAMESPACE_WORDS[namespace];
      assert.ok(word !== undefined, `protocol.yml namespace ${namespace} is known`);
      if (!packetNameMatches(name, word, ours)) wrong.push(`${type}: protocol.yml ${name}, ours ${ours}`);
      if (PACKET_RENAMES[name] !== undefined) used.add(name);
    }
    assert.deepEqual(wrong, []);
    assert.deepEqual([...used].sort(), Object.keys(PACKET_RENAMES).sort(), 'every listed rename is needed');
  });

  for (const name of MESSAGE_NAMES) {
    const spec = MESSAGES[name] as MessageSpec;

    it(`agrees on ${name} (type ${spec.type}): payload size, fields in order with sizes and names, and flattened leaves`, () => {
      const entry = model.packets.get(spec.type);
      assert.ok(entry !== undefined, `protocol.yml has type ${spec.type}`);
      const { packet } = entry;
      assert.equal(spec.payload.sizeBytes, packet.size_bytes, 'payload size');
      assert.deepEqual(compareFields(model, packet.fields, spec.payload.fields, name), []);
      const ymlLeaves = packet.fields.flatMap((f) => model.leaves(f.type, f.size_bytes));
      assert.deepEqual(ourFieldLeaves(spec.payload.fields), ymlLeaves);
      assert.equal(ymlLeaves.reduce((a, l) => a + Number(l.split(':')[1]), 0), packet.size_bytes, 'protocol.yml adds up');
    });
  }

  it('names every TileEffectType and ButtonTargetType value protocol.yml names, as it does without its prefix', () => {
    for (const [name, prefix] of [['TileEffectType', 'TILE_EFFECT_TYPE_'], ['ButtonTargetType', 'BUTTON_TARGET_TYPE_']] as const) {
      const ours: Readonly<Record<number, string>> = ENUMS[name];
      const named = model.yml.enums[name]!.values.filter((v) => v.name !== 'reserved');
      assert.ok(named.length > 0);
      for (const v of named) assert.equal(ours[v.value], v.name.slice(prefix.length), `${name} ${v.value}`);
    }
    assert.equal(ENUMS.TileEffectType[6], 'COLOR_SWEEP');
    assert.equal(ENUMS.ButtonTargetType[31], 'KELVIN_STEP_LOCAL_DEVICE');
  });

  it('lays out each button target as the ButtonTarget union member of its target type (16 bytes; opaque bytes either way)', () => {
    const union = model.yml.unions.ButtonTarget!.fields;
    const opaque = (leaf: string): string => leaf.replace(/^(reserved|bytes):/, 'opaque:');
    const merge = (leaves: string[]): string[] => {
      // Runs of opaque bytes are one run, whether named or reserved on either side.
      const out: string[] = [];
      for (const l of leaves.map(opaque)) {
        const last = out.at(-1);
        if (l.startsWith('opaque:') && last?.startsWith('opaque:')) out[out.length - 1] = `opaque:${Number(last.slice(7)) + Number(l.slice(7))}`;
        else out.push(l);
      }
      return out;
    };
    const checked: number[] = [];
    for (const [key, type] of Object.entries(BUTTON_TARGETS)) {
      const member = union[Number(key)]!;
      assert.equal(type.sizeBytes, 16, `target type ${key}`);
      const ymlLeaves = member.type === 'reserved' ? ['opaque:16'] : merge(model.leaves(member.type, member.size_bytes));
      assert.deepEqual(merge(ourFieldLeaves(type.fields)), ymlLeaves, `target type ${key} (${member.name ?? 'reserved'})`);
      checked.push(Number(key));
    }
    // Every named member of the union has a layout of ours.
    const named = union.flatMap((f, i) => (f.type === 'reserved' ? [] : [i]));
    assert.deepEqual(named.filter((i) => !checked.includes(i)), []);
    assert.ok(checked.includes(31));
  });

  it('resolves the nested groups of StateDeviceChain down to the device version and firmware packets', () => {
    // A spot check that the flattening really descends: 16 tiles x (3 accel + 2 reserved + 2 f32 + 2 u8 +
    // 1 reserved + version (2 u32 + reserved) + firmware (u64, reserved, 2 u16) + 1 reserved = 18) + 2 u8.
    const entry = model.packets.get(702)!;
    const leaves = entry.packet.fields.flatMap((f) => model.leaves(f.type, f.size_bytes));
    assert.equal(leaves.length, 2 + 16 * 18);
    assert.deepEqual(leaves.slice(1, 19), [
      'i16:2', 'i16:2', 'i16:2', 'reserved:1', 'reserved:1', 'f32:4', 'f32:4', 'u8:1', 'u8:1', 'reserved:1',
      'u32:4', 'u32:4', 'reserved:4', 'u64:8', 'reserved:8', 'u16:2', 'u16:2', 'reserved:4',
    ]);
  });
});
