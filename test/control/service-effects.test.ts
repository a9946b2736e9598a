import { expect } from 'chai';
import { isLightwireError } from '../../core/errors.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';

const BULB = 'd073d5000011';
const STRIP = 'd073d5000012';
const TILE = 'd073d5000013';
const CLEAN = 'd073d5000014';

const lights: LightInput[] = [
  { serial: BULB, product: 91, label: 'Bulb', power: 'off', color: { hue: 350, saturation: 1, brightness: 0.5, kelvin: 3500 } },
  { serial: STRIP, product: 32, label: 'Strip', firmware: { major: 2, minor: 80 }, zoneCount: 16, power: 'on', color: { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 } },
  { serial: TILE, product: 55, label: 'Tile', tileCount: 2, power: 'on', color: { hue: 200, saturation: 1, brightness: 1, kelvin: 3500 } },
  { serial: CLEAN, product: 90, label: 'Clean', power: 'on', color: { hue: 0, saturation: 0, brightness: 1, kelvin: 4000 } },
];

const names = (rig: ServiceRig, serial: string): string[] =>
  rig.fleet.light(serial).received().map((p) => p.name ?? 'unknown').filter((n) => !n.startsWith('Get'));

describe('LightService effects, delta and cycle against virtual lights', function () {
  this.timeout(20_000);
  let rig: ServiceRig;
  beforeEach(async () => {
    rig = await serviceRig({ lights });
  });
  afterEach(() => rig.close());

  it('breathes with one SINE waveform, powering an off light on first', async () => {
    const results = await rig.service.breathe(`id:${BULB}`, { color: 'green', periodS: 2, cycles: 3, peak: 0.5 });
    expect(results).to.deep.equal([{ id: BULB, label: 'Bulb', status: 'ok' }]);
    const sent = names(rig, BULB);
    expect(sent[0]).to.equal('SetLightPower');
    const wave = rig.fleet.light(BULB).received().find((p) => p.name === 'SetWaveform' || p.name === 'SetWaveformOptional')!;
    expect(wave.payload).to.deep.include({ periodMs: 2000, cycles: 3, waveform: 1, transient: true });
  });

  it('rejects a breathe without a colour before sending anything', async () => {
    const err = await rig.service.breathe('all', {} as never).then(() => undefined, (e: unknown) => e);
    expect(isLightwireError(err, 'PARAMETER_MISSING')).to.equal(true);
    expect(rig.fleet.lights.every((l) => names(rig, l.serial).length === 0)).to.equal(true);
  });

  it('runs move only on the multizone strip, in the requested direction', async () => {
    const results = await rig.service.move('all', { direction: 'backward', periodS: 2 });
    // Lights that cannot run the effect are left out, not reported ok for doing nothing.
    expect(results).to.deep.equal([{ id: STRIP, label: 'Strip', status: 'ok' }]);
    expect(names(rig, STRIP)).to.include('SetMultiZoneEffect');
    const effect = rig.fleet.light(STRIP).received('SetMultiZoneEffect')[0]!.payload as { settings: { type: number; speedMs: number; parameters: number[] } };
    expect(effect.settings).to.include({ type: 1, speedMs: 2000 });
    expect(effect.settings.parameters[1]).to.equal(0);
    expect(names(rig, BULB)).to.deep.equal([]);
    expect(names(rig, TILE)).to.deep.equal([]);
  });

  it('runs morph with a palette and flame on the matrix light only', async () => {
    await rig.service.morph('all', { periodS: 3, palette: ['red', 'blue'] });
    const morph = rig.fleet.light(TILE).received('SetTileEffect')[0]!.payload as { settings: { type: number; paletteCount: number } };
    expect(morph.settings).to.include({ type: 2, paletteCount: 2 });
    await rig.service.flame(`id:${TILE}`, {});
    const flame = rig.fleet.light(TILE).received('SetTileEffect')[1]!.payload as { settings: { type: number } };
    expect(flame.settings.type).to.equal(3);
    expect(names(rig, STRIP)).to.not.include('SetTileEffect');
  });

  it('turns effects off on every kind of light', async () => {
    await rig.service.effectsOff('all', { powerOff: true });
    expect(names(rig, STRIP)).to.include('SetMultiZoneEffect');
    expect(names(rig, TILE)).to.include('SetTileEffect');
    expect(rig.fleet.light(STRIP).state.power).to.equal('off');
  });

  it('keeps the zones of a strip painted zone by zone (12 blue, 4 green) when effects are turned off', async () => {
    await rig.service.setState(`id:${STRIP}|0-11`, { color: 'blue', durationS: 0 });
    await rig.service.setState(`id:${STRIP}|12-15`, { color: 'green', durationS: 0 });
    const before = rig.fleet.light(STRIP).state.zones!;
    expect(before.map((z) => z.hue)).to.deep.equal([...new Array(12).fill(250), ...new Array(4).fill(120)]);
    rig.fleet.clearRecords();
    const results = await rig.service.effectsOff('all');
    expect(results.every((r) => r.status === 'ok')).to.equal(true);
    // The firmware effect is stopped with its own message, a waveform with one that sets nothing; no SetColor.
    expect(names(rig, STRIP)).to.deep.equal(['SetMultiZoneEffect', 'SetWaveformOptional']);
    expect(rig.fleet.light(STRIP).received('SetWaveformOptional')[0]!.payload).to.include({
      setHue: false, setSaturation: false, setBrightness: false, setKelvin: false,
    });
    expect(rig.fleet.light(STRIP).state.zones).to.deep.equal(before);
    expect(rig.service.light(STRIP)!.zones!.map((z) => z.hue)).to.deep.equal(before.map((z) => z.hue));
    // A bulb has no zones: SetColor to its own colour, as before.
    expect(names(rig, BULB)).to.deep.equal(['SetColor']);
  });

  it('starts and stops a clean cycle on the HEV light only', async () => {
    await rig.service.clean('all', { durationS: 3600 });
    const start = rig.fleet.light(CLEAN).received('SetHevCycle')[0]!.payload;
    expect(start).to.deep.equal({ enable: true, durationS: 3600 });
    await rig.service.clean(`id:${CLEAN}`, { stop: true });
    expect(rig.fleet.light(CLEAN).received('SetHevCycle')[1]!.payload).to.deep.include({ enable: false });
    expect(names(rig, BULB)).to.not.include('SetHevCycle');
  });

  it('applies a state delta: hue wraps, brightness clips', async () => {
    await rig.service.setState(`id:${BULB}`, { power: 'on', durationS: 0 });
    await rig.service.stateDelta(`id:${BULB}`, { hue: 20, brightness: 0.8, durationS: 0 });
    const state = rig.fleet.light(BULB).state;
    expect(state.color.hue).to.be.closeTo(10, 0.1);
    expect(state.color.brightness).to.equal(1);
  });

  it('cycles through states, one step per request, and wraps around', async () => {
    const request = {
      // As in the forum's working example: power on by default, the last state turns the light off.
      states: [{ color: 'kelvin:2700', brightness: 1 }, { color: 'kelvin:5000', brightness: 0.5 }, { power: 'off' as const }],
      defaults: { durationS: 0, power: 'on' as const },
    };
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      await rig.service.cycle(`id:${STRIP}`, request);
      const s = rig.fleet.light(STRIP).state;
      seen.push(s.power === 'off' ? 'off' : `${s.color.kelvin}`);
    }
    expect(seen).to.deep.equal(['2700', '5000', 'off', '2700']);
  });

  it('answers CAPABILITY_MISSING when no selected light can run the effect', async () => {
    const err = await rig.service.morph(`id:${BULB}`, {}).then(() => undefined, (e: unknown) => e);
    expect(isLightwireError(err, 'CAPABILITY_MISSING')).to.equal(true);
    const clean = await rig.service.clean(`id:${STRIP}`, {}).then(() => undefined, (e: unknown) => e);
    expect(isLightwireError(clean, 'CAPABILITY_MISSING')).to.equal(true);
    expect(names(rig, BULB)).to.deep.equal([]);
  });

  it('keeps the registry current after a fast partial colour change (SetWaveformOptional)', async () => {
    await rig.service.setState(`id:${STRIP}`, { color: 'brightness:0.25' }, { fast: true });
    const [strip] = rig.service.list(`id:${STRIP}`);
    expect(strip!.brightness).to.equal(0.25);
    expect(strip!.color.hue).to.be.closeTo(120, 0.1);
  });

  it('refuses a cycle with fewer than two states', async () => {
    const err = await rig.service.cycle('all', { states: [{ power: 'on' }] }).then(() => undefined, (e: unknown) => e);
    expect(isLightwireError(err, 'PARAMETER_INVALID')).to.equal(true);
  });
});
