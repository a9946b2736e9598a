import { expect } from 'chai';
import { hsbkToWire, type WireHsbk } from '../../core/protocol/units.js';
import { namesOf, payloadsOf } from './client.js';
import { rig, type Rig } from './helpers.js';

const TILE = 'd073d5000020';
const CANDLE = 'd073d5000021';
const START = hsbkToWire({ hue: 200, saturation: 1, brightness: 0.6, kelvin: 3500 });
const BLACK = { hue: 0, saturation: 0, brightness: 0, kelvin: 0 };
const rect = { fbIndex: 0, x: 0, y: 0, width: 8 };
const palette = (n: number, hue0: number): WireHsbk[] =>
  Array.from({ length: n }, (_, i) => ({ hue: hue0 + i, saturation: 65535, brightness: 65535, kelvin: 3500 }));

describe('simulator matrix devices', () => {
  let r: Rig;

  beforeEach(async () => {
    r = await rig({
      lights: [
        { serial: TILE, product: 55, tileCount: 5, color: { hue: 200, saturation: 1, brightness: 0.6 } },
        { serial: CANDLE, product: 137 },
      ],
    });
  });
  afterEach(() => r.close());

  it('describes a chain of five 8x8 tiles in StateDeviceChain', async () => {
    const replies = await r.client.request('GetDeviceChain', {}, r.at(TILE), { count: 1 });
    const chain = payloadsOf(replies, 'StateDeviceChain')[0]!;
    expect(chain.tileDevicesCount).to.equal(5);
    expect(chain.startIndex).to.equal(0);
    expect(chain.tileDevices.slice(0, 5).map((t) => [t.width, t.height, t.userX])).to.deep.equal([[8, 8, 0], [8, 8, 1], [8, 8, 2], [8, 8, 3], [8, 8, 4]]);
    expect(chain.tileDevices[0]!.deviceVersion).to.deep.equal({ vendor: 1, product: 55 });
    expect(chain.tileDevices[0]!.firmware).to.include({ versionMajor: 3, versionMinor: 70 });
    expect(chain.tileDevices[5]!.width).to.equal(0);
  });

  it('answers Get64 with one State64 per existing tile in the range', async () => {
    const replies = await r.client.request('Get64', { tileIndex: 0, length: 16, rect }, r.at(TILE), { count: 5, settleMs: 60 });
    const states = payloadsOf(replies, 'State64');
    expect(states.map((s) => s.tileIndex)).to.deep.equal([0, 1, 2, 3, 4]);
    expect(states[0]!.rect).to.deep.equal(rect);
    expect(states[0]!.colors).to.deep.equal(Array.from({ length: 64 }, () => START));
    const middle = await r.client.request('Get64', { tileIndex: 1, length: 2, rect }, r.at(TILE), { count: 2, settleMs: 60 });
    expect(payloadsOf(middle, 'State64').map((s) => s.tileIndex)).to.deep.equal([1, 2]);
  });

  it('writes one tile with Set64 and reads it back, answering res_required with the colours before', async () => {
    const colors = palette(64, 1000);
    const set = await r.client.request('Set64', { tileIndex: 2, length: 1, rect, durationMs: 0, colors }, r.at(TILE), { res: true, count: 1 });
    expect(payloadsOf(set, 'State64')[0]!.colors[0]).to.deep.equal(START);
    const get = await r.client.request('Get64', { tileIndex: 1, length: 3, rect }, r.at(TILE), { count: 3 });
    const states = payloadsOf(get, 'State64');
    expect(states[1]!.colors).to.deep.equal(colors);
    expect(states[0]!.colors[0]).to.deep.equal(START);
    expect(states[2]!.colors[0]).to.deep.equal(START);
  });

  it('places the 64 Set64 colours inside the rect, row by row from x, y, clipped to the tile', async () => {
    const colors = palette(4, 500);
    await r.client.request('Set64', { tileIndex: 0, length: 1, rect: { fbIndex: 0, x: 6, y: 1, width: 2 }, durationMs: 0, colors }, r.at(TILE), { ack: true, count: 1 });
    const tile = r.fleet.light(TILE).state.tiles![0]!;
    expect(tile[8 + 6]!.hue).to.be.closeTo((500 * 360) / 65536, 0.01);
    expect(tile[8 + 7]!.hue).to.be.closeTo((501 * 360) / 65536, 0.01);
    expect(tile[16 + 6]!.hue).to.be.closeTo((502 * 360) / 65536, 0.01);
    expect(tile[16 + 7]!.hue).to.be.closeTo((503 * 360) / 65536, 0.01);
    // The message always carries 64 colours (unused slots zero): rows below keep being written, up to row 7.
    expect(tile[24 + 6]).to.deep.equal({ hue: 0, saturation: 0, brightness: 0, kelvin: 0 });
    expect(tile[56 + 7]!.brightness).to.equal(0);
    expect(tile[8 + 5]!.hue).to.equal(200);
    expect(tile[0]!.hue).to.equal(200);
  });

  it('draws into frame buffer 1 invisibly and shows it with CopyFrameBuffer', async () => {
    const colors = palette(64, 3000);
    await r.client.request('Set64', { tileIndex: 0, length: 1, rect: { ...rect, fbIndex: 1 }, durationMs: 0, colors }, r.at(TILE), { ack: true, count: 1 });
    const hidden = await r.client.request('Get64', { tileIndex: 0, length: 1, rect }, r.at(TILE), { count: 1 });
    expect(payloadsOf(hidden, 'State64')[0]!.colors[0]).to.deep.equal(START);
    const copy = { tileIndex: 0, length: 1, srcFbIndex: 1, dstFbIndex: 0, srcX: 0, srcY: 0, dstX: 0, dstY: 0, width: 8, height: 8, durationMs: 0 };
    const ack = await r.client.request('CopyFrameBuffer', copy, r.at(TILE), { ack: true, count: 1 });
    expect(namesOf(ack)).to.deep.equal(['Acknowledgement']);
    const shown = await r.client.request('Get64', { tileIndex: 0, length: 1, rect }, r.at(TILE), { count: 1 });
    expect(payloadsOf(shown, 'State64')[0]!.colors).to.deep.equal(colors);
  });

  it('models the candle as one 5x6 matrix and reads it with width 5', async () => {
    const chain = await r.client.request('GetDeviceChain', {}, r.at(CANDLE), { count: 1 });
    const device = payloadsOf(chain, 'StateDeviceChain')[0]!;
    expect(device.tileDevicesCount).to.equal(1);
    expect([device.tileDevices[0]!.width, device.tileDevices[0]!.height]).to.deep.equal([5, 6]);
    const get = await r.client.request('Get64', { tileIndex: 0, length: 1, rect: { fbIndex: 0, x: 0, y: 0, width: 5 } }, r.at(CANDLE), { count: 1 });
    const colors = payloadsOf(get, 'State64')[0]!.colors;
    expect(colors.slice(0, 30).every((c) => c.brightness === 65535)).to.equal(true);
    expect(colors[30]).to.deep.equal(BLACK);
  });

  it('keeps the tile effect, answering no palette while it is off', async () => {
    const settings = {
      instanceid: 9, type: 2, speedMs: 5000, durationNs: 0n, parameters: [0, 0, 0, 0, 0, 0, 0, 0], paletteCount: 3, palette: palette(3, 100),
    };
    const set = await r.client.request('SetTileEffect', { settings }, r.at(TILE), { res: true, count: 1 });
    expect(payloadsOf(set, 'StateTileEffect')[0]!.settings).to.include({ type: 0, paletteCount: 0 });
    const get = await r.client.request('GetTileEffect', {}, r.at(TILE), { count: 1 });
    const got = payloadsOf(get, 'StateTileEffect')[0]!.settings;
    expect(got).to.include({ instanceid: 9, type: 2, speedMs: 5000, paletteCount: 3 });
    expect(got.palette.slice(0, 3)).to.deep.equal(palette(3, 100));
  });

  it('stores a tile user position from SetUserPosition', async () => {
    await r.client.request('SetUserPosition', { tileIndex: 3, userX: 1.5, userY: -1 }, r.at(TILE), { ack: true, count: 1 });
    const chain = await r.client.request('GetDeviceChain', {}, r.at(TILE), { count: 1 });
    const tile = payloadsOf(chain, 'StateDeviceChain')[0]!.tileDevices[3]!;
    expect([tile.userX, tile.userY]).to.deep.equal([1.5, -1]);
  });
});
