import { expect } from 'chai';
import { hsbkToWire, type WireHsbk } from '../../core/protocol/units.js';
import { namesOf, payloadsOf } from './client.js';
import { rig, type Rig } from './helpers.js';

const STRIP16 = 'd073d5000010';
const STRIP120 = 'd073d5000011';
const LEGACY = 'd073d5000012';
const BLUE = hsbkToWire({ hue: 240, saturation: 1, brightness: 1, kelvin: 3500 });
const START = hsbkToWire({ hue: 30, saturation: 0.5, brightness: 0.8, kelvin: 3500 });

describe('simulator multizone strips', () => {
  let r: Rig;

  beforeEach(async () => {
    r = await rig({
      lights: [
        { serial: STRIP16, product: 32, firmware: { major: 2, minor: 80 }, zoneCount: 16, color: { hue: 30, saturation: 0.5, brightness: 0.8 } },
        { serial: STRIP120, product: 117, zoneCount: 120, color: { hue: 30, saturation: 0.5, brightness: 0.8 } },
        // LIFX Z before 2.77: no extended multizone.
        { serial: LEGACY, product: 32, firmware: { major: 2, minor: 70 }, zoneCount: 8 },
      ],
    });
  });
  afterEach(() => r.close());

  it('answers GetColorZones 0-255 on a 16-zone strip with two StateMultiZone of 8 zones at index 0 and 8', async () => {
    const replies = await r.client.request('GetColorZones', { startIndex: 0, endIndex: 255 }, r.at(STRIP16), { count: 2 });
    const states = payloadsOf(replies, 'StateMultiZone');
    expect(namesOf(replies)).to.deep.equal(['StateMultiZone', 'StateMultiZone']);
    expect(states.map((s) => [s.count, s.index])).to.deep.equal([[16, 0], [16, 8]]);
    for (const s of states) expect(s.colors).to.deep.equal(Array.from({ length: 8 }, () => START));
  });

  it('answers GetColorZones 0-255 on a 120-zone strip with fifteen StateMultiZone covering every zone once', async () => {
    const replies = await r.client.request('GetColorZones', { startIndex: 0, endIndex: 255 }, r.at(STRIP120), { count: 15 });
    const states = payloadsOf(replies, 'StateMultiZone');
    expect(states).to.have.length(15);
    expect(states.map((s) => s.index)).to.deep.equal(Array.from({ length: 15 }, (_, i) => i * 8));
    expect(new Set(states.map((s) => s.count))).to.deep.equal(new Set([120]));
  });

  it('answers a single-zone GetColorZones with one StateZone', async () => {
    const replies = await r.client.request('GetColorZones', { startIndex: 5, endIndex: 5 }, r.at(STRIP16), { count: 1, settleMs: 60 });
    expect(namesOf(replies)).to.deep.equal(['StateZone']);
    expect(payloadsOf(replies, 'StateZone')[0]).to.deep.equal({ count: 16, index: 5, color: START });
  });

  it('starts the chunks at start_index and stops at the last zone asked for', async () => {
    const replies = await r.client.request('GetColorZones', { startIndex: 3, endIndex: 12 }, r.at(STRIP16), { count: 2, settleMs: 60 });
    expect(payloadsOf(replies, 'StateMultiZone').map((s) => s.index)).to.deep.equal([3, 11]);
    const beyond = await r.client.request('GetColorZones', { startIndex: 20, endIndex: 30 }, r.at(STRIP16), { timeoutMs: 100 });
    expect(beyond).to.deep.equal([]);
  });

  it('answers GetExtendedColorZones on 120 zones with two messages of 82 and 38 zones', async () => {
    const replies = await r.client.request('GetExtendedColorZones', {}, r.at(STRIP120), { count: 2 });
    const states = payloadsOf(replies, 'StateExtendedColorZones');
    expect(states.map((s) => [s.count, s.index, s.colorsCount])).to.deep.equal([[120, 0, 82], [120, 82, 38]]);
    expect(states[1]!.colors.slice(0, 38)).to.deep.equal(Array.from({ length: 38 }, () => START));
    expect(states[1]!.colors[38]).to.deep.equal({ hue: 0, saturation: 0, brightness: 0, kelvin: 0 });
  });

  it('ignores extended messages on a strip whose firmware predates them', async () => {
    const replies = await r.client.request('GetExtendedColorZones', {}, r.at(LEGACY), { ack: true, timeoutMs: 120 });
    expect(namesOf(replies)).to.deep.equal(['Acknowledgement']);
  });

  it('buffers SetColorZones with NO_APPLY and shows everything buffered on APPLY', async () => {
    const strip = r.at(STRIP16);
    await r.client.request('SetColorZones', { startIndex: 0, endIndex: 3, color: BLUE, durationMs: 0, apply: 0 }, strip, { ack: true, count: 1 });
    expect(r.fleet.light(STRIP16).state.zones![0]!.hue).to.equal(30);
    const red = hsbkToWire({ hue: 0, saturation: 1, brightness: 1, kelvin: 3500 });
    await r.client.request('SetColorZones', { startIndex: 10, endIndex: 11, color: red, durationMs: 0, apply: 1 }, strip, { ack: true, count: 1 });
    const zones = r.fleet.light(STRIP16).state.zones!.map((z) => z.hue);
    expect(zones).to.deep.equal([240, 240, 240, 240, 30, 30, 30, 30, 30, 30, 0, 0, 30, 30, 30, 30]);
  });

  it('shows buffered zones on APPLY_ONLY and ignores that message own colour', async () => {
    const strip = r.at(STRIP16);
    await r.client.request('SetColorZones', { startIndex: 15, endIndex: 15, color: BLUE, durationMs: 0, apply: 0 }, strip, { ack: true, count: 1 });
    const red = hsbkToWire({ hue: 0, saturation: 1, brightness: 1, kelvin: 3500 });
    await r.client.request('SetColorZones', { startIndex: 0, endIndex: 0, color: red, durationMs: 0, apply: 2 }, strip, { ack: true, count: 1 });
    const zones = r.fleet.light(STRIP16).state.zones!.map((z) => z.hue);
    expect(zones[15]).to.equal(240);
    expect(zones[0]).to.equal(30);
  });

  it('answers SetColorZones with res_required with the zones of the range as they were', async () => {
    const replies = await r.client.request(
      'SetColorZones',
      { startIndex: 0, endIndex: 15, color: BLUE, durationMs: 0, apply: 1 },
      r.at(STRIP16),
      { ack: true, res: true, count: 3 },
    );
    expect(namesOf(replies)).to.deep.equal(['Acknowledgement', 'StateMultiZone', 'StateMultiZone']);
    expect(payloadsOf(replies, 'StateMultiZone')[0]!.colors[0]).to.deep.equal(START);
    const after = await r.client.request('GetColorZones', { startIndex: 0, endIndex: 0 }, r.at(STRIP16), { count: 1 });
    expect(payloadsOf(after, 'StateZone')[0]!.color).to.deep.equal(BLUE);
  });

  it('writes colors_count zones from index with SetExtendedColorZones', async () => {
    const colors: WireHsbk[] = Array.from({ length: 30 }, (_, i) => ({ hue: i * 1000, saturation: 65535, brightness: 65535, kelvin: 3500 }));
    const replies = await r.client.request(
      'SetExtendedColorZones',
      { durationMs: 0, apply: 1, index: 90, colorsCount: 30, colors },
      r.at(STRIP120),
      { res: true, count: 2 },
    );
    expect(payloadsOf(replies, 'StateExtendedColorZones')[1]!.colors[8]).to.deep.equal(START);
    const after = await r.client.request('GetExtendedColorZones', {}, r.at(STRIP120), { count: 2 });
    const second = payloadsOf(after, 'StateExtendedColorZones')[1]!;
    expect(second.colors[7]).to.deep.equal(START);
    expect(second.colors.slice(8, 38)).to.deep.equal(colors);
  });

  it('paints every zone with SetColor', async () => {
    await r.client.request('SetColor', { color: BLUE, durationMs: 0 }, r.at(STRIP16), { ack: true, count: 1 });
    expect(new Set(r.fleet.light(STRIP16).state.zones!.map((z) => z.hue))).to.deep.equal(new Set([240]));
  });

  it('keeps the multizone effect and answers its settings, before the change for a Set', async () => {
    const settings = { instanceid: 7, type: 1, speedMs: 3000, durationNs: 0n, parameters: [0, 1, 0, 0, 0, 0, 0, 0] };
    const set = await r.client.request('SetMultiZoneEffect', { settings }, r.at(STRIP16), { res: true, count: 1 });
    expect(payloadsOf(set, 'StateMultiZoneEffect')[0]!.settings.type).to.equal(0);
    const get = await r.client.request('GetMultiZoneEffect', {}, r.at(STRIP16), { count: 1 });
    expect(payloadsOf(get, 'StateMultiZoneEffect')[0]!.settings).to.deep.equal(settings);
  });
});
