// One generic law test over every entry of the message table (in the style of dns-packet's and mqtt-packet's tests): a random
// valid payload is generated from each field table, then size, round trip, re-encoding and offset writes
// are checked. A new table entry is covered without writing a test for it.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  HEADER_BYTES,
  MESSAGES,
  MESSAGE_NAMES,
  decode,
  encode,
  encodeInto,
  encodingLength,
  type MessageName,
  type MessageSpec,
  type PacketInput,
} from '../../core/protocol/index.js';
import { expectedHeader, fieldSizes, headerInputArbitrary, payloadArbitrary } from './helpers.js';

// Large tables (StateDeviceChain, Set/StateButton, extended zones) make big values; 100 runs each keeps the
// whole suite to a few seconds while still varying every field.
const RUNS = 100;

const specOf = (name: MessageName): MessageSpec => MESSAGES[name] as MessageSpec;
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

describe('protocol laws, for every message in the table', () => {
  it('has 79 messages with distinct type numbers', () => {
    assert.equal(MESSAGE_NAMES.length, 79);
    assert.equal(new Set(MESSAGE_NAMES.map((n) => specOf(n).type)).size, 79);
  });

  for (const name of MESSAGE_NAMES) {
    describe(name, () => {
      const spec = specOf(name);

      it('has field sizes, reserved bytes included, that sum to the declared payload size', () => {
        assert.equal(sum(fieldSizes(spec.payload.fields)), spec.payload.sizeBytes);
        assert.equal(encodingLength(name), HEADER_BYTES + spec.payload.sizeBytes);
      });

      it('decodes what it encodes (header with derived fields, and payload), re-encodes to the same bytes, and writes the same bytes at an offset', () => {
        fc.assert(
          fc.property(
            headerInputArbitrary,
            payloadArbitrary(name),
            fc.nat({ max: 64 }),
            fc.nat({ max: 64 }),
            fc.integer({ min: 0, max: 255 }),
            (header, payload, before, after, fill) => {
              const input = { name, header, payload } as unknown as PacketInput;
              const bytes = encode(input);
              assert.equal(bytes.length, encodingLength(name));

              const result = decode(bytes);
              assert.ok(result.ok, 'decodes');
              assert.deepEqual(result.packet, { name, header: expectedHeader(header, name), payload });

              // A decoded packet is a valid encode input and gives back the same datagram.
              assert.deepEqual(encode(result.packet as unknown as PacketInput), bytes);

              // encodeInto at an offset inside a dirty buffer: same bytes there, nothing else touched.
              const big = Buffer.alloc(before + bytes.length + after, fill);
              assert.equal(encodeInto(input, big, before), bytes.length);
              assert.deepEqual(big.subarray(before, before + bytes.length), bytes);
              assert.ok(big.subarray(0, before).every((b) => b === fill), 'bytes before the datagram untouched');
              assert.ok(big.subarray(before + bytes.length).every((b) => b === fill), 'bytes after the datagram untouched');
            },
          ),
          { numRuns: RUNS },
        );
      });

      it('decodes an all-zero payload to the zero value of its table', () => {
        const bytes = encode({ name, header: { source: 1, sequence: 2 }, payload: spec.payload.zero() } as unknown as PacketInput);
        assert.ok(bytes.subarray(HEADER_BYTES).every((b) => b === 0));
        const result = decode(bytes);
        assert.ok(result.ok);
        assert.deepEqual(result.packet.payload, spec.payload.zero());
      });
    });
  }
});

// ---- the documented sizes (copied here on 2026-11-24) ----
//
// The project's protocol fact sheet (kept outside this repository) gave every payload size
// twice: in its per-namespace catalogue tables and in one "at a glance" sentence. Both are copied below as
// written there, so the check runs in any clone; they were summed from protocol.yml's fields independently of
// our tables (test/protocol/protocol-yml.test.ts checks against protocol.yml itself).

/** [type, payload bytes] of every row of the catalogue tables, in the document's order. */
const CATALOGUE: readonly (readonly [number, number])[] = [
  [2, 0], [3, 5], [14, 0], [15, 20], [16, 0], [17, 14], [18, 0], [19, 20], [20, 0], [21, 2], [22, 2], [23, 0],
  [24, 32], [25, 32], [32, 0], [33, 12], [34, 0], [35, 24], [38, 0], [45, 0], [48, 0], [49, 56], [50, 56], [51, 0],
  [52, 56], [53, 56], [58, 64], [59, 64], [223, 2], [101, 0], [102, 13], [103, 21], [107, 52], [116, 0], [117, 6],
  [118, 2], [119, 25], [120, 0], [121, 2], [122, 2], [142, 0], [143, 5], [144, 9], [145, 0], [146, 5], [147, 5],
  [148, 0], [149, 1], [501, 15], [502, 2], [503, 10], [506, 66], [507, 0], [508, 59], [509, 59], [510, 664],
  [511, 0], [512, 661], [701, 0], [702, 882], [703, 11], [707, 6], [711, 517], [715, 522], [716, 15], [718, 2],
  [719, 188], [720, 187], [816, 1], [817, 3], [818, 3], [905, 0], [906, 810], [907, 811], [909, 0], [910, 18],
  [911, 18],
  // Not in the fact sheet, which predates them: the sensor messages (test/fixtures/vendor/protocol-additions.yml).
  [401, 0], [402, 4],
];

/** The "at a glance" sentence, verbatim. */
const AT_A_GLANCE =
  '0 for every Get except GetColorZones (2), Get64 (6), GetTileEffect (2), GetRPower (1); SetColor 13, ' +
  'SetWaveform 21, SetWaveformOptional 25, LightState 52, SetLightPower 6, StateService 5, StateHostFirmware 20, ' +
  'StateWifiInfo 14, StateVersion 12, StateInfo 24, Set/StateLabel 32, Set/StateLocation & Group 56, Echo 64, ' +
  'StateUnhandled 2, SetColorZones 15, StateZone 10, StateMultiZone 66, Set/StateMultiZoneEffect 59, ' +
  'SetExtendedColorZones 664, StateExtendedColorZones 661, StateDeviceChain 882, SetUserPosition 11, State64 517, ' +
  'Set64 522, CopyFrameBuffer 15, SetTileEffect 188, StateTileEffect 187, Set/StateRPower 3, ButtonSet 810, ' +
  'ButtonState 811, Set/StateConfig 18, HEV 5/9/5/1.';

/** Photons' names used by the at-a-glance sentence where ours differ (the catalogue lists both). */
const PHOTONS_NAMES: Record<string, MessageName> = {
  ButtonSet: 'SetButton',
  ButtonState: 'StateButton',
  SetConfig: 'SetButtonConfig',
  StateConfig: 'StateButtonConfig',
};

/** Expands the at-a-glance sentence into message name -> payload bytes. */
function glanceSizes(line: string): { zeroGetsExcept: Map<string, number>; sizes: Map<string, number> } {
  const [gets, rest] = line.split('; ') as [string, string];
  const zeroGetsExcept = new Map<string, number>();
  for (const m of gets.matchAll(/(\w+) \((\d+)\)/g)) zeroGetsExcept.set(m[1]!, Number(m[2]));
  const sizes = new Map<string, number>();
  for (const item of rest.replace(/\.$/, '').split(', ')) {
    // "HEV 5/9/5/1" = SetHevCycle, StateHevCycle, Set/StateHevCycleConfiguration, StateLastHevCycleResult.
    const hev = /^HEV (\d+)\/(\d+)\/(\d+)\/(\d+)$/.exec(item);
    if (hev !== null) {
      sizes.set('SetHevCycle', Number(hev[1]));
      sizes.set('StateHevCycle', Number(hev[2]));
      sizes.set('SetHevCycleConfiguration', Number(hev[3]));
      sizes.set('StateHevCycleConfiguration', Number(hev[3]));
      sizes.set('StateLastHevCycleResult', Number(hev[4]));
      continue;
    }
    const m = /^(.+) (\d+)$/.exec(item.trim());
    if (m === null) throw new Error(`cannot read "${item}" in the at-a-glance line`);
    const [, label, n] = m as unknown as [string, string, string];
    // "Set/StateLocation & Group" = Set and State of each; "Echo" = EchoRequest and EchoResponse.
    const names = label === 'Echo'
      ? ['EchoRequest', 'EchoResponse']
      : label.startsWith('Set/State')
        ? label.slice('Set/State'.length).split(' & ').flatMap((x) => [`Set${x}`, `State${x}`])
        : [label];
    for (const name of names) sizes.set(PHOTONS_NAMES[name] ?? name, Number(n));
  }
  return { zeroGetsExcept, sizes };
}

describe('payload sizes documented in the protocol fact sheet', () => {
  it('matches the per-type catalogue tables for every message, and the tables list no other type', () => {
    const documented = new Map(CATALOGUE);
    assert.equal(documented.size, CATALOGUE.length, 'no type listed twice');
    for (const name of MESSAGE_NAMES) {
      assert.equal(documented.get(specOf(name).type), specOf(name).payload.sizeBytes, `${name} (type ${specOf(name).type})`);
    }
    assert.deepEqual([...documented.keys()].sort((a, b) => a - b), MESSAGE_NAMES.map((n) => specOf(n).type).sort((a, b) => a - b));
  });

  it('matches the "Payload sizes at a glance" sentence: zero for every Get but four, and each listed size', () => {
    const { zeroGetsExcept, sizes } = glanceSizes(AT_A_GLANCE);
    for (const name of MESSAGE_NAMES.filter((n) => n.startsWith('Get'))) {
      assert.equal(specOf(name).payload.sizeBytes, zeroGetsExcept.get(name) ?? 0, name);
    }
    assert.deepEqual([...zeroGetsExcept.keys()].sort(), ['Get64', 'GetColorZones', 'GetRPower', 'GetTileEffect']);
    // The sentence skips the five 2-byte power/infrared messages and StateWifiFirmware (laid out like
    // StateHostFirmware), and predates StateAmbientLight; the catalogue test above covers them.
    const unlisted = MESSAGE_NAMES.filter((n) => !n.startsWith('Get') && specOf(n).payload.sizeBytes > 0 && !sizes.has(n));
    assert.deepEqual(unlisted.sort(), ['SetInfrared', 'SetPower', 'StateAmbientLight', 'StateInfrared', 'StateLightPower', 'StatePower', 'StateWifiFirmware']);
    for (const [name, size] of sizes) {
      assert.ok(name in MESSAGES, `${name} in the at-a-glance line is a message of ours`);
      assert.equal(specOf(name as MessageName).payload.sizeBytes, size, name);
    }
  });
});
