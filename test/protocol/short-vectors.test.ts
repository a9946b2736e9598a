// The short-payload golden vectors (short-vectors.ts: what aiolifx sends) decode, their missing bytes read as zeros.

import assert from 'node:assert/strict';
import { decode } from '../../core/protocol/index.js';
import { SHORT_VECTORS, hue, vector } from './short-vectors.js';

const NO_COLOR = { hue: 0, saturation: 0, brightness: 0, kelvin: 0 };

describe('golden vectors with short payloads (aiolifx)', () => {
  for (const v of SHORT_VECTORS) {
    it(`decodes ${v.id}, ${v.finds}, counting ${v.sizeBytes - v.payloadBytes} missing bytes`, () => {
      const bytes = Buffer.from(v.hex, 'hex');
      assert.equal(bytes.length, 36 + v.payloadBytes);
      const result = decode(bytes);
      assert.ok(result.ok, `${v.id} decodes`);
      assert.equal(result.packet.name, v.name);
      assert.equal(result.missingBytes, v.sizeBytes - v.payloadBytes);
      assert.equal(result.packet.header.sizeBytes, bytes.length);
    });
  }

  it('reads S1 as 16 colours from zone 0 and zeros after them', () => {
    const result = decode(vector('S1'));
    assert.ok(result.ok && result.packet.name === 'SetExtendedColorZones');
    const p = result.packet.payload;
    assert.deepEqual({ durationMs: p.durationMs, apply: p.apply, index: p.index, colorsCount: p.colorsCount }, { durationMs: 500, apply: 1, index: 0, colorsCount: 16 });
    assert.deepEqual(
      p.colors.slice(0, 16),
      Array.from({ length: 16 }, (_, i) => ({ hue: hue(i, 4096), saturation: 65535, brightness: 52428, kelvin: 3500 })),
    );
    assert.equal(p.colors.length, 82);
    assert.deepEqual(p.colors.slice(16), new Array(66).fill(NO_COLOR));
  });

  it('reads S2 as 38 colours from zone 82', () => {
    const result = decode(vector('S2'));
    assert.ok(result.ok && result.packet.name === 'SetExtendedColorZones');
    const p = result.packet.payload;
    assert.deepEqual({ index: p.index, colorsCount: p.colorsCount, apply: p.apply }, { index: 82, colorsCount: 38, apply: 1 });
    assert.deepEqual(
      p.colors.slice(0, 38),
      Array.from({ length: 38 }, (_, i) => ({ hue: hue(i, 1724), saturation: 65535, brightness: 32768, kelvin: 3500 })),
    );
    assert.deepEqual(p.colors[38], NO_COLOR);
  });

  it('reads S3 as a MORPH at 3000 ms with 3 palette colours and zeros after them', () => {
    const result = decode(vector('S3'));
    assert.ok(result.ok && result.packet.name === 'SetTileEffect');
    const s = result.packet.payload.settings;
    assert.deepEqual({ type: s.type, speedMs: s.speedMs, durationNs: s.durationNs, paletteCount: s.paletteCount }, { type: 2, speedMs: 3000, durationNs: 0n, paletteCount: 3 });
    assert.deepEqual(s.palette.slice(0, 4), [
      { hue: 0, saturation: 65535, brightness: 65535, kelvin: 3500 },
      { hue: 21845, saturation: 65535, brightness: 65535, kelvin: 3500 },
      { hue: 43690, saturation: 65535, brightness: 65535, kelvin: 3500 },
      NO_COLOR,
    ]);
  });

  it('reads S4 as a GetTileEffect asking for its State, to d073d5000003', () => {
    const result = decode(vector('S4'));
    assert.ok(result.ok && result.packet.name === 'GetTileEffect');
    assert.deepEqual(result.packet.payload, {});
    assert.equal(result.packet.header.target, 'd073d5000003');
    assert.equal(result.packet.header.resRequired, true);
  });
});
