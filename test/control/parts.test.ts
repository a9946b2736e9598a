// Parts of a light (core/control/parts.ts, part-plan.ts): Ceiling downlight and uplight, Mirror front and rear, and a
// user's segments of a strip, addressed as `SELECTOR|PART`, on virtual lights of their real geometry (8 x 8 Ceiling,
// 16 x 8 Capsule, 5 x 10 Mirror, a 30-zone strip). What the fleet shows is compared zone by zone and pixel by pixel.
import { expect } from 'chai';
import { isLightwireError, type ErrorCode, type LightwireError } from '../../core/errors.js';
import { partsFromConfig } from '../../core/control/parts.js';
import { parseSelectors, formatSelector } from '../../core/control/selectors.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';
import type { Hsbk } from '../../core/protocol/index.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';

const CEILING = 'd073d5000031';
const CAPSULE = 'd073d5000032';
const MIRROR = 'd073d5000033';
const STRIP = 'd073d5000034';
const BULB = 'd073d5000035';
const WHITE: Hsbk = { hue: 0, saturation: 0, brightness: 1, kelvin: 3500 };

const lights: LightInput[] = [
  { serial: CEILING, product: 176, label: 'Ceiling', power: 'on', color: WHITE },
  { serial: CAPSULE, product: 201, label: 'Capsule', power: 'on', color: WHITE },
  { serial: MIRROR, product: 267, label: 'Mirror', power: 'on', color: WHITE },
  { serial: STRIP, product: 32, label: 'Strip', firmware: { major: 2, minor: 80 }, zoneCount: 30, power: 'on', color: WHITE },
  { serial: BULB, product: 91, label: 'Bulb', power: 'on', color: WHITE },
];

const PARTS = { Strip: ['left', 'middle', 'right'] };

async function thrown<C extends ErrorCode>(code: C, run: () => unknown): Promise<LightwireError<C>> {
  try {
    await run();
  } catch (err) {
    if (isLightwireError(err) && err.code === code) return err as LightwireError<C>;
    throw err;
  }
  throw new Error(`expected ${code}`);
}

/** What a virtual light shows, zone by zone (a strip) or pixel by pixel (a matrix light's first tile). */
function shown(rig: ServiceRig, serial: string): Hsbk[] {
  const state = rig.fleet.light(serial).state;
  return state.tiles?.[0] ?? state.zones ?? [];
}
/** The indices whose colour is not white at full brightness. */
function changed(rig: ServiceRig, serial: string): number[] {
  return shown(rig, serial).flatMap((c, i) => (Math.round(c.saturation * 100) === 0 && Math.round(c.brightness * 100) === 100 ? [] : [i]));
}
const range = (start: number, end: number): number[] => Array.from({ length: end - start + 1 }, (_, i) => start + i);

describe('parts: selectors and the option', () => {
  it('parses `SELECTOR|PART` beside zone ranges, keeps every v1 zone suffix, and writes it back', () => {
    const [s] = parseSelectors('label:Ceiling|uplight');
    expect(s).to.include({ kind: 'label', value: 'Ceiling', part: 'uplight', zones: null });
    expect(formatSelector(s!)).to.equal('label:Ceiling|uplight');
    expect(parseSelectors('label:Strip|0-5')[0]!.part).to.equal(undefined);
    expect(parseSelectors('label:Strip|0-5')[0]!.zones).to.deep.equal([{ start: 0, end: 5 }]);
  });

  it('refuses what is neither a zone range nor a part name (one letter, two parts, a part with zones)', async () => {
    for (const text of ['label:Strip|a', 'label:Strip|a-b', 'label:Ceiling|uplight|downlight', 'label:Ceiling|uplight|3', 'label:Ceiling|up light']) {
      expect((await thrown('SELECTOR_INVALID', () => parseSelectors(text))).params.part, text).to.equal(text);
    }
  });

  it('checks the option `parts`: equal segments or named ranges, a bad name or range is OPTIONS_INVALID', async () => {
    const parts = partsFromConfig({ Strip: ['left', 'middle', 'right'], d073d50000ab: { desk: '0-9', shelf: '12' } });
    expect(parts.get('Strip')!.map((p) => [p.name, p.zonesOf(30)])).to.deep.equal([
      ['left', [{ start: 0, end: 9 }]],
      ['middle', [{ start: 10, end: 19 }]],
      ['right', [{ start: 20, end: 29 }]],
    ]);
    // 32 zones in three: 11, 11, 10.
    expect(parts.get('Strip')!.map((p) => p.zonesOf(32))).to.deep.equal([[{ start: 0, end: 10 }], [{ start: 11, end: 21 }], [{ start: 22, end: 31 }]]);
    expect(parts.get('d073d50000ab')!.map((p) => p.zonesOf(10))).to.deep.equal([[{ start: 0, end: 9 }], []]);
    for (const bad of [[], { x: ['a'] }, { x: ['left', 'LEFT'] }, { x: ['left-side'] }, { x: { desk: '9-3' } }, { x: { desk: 4 } }, 'Strip']) {
      expect((await thrown('OPTIONS_INVALID', () => partsFromConfig(bad))).params.option).to.equal('parts');
    }
  });
});

describe('parts on virtual Ceilings, a Mirror and a strip', function () {
  this.timeout(20_000);
  let rig: ServiceRig;
  beforeEach(async () => {
    rig = await serviceRig({ lights }, { parts: PARTS });
    await Promise.all([CEILING, CAPSULE, MIRROR, STRIP].map((s) => rig.service.refreshLight(s)));
  });
  afterEach(() => rig.close());

  it('lists each light its parts from its real geometry (Ceiling 8x8: uplight 63; Capsule 16x8: 127; Mirror 5x10: halves)', () => {
    const zonesOf = (serial: string) => Object.fromEntries(rig.service.parts(serial).map((p) => [p.name, p.zones]));
    expect(zonesOf(CEILING)).to.deep.equal({ downlight: [{ start: 0, end: 62 }], uplight: [{ start: 63, end: 63 }] });
    expect(zonesOf(CAPSULE)).to.deep.equal({ downlight: [{ start: 0, end: 126 }], uplight: [{ start: 127, end: 127 }] });
    expect(zonesOf(MIRROR)).to.deep.equal({ front: [{ start: 0, end: 24 }], rear: [{ start: 25, end: 49 }] });
    expect(zonesOf(STRIP)).to.deep.equal({ left: [{ start: 0, end: 9 }], middle: [{ start: 10, end: 19 }], right: [{ start: 20, end: 29 }] });
    expect(rig.service.parts(BULB)).to.deep.equal([]);
    expect(rig.service.parts(CEILING).map((p) => p.power)).to.deep.equal(['on', 'on']);
  });

  it('paints the uplight alone: only pixel 63 of the 8x8 Ceiling, 127 of the Capsule; the rear of the Mirror; a segment of the strip', async () => {
    const red = { color: 'red', durationS: 0 } as const;
    expect(await rig.service.setState('label:Ceiling|uplight', red)).to.deep.equal([{ id: CEILING, label: 'Ceiling', status: 'ok' }]);
    expect(changed(rig, CEILING)).to.deep.equal([63]);
    expect(Math.round(shown(rig, CEILING)[63]!.saturation * 100)).to.equal(100);
    await rig.service.setState('label:Capsule|UPLIGHT', red);
    expect(changed(rig, CAPSULE)).to.deep.equal([127]);
    await rig.service.setState('label:Mirror|rear', red);
    expect(changed(rig, MIRROR)).to.deep.equal(range(25, 49));
    await rig.service.setState('label:Strip|middle', red);
    expect(changed(rig, STRIP)).to.deep.equal(range(10, 19));
    // Two parts of one light act as one; a part keeps its colour when the other is written.
    await rig.service.setState('label:Strip|left,label:Strip|right', { color: 'hue:240 saturation:1', durationS: 0 });
    expect(changed(rig, STRIP)).to.deep.equal(range(0, 29));
    expect(shown(rig, STRIP).map((c) => Math.round(c.hue))).to.deep.equal([...new Array(10).fill(240), ...new Array(10).fill(0), ...new Array(10).fill(240)]);
    // The part's view: its colour.
    const uplight = rig.service.parts(CEILING).find((p) => p.name === 'uplight')!;
    expect(Math.round(uplight.color!.saturation * 100)).to.equal(100);
  });

  it('keeps the light on while any part is lit: a part turned off goes dark, the last one turned off powers the light off', async () => {
    await rig.service.setState('label:Ceiling|uplight', { power: 'off', durationS: 0 });
    expect(rig.fleet.light(CEILING).state.power).to.equal('on');
    expect(shown(rig, CEILING)[63]!.brightness).to.equal(0);
    expect(changed(rig, CEILING)).to.deep.equal([63]);
    expect(rig.service.parts(CEILING).map((p) => [p.name, p.power])).to.deep.equal([['downlight', 'on'], ['uplight', 'off']]);
    rig.fleet.clearRecords();
    await rig.service.setState('label:Ceiling|downlight', { power: 'off', durationS: 0 });
    expect(rig.fleet.light(CEILING).state.power).to.equal('off');
    // The last lit part: the light powers off, and its pixels are not rewritten.
    expect(rig.fleet.light(CEILING).received('Set64')).to.have.length(0);
    // Turning a part on while the light is off: the light comes on with only that part lit.
    await rig.service.setState('label:Ceiling|uplight', { power: 'on', durationS: 0 });
    expect(rig.fleet.light(CEILING).state.power).to.equal('on');
    const pixels = shown(rig, CEILING);
    expect(pixels[63]!.brightness).to.equal(1);
    expect(pixels.slice(0, 63).every((c) => c.brightness === 0)).to.equal(true);
    // A part turned on again comes back at the brightness it had when it was turned off.
    await rig.service.setState('label:Ceiling|uplight', { brightness: 0.4, durationS: 0 });
    await rig.service.setState('label:Ceiling|downlight', { power: 'on', brightness: 0.5, durationS: 0 });
    await rig.service.setState('label:Ceiling|uplight', { power: 'off', durationS: 0 });
    expect(rig.fleet.light(CEILING).state.power).to.equal('on');
    await rig.service.setState('label:Ceiling|uplight', { power: 'on', durationS: 0 });
    expect(Math.round(shown(rig, CEILING)[63]!.brightness * 100)).to.equal(40);
    expect(Math.round(shown(rig, CEILING)[0]!.brightness * 100)).to.equal(50);
  });

  it('toggles a part by its own power, and moves it by State Delta from its own colour', async () => {
    const results = await rig.service.toggle('label:Strip|right', { durationS: 0 });
    expect(results[0]!.power).to.equal('off');
    expect(shown(rig, STRIP).map((c) => c.brightness)).to.deep.equal([...new Array(20).fill(1), ...new Array(10).fill(0)]);
    await rig.service.toggle('label:Strip|right', { durationS: 0 });
    expect(shown(rig, STRIP).every((c) => c.brightness === 1)).to.equal(true);
    await rig.service.stateDelta('label:Mirror|front', { brightness: -0.5, durationS: 0 });
    expect(shown(rig, MIRROR).map((c) => Math.round(c.brightness * 100))).to.deep.equal([...new Array(25).fill(50), ...new Array(25).fill(100)]);
  });

  it('writes a part in fast mode from what the service knows', async () => {
    await rig.service.setState('label:Ceiling|uplight', { color: 'green', durationS: 0 }, { fast: true });
    const deadline = Date.now() + 2000;
    while (changed(rig, CEILING).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(changed(rig, CEILING)).to.deep.equal([63]);
  });

  it('refuses a part the light does not have, naming its parts, and operations that act on whole lights', async () => {
    const unknown = await thrown('PART_UNKNOWN', () => rig.service.setState('label:Ceiling|rear', { color: 'red' }));
    expect(unknown.params).to.include({ label: 'Ceiling', part: 'rear', parts: 'downlight, uplight' });
    expect((await thrown('PART_UNKNOWN', () => rig.service.setState('label:Bulb|uplight', { color: 'red' }))).params.parts).to.equal('none');
    const refused = await thrown('PART_UNSUPPORTED', () => rig.service.pulse('label:Ceiling|uplight', { color: 'red' }));
    expect(refused.params.operation).to.equal('Pulse Effect');
    expect(refused.params.takes).to.equal('Set State, Toggle Power, State Delta, Cycle');
    await thrown('PART_UNSUPPORTED', () => rig.service.paint('label:Ceiling|uplight', { color: 'red' }));
    expect(rig.fleet.light(CEILING).received('Set64')).to.have.length(0);
  });
});
