import { expect } from 'chai';
import { factsAfter, partKey, predict } from '../../core/control/executor.js';
import type { Plan } from '../../core/control/types.js';
import type { Hsbk } from '../../core/protocol/index.js';
import type { PlannedMessage } from '../../core/control/types.js';
import { canvasOf, framePlan } from '../../core/control/paint.js';
import { lightOf } from '../helpers/light-view.js';

const RED = { hue: 0, saturation: 65535, brightness: 65535, kelvin: 3500 };

describe('executor helpers', () => {
  it('keys fast messages by the part of the light they paint, so two zone ranges never replace each other', () => {
    const zones = (startIndex: number, endIndex: number): PlannedMessage => ({
      name: 'SetColorZones',
      payload: { startIndex, endIndex, color: RED, durationMs: 0, apply: 1 },
    });
    expect(partKey(zones(0, 3))).to.not.equal(partKey(zones(4, 7)));
    expect(partKey(zones(0, 3))).to.equal(partKey(zones(0, 3)));
    expect(partKey({ name: 'SetColor', payload: { color: RED, durationMs: 0 } })).to.equal('SetColor');
  });

  it('predicts power, colour and a partial waveform colour change for the registry', () => {
    const facts = factsAfter(
      {
        steps: [
          [{ name: 'SetLightPower', payload: { level: 65535, durationMs: 0 } }],
          [
            {
              name: 'SetWaveformOptional',
              payload: {
                transient: false, color: { hue: 0, saturation: 0, brightness: 16384, kelvin: 0 }, periodMs: 0, cycles: 1,
                skewRatio: 32767, waveform: 0, setHue: false, setSaturation: false, setBrightness: true, setKelvin: false,
              },
            },
          ],
        ],
      },
      { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 },
    );
    expect(facts.power).to.equal('on');
    expect(facts.color).to.deep.equal({ hue: 120, saturation: 1, brightness: 0.25, kelvin: 3500 });
  });

  it('records the firmware effect a plan starts', () => {
    const facts = factsAfter(
      { steps: [[{ name: 'SetMultiZoneEffect', payload: { settings: { instanceid: 1, type: 1, speedMs: 1000, durationNs: 0n, parameters: [0, 1, 0, 0, 0, 0, 0, 0] } } }]] },
      null,
    );
    expect(facts.effect).to.equal('MOVE');
  });

  describe('predict: the registry shows the end of a write at once', () => {
    const GREEN: Hsbk = { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 };
    const zones = (n: number, c: Hsbk = GREEN): Hsbk[] => Array.from({ length: n }, () => c);
    const wireRed = { hue: 0, saturation: 65535, brightness: 65535, kelvin: 3500 };
    const red: Hsbk = { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 };

    it('paints the zones a SetColorZones names, keeps the others and the top-level colour', () => {
      const plan: Plan = { steps: [[{ name: 'SetColorZones', payload: { startIndex: 2, endIndex: 4, color: wireRed, durationMs: 1500, apply: 1 } }]] };
      const p = predict(plan, { color: GREEN, zones: zones(8) });
      expect(p.facts.zones).to.deep.equal([GREEN, GREEN, red, red, red, GREEN, GREEN, GREEN]);
      expect(p.facts.color).to.equal(undefined);
      expect(p.settleMs).to.deep.equal({ zones: 1500 });
    });

    it('paints the zones of every SetExtendedColorZones of a plan, clipped to the strip', () => {
      const colors = Array.from({ length: 82 }, () => wireRed);
      const plan: Plan = {
        steps: [[
          { name: 'SetExtendedColorZones', payload: { durationMs: 0, apply: 0, index: 0, colorsCount: 82, colors } },
          { name: 'SetExtendedColorZones', payload: { durationMs: 0, apply: 1, index: 82, colorsCount: 3, colors } },
        ]],
      };
      const p = predict(plan, { color: GREEN, zones: zones(84) });
      expect(p.facts.zones).to.have.length(84);
      expect(p.facts.zones!.every((z) => z.hue === 0 && z.saturation === 1)).to.equal(true);
    });

    it('paints every zone of a strip with a whole-light SetColor, and times colour and power apart', () => {
      const plan: Plan = {
        steps: [
          [{ name: 'SetColor', payload: { color: wireRed, durationMs: 0 } }],
          [{ name: 'SetLightPower', payload: { level: 65535, durationMs: 4000 } }],
        ],
      };
      const p = predict(plan, { color: GREEN, zones: zones(3) });
      expect(p.facts).to.deep.include({ color: red, zones: [red, red, red], power: 'on' });
      expect(p.settleMs).to.deep.equal({ color: 0, zones: 0, power: 4000 });
    });

    it('holds the colour before a transient waveform for as long as it runs', () => {
      const plan: Plan = {
        steps: [[{ name: 'SetWaveform', payload: { transient: true, color: wireRed, periodMs: 500, cycles: 4, skewRatio: 0, waveform: 1 } }]],
      };
      const p = predict(plan, { color: GREEN, zones: null });
      expect(p.facts.color).to.deep.equal(GREEN);
      expect(p.settleMs.color).to.equal(2000);
    });

    it('holds the colour before a SINE or TRIANGLE waveform even when not transient (breathe with persist), not a SAW', () => {
      const wave = (waveform: number): Plan => ({
        steps: [[{ name: 'SetWaveform', payload: { transient: false, color: wireRed, periodMs: 500, cycles: 2, skewRatio: 0, waveform } }]],
      });
      for (const waveform of [1, 3]) {
        const p = predict(wave(waveform), { color: GREEN, zones: null });
        expect(p.facts.color, `waveform ${waveform}`).to.deep.equal(GREEN);
        expect(p.settleMs.color, `waveform ${waveform}`).to.equal(1000);
      }
      expect(predict(wave(0), { color: GREEN, zones: null }).facts.color).to.not.deep.equal(GREEN);
    });

    it('leaves zones it cannot know alone (zones never read)', () => {
      const plan: Plan = { steps: [[{ name: 'SetColorZones', payload: { startIndex: 0, endIndex: 3, color: wireRed, durationMs: 0, apply: 1 } }]] };
      expect(predict(plan, { color: GREEN, zones: null }).facts).to.deep.equal({});
    });
  });

  it('predicts the pixels a frame shows: Set64 into the back buffer shows nothing until CopyFrameBuffer copies it into view', () => {
    const tiles = [{ width: 16, height: 8 }];
    const before: Hsbk[] = new Array(128).fill({ hue: 0, saturation: 0, brightness: 1, kelvin: 3500 });
    const frame: Hsbk[] = Array.from({ length: 128 }, (_, i) => ({ hue: i * 2, saturation: 1, brightness: 1, kelvin: 3500 }));
    const plan = framePlan([frame], canvasOf(tiles), lightOf(201, { power: 'on' }), 2, false);
    expect(plan.steps.map((s) => s.map((m) => m.name))).to.deep.equal([['Set64', 'Set64'], ['CopyFrameBuffer']]);
    const drawnOnly = predict({ steps: [plan.steps[0]!] }, { color: null, zones: null, tiles, pixels: [before] });
    expect(drawnOnly.facts.pixels).to.equal(undefined);
    const shown = predict(plan, { color: null, zones: null, tiles, pixels: [before] });
    expect(shown.facts.pixels![0]!.map((c) => Math.round(c.hue))).to.deep.equal(frame.map((c) => c.hue));
    expect(shown.settleMs.pixels).to.equal(2000);
    expect(partKey(plan.steps[0]![0]!)).to.not.equal(partKey(plan.steps[0]![1]!));
  });
});
