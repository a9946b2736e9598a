// The 36-byte header (https://lan.developer.lifx.com/docs/packet-contents): flag bytes as sent, and tolerance on read.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { HEADER_BYTES, HEADER_FIELDS, decode, encode, encodeInto, readHeader, readdressed, writeHeader } from '../../core/protocol/index.js';
import { headerInputArbitrary } from './helpers.js';

// Vector V3 (photons' discovery test): a StateService reply with "LIFXV2" in the reserved bytes and res_required set.
const V3 = '29000014f7f15496d073d51261e200004c49465856320101000000000000000003000000017cdd0000';

describe('header', () => {
  it('is a 36-byte field table', () => {
    assert.equal(HEADER_FIELDS.sizeBytes, HEADER_BYTES);
    assert.equal(HEADER_BYTES, 36);
  });

  it('sends byte 3 = 0x34 (addressable + tagged) for a broadcast and 0x14 for a unicast, byte 2 = 0x00', () => {
    const broadcast = encode({ name: 'GetService', header: { source: 1, sequence: 0 }, payload: {} });
    assert.equal(broadcast[2], 0x00);
    assert.equal(broadcast[3], 0x34);
    const unicast = encode({ name: 'GetService', header: { source: 1, sequence: 0, target: 'd073d5001337' }, payload: {} });
    assert.equal(unicast[2], 0x00);
    assert.equal(unicast[3], 0x14);
  });

  it('derives tagged from the target unless told: an all-zero target is tagged, an explicit flag wins', () => {
    const byte3 = (h: { target?: string; tagged?: boolean }): number =>
      encode({ name: 'GetService', header: { source: 1, sequence: 0, ...h }, payload: {} })[3]!;
    assert.equal(byte3({ target: '000000000000' }), 0x34);
    assert.equal(byte3({ target: '000000000000', tagged: false }), 0x14);
    assert.equal(byte3({ target: 'd073d5001337', tagged: true }), 0x34);
  });

  it('puts the serial in bytes 8-13 and zeros in 14-15', () => {
    const bytes = encode({ name: 'GetPower', header: { source: 1, sequence: 0, target: 'D073D5001337' }, payload: {} });
    assert.equal(bytes.subarray(8, 16).toString('hex'), 'd073d50013370000');
  });

  it('sets byte 22 to 00, 01 (res), 02 (ack) or 03 (both)', () => {
    const byte22 = (ackRequired: boolean, resRequired: boolean): number =>
      encode({ name: 'GetPower', header: { source: 1, sequence: 0, ackRequired, resRequired }, payload: {} })[22]!;
    assert.equal(byte22(false, false), 0x00);
    assert.equal(byte22(false, true), 0x01);
    assert.equal(byte22(true, false), 0x02);
    assert.equal(byte22(true, true), 0x03);
  });

  it('accepts origin = 1 (byte 3 = 0x54, older firmware replies) and reports it without failing', () => {
    const bytes = Buffer.from(V3, 'hex');
    bytes[3] = 0x54;
    const result = decode(bytes);
    assert.ok(result.ok);
    assert.equal(result.packet.header.origin, 1);
    assert.equal(result.packet.header.addressable, true);
    assert.equal(result.packet.header.tagged, false);
    assert.equal(result.packet.header.protocol, 1024);
    assert.deepEqual(result.packet.payload, { service: 1, port: 56700 });
  });

  it('never sends origin: re-encoding an origin = 1 reply writes byte 3 = 0x14', () => {
    const bytes = Buffer.from(V3, 'hex');
    bytes[3] = 0x54;
    const result = decode(bytes);
    assert.ok(result.ok && result.packet.name === 'StateService');
    assert.equal(encode(result.packet)[3], 0x14);
  });

  it('masks the reserved bits of byte 22: 0x07 (the docs\' example) is res + ack, 0xfc is neither', () => {
    const bytes = Buffer.from(V3, 'hex');
    bytes[22] = 0x07;
    let header = readHeader(bytes, 0);
    assert.equal(header.resRequired, true);
    assert.equal(header.ackRequired, true);
    bytes[22] = 0xfc;
    header = readHeader(bytes, 0);
    assert.equal(header.resRequired, false);
    assert.equal(header.ackRequired, false);
  });

  it('reads a header at an offset inside a larger buffer', () => {
    const bytes = Buffer.concat([Buffer.alloc(5, 0xee), Buffer.from(V3, 'hex')]);
    const header = readHeader(bytes, 5);
    assert.equal(header.source, 2522149367);
    assert.equal(header.target, 'd073d51261e2');
    assert.equal(header.type, 3);
  });

  it('writes zeros in every reserved header byte, even over a dirty buffer', () => {
    fc.assert(
      fc.property(headerInputArbitrary, fc.integer({ min: 1, max: 255 }), (input, fill) => {
        const buf = Buffer.alloc(HEADER_BYTES, fill);
        writeHeader(buf, 0, input, 2, HEADER_BYTES);
        for (const [a, b] of [[14, 16], [16, 22], [24, 32], [34, 36]] as const) {
          assert.ok(buf.subarray(a, b).every((x) => x === 0), `bytes ${a}-${b - 1}`);
        }
        assert.equal(buf[22]! & 0xfc, 0);
        assert.equal(buf[3]! & 0xc0, 0, 'origin bits clear');
        const result = decode(buf);
        assert.ok(result.ok, 'a GetService header alone is a whole datagram');
        assert.deepEqual(result.packet.header, readHeader(buf, 0));
      }),
      { numRuns: 300 },
    );
  });

  it('writes the size, source, sequence and type little-endian', () => {
    const buf = Buffer.alloc(49);
    encodeInto({ name: 'SetColor', header: { source: 0x01020304, sequence: 0xab }, payload: { color: { hue: 0, saturation: 0, brightness: 0, kelvin: 0 }, durationMs: 0 } }, buf);
    assert.equal(buf.subarray(0, 2).toString('hex'), '3100');
    assert.equal(buf.subarray(4, 8).toString('hex'), '04030201');
    assert.equal(buf[23], 0xab);
    assert.equal(buf.subarray(32, 34).toString('hex'), '6600');
  });

  it('readdresses a copy of a datagram to another light and sequence, byte for byte what encode() makes of them', () => {
    const payload = { color: { hue: 120, saturation: 65535, brightness: 30000, kelvin: 3500 }, durationMs: 250 };
    const template = encode({ name: 'SetColor', header: { source: 0xdeadbeef, sequence: 7, target: 'd073d5000001' }, payload });
    const copy = readdressed(template, 'D073D5ABCDEF', 200);
    const expected = encode({ name: 'SetColor', header: { source: 0xdeadbeef, sequence: 200, target: 'D073D5ABCDEF' }, payload });
    assert.equal(copy?.toString('hex'), expected.toString('hex'));
    // The template is left as it was.
    assert.equal(readHeader(template, 0).target, 'd073d5000001');
    assert.equal(readHeader(template, 0).sequence, 7);
  });

  it('readdresses nothing it cannot make as encode() would: a tagged datagram, the broadcast target, a bad target or sequence', () => {
    const unicast = encode({ name: 'GetPower', header: { source: 1, sequence: 0, target: 'd073d5000001' }, payload: {} });
    const tagged = encode({ name: 'GetService', header: { source: 1, sequence: 0 }, payload: {} });
    assert.equal(readdressed(tagged, 'd073d5000002', 1), undefined);
    assert.equal(readdressed(unicast, '000000000000', 1), undefined);
    assert.equal(readdressed(unicast, 'd073d50000zz', 1), undefined);
    assert.equal(readdressed(unicast, 'd073d500000', 1), undefined);
    assert.equal(readdressed(unicast, 'd073d5000002', 256), undefined);
    assert.equal(readdressed(unicast, 'd073d5000002', 1.5), undefined);
  });
});
