// Golden vectors (tested in short-vectors.test.ts, sent to virtual lights in test/simulator/short-payloads.test.ts)
// for datagrams whose payload is shorter than the message's size, as Home Assistant's client library aiolifx sends
// them (aiolifx-themes painting a strip, an aiolifx-effects morph on tiles): it packs only the colours it has, so the count fields (colors_count, palette_count) say how many entries are meant. Bytes laid out by hand from
// the vendor's field tables (https://lan.developer.lifx.com/docs/multizone-light-control,
// https://lan.developer.lifx.com/docs/tile-control), independently of our message tables; header: source 0x12345678,
// ack_required (the Sets) or res_required (GetTileEffect). The missing bytes read as zeros and are counted.

import type { MessageName } from '../../core/protocol/index.js';

export interface ShortVector {
  readonly id: string;
  readonly finds: string;
  readonly hex: string;
  readonly name: MessageName;
  /** Payload bytes carried, and the message's size. */
  readonly payloadBytes: number;
  readonly sizeBytes: number;
}

export const hue = (i: number, step: number): number => (i * step) % 65536;

export const SHORT_VECTORS: readonly ShortVector[] = [
  {
    id: 'S1',
    finds: 'SetExtendedColorZones from zone 0, APPLY over 500 ms, 16 colours (hue i x 4096, brightness 0.8): 172 bytes',
    hex: [
      'ac00001478563412d073d5000001000000000000000002010000000000000000fe010000f4010000010000100000ffffccccac0d0010ffffccccac0d0020ffffccccac0d0030ffffccccac0d0040ffffccccac0d0050ffffccccac0d0060ffffccccac0d0070ffffccccac0d0080ffffccccac',
      '0d0090ffffccccac0d00a0ffffccccac0d00b0ffffccccac0d00c0ffffccccac0d00d0ffffccccac0d00e0ffffccccac0d00f0ffffccccac0d',
    ].join(''),
    name: 'SetExtendedColorZones',
    payloadBytes: 136,
    sizeBytes: 664,
  },
  {
    id: 'S2',
    finds: 'SetExtendedColorZones, the second segment of a 120-zone strip: index 82, 38 colours: 348 bytes',
    hex: [
      '5c01001478563412d073d5000001000000000000000002020000000000000000fe010000f4010000015200260000ffff0080ac0dbc06ffff0080ac0d780dffff0080ac0d3414ffff0080ac0df01affff0080ac0dac21ffff0080ac0d6828ffff0080ac0d242fffff0080ac0de035ffff0080ac',
      '0d9c3cffff0080ac0d5843ffff0080ac0d144affff0080ac0dd050ffff0080ac0d8c57ffff0080ac0d485effff0080ac0d0465ffff0080ac0dc06bffff0080ac0d7c72ffff0080ac0d3879ffff0080ac0df47fffff0080ac0db086ffff0080ac0d6c8dffff0080ac0d2894ffff0080ac0de49a',
      'ffff0080ac0da0a1ffff0080ac0d5ca8ffff0080ac0d18afffff0080ac0dd4b5ffff0080ac0d90bcffff0080ac0d4cc3ffff0080ac0d08caffff0080ac0dc4d0ffff0080ac0d80d7ffff0080ac0d3cdeffff0080ac0df8e4ffff0080ac0db4ebffff0080ac0d70f2ffff0080ac0d2cf9ffff00',
      '80ac0d',
    ].join(''),
    name: 'SetExtendedColorZones',
    payloadBytes: 312,
    sizeBytes: 664,
  },
  {
    id: 'S3',
    finds: 'SetTileEffect MORPH at 3 s with a 3-colour palette (red, green, blue): payload 84 of 188',
    hex: '7800001478563412d073d5000003000000000000000002030000000000000000cf02000000000000000002b80b0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000030000ffffffffac0d5555ffffffffac0daaaaffffffffac0d',
    name: 'SetTileEffect',
    payloadBytes: 84,
    sizeBytes: 188,
  },
  {
    id: 'S4',
    finds: 'GetTileEffect without its two reserved bytes: the 36-byte header alone',
    hex: '2400001478563412d073d5000003000000000000000001040000000000000000ce020000',
    name: 'GetTileEffect',
    payloadBytes: 0,
    sizeBytes: 2,
  },
];

export const vector = (id: string): Buffer => Buffer.from(SHORT_VECTORS.find((v) => v.id === id)!.hex, 'hex');

