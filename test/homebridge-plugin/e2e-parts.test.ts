// End to end, parts (issue 29 §1): the packed plugin in Homebridge 2 gives a virtual LIFX Ceiling (8 x 8, its real
// geometry) a Lightbulb for its uplight and one for its downlight; writing the uplight over HAP changes pixel 63 alone
// on the fleet, and turning it off keeps the fixture on while the downlight is lit. Private network namespace only
// (e2e-harness.ts).

import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { installTarball, packTarball } from '../helpers/packed.js';
import { until } from '../helpers/wait.js';
import { HAP_TYPE, HapIndex, assertPrivateNetwork, control, shortType, startFleetProcess, startHomebridge, untilPublished, type FleetProcess, type HomebridgeProcess } from './e2e-harness.js';

const CEILING = 'd073d5c0ffee';

interface Pixel {
  readonly hue: number;
  readonly saturation: number;
  readonly brightness: number;
  readonly kelvin: number;
}
interface CeilingSummary {
  readonly state: { readonly power: string; readonly tiles: readonly (readonly Pixel[])[] };
}

const pixelsOf = async (fleet: FleetProcess): Promise<{ power: string; pixels: readonly Pixel[] }> => {
  const summary = (await control(fleet, 'GET', `/lights/${CEILING}`)) as CeilingSummary;
  return { power: summary.state.power, pixels: summary.state.tiles[0]! };
};
const same = (a: Pixel, b: Pixel): boolean => a.hue === b.hue && a.saturation === b.saturation && a.brightness === b.brightness && a.kelvin === b.kelvin;

describe('homebridge end to end: the parts of a LIFX Ceiling as Lightbulbs', function () {
  this.timeout(60000);
  let fleet: FleetProcess;
  let hb: HomebridgeProcess;
  let index: HapIndex;

  before(async function () {
    this.timeout(300000);
    assertPrivateNetwork();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-hb-parts-'));
    await installTarball(dir, await packTarball());
    fleet = await startFleetProcess(dir, 1, [{ serial: CEILING, product: 176, label: 'Ceiling', power: 'on', color: { hue: 30, saturation: 0.2, brightness: 0.8, kelvin: 3000 } }]);
    hb = await startHomebridge(path.join(dir, 'node_modules'), { discovery: { broadcastAddresses: ['127.255.255.255'], port: fleet.port }, lights: { transitionS: 0 } });
    ({ index } = await untilPublished(hb, 2, 30000));
    // The parts' Lightbulbs come with the light's first read (its product and chain).
    index = await until(
      async () => {
        const fresh = new HapIndex(await hb.hap.accessories());
        return fresh.accessory(CEILING).services.filter((s) => shortType(s.type) === HAP_TYPE.Lightbulb).length === 3 ? fresh : undefined;
      },
      { timeoutMs: 20000, what: 'the Ceiling with three Lightbulbs' },
    );
  });

  after(async () => {
    hb?.hap.close();
    await hb?.child.stop();
    await fleet?.child.stop();
  });

  it('offers the Ceiling, its Downlight and its Uplight as Lightbulbs', () => {
    const names = index.accessory(CEILING).services.filter((s) => shortType(s.type) === HAP_TYPE.Lightbulb).map((s) => s.characteristics.find((c) => shortType(c.type) === HAP_TYPE.Name)?.value);
    expect(names).to.have.members(['Ceiling', 'Ceiling Downlight', 'Ceiling Uplight']);
  });

  it('writes the uplight over HAP: only pixel 63 changes on the fleet; turning it off keeps the Ceiling on', async () => {
    const before = await pixelsOf(fleet);
    const id = (c: string) => index.id(CEILING, HAP_TYPE.Lightbulb, c, /Uplight$/);
    const res = await hb.hap.write([
      { ...id(HAP_TYPE.On), value: true },
      { ...id(HAP_TYPE.Hue), value: 240 },
      { ...id(HAP_TYPE.Saturation), value: 100 },
      { ...id(HAP_TYPE.Brightness), value: 40 },
    ]);
    expect(res.status, res.body).to.equal(204);
    const after = await pixelsOf(fleet);
    const changed = after.pixels.flatMap((p, i) => (same(p, before.pixels[i]!) ? [] : [i]));
    expect(changed).to.deep.equal([63]);
    expect(Math.round(after.pixels[63]!.hue)).to.equal(240);
    expect(Math.round(after.pixels[63]!.brightness * 100)).to.equal(40);
    expect(after.power).to.equal('on');

    const off = await hb.hap.write([{ ...id(HAP_TYPE.On), value: false }]);
    expect(off.status, off.body).to.equal(204);
    const dark = await pixelsOf(fleet);
    expect(dark.power).to.equal('on');
    expect(dark.pixels[63]!.brightness).to.equal(0);
    expect(dark.pixels.slice(0, 63).every((p, i) => same(p, before.pixels[i]!))).to.equal(true);
    const [uplightOn] = await hb.hap.read([`${id(HAP_TYPE.On).aid}.${id(HAP_TYPE.On).iid}`]);
    expect([false, 0]).to.include(uplightOn?.value);
  });
});
