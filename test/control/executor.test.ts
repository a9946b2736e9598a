import { expect } from 'chai';
import { factsAfter, partKey } from '../../core/control/executor.js';
import type { PlannedMessage } from '../../core/control/types.js';

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
});
