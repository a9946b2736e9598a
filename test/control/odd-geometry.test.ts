// A Tube (5 x 11, an odd width and 55 pixels) and a Mirror (5 x 10, two parts) through Paint Pixels, Paint Theme,
// parts and scenes: geometry is what each virtual device reports in StateDeviceChain, and what the fleet shows is
// compared pixel by pixel.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LightInput } from '../../core/simulator/fleet-file.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';
import { until } from '../helpers/wait.js';

const TUBE = 'd073d5000031';
const MIRROR = 'd073d5000032';
const WHITE = { hue: 0, saturation: 0, brightness: 1, kelvin: 3500 };

const lights: LightInput[] = [
  { serial: TUBE, product: 217, label: 'Tube', power: 'on', color: WHITE },
  { serial: MIRROR, product: 267, label: 'Mirror', power: 'on', color: WHITE },
];

/** Hue (whole degrees) of each pixel a virtual light shows on its first tile. */
const hues = (rig: ServiceRig, serial: string): number[] => rig.fleet.light(serial).state.tiles![0]!.map((c) => Math.round(c.hue));

describe('odd geometries: a 5 x 11 Tube and a 5 x 10 Mirror', function () {
  this.timeout(20_000);
  let rig: ServiceRig;
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-odd-geometry-'));
    rig = await serviceRig({ lights }, { scenes: path.join(dir, 'scenes.json') });
    await rig.service.start();
    await until(() => [TUBE, MIRROR].every((s) => rig.service.light(s)?.pixels != null), { timeoutMs: 5000, what: 'the first reads of both lights' });
  });
  afterEach(async () => {
    await rig.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('sees each light as its device reports it', () => {
    expect(rig.service.light(TUBE)!.matrix!.tiles).to.deep.equal([{ width: 5, height: 11 }]);
    expect(rig.service.light(MIRROR)!.matrix!.tiles).to.deep.equal([{ width: 5, height: 10 }]);
    expect(rig.service.light(TUBE)!.pixels![0]).to.have.length(55);
  });

  it('paints the Tube from a grid of 5 x 11 in one Set64, and a rectangle keeps the pixels around it', async () => {
    const grid = Array.from({ length: 11 }, (_, y) => Array.from({ length: 5 }, (_, x) => `hue:${y * 10 + x} saturation:1 brightness:1 kelvin:3500`));
    rig.fleet.clearRecords();
    expect(await rig.service.paint(`id:${TUBE}`, { pixels: grid, durationS: 0 })).to.deep.equal([{ id: TUBE, label: 'Tube', status: 'ok' }]);
    expect(rig.fleet.light(TUBE).received('Set64')).to.have.length(1);
    expect(hues(rig, TUBE)).to.deep.equal(Array.from({ length: 55 }, (_, i) => Math.floor(i / 5) * 10 + (i % 5)));
    await rig.service.paint(`id:${TUBE}`, { color: 'hue:300 saturation:1 brightness:1 kelvin:3500', x: 1, y: 9, width: 3, height: 2, durationS: 0 });
    const expected = Array.from({ length: 55 }, (_, i) => {
      const [x, y] = [i % 5, Math.floor(i / 5)];
      return x >= 1 && x < 4 && y >= 9 ? 300 : y * 10 + x;
    });
    expect(hues(rig, TUBE)).to.deep.equal(expected);
  });

  it('spreads a theme over the Tube so that it is not one colour', async () => {
    expect((await rig.service.theme(`id:${TUBE}`, { theme: 'autumn', durationS: 0 }))[0]!.status).to.equal('ok');
    expect(new Set(hues(rig, TUBE)).size).to.be.greaterThan(1);
  });

  it("sets the Mirror's rear without touching its front", async () => {
    const front = hues(rig, MIRROR).slice(0, 25);
    await rig.service.setState(`id:${MIRROR}|rear`, { color: 'hue:120 saturation:1', durationS: 0 });
    const after = hues(rig, MIRROR);
    expect(after.slice(0, 25)).to.deep.equal(front);
    expect(after.slice(25).every((h) => h === 120)).to.equal(true);
  });

  it('restores every pixel of a painted Tube from a scene', async () => {
    const grid = Array.from({ length: 11 }, (_, y) => Array.from({ length: 5 }, (_, x) => `hue:${(y * 5 + x) * 6} saturation:1 brightness:1 kelvin:3500`));
    await rig.service.paint(`id:${TUBE}`, { pixels: grid, durationS: 0 });
    await rig.service.refreshLight(TUBE);
    const painted = hues(rig, TUBE);
    await rig.service.captureScene('Tube picture', `id:${TUBE}`);
    await rig.service.setState(`id:${TUBE}`, { color: 'hue:0 saturation:0', durationS: 0 });
    expect(new Set(hues(rig, TUBE)).size).to.equal(1);
    expect((await rig.service.activateScene('Tube picture', { durationS: 0 })).every((r) => r.status === 'ok')).to.equal(true);
    expect(hues(rig, TUBE)).to.deep.equal(painted);
  });
});
