// What many lights report alike is held once: a group, a location, a firmware build and a chain of tiles are one
// frozen copy per client, not one per light; tiles showing the same pixels share one array; and a serial decoded
// again is the same string, even beside another serial with the same last four bytes.

import { expect } from 'chai';
import { LightClient } from '../../core/discovery/client.js';
import { shareEqualTiles } from '../../core/discovery/pixels.js';
import { ValueCache } from '../../core/discovery/value-cache.js';
import { decode, encode, type Hsbk } from '../../core/protocol/index.js';
import { Fleet } from '../../core/simulator/fleet.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';

describe('values many lights share', function () {
  this.timeout(20_000);

  describe('ValueCache', () => {
    it('gives the first copy held under a key, frozen, and starts afresh past its limit', () => {
      const cache = new ValueCache<{ id: string }>(2);
      const first = cache.shared('a', { id: 'a' });
      expect(cache.shared('a', { id: 'a' })).to.equal(first);
      expect(Object.isFrozen(first)).to.equal(true);
      cache.shared('b', { id: 'b' });
      expect(cache.size).to.equal(2);
      const third = { id: 'c' };
      expect(cache.shared('c', third)).to.equal(third);
      expect(cache.size).to.equal(1);
      // 'a' was let go with the rest: a new copy is held.
      const again = { id: 'a' };
      expect(cache.shared('a', again)).to.equal(again).and.not.equal(first);
    });
  });

  describe('shareEqualTiles', () => {
    const red: Hsbk = { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 };
    const blue: Hsbk = { hue: 240, saturation: 1, brightness: 1, kelvin: 3500 };
    it('gives a tile showing what the tile before it shows (the same colour objects) that tile’s array', () => {
      const tiles = [Array<Hsbk>(4).fill(red), Array<Hsbk>(4).fill(red), [red, red, blue, red], [red, red, blue, red], Array<Hsbk>(3).fill(red)];
      const copy = tiles.map((t) => [...t]);
      const shared = shareEqualTiles(tiles);
      expect(shared[1]).to.equal(shared[0]);
      expect(shared[2]).to.not.equal(shared[1]);
      expect(shared[3]).to.equal(shared[2]);
      expect(shared[4]).to.not.equal(shared[3]);
      expect(shared).to.deep.equal(copy);
    });
    it('keeps tiles apart whose colours are equal but not the same objects', () => {
      const tiles = [[red], [{ ...red }]];
      expect(shareEqualTiles(tiles)[1]).to.not.equal(tiles[0]);
    });
  });

  it('decodes a serial to the same string each time, and one with the same last four bytes to its own', () => {
    const target = (serial: string): string => {
      const result = decode(encode({ name: 'GetPower', header: { source: 1, sequence: 0, target: serial }, payload: {} }));
      if (!result.ok) throw new Error('not decoded');
      return result.packet.header.target;
    };
    const a = target('d073d5001337');
    expect(a).to.equal('d073d5001337');
    expect(target('aabbd5001337')).to.equal('aabbd5001337');
    expect(target('d0ffd5001337')).to.equal('d0ffd5001337');
    expect(target('d073d5001337')).to.equal('d073d5001337');
  });

  it('holds one frozen copy of a group, a location, a firmware build and a tile chain for all the lights that report it', async () => {
    const light = (i: number, group: string, extra: Partial<LightInput> = {}): LightInput => ({
      serial: `d073d5ee000${i}`,
      product: 55,
      label: `Tile ${i}`,
      firmware: { major: 3, minor: 70 },
      group: { label: group },
      location: { label: 'Home' },
      tileCount: 5,
      color: { hue: 120, saturation: 1, brightness: 0.5, kelvin: 3500 },
      ...extra,
    });
    const fleet = new Fleet({ lights: [light(1, 'Study'), light(2, 'Study'), light(3, 'Hall', { firmware: { major: 3, minor: 90 } })] }, { port: 0, mode: 'ip' });
    await fleet.start();
    const client = new LightClient({ discovery: { broadcastAddresses: ['127.255.255.255'], port: fleet.port, burstScheduleMs: [0, 300], refreshIntervalMs: 0 } });
    try {
      let described = 0;
      const all = new Promise<void>((resolve) => client.on('described', () => void (++described === 3 && resolve())));
      await client.start();
      await all;
      const [one, two, three] = ['d073d5ee0001', 'd073d5ee0002', 'd073d5ee0003'].map((s) => client.registry.peek(s)!.facts);
      expect(one!.group!.value).to.equal(two!.group!.value);
      expect(one!.group!.value).to.not.equal(three!.group!.value);
      expect(three!.group!.value.label).to.equal('Hall');
      expect(one!.location!.value).to.equal(three!.location!.value);
      expect(one!.firmware!.value).to.equal(two!.firmware!.value);
      expect(three!.firmware!.value).to.include({ major: 3, minor: 90 });
      expect(one!.tiles!.value).to.equal(three!.tiles!.value).and.have.length(5);
      for (const v of [one!.group!.value, one!.location!.value, one!.firmware!.value, one!.tiles!.value]) expect(Object.isFrozen(v)).to.equal(true);
      // A chain in one colour: every tile's pixels in one array, as many pixels as the tile has.
      const pixels = one!.pixels!.value;
      expect(pixels).to.have.length(5);
      for (const tile of pixels) expect(tile).to.equal(pixels[0]).and.have.length(64);
      expect(pixels[0]![0]).to.deep.equal({ hue: 120, saturation: 1, brightness: 0.5, kelvin: 3500 });
    } finally {
      await client.stop();
      await fleet.stop();
    }
  });
});
