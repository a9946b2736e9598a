// Matter units to the service's and back, through the 16-bit wire form a light keeps: every level, hue, saturation
// and mireds value Matter can send comes back unchanged once the light has it.

import { expect } from 'chai';
import { PRODUCTS, fractionFromWire, fractionToWire, hueDegreesToWire, hueWireToDegrees } from '../../core/protocol/index.js';
import {
  HUE_SAT_MAX,
  ILLUMINANCE_MAX,
  LEVEL_MAX,
  LEVEL_MIN,
  brightnessToLevel,
  degreesToHue,
  fractionToSaturation,
  hueSaturationToXy,
  hueToDegrees,
  kelvinToMireds,
  levelToBrightness,
  luxToIlluminance,
  matterKindOf,
  miredsLimits,
  miredsToKelvin,
  saturationToFraction,
  transitionToSeconds,
  xyToHueSaturation,
} from '../../homebridge-plugin/matter-mapping.js';
import { MATTER_LABEL_MAX, lightSensorLabel, suffixedLabel } from '../../homebridge-plugin/matter-devices.js';

const through = (fraction: number): number => fractionFromWire(fractionToWire(fraction));

describe('matter mapping', () => {
  it('maps every level 1-254 to a brightness that comes back as the same level through the wire', () => {
    for (let level = LEVEL_MIN; level <= LEVEL_MAX; level++) expect(brightnessToLevel(through(levelToBrightness(level))), `level ${level}`).to.equal(level);
    expect(levelToBrightness(254)).to.equal(1);
    expect(levelToBrightness(127)).to.equal(0.5);
    expect(levelToBrightness(0)).to.equal(0);
    // A light that is on but at brightness 0 is still on: Matter's lowest level while on.
    expect(brightnessToLevel(0)).to.equal(LEVEL_MIN);
    expect(brightnessToLevel(1)).to.equal(LEVEL_MAX);
  });

  it('maps every hue 0-253 to degrees and back through the wire; 254 is 360°, which the light keeps as 0°', () => {
    for (let hue = 0; hue < HUE_SAT_MAX; hue++) expect(degreesToHue(hueWireToDegrees(hueDegreesToWire(hueToDegrees(hue)))), `hue ${hue}`).to.equal(hue);
    expect(hueToDegrees(HUE_SAT_MAX)).to.equal(360);
    expect(degreesToHue(hueWireToDegrees(hueDegreesToWire(360)))).to.equal(0);
    expect(hueToDegrees(127)).to.be.closeTo(180, 1e-9);
    expect(degreesToHue(-90)).to.equal(degreesToHue(270));
  });

  it('maps every saturation 0-254 to a fraction and back through the wire', () => {
    for (let s = 0; s <= HUE_SAT_MAX; s++) expect(fractionToSaturation(through(saturationToFraction(s))), `saturation ${s}`).to.equal(s);
    expect(saturationToFraction(254)).to.equal(1);
  });

  it('maps every mireds value in a product range to kelvin and back; beyond the range to its ends', () => {
    for (const pid of [91, 125, 10, 1]) {
      const range = PRODUCTS.get(1, pid).capabilities.kelvinRange!;
      const { minMireds, maxMireds } = miredsLimits(range);
      expect(minMireds).to.equal(Math.round(1e6 / range.maxK));
      expect(maxMireds).to.equal(Math.round(1e6 / range.minK));
      for (let m = minMireds; m <= maxMireds; m++) {
        const kelvin = miredsToKelvin(m, range);
        expect(Number.isInteger(kelvin) && kelvin >= range.minK && kelvin <= range.maxK, `${m} mireds -> ${kelvin} K`).to.equal(true);
        expect(kelvinToMireds(kelvin, range), `${pid}: ${m} mireds`).to.equal(m);
      }
      expect(miredsToKelvin(minMireds - 40, range)).to.equal(range.maxK);
      expect(miredsToKelvin(maxMireds + 40, range)).to.equal(range.minK);
    }
    const colour = PRODUCTS.get(1, 91).capabilities.kelvinRange!;
    expect(miredsToKelvin(250, colour)).to.equal(4000);
    expect(miredsLimits(colour)).to.deep.equal({ minMireds: 111, maxMireds: 667 });
  });

  it('reads a transition time in tenths of a second; none given is the light setting (undefined)', () => {
    expect(transitionToSeconds(15)).to.equal(1.5);
    expect(transitionToSeconds(0)).to.equal(0);
    expect(transitionToSeconds(null)).to.equal(undefined);
    expect(transitionToSeconds(undefined)).to.equal(undefined);
  });

  it('converts CIE xy to hue and saturation at the sRGB primaries and the D65 white point', () => {
    const at = (x: number, y: number) => xyToHueSaturation(Math.round(x * 65536), Math.round(y * 65536));
    const red = at(0.64, 0.33);
    expect(Math.min(red.hue, 360 - red.hue)).to.be.below(1);
    expect(red.saturation).to.be.closeTo(1, 0.01);
    expect(at(0.3, 0.6).hue).to.be.closeTo(120, 1);
    expect(at(0.15, 0.06).hue).to.be.closeTo(240, 1);
    expect(at(0.3127, 0.329).saturation).to.be.below(0.01);
  });

  it('converts hue and saturation to xy and back (within a degree and a hundredth)', () => {
    for (let hue = 0; hue < 360; hue += 15) {
      for (const saturation of [0.2, 0.5, 0.8, 1]) {
        const { x, y } = hueSaturationToXy(hue, saturation);
        const back = xyToHueSaturation(x, y);
        const dh = Math.abs(((back.hue - hue + 540) % 360) - 180);
        expect(dh, `hue ${hue} sat ${saturation}`).to.be.below(1);
        expect(back.saturation, `hue ${hue} sat ${saturation}`).to.be.closeTo(saturation, 0.01);
      }
    }
  });

  it('picks the device type from the product: colour, tunable white, white only, Switch', () => {
    expect(matterKindOf(PRODUCTS.get(1, 91).capabilities)).to.equal('extendedColor');
    expect(matterKindOf(PRODUCTS.get(1, 125).capabilities)).to.equal('colorTemperature');
    expect(matterKindOf(PRODUCTS.get(1, 51).capabilities)).to.equal('dimmable');
    expect(matterKindOf(PRODUCTS.get(1, 70).capabilities)).to.equal('plug');
    expect(matterKindOf({ ...PRODUCTS.get(1, 70).capabilities, relays: false })).to.equal(undefined);
  });

  it('encodes lux as Illuminance Measurement\'s MeasuredValue (10000 * log10(lux) + 1), 0 for darkness and no reading', () => {
    expect(luxToIlluminance(1)).to.equal(1);
    expect(luxToIlluminance(10)).to.equal(10001);
    expect(luxToIlluminance(100)).to.equal(20001);
    expect(luxToIlluminance(420)).to.equal(26233);
    expect(luxToIlluminance(42.5)).to.equal(16285);
    // Too low to be measured: 0 lx, below 1 lx (the formula falls under 1), no reading at all.
    expect(luxToIlluminance(0)).to.equal(0);
    expect(luxToIlluminance(0.5)).to.equal(0);
    expect(luxToIlluminance(null)).to.equal(0);
    expect(luxToIlluminance(Number.NaN)).to.equal(0);
    // 3.576 Mlx is the largest MeasuredValue (0xFFFE); beyond it the value stays there (0xFFFF would be null).
    expect(luxToIlluminance(3_576_000)).to.equal(ILLUMINANCE_MAX);
    expect(luxToIlluminance(1e9)).to.equal(ILLUMINANCE_MAX);
    // Monotonic over the sensor's range, so a brighter reading never reports less.
    let last = 0;
    for (let lux = 0; lux <= 100_000; lux += 7.3) {
      const value = luxToIlluminance(lux);
      expect(value, `${lux} lx`).to.be.at.least(last);
      last = value;
    }
  });

  it('names a device of a light "<name><suffix>" within 32 characters, shortening the name and keeping the suffix', () => {
    expect(suffixedLabel('Ceiling', ' Uplight')).to.equal('Ceiling Uplight');
    const long = 'Living Room Ceiling Over The Sofa';
    expect(suffixedLabel(long, ' Uplight')).to.equal('Living Room Ceiling Over Uplight');
    expect(lightSensorLabel(long)).to.equal('Living Room Ceiling Light Level');
    // A segment name of 31 characters leaves no room for the name: the label is cut at 32.
    const part = ' Abcdefghijklmnopqrstuvwxyz01234';
    expect(suffixedLabel('Strip', part)).to.equal(part.trim());
    expect([...suffixedLabel(long, `${part}5`)]).to.have.length.at.most(MATTER_LABEL_MAX);
  });
});
