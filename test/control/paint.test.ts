// Paint Pixels and Paint Theme through the library, on virtual lights of their real geometry (the simulator's 8 x 8
// Tile, 5 x 6 Candle and 16 x 8 Ceiling 13x26"): what the fleet shows is compared, pixel by pixel and zone by zone.
import { expect } from 'chai';
import { isLightwireError } from '../../core/errors.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';
import { themePalette } from '../../core/control/themes.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';
import { until } from '../helpers/wait.js';

const TILE = 'd073d5000021';
const CANDLE = 'd073d5000022';
const CAPSULE = 'd073d5000023';
const STRIP = 'd073d5000024';
const BULB = 'd073d5000025';
const BULB2 = 'd073d5000026';

const lights: LightInput[] = [
  { serial: TILE, product: 55, label: 'Tile', tileCount: 2, power: 'on', color: { hue: 200, saturation: 1, brightness: 1, kelvin: 3500 } },
  { serial: CANDLE, product: 57, label: 'Candle', power: 'on', color: { hue: 30, saturation: 1, brightness: 1, kelvin: 3500 } },
  { serial: CAPSULE, product: 201, label: 'Capsule', power: 'off', color: { hue: 0, saturation: 0, brightness: 1, kelvin: 3500 } },
  { serial: STRIP, product: 32, label: 'Strip', firmware: { major: 2, minor: 80 }, zoneCount: 16, power: 'on', color: { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 } },
  { serial: BULB, product: 91, label: 'Bulb', power: 'on', color: { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 } },
  { serial: BULB2, product: 91, label: 'Bulb 2', power: 'on', color: { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 } },
];

/** Hue (whole degrees) of each pixel of a virtual light's tile. */
const hues = (rig: ServiceRig, serial: string, tile = 0): number[] => rig.fleet.light(serial).state.tiles![tile]!.map((c) => Math.round(c.hue));

describe('Paint Pixels and Paint Theme on virtual matrix lights, strips and bulbs', function () {
  this.timeout(20_000);
  let rig: ServiceRig;
  beforeEach(async () => {
    rig = await serviceRig({ lights });
  });
  afterEach(() => rig.close());

  it('carries the chain and pixels of matrix lights in their views, read with their state (Get64), and reads no pixels of other lights', async () => {
    // The first reads (pixels need the product, known once its info is read) are over first.
    await until(() => [TILE, CAPSULE].every((s) => rig.service.light(s)?.pixels != null), { timeoutMs: 3000, what: 'the first reads of the matrix lights' });
    rig.fleet.light(CAPSULE).setState({ color: { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 } });
    rig.fleet.clearRecords();
    await Promise.all([TILE, CAPSULE, STRIP, BULB].map((s) => rig.service.refreshLight(s)));
    const tile = rig.service.light(TILE)!;
    expect(tile.matrix!.tiles.map((t) => [t.width, t.height])).to.deep.equal([[8, 8], [8, 8]]);
    expect(tile.pixels!.map((p) => p.length)).to.deep.equal([64, 64]);
    const capsule = rig.service.light(CAPSULE)!;
    expect(capsule.pixels![0]!.every((c) => Math.round(c.hue) === 120)).to.equal(true);
    // One colour object for a tile in one colour (heap per light), and two Get64 for the 128 pixels (bands of 4 rows).
    expect(new Set(capsule.pixels![0]).size).to.equal(1);
    expect(rig.fleet.light(CAPSULE).received('Get64')).to.have.length(2);
    expect(rig.fleet.light(TILE).received('Get64')).to.have.length(1);
    // The chain is read once, not with every state read.
    expect(rig.fleet.light(TILE).received('GetDeviceChain')).to.have.length(0);
    expect(rig.fleet.light(STRIP).received('Get64')).to.have.length(0);
    expect(rig.fleet.light(BULB).received('Get64')).to.have.length(0);
    expect(rig.service.light(BULB)!.pixels).to.equal(null);
    // List Lights keeps the cloud's shape: no pixels there.
    expect(Object.keys(rig.service.list(`id:${TILE}`)[0]!)).to.not.include('pixels');
  });

  it('paints a 16 x 8 light from one grid: two Set64 into the back buffer, then one CopyFrameBuffer, and powers it on', async () => {
    const grid = Array.from({ length: 8 }, (_, row) => Array.from({ length: 16 }, (_, col) => `hue:${(row * 16 + col) * 2} saturation:1 brightness:1 kelvin:3500`));
    const results = await rig.service.paint(`id:${CAPSULE}`, { pixels: grid, durationS: 0 });
    expect(results).to.deep.equal([{ id: CAPSULE, label: 'Capsule', status: 'ok' }]);
    expect(hues(rig, CAPSULE)).to.deep.equal(Array.from({ length: 128 }, (_, i) => i * 2));
    const sets = rig.fleet.light(CAPSULE).received('Set64').map((p) => (p.payload as { rect: { fbIndex: number; y: number } }).rect);
    expect(sets).to.deep.equal([
      { fbIndex: 1, x: 0, y: 0, width: 16 },
      { fbIndex: 1, x: 0, y: 4, width: 16 },
    ]);
    expect(rig.fleet.light(CAPSULE).received('CopyFrameBuffer')).to.have.length(1);
    expect(rig.fleet.light(CAPSULE).state.power).to.equal('on');
    // The view carries what the light shows.
    expect(rig.service.light(CAPSULE)!.pixels![0]!.map((c) => Math.round(c.hue))).to.deep.equal(Array.from({ length: 128 }, (_, i) => i * 2));
    expect(rig.service.light(CAPSULE)!.matrix!.tiles).to.deep.equal([{ width: 16, height: 8 }]);
  });

  it('paints a rectangle of one colour and keeps every other pixel (read first with Get64)', async () => {
    await rig.service.paint(`id:${TILE}`, { color: 'hue:10 saturation:1 brightness:1 kelvin:3500', durationS: 0 });
    rig.fleet.clearRecords();
    await rig.service.paint(`id:${TILE}`, { color: 'hue:90 saturation:1 brightness:1 kelvin:3500', x: 2, y: 1, width: 3, height: 2, durationS: 0 });
    expect(rig.fleet.light(TILE).received('Get64').length).to.be.greaterThan(0);
    const expected = Array.from({ length: 64 }, (_, i) => (i % 8 >= 2 && i % 8 < 5 && Math.floor(i / 8) >= 1 && Math.floor(i / 8) < 3 ? 90 : 10));
    expect(hues(rig, TILE, 0)).to.deep.equal(expected);
    // Only the first tile of the chain (canvas columns 0-7) was touched.
    expect(rig.fleet.light(TILE).received('Set64').every((p) => (p.payload as { tileIndex: number }).tileIndex === 0)).to.equal(true);
    expect(hues(rig, TILE, 1).every((h) => h === 10)).to.equal(true);
  });

  it('paints across the tiles of a chain, side by side', async () => {
    await rig.service.paint(`id:${TILE}`, { color: 'hue:240 saturation:1 brightness:1 kelvin:3500', x: 6, width: 4, durationS: 0 });
    expect(hues(rig, TILE, 0).filter((h) => h === 240)).to.have.length(2 * 8);
    expect(hues(rig, TILE, 1).filter((h) => h === 240)).to.have.length(2 * 8);
  });

  it('paints the 5 x 6 Candle with rows 5 wide', async () => {
    const grid = Array.from({ length: 6 }, () => ['red', 'green', 'blue', 'red', 'green']);
    await rig.service.paint(`id:${CANDLE}`, { pixels: grid, durationS: 0 });
    expect(hues(rig, CANDLE)).to.deep.equal(Array.from({ length: 30 }, (_, i) => [0, 120, 250, 0, 120][i % 5]));
    expect((rig.fleet.light(CANDLE).received('Set64')[0]!.payload as { rect: { width: number } }).rect.width).to.equal(5);
  });

  it('refuses a grid that does not fit, a ragged grid and a bad colour, before anything is sent', async () => {
    const tooWide = await rig.service.paint(`id:${CANDLE}`, { pixels: [['red', 'red', 'red', 'red', 'red', 'red']] }).then(() => undefined, (e: unknown) => e);
    expect(isLightwireError(tooWide, 'PIXELS_OUT_OF_CANVAS')).to.equal(true);
    expect((tooWide as Error).message).to.include('5 x 6');
    const ragged = await rig.service.paint(`id:${TILE}`, { pixels: [['red', 'red'], ['red']] }).then(() => undefined, (e: unknown) => e);
    expect(isLightwireError(ragged, 'PARAMETER_INVALID')).to.equal(true);
    expect((ragged as { params: { field: string } }).params.field).to.equal('pixels[1]');
    const badColor = await rig.service.paint(`id:${TILE}`, { pixels: [['red', 'reddish']] }).then(() => undefined, (e: unknown) => e);
    expect(isLightwireError(badColor, 'COLOR_INVALID')).to.equal(true);
    const both = await rig.service.paint(`id:${TILE}`, { color: 'red', pixels: [['red']] }).then(() => undefined, (e: unknown) => e);
    expect(isLightwireError(both, 'PARAMETER_INVALID')).to.equal(true);
    expect(rig.fleet.lights.every((l) => l.received('Set64').length === 0)).to.equal(true);
  });

  it('refuses to paint lights that are no matrix (CAPABILITY_MISSING), and leaves them out of a wider selector', async () => {
    const err = await rig.service.paint(`id:${STRIP}`, { color: 'red' }).then(() => undefined, (e: unknown) => e);
    expect(isLightwireError(err, 'CAPABILITY_MISSING')).to.equal(true);
    const results = await rig.service.paint('all', { color: 'red', durationS: 0 });
    expect(results.map((r) => r.id).sort()).to.deep.equal([TILE, CANDLE, CAPSULE].sort());
  });

  it('paints a theme: a gradient over the zones of a strip and the pixels of a matrix, neighbouring bulbs differ', async () => {
    const results = await rig.service.theme('all', { theme: 'Christmas', durationS: 0 });
    expect(results.every((r) => r.status === 'ok')).to.equal(true);
    const palette = themePalette('christmas');
    const zones = rig.fleet.light(STRIP).state.zones!;
    expect(new Set(zones.map((z) => Math.round(z.hue))).size).to.be.greaterThan(2);
    const pixels = hues(rig, CAPSULE);
    expect(new Set(pixels).size).to.be.greaterThan(2);
    const bulb1 = rig.fleet.light(BULB).state.color;
    const bulb2 = rig.fleet.light(BULB2).state.color;
    expect(Math.round(bulb1.hue) !== Math.round(bulb2.hue) || Math.round(bulb1.saturation * 100) !== Math.round(bulb2.saturation * 100)).to.equal(true);
    expect(palette.some((c) => Math.round(c.hue) === Math.round(bulb1.hue))).to.equal(true);
    // The views show what the fleet shows.
    expect(rig.service.light(STRIP)!.zones!.map((z) => Math.round(z.hue))).to.deep.equal(zones.map((z) => Math.round(z.hue)));
  });

  it('refuses an unknown theme with the names closest to it', async () => {
    const err = await rig.service.theme('all', { theme: 'christmass' }).then(() => undefined, (e: unknown) => e);
    expect(isLightwireError(err, 'THEME_UNKNOWN')).to.equal(true);
    expect((err as { params: { close: string } }).params.close.split(', ')[0]).to.equal('christmas');
  });
});
