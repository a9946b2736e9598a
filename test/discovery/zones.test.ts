// zonesFromReplies: a multizone light's zones from its State*Zone replies, decoded from real datagrams.

import { expect } from 'chai';
import { zonesFromReplies } from '../../core/discovery/zones.js';
import { decode, encode, hsbkFromWire, type KnownPacket, type PacketInput, type WireHsbk } from '../../core/protocol/index.js';

const header = { source: 7, sequence: 1, target: 'd073d5000001', ackRequired: false, resRequired: false, tagged: false };
const RED: WireHsbk = { hue: 0, saturation: 65535, brightness: 65535, kelvin: 3500 };
const BLUE: WireHsbk = { hue: 43690, saturation: 65535, brightness: 32768, kelvin: 3500 };
const BLANK: WireHsbk = { hue: 0, saturation: 0, brightness: 0, kelvin: 0 };

function packet(input: { name: string; payload: unknown }): KnownPacket {
  const result = decode(encode({ ...input, header } as unknown as PacketInput));
  if (!result.ok || result.packet.name === null) throw new Error(`${input.name} did not decode`);
  return result.packet as KnownPacket;
}

function extended(count: number, index: number, colors: readonly WireHsbk[]): KnownPacket {
  const padded = [...colors, ...Array.from({ length: 82 - colors.length }, () => BLANK)];
  return packet({ name: 'StateExtendedColorZones', payload: { count, index, colorsCount: colors.length, colors: padded } });
}

describe('zonesFromReplies', () => {
  it('assembles zones from StateMultiZone replies, in any order, and stops at count', () => {
    const second = packet({ name: 'StateMultiZone', payload: { count: 10, index: 8, colors: [BLUE, RED, RED, RED, RED, RED, RED, RED] } });
    const first = packet({ name: 'StateMultiZone', payload: { count: 10, index: 0, colors: [RED, RED, RED, RED, RED, RED, RED, BLUE] } });
    const zones = zonesFromReplies([second, first]);
    expect(zones).to.have.length(10);
    expect(zones!.map((z) => z.hue === 0)).to.deep.equal([true, true, true, true, true, true, true, false, false, true]);
    expect(zones![7]).to.deep.equal(hsbkFromWire(BLUE));
  });

  it('is undefined while a zone is missing', () => {
    expect(zonesFromReplies([extended(90, 0, Array.from({ length: 82 }, () => RED))])).to.equal(undefined);
    expect(zonesFromReplies([])).to.equal(undefined);
  });

  it('gives zones of one colour one shared object, and a new object where the colour changes', () => {
    const zones = zonesFromReplies([extended(82, 0, [...Array.from({ length: 40 }, () => RED), ...Array.from({ length: 42 }, () => BLUE)])])!;
    expect(zones).to.have.length(82);
    expect(new Set(zones).size).to.equal(2);
    expect(zones[0]).to.equal(zones[39]);
    expect(zones[40]).to.equal(zones[81]);
    expect(zones[0]).to.deep.equal(hsbkFromWire(RED));
    expect(zones[81]).to.deep.equal(hsbkFromWire(BLUE));
    // A gradient keeps one object per zone.
    const gradient = zonesFromReplies([extended(5, 0, [0, 1, 2, 3, 4].map((i) => ({ ...RED, hue: i * 1000 })))])!;
    expect(new Set(gradient).size).to.equal(5);
    expect(gradient.map((z) => Math.round(z.hue))).to.deep.equal([0, 5, 11, 16, 22]);
  });
});
