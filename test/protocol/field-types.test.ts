// Label rules (cut at the first NUL; truncate on a character boundary, where photons can split one) and encode validation: values that do not fit are
// rejected with VALUE_OUT_OF_RANGE naming the field path; unknown messages with MESSAGE_UNKNOWN.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isLightwireError, type ErrorCode } from '../../core/errors.js';
import { decode, encode, encodeInto, encodingLength, type PacketInput } from '../../core/protocol/index.js';
import {
  array, bool, bytes, f32, field, hexBytes, i16, label, reserved, struct, u16, u32, u64, u8, utf8Truncated, type FieldType,
} from '../../core/protocol/field-types.js';
import { labelArbitrary } from './helpers.js';

const L = label(32);

function written(text: string, fill = 0xff): Buffer {
  const buf = Buffer.alloc(32, fill);
  L.write(buf, 0, text, 'label');
  return buf;
}

/** Asserts that `fn` throws a LightwireError with `code` and, when given, naming `field`. */
function throwsCode(fn: () => unknown, code: ErrorCode, fieldPath?: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(isLightwireError(err, code), `expected ${code}, got ${String(err)}`);
    if (fieldPath !== undefined) assert.equal((err.params as { field: string }).field, fieldPath);
    return true;
  });
}

const color = { hue: 0, saturation: 0, brightness: 0, kelvin: 3500 };
const header = { source: 1, sequence: 1 };

/** SetColor with one colour component (or the duration) replaced. */
function setColor(change: Record<string, unknown>, where: 'color' | 'payload' = 'color'): PacketInput {
  const payload = where === 'color' ? { color: { ...color, ...change }, durationMs: 0 } : { color, durationMs: 0, ...change };
  return { name: 'SetColor', header, payload } as unknown as PacketInput;
}

describe('labels (32-byte UTF-8 fields)', () => {
  it('pads a short label with NULs even in a dirty buffer', () => {
    const buf = written('den');
    assert.equal(buf.toString('latin1', 0, 3), 'den');
    assert.ok(buf.subarray(3).every((b) => b === 0));
  });

  it('truncates two-byte characters on a character boundary: "a" + 16 × "é" keeps 15 of them and pads 1 NUL', () => {
    const buf = written(`a${'é'.repeat(16)}`);
    assert.equal(L.read(buf, 0), `a${'é'.repeat(15)}`);
    assert.equal(buf[31], 0);
    assert.equal(buf.indexOf(0), 31);
  });

  it('keeps exactly 16 two-byte characters (32 bytes, no NUL) when they fill the field', () => {
    const buf = written('é'.repeat(20));
    assert.equal(buf.indexOf(0), -1);
    assert.equal(L.read(buf, 0), 'é'.repeat(16));
  });

  it('never splits a four-byte emoji: "abc" + 8 emoji keeps 7 emoji (31 bytes)', () => {
    const buf = written(`abc${'😀'.repeat(8)}`);
    assert.equal(L.read(buf, 0), `abc${'😀'.repeat(7)}`);
    assert.equal(buf.indexOf(0), 31);
    assert.equal(utf8Truncated(`abc${'😀'.repeat(8)}`, 32).length, 31);
    assert.equal(utf8Truncated('€€€', 7).toString('utf8'), '€€');
  });

  it('reads up to the first NUL and ignores junk after it (lifx-lan-client keeps that junk)', () => {
    const buf = Buffer.alloc(32);
    buf.write('ab\0junk after the nul', 0, 'latin1');
    assert.equal(L.read(buf, 0), 'ab');
  });

  it('reads a full 32-byte label that has no NUL, and stops at the field end even if the datagram goes on', () => {
    const text = 'Kitchen ceiling light over table';
    assert.equal(Buffer.byteLength(text), 32);
    const buf = Buffer.concat([Buffer.from(text), Buffer.from('more bytes')]);
    assert.equal(L.read(buf, 0), text);
  });

  it('reads an all-zero label as "" and invalid UTF-8 with replacement characters', () => {
    assert.equal(L.read(Buffer.alloc(32), 0), '');
    const bad = Buffer.alloc(32);
    bad.set([0x41, 0xff, 0x42, 0xc3]);
    assert.equal(L.read(bad, 0), 'A\uFFFDB\uFFFD');
  });

  it('reads multi-byte UTF-8 and keeps a leading byte-order mark', () => {
    const text = '\uFEFFCuisine éclairée 💡';
    assert.equal(L.read(written(text), 0), text);
  });

  it('round-trips every label that fits in 32 bytes of UTF-8', () => {
    fc.assert(
      fc.property(labelArbitrary(32), (text) => {
        assert.equal(L.read(written(text), 0), text);
      }),
      { numRuns: 2000 },
    );
  });

  it('decodes any 32 bytes to the UTF-8 of the bytes before the first NUL', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (raw) => {
        const buf = Buffer.from(raw);
        const end = buf.indexOf(0);
        assert.equal(L.read(buf, 0), new TextDecoder().decode(buf.subarray(0, end === -1 ? 32 : end)));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('encode validation', () => {
  it('rejects a negative hue, naming SetColor.color.hue', () => {
    throwsCode(() => encode(setColor({ hue: -1 })), 'VALUE_OUT_OF_RANGE', 'SetColor.color.hue');
  });

  it('rejects 65536 in a u16 and 2^32 in a u32', () => {
    throwsCode(() => encode(setColor({ kelvin: 65536 })), 'VALUE_OUT_OF_RANGE', 'SetColor.color.kelvin');
    throwsCode(() => encode(setColor({ durationMs: 2 ** 32 }, 'payload')), 'VALUE_OUT_OF_RANGE', 'SetColor.durationMs');
  });

  it('rejects non-integers, NaN and Infinity in integer fields', () => {
    throwsCode(() => encode(setColor({ saturation: 1.5 })), 'VALUE_OUT_OF_RANGE', 'SetColor.color.saturation');
    throwsCode(() => encode(setColor({ saturation: Number.NaN })), 'VALUE_OUT_OF_RANGE', 'SetColor.color.saturation');
    throwsCode(() => encode(setColor({ durationMs: Number.POSITIVE_INFINITY }, 'payload')), 'VALUE_OUT_OF_RANGE', 'SetColor.durationMs');
  });

  it('rejects wrong types: a string, a bigint or null for a number, and a missing field', () => {
    throwsCode(() => encode(setColor({ brightness: '5' })), 'VALUE_OUT_OF_RANGE', 'SetColor.color.brightness');
    throwsCode(() => encode(setColor({ brightness: 5n })), 'VALUE_OUT_OF_RANGE', 'SetColor.color.brightness');
    throwsCode(() => encode(setColor({ brightness: null })), 'VALUE_OUT_OF_RANGE', 'SetColor.color.brightness');
    throwsCode(() => encode(setColor({ brightness: undefined })), 'VALUE_OUT_OF_RANGE', 'SetColor.color.brightness');
    throwsCode(() => encode(setColor({ color: 'red' }, 'payload')), 'VALUE_OUT_OF_RANGE', 'SetColor.color');
    throwsCode(() => encode({ name: 'SetColor', header, payload: null } as unknown as PacketInput), 'VALUE_OUT_OF_RANGE', 'SetColor');
  });

  it('says a missing field is not set, and shows the offending value', () => {
    try {
      encode(setColor({ kelvin: undefined }));
      assert.fail('should throw');
    } catch (err) {
      assert.ok(isLightwireError(err, 'VALUE_OUT_OF_RANGE'));
      assert.deepEqual(err.params, { field: 'SetColor.color.kelvin', value: 'undefined', expected: 'set' });
    }
    try {
      encode(setColor({ hue: 70000 }));
      assert.fail('should throw');
    } catch (err) {
      assert.ok(isLightwireError(err, 'VALUE_OUT_OF_RANGE'));
      assert.deepEqual(err.params, { field: 'SetColor.color.hue', value: '70000', expected: 'an integer from 0 to 65535' });
      assert.equal(err.httpStatus, 400);
    }
  });

  it('checks signed, 64-bit, float and boolean fields by their own rules', () => {
    const wave = {
      transient: false, color, periodMs: 1000, cycles: 1, skewRatio: 0, waveform: 0,
    };
    const setWaveform = (change: Record<string, unknown>): PacketInput =>
      ({ name: 'SetWaveform', header, payload: { ...wave, ...change } }) as unknown as PacketInput;
    assert.doesNotThrow(() => encode(setWaveform({ skewRatio: -32768 })));
    throwsCode(() => encode(setWaveform({ skewRatio: -32769 })), 'VALUE_OUT_OF_RANGE', 'SetWaveform.skewRatio');
    throwsCode(() => encode(setWaveform({ skewRatio: 32768 })), 'VALUE_OUT_OF_RANGE', 'SetWaveform.skewRatio');
    throwsCode(() => encode(setWaveform({ cycles: Number.NaN })), 'VALUE_OUT_OF_RANGE', 'SetWaveform.cycles');
    throwsCode(() => encode(setWaveform({ cycles: '1' })), 'VALUE_OUT_OF_RANGE', 'SetWaveform.cycles');
    throwsCode(() => encode(setWaveform({ transient: 1 })), 'VALUE_OUT_OF_RANGE', 'SetWaveform.transient');

    const info = (timeNs: unknown): PacketInput =>
      ({ name: 'StateInfo', header, payload: { timeNs, uptimeNs: 0n, downtimeNs: 0n } }) as unknown as PacketInput;
    assert.doesNotThrow(() => encode(info((1n << 64n) - 1n)));
    throwsCode(() => encode(info(1n << 64n)), 'VALUE_OUT_OF_RANGE', 'StateInfo.timeNs');
    throwsCode(() => encode(info(-1n)), 'VALUE_OUT_OF_RANGE', 'StateInfo.timeNs');
    throwsCode(() => encode(info(5)), 'VALUE_OUT_OF_RANGE', 'StateInfo.timeNs');
  });

  it('checks ids as hex digits of the right length, labels as strings and echo bytes as at most 64 bytes', () => {
    const group = (id: unknown, labelValue: unknown = 'x'): PacketInput =>
      ({ name: 'SetGroup', header, payload: { group: id, label: labelValue, updatedAtNs: 0n } }) as unknown as PacketInput;
    assert.doesNotThrow(() => encode(group('AB'.repeat(16))));
    throwsCode(() => encode(group('ab'.repeat(15))), 'VALUE_OUT_OF_RANGE', 'SetGroup.group');
    throwsCode(() => encode(group(`${'ab'.repeat(15)}zz`)), 'VALUE_OUT_OF_RANGE', 'SetGroup.group');
    throwsCode(() => encode(group(42)), 'VALUE_OUT_OF_RANGE', 'SetGroup.group');
    throwsCode(() => encode(group('ab'.repeat(16), 42)), 'VALUE_OUT_OF_RANGE', 'SetGroup.label');

    const echo = (echoing: unknown): PacketInput => ({ name: 'EchoRequest', header, payload: { echoing } }) as unknown as PacketInput;
    throwsCode(() => encode(echo(new Uint8Array(65))), 'VALUE_OUT_OF_RANGE', 'EchoRequest.echoing');
    throwsCode(() => encode(echo([1, 2, 3])), 'VALUE_OUT_OF_RANGE', 'EchoRequest.echoing');
    // A shorter echo is zero-padded.
    const padded = decode(encode(echo(new Uint8Array([1, 2, 3]))));
    assert.ok(padded.ok && padded.packet.name === 'EchoRequest');
    assert.deepEqual(padded.packet.payload.echoing, new Uint8Array([1, 2, 3, ...new Uint8Array(61)]));
  });

  it('rejects an array that is too long, and names the index of a bad element', () => {
    const zone = { hue: 1, saturation: 2, brightness: 3, kelvin: 4 };
    const multi = (colors: unknown): PacketInput =>
      ({ name: 'StateMultiZone', header, payload: { count: 8, index: 0, colors } }) as unknown as PacketInput;
    throwsCode(() => encode(multi(Array.from({ length: 9 }, () => zone))), 'VALUE_OUT_OF_RANGE', 'StateMultiZone.colors');
    throwsCode(() => encode(multi('not an array')), 'VALUE_OUT_OF_RANGE', 'StateMultiZone.colors');
    const bad = [zone, zone, zone, { ...zone, kelvin: -5 }];
    throwsCode(() => encode(multi(bad)), 'VALUE_OUT_OF_RANGE', 'StateMultiZone.colors[3].kelvin');
    throwsCode(() => encode(multi([zone, null])), 'VALUE_OUT_OF_RANGE', 'StateMultiZone.colors[1]');
  });

  it('zero-fills the slots of a shorter array, even in a dirty buffer', () => {
    const zone = { hue: 1, saturation: 2, brightness: 3, kelvin: 4 };
    const input: PacketInput<'StateMultiZone'> = { name: 'StateMultiZone', header, payload: { count: 8, index: 0, colors: [zone, zone] } };
    const buf = Buffer.alloc(encodingLength('StateMultiZone'), 0xee);
    encodeInto(input, buf);
    const result = decode(buf);
    assert.ok(result.ok && result.packet.name === 'StateMultiZone');
    assert.deepEqual(result.packet.payload.colors, [zone, zone, ...Array.from({ length: 6 }, () => ({ hue: 0, saturation: 0, brightness: 0, kelvin: 0 }))]);
  });

  it('writes every reserved header byte as zero in a dirty buffer, the same bytes as a fresh encode', () => {
    const input: PacketInput<'GetColor'> = { name: 'GetColor', header: { source: 0xdeadbeef, sequence: 255, target: 'd073d5012345', ackRequired: true, resRequired: true }, payload: {} };
    const buf = Buffer.alloc(encodingLength('GetColor'), 0xff);
    encodeInto(input, buf);
    assert.deepEqual(buf, encode(input));
    // Reserved by the table: 14-15 (the target's last two bytes), 16-21, 24-31, 34-35; byte 22 has the two flags, 23 the sequence.
    for (const i of [14, 15, 16, 17, 18, 19, 20, 21, 24, 25, 26, 27, 28, 29, 30, 31, 34, 35]) assert.equal(buf[i], 0, `byte ${i}`);
    assert.equal(buf[22], 0x03);
    assert.equal(buf[23], 255);
  });

  it('reads the same serial as the same string, and tells serials apart that share their last four bytes', () => {
    const at = (serial: string): string => {
      const input: PacketInput<'GetColor'> = { name: 'GetColor', header: { source: 1, sequence: 1, target: serial }, payload: {} };
      const result = decode(encode(input));
      assert.ok(result.ok);
      return result.packet.header.target;
    };
    assert.equal(at('d073d5012345'), 'd073d5012345');
    assert.equal(at('d073d5012345'), 'd073d5012345');
    assert.equal(at('0102d5012345'), '0102d5012345');
    assert.equal(at('d073d5012345'), 'd073d5012345');
    assert.equal(at('000000000000'), '000000000000');
    assert.equal(at('ffffffffffff'), 'ffffffffffff');
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 6, maxLength: 6 }), (bytes) => {
        const serial = Buffer.from(bytes).toString('hex');
        return at(serial) === serial;
      }),
      { numRuns: 300 },
    );
  });

  it('names nested array paths down to the field: StateButton.buttons[2].actions[4].gesture', () => {
    const action = { gesture: 1, targetType: 2, target: new Uint8Array(16) };
    const button = { actionsCount: 5, actions: Array.from({ length: 5 }, () => action) };
    const buttons = [button, button, { ...button, actions: [action, action, action, action, { ...action, gesture: 70000 }] }];
    const input = { name: 'StateButton', header, payload: { count: 3, index: 0, buttonsCount: 3, buttons } } as unknown as PacketInput;
    throwsCode(() => encode(input), 'VALUE_OUT_OF_RANGE', 'StateButton.buttons[2].actions[4].gesture');
  });

  it('rejects bad header values as header.source, header.sequence and header.target', () => {
    const getService = (h: Record<string, unknown>): PacketInput =>
      ({ name: 'GetService', header: { source: 1, sequence: 1, ...h }, payload: {} }) as unknown as PacketInput;
    throwsCode(() => encode(getService({ source: -1 })), 'VALUE_OUT_OF_RANGE', 'header.source');
    throwsCode(() => encode(getService({ source: 2 ** 32 })), 'VALUE_OUT_OF_RANGE', 'header.source');
    throwsCode(() => encode(getService({ sequence: 256 })), 'VALUE_OUT_OF_RANGE', 'header.sequence');
    throwsCode(() => encode(getService({ target: 'd073d500133' })), 'VALUE_OUT_OF_RANGE', 'header.target');
    throwsCode(() => encode(getService({ target: 'd073d500133g' })), 'VALUE_OUT_OF_RANGE', 'header.target');
  });

  it('rejects an unknown message name with MESSAGE_UNKNOWN, including names inherited from Object', () => {
    for (const name of ['SetColour', 'toString', '__proto__', 'constructor', '']) {
      throwsCode(() => encode({ name, header, payload: {} } as unknown as PacketInput), 'MESSAGE_UNKNOWN');
      throwsCode(() => encodingLength(name as 'GetService'), 'MESSAGE_UNKNOWN');
    }
  });

  it('rejects an encodeInto offset that leaves too little room, without writing anything', () => {
    const buf = Buffer.alloc(60, 0xaa);
    const input = setColor({});
    assert.equal(encodeInto(input, buf, 11), 49);
    const clean = Buffer.alloc(60, 0xaa);
    throwsCode(() => encodeInto(input, clean, 12), 'VALUE_OUT_OF_RANGE', 'offset');
    throwsCode(() => encodeInto(input, clean, -1), 'VALUE_OUT_OF_RANGE', 'offset');
    throwsCode(() => encodeInto(input, clean, 1.5), 'VALUE_OUT_OF_RANGE', 'offset');
    assert.ok(clean.every((b) => b === 0xaa));
  });
});

describe('field types used on their own', () => {
  it('reads and writes each primitive at an offset, little-endian', () => {
    const buf = Buffer.alloc(16);
    u16.write(buf, 1, 0x1234, 'x');
    assert.deepEqual([...buf.subarray(1, 3)], [0x34, 0x12]);
    u32.write(buf, 3, 0xdeadbeef, 'x');
    assert.equal(buf.readUInt32LE(3), 0xdeadbeef);
    assert.equal(u32.read(buf, 3), 0xdeadbeef);
    i16.write(buf, 7, -2, 'x');
    assert.equal(buf.readInt16LE(7), -2);
    assert.equal(i16.read(buf, 7), -2);
    f32.write(buf, 9, 0.1, 'x');
    assert.equal(f32.read(buf, 9), Math.fround(0.1));
    assert.equal(buf.readFloatLE(9), Math.fround(0.1));
    u8.write(buf, 13, 255, 'x');
    bool.write(buf, 14, true, 'x');
    assert.equal(u8.read(buf, 13), 255);
    assert.equal(bool.read(buf, 14), true);
    const big = Buffer.alloc(8);
    u64.write(big, 0, 0x0102030405060708n, 'x');
    assert.equal(big.toString('hex'), '0807060504030201');
    assert.equal(u64.read(big, 0), 0x0102030405060708n);
  });

  it('reads any non-zero bool byte as true', () => {
    assert.equal(bool.read(Buffer.from([2]), 0), true);
    assert.equal(bool.read(Buffer.from([0]), 0), false);
  });

  it('writes zeros in reserved gaps of a struct and reads the struct back', () => {
    const t = struct([field('a', u8), reserved(3), field('b', u16), reserved(9), field('c', hexBytes(2))]);
    assert.equal(t.sizeBytes, 17);
    assert.deepEqual([...t.offsets], [['a', 0], ['b', 4], ['c', 15]]);
    const buf = Buffer.alloc(20, 0xff);
    t.write(buf, 1, { a: 7, b: 258, c: 'beef' }, 'thing');
    assert.equal(buf.toString('hex'), `ff07000000${'0201'}${'00'.repeat(9)}beefffff`);
    assert.deepEqual(t.read(buf, 1), { a: 7, b: 258, c: 'beef' });
    throwsCode(() => t.write(buf, 1, { a: 7, b: 258, c: 'BEEG' }, 'thing'), 'VALUE_OUT_OF_RANGE', 'thing.c');
  });

  it('names top-level fields without a prefix when the struct path is empty', () => {
    const t = struct([field('a', u8), field('list', array(u8, 2))]);
    const buf = Buffer.alloc(3);
    throwsCode(() => t.write(buf, 0, { a: 256, list: [] }, ''), 'VALUE_OUT_OF_RANGE', 'a');
    throwsCode(() => t.write(buf, 0, { a: 1, list: [1, 300] }, ''), 'VALUE_OUT_OF_RANGE', 'list[1]');
  });

  it('runs a custom field type that has no code snippets through its own read and write', () => {
    // A 3-byte big-endian counter, written by hand as a FieldType without `gen`.
    const be24: FieldType<number> = {
      kind: 'be24',
      sizeBytes: 3,
      zero: () => 0,
      read: (b, o) => b.readUIntBE(o, 3),
      write: (b, o, v, p) => {
        if (!Number.isInteger(v) || v < 0 || v > 0xffffff) throw new Error(`bad ${p}`);
        b.writeUIntBE(v, o, 3);
      },
    };
    const t = struct([field('n', be24), field('list', array(be24, 2))]);
    const buf = Buffer.alloc(9);
    t.write(buf, 0, { n: 0x010203, list: [4, 5] }, 'custom');
    assert.equal(buf.toString('hex'), '010203000004000005');
    assert.deepEqual(t.read(buf, 0), { n: 0x010203, list: [4, 5] });
    assert.throws(() => t.write(buf, 0, { n: -1, list: [] }, 'custom'), /bad custom\.n/);
  });

  it('gives bytes, hex and label fields their documented zero values', () => {
    assert.deepEqual(bytes(4).zero(), new Uint8Array(4));
    assert.equal(hexBytes(3).zero(), '000000');
    assert.equal(label(8).zero(), '');
    assert.deepEqual(array(u16, 3).zero(), [0, 0, 0]);
  });
});
