// Virtual devices built like their product (core/simulator/product-specs.ts, from lifx-emulator's specs.yml): each
// matrix reports its own tile size in StateDeviceChain, strips have their own zone counts, the Dimmer Switch is
// relays and buttons and no light, and the button lights (Luna, Mirror, Everyday Lightstrip) answer their buttons;
// a fleet file may say otherwise for each.

import { expect } from 'chai';
import { isLightwireError } from '../../core/errors.js';
import { parseFleet } from '../../core/simulator/fleet-file.js';
import { namesOf, payloadsOf } from './client.js';
import { rig, type Rig } from './helpers.js';

const serial = (n: number): string => `d073d5000d${n.toString(16).padStart(2, '0')}`;

/** pid, product, tile width x height (specs.yml at lifx-emulator 87126a7). */
const GEOMETRY: readonly (readonly [number, string, number, number])[] = [
  [57, 'Candle', 5, 6],
  [217, 'Tube', 5, 11],
  [173, 'Path', 3, 2],
  [229, 'Path Intl', 3, 2],
  [171, 'Spot', 3, 1],
  [219, 'Luna', 7, 5],
  [267, 'Mirror', 5, 10],
  [176, 'Ceiling', 8, 8],
  [265, 'Ceiling 13"', 8, 8],
  [201, 'Ceiling Capsule', 16, 8],
  [55, 'Tile', 8, 8],
];

describe('simulator products built like the real ones', () => {
  describe('matrix geometry in StateDeviceChain', () => {
    let r: Rig;
    before(async () => {
      r = await rig({ lights: GEOMETRY.map(([pid], i) => ({ serial: serial(i), product: pid })) });
    });
    after(() => r.close());

    for (const [i, [pid, name, width, height]] of GEOMETRY.entries()) {
      it(`reports a ${name} (pid ${pid}) as ${width} x ${height}`, async () => {
        const replies = await r.client.request('GetDeviceChain', {}, r.at(serial(i)), { count: 1 });
        const chain = payloadsOf(replies, 'StateDeviceChain')[0]!;
        const tiles = chain.tileDevices.slice(0, chain.tileDevicesCount);
        expect(tiles.length).to.equal(pid === 55 ? 5 : 1);
        for (const t of tiles) expect({ width: t.width, height: t.height }).to.deep.equal({ width, height });
        expect(r.fleet.light(serial(i)).state.tiles![0]).to.have.length(width * height);
      });
    }

    it('reads all 128 zones of a 16 x 8 Capsule with two Get64 rects (y 0 and y 4)', async () => {
      const at = r.at(serial(GEOMETRY.findIndex(([pid]) => pid === 201)));
      const top = await r.client.request('Get64', { tileIndex: 0, length: 1, rect: { fbIndex: 0, x: 0, y: 0, width: 16 } }, at, { count: 1 });
      const bottom = await r.client.request('Get64', { tileIndex: 0, length: 1, rect: { fbIndex: 0, x: 0, y: 4, width: 16 } }, at, { count: 1 });
      const lit = [...payloadsOf(top, 'State64')[0]!.colors, ...payloadsOf(bottom, 'State64')[0]!.colors];
      expect(lit).to.have.length(128);
      expect(lit.every((c) => c.brightness === 65535)).to.equal(true);
    });
  });

  describe('button devices', () => {
    const DIMMER = serial(0x40);
    const LUNA = serial(0x41);
    const MIRROR = serial(0x42);
    const STRIP = serial(0x43);
    let r: Rig;
    before(async () => {
      r = await rig({
        lights: [
          { serial: DIMMER, product: 226, label: 'Dimmer' },
          { serial: LUNA, product: 219 },
          { serial: MIRROR, product: 268 },
          { serial: STRIP, product: 207 },
        ],
      });
    });
    after(() => r.close());

    it('answers the Dimmer Switch (226) as relays and buttons: 2 of each, no light messages', async () => {
      const relay = await r.client.request('GetRPower', { relayIndex: 1 }, r.at(DIMMER), { count: 1 });
      expect(payloadsOf(relay, 'StateRPower')).to.deep.equal([{ relayIndex: 1, level: 0 }]);
      const none = await r.client.request('GetRPower', { relayIndex: 2 }, r.at(DIMMER), { timeoutMs: 150 });
      expect(none).to.deep.equal([]);
      const buttons = await r.client.request('GetButton', {}, r.at(DIMMER), { count: 1 });
      expect(payloadsOf(buttons, 'StateButton')[0]).to.include({ count: 2, buttonsCount: 2 });
      const config = await r.client.request('GetButtonConfig', {}, r.at(DIMMER), { count: 1 });
      expect(namesOf(config)).to.deep.equal(['StateButtonConfig']);
      for (const [name, type] of [['GetColor', 101], ['GetLightPower', 116], ['GetDeviceChain', 701], ['GetColorZones', 502]] as const) {
        const payload = name === 'GetColorZones' ? { startIndex: 0, endIndex: 255 } : {};
        const replies = await r.client.request(name, payload as never, r.at(DIMMER), { count: 1 });
        expect(payloadsOf(replies, 'StateUnhandled'), name).to.deep.equal([{ unhandledType: type }]);
      }
      expect(r.fleet.light(DIMMER).state.relays).to.deep.equal(['off', 'off']);
    });

    for (const [name, at, count] of [['Luna', LUNA, 4], ['Mirror', MIRROR, 4], ['Everyday Lightstrip', STRIP, 1]] as const) {
      it(`answers the ${name}'s buttons (${count}) and button configuration, and stays a light`, async () => {
        const buttons = await r.client.request('GetButton', {}, r.at(at), { count: 1 });
        expect(payloadsOf(buttons, 'StateButton')[0]).to.include({ count, buttonsCount: count });
        const config = await r.client.request('GetButtonConfig', {}, r.at(at), { count: 1 });
        expect(payloadsOf(config, 'StateButtonConfig')[0]).to.include({ hapticDurationMs: 50 });
        const color = await r.client.request('GetColor', {}, r.at(at), { count: 1 });
        expect(namesOf(color)).to.deep.equal(['LightState']);
        const relay = await r.client.request('GetRPower', { relayIndex: 0 }, r.at(at), { timeoutMs: 150 });
        expect(relay).to.deep.equal([]);
      });
    }
  });

  describe('fleet file', () => {
    const one = (light: Record<string, unknown>) => parseFleet({ lights: [{ serial: 'd073d5000001', ...light }] }, 0n).lights[0]!;
    const refused = (light: Record<string, unknown>, path: RegExp): void => {
      expect(() => one(light)).to.throw().that.satisfies((err: unknown) => isLightwireError(err, 'FLEET_INVALID') && path.test(err.params.path));
    };

    it("gives each product its own build by default: zones, tiles, buttons and relays", () => {
      expect(one({ product: 38 })).to.include({ zoneCount: 80, tileCount: 0, buttonCount: 0, relayCount: 0 });
      expect(one({ product: 141 })).to.include({ zoneCount: 24 });
      expect(one({ product: 207 })).to.include({ zoneCount: 16, buttonCount: 1 });
      expect(one({ product: 211 })).to.include({ zoneCount: 30 });
      expect(one({ product: 57 })).to.include({ tileCount: 1, tileWidth: 5, tileHeight: 6 });
      expect(one({ product: 55 })).to.include({ tileCount: 5, tileWidth: 8, tileHeight: 8 });
      expect(one({ product: 201 })).to.include({ tileWidth: 16, tileHeight: 8 });
      expect(one({ product: 226 })).to.include({ relayCount: 2, buttonCount: 2, tileCount: 0, zoneCount: 0 });
      expect(one({ product: 70 })).to.include({ relayCount: 4, buttonCount: 4 });
      expect(one({ product: 91 })).to.include({ zoneCount: 0, tileCount: 0, tileWidth: 0, tileHeight: 0, buttonCount: 0, relayCount: 0 });
      // A matrix the table does not know: one 8 x 8 tile.
      expect(one({ product: 9001, features: { matrix: true } })).to.include({ tileCount: 1, tileWidth: 8, tileHeight: 8 });
    });

    it('lets a light say its own geometry and counts', () => {
      expect(one({ product: 57, tileWidth: 4, tileHeight: 9 })).to.include({ tileWidth: 4, tileHeight: 9 });
      expect(one({ product: 55, tileCount: 2 })).to.include({ tileCount: 2 });
      expect(one({ product: 219, buttonCount: 2 })).to.include({ buttonCount: 2 });
      expect(one({ product: 226, relayCount: 1 })).to.include({ relayCount: 1 });
    });

    it('refuses geometry and counts on products without them, and values out of range', () => {
      refused({ product: 91, tileWidth: 5 }, /lights\[0\]\.tileWidth/);
      refused({ product: 38, tileHeight: 5 }, /lights\[0\]\.tileHeight/);
      refused({ product: 91, buttonCount: 1 }, /lights\[0\]\.buttonCount/);
      refused({ product: 219, relayCount: 1 }, /lights\[0\]\.relayCount/);
      refused({ product: 57, tileWidth: 0 }, /lights\[0\]\.tileWidth/);
      refused({ product: 57, tileHeight: 65 }, /lights\[0\]\.tileHeight/);
      refused({ product: 57, tileWidth: 2.5 }, /lights\[0\]\.tileWidth/);
      refused({ product: 70, relayCount: 9 }, /lights\[0\]\.relayCount/);
    });
  });
});
