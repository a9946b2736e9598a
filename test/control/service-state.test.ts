// What the service reports after its own writes: at once, completely (zones too), and the target of a transition
// rather than a mid-fade sample; relative changes start from that target (issue 8 §2).
//
// The fleet and the registry share one fake Date (sinon fakes only Date), so a test moves transitions by hand
// while sockets and request timers run for real.

import { expect } from 'chai';
import sinon from 'sinon';
import type { Hsbk } from '../../core/protocol/index.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';

const BULB = 'd073d5000001';
const STRIP = 'd073d5000002';
const LEGACY_STRIP = 'd073d5000003';

const GREEN = { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 };
const lights: LightInput[] = [
  { serial: BULB, product: 91, label: 'Desk', power: 'on', color: { hue: 0, saturation: 1, brightness: 0.5, kelvin: 3500 } },
  { serial: STRIP, product: 32, label: 'Shelf', firmware: { major: 2, minor: 80 }, zoneCount: 16, power: 'on', color: GREEN },
  { serial: LEGACY_STRIP, product: 32, label: 'Old shelf', firmware: { major: 2, minor: 60 }, zoneCount: 12, power: 'on', color: GREEN },
];

const near = (a: Hsbk, b: Hsbk): boolean =>
  Math.abs(a.hue - b.hue) < 0.02 && Math.abs(a.saturation - b.saturation) < 0.0002 && Math.abs(a.brightness - b.brightness) < 0.0002 && a.kelvin === b.kelvin;

describe('LightService reports what its writes make the lights show', function () {
  this.timeout(20_000);
  let clock: sinon.SinonFakeTimers;
  let rig: ServiceRig;
  beforeEach(async () => {
    clock = sinon.useFakeTimers({ toFake: ['Date'], now: 1_700_000_000_000 });
    rig = await serviceRig({ lights }, {}, { now: () => Date.now() });
    // The rig read state before the product was known: read the strips once more for their zones.
    await Promise.all([STRIP, LEGACY_STRIP].map((s) => rig.client.refreshState(s)));
  });
  afterEach(async () => {
    await rig.close();
    clock.restore();
  });

  for (const [name, serial, count] of [['an extended', STRIP, 16], ['a legacy', LEGACY_STRIP, 12]] as const) {
    it(`shows the zones of ${name} strip painted by a zone write at once, the others unchanged`, async () => {
      expect(rig.service.light(serial)!.zones).to.have.length(count);
      const results = await rig.service.setState(`id:${serial}|2-5`, { color: 'red', durationS: 0 });
      expect(results[0]!.status).to.equal('ok');
      const zones = rig.service.light(serial)!.zones!;
      const red = { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 };
      expect(zones.map((z, i) => (near(z, red) ? i : -1)).filter((i) => i >= 0)).to.deep.equal([2, 3, 4, 5]);
      expect(zones.filter((z) => near(z, GREEN))).to.have.length(count - 4);
      // The same as the light shows, and List Lights says so too.
      const shown = rig.fleet.light(serial).state.zones!;
      zones.forEach((z, i) => expect(near(z, shown[i]!), `zone ${i}`).to.equal(true));
      const listed = rig.service.list(`id:${serial}`)[0]!.zones!.zones;
      expect(listed[3]).to.deep.include({ hue: 0, saturation: 1, zone: 3 });
    });
  }

  for (const [name, serial] of [['an extended', STRIP], ['a legacy', LEGACY_STRIP]] as const) {
    it(`keeps the zones of ${name} strip their own hues through a brightness change and a delta, on the light and in its view`, async () => {
      await rig.service.setState(`id:${serial}|0-3`, { color: 'red', durationS: 0 });
      // Brightness alone, for the whole strip: red zones stay red, green ones green.
      expect((await rig.service.setState(`id:${serial}`, { brightness: 0.5, durationS: 0 }))[0]!.status).to.equal('ok');
      let shown = rig.fleet.light(serial).state.zones!;
      expect(shown.map((z) => [Math.round(z.hue), z.brightness])).to.deep.equal([
        ...Array.from({ length: 4 }, () => [0, 0.5]),
        ...Array.from({ length: shown.length - 4 }, () => [120, 0.5]),
      ]);
      // A hue delta on zones 2-5: each moves from its own colour (red 0 -> 60, green 120 -> 180).
      expect((await rig.service.stateDelta(`id:${serial}|2-5`, { hue: 60, durationS: 0 }))[0]!.status).to.equal('ok');
      shown = rig.fleet.light(serial).state.zones!;
      expect(shown.slice(0, 7).map((z) => Math.round(z.hue))).to.deep.equal([0, 0, 60, 60, 180, 180, 120]);
      const view = rig.service.light(serial)!.zones!;
      view.forEach((z, i) => expect(near(z, shown[i]!), `zone ${i}`).to.equal(true));
    });
  }

  it('reads a strip\'s zones before a brightness change, so zones changed behind its back keep their hues', async () => {
    await rig.service.setState(`id:${STRIP}`, { color: 'red', durationS: 0 });
    // Another app paints zones 0-7 blue; the service still believes the strip is all red (and fresh).
    rig.fleet.light(STRIP).setState({ zones: Array.from({ length: 16 }, (_, i) => (i < 8 ? { hue: 240, saturation: 1, brightness: 1, kelvin: 3500 } : { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 })) });
    expect((await rig.service.setState(`id:${STRIP}`, { brightness: 0.5, durationS: 0 }))[0]!.status).to.equal('ok');
    const shown = rig.fleet.light(STRIP).state.zones!;
    expect(shown.map((z) => [Math.round(z.hue), z.brightness])).to.deep.equal([
      ...Array.from({ length: 8 }, () => [240, 0.5]),
      ...Array.from({ length: 8 }, () => [0, 0.5]),
    ]);
  });

  it('paints every zone of a strip in its view after a whole-light colour', async () => {
    await rig.service.setState(`id:${STRIP}`, { color: 'blue', durationS: 0 });
    const view = rig.service.light(STRIP)!;
    expect(view.color!.hue).to.be.closeTo(250, 0.02);
    expect(view.zones!.every((z) => Math.abs(z.hue - 250) < 0.02)).to.equal(true);
  });

  it('reports the target of a transition, and a read during the fade does not pin a half-way value', async () => {
    await rig.service.setState(`id:${BULB}`, { color: 'hue:240', brightness: 0.9, durationS: 10 });
    const target = { hue: 240, saturation: 1, brightness: 0.9, kelvin: 3500 };
    expect(near(rig.service.light(BULB)!.color!, target)).to.equal(true);
    clock.tick(5_000);
    const mid = rig.fleet.light(BULB).state.color;
    expect(mid.brightness).to.be.within(0.6, 0.8);
    await rig.client.refreshState(BULB);
    expect(near(rig.service.light(BULB)!.color!, target)).to.equal(true);
    expect(rig.service.list(`id:${BULB}`)[0]!.brightness).to.be.closeTo(0.9, 0.0002);
    // Once the fade is over, reads count again: a change made elsewhere shows.
    clock.tick(5_001);
    rig.fleet.light(BULB).setState({ color: { brightness: 0.2 } });
    await rig.client.refreshState(BULB);
    expect(rig.service.light(BULB)!.color!.brightness).to.be.closeTo(0.2, 0.0002);
  });

  it('reports the target of a power fade, not the light still lit half-way to off', async () => {
    await rig.service.setState(`id:${BULB}`, { power: 'off', durationS: 4 });
    clock.tick(2_000);
    expect(rig.fleet.light(BULB).state.power).to.equal('on');
    await rig.client.refreshState(BULB);
    expect(rig.service.light(BULB)!.power).to.equal('off');
  });

  it('starts a relative change from the target of a running transition (+0.1 brightness, then +300 hue)', async () => {
    await rig.service.stateDelta(`id:${BULB}`, { brightness: 0.1, durationS: 1 });
    clock.tick(10);
    await rig.service.stateDelta(`id:${BULB}`, { hue: 300, durationS: 1 });
    clock.tick(1_000);
    const shown = rig.fleet.light(BULB).state.color;
    expect(shown.brightness).to.be.closeTo(0.6, 0.0002);
    expect(shown.hue).to.be.closeTo(300, 0.02);
    expect(rig.service.light(BULB)!.color!.brightness).to.be.closeTo(0.6, 0.0002);
  });

  it('keeps the target kelvin and brightness under a partial colour string sent during a fade', async () => {
    await rig.service.setState(`id:${BULB}`, { color: 'kelvin:2500 brightness:0.8', durationS: 2 });
    clock.tick(1_000);
    await rig.service.setState(`id:${BULB}`, { color: 'red', durationS: 0 });
    clock.tick(1_000);
    const shown = rig.fleet.light(BULB).state.color;
    expect(shown).to.deep.include({ hue: 0, saturation: 1, kelvin: 2500 });
    expect(shown.brightness).to.be.closeTo(0.8, 0.0002);
  });
});
