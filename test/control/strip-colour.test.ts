// What a strip shows after a whole-light change is what the service says: a strip painted zone by zone, then one
// change to every light that leaves a component out (kelvin), against virtual lights over loopback.

import { expect } from 'chai';
import type { LightInput } from '../../core/simulator/fleet-file.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';

const BULB = 'd073d5000021';
const STRIP = 'd073d5000022';
const LEGACY = 'd073d5000023';
const START = { hue: 60, saturation: 1, brightness: 0.5, kelvin: 3500 };

const lights: LightInput[] = [
  { serial: BULB, product: 91, label: 'Bulb', power: 'on', color: START },
  { serial: STRIP, product: 32, label: 'Strip', firmware: { major: 3, minor: 70 }, zoneCount: 16, power: 'on', color: START },
  { serial: LEGACY, product: 32, label: 'Old strip', firmware: { major: 2, minor: 70 }, zoneCount: 8, power: 'on', color: START },
];

/** Messages that change colour, as the light received them. */
const colourMessages = (rig: ServiceRig, serial: string): string[] =>
  rig.fleet
    .light(serial)
    .received()
    .map((p) => p.name ?? '')
    .filter((n) => n.startsWith('Set') && n !== 'SetLightPower');

describe('a strip after a whole-light change', function () {
  this.timeout(20_000);
  let rig: ServiceRig;
  beforeEach(async () => {
    rig = await serviceRig({ lights });
    // Zone by zone: red and green halves, kelvin alike.
    for (const serial of [STRIP, LEGACY]) {
      const half = serial === STRIP ? 8 : 4;
      await rig.service.setState(`id:${serial}|0-${half - 1}`, { color: 'red', durationS: 0 });
      await rig.service.setState(`id:${serial}|${half}-${2 * half - 1}`, { color: 'green', durationS: 0 });
    }
    rig.fleet.clearRecords();
  });
  afterEach(() => rig.close());

  it('sends one SetColor when what the change leaves out (kelvin) is alike in every zone, and the view says so', async () => {
    const results = await rig.service.setState('all', { color: 'blue', brightness: 0.8, durationS: 0 });
    expect(results.map((r) => r.status)).to.deep.equal(['ok', 'ok', 'ok']);
    for (const serial of [STRIP, LEGACY]) {
      expect(colourMessages(rig, serial)).to.deep.equal(['SetColor']);
      const state = rig.fleet.light(serial).state;
      expect(state.zones!.every((z) => z.hue === 250 && z.brightness === 0.8 && z.kelvin === 3500)).to.equal(true);
      expect(state.color).to.include({ hue: 250, brightness: 0.8 });
      const view = rig.service.light(serial)!;
      expect(view.color).to.include({ hue: 250, saturation: 1, brightness: 0.8, kelvin: 3500 });
      expect(view.zones!.every((z) => z.hue === 250 && z.brightness === 0.8)).to.equal(true);
    }
    // List Lights, the HTTP API's shape of the view, says the same.
    const listed = rig.service.list().find((l) => l.id === STRIP)!;
    expect(listed.color).to.include({ hue: 250, saturation: 1 });
    expect(listed.brightness).to.equal(0.8);
  });

  it('paints zones that differ in what the change leaves out zone by zone, and the colour follows the zones when they end alike', async () => {
    await rig.service.setState(`id:${STRIP}|0-3`, { color: 'kelvin:2500', durationS: 0 });
    await rig.service.setState(`id:${STRIP}|4-15`, { color: 'kelvin:6500', durationS: 0 });
    rig.fleet.clearRecords();
    // Kelvin differs by zone: each zone keeps its own, so zone messages (extended: one SetExtendedColorZones).
    await rig.service.setState(`id:${STRIP}`, { color: 'hue:200 saturation:1', brightness: 0.3, durationS: 0 });
    expect(colourMessages(rig, STRIP)).to.deep.equal(['SetExtendedColorZones']);
    expect(rig.fleet.light(STRIP).state.zones!.map((z) => z.kelvin)).to.deep.equal([...new Array(4).fill(2500), ...new Array(12).fill(6500)]);
    // Then every zone painted alike with zone messages: the light's colour in the view is that colour.
    await rig.service.setState(`id:${STRIP}|0-15`, { color: 'hue:300 saturation:0.5 kelvin:4000', brightness: 0.6, durationS: 0 });
    expect(colourMessages(rig, STRIP)).to.deep.equal(['SetExtendedColorZones', 'SetExtendedColorZones']);
    const view = rig.service.light(STRIP)!;
    expect(view.zones!.every((z) => z.hue === 300 && z.brightness === 0.6 && z.kelvin === 4000)).to.equal(true);
    expect(view.color).to.deep.equal(view.zones![0]);
  });
});
