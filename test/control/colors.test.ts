import { expect } from 'chai';
import fc from 'fast-check';
import {
  mergeColor,
  NAMED_COLORS,
  parseColor,
  rgbToHsb,
  validateColor,
  withBrightness,
  type ValidatedColor,
} from '../../core/control/colors.js';
import { parseStateChange } from '../../core/control/requests.js';
import type { PartialHsbk } from '../../core/control/types.js';
import { isLightwireError, type ErrorCode, type LightwireError } from '../../core/errors.js';

function thrown<C extends ErrorCode>(code: C, fn: () => unknown): LightwireError<C> {
  try {
    fn();
  } catch (err) {
    if (isLightwireError(err, code)) return err;
    throw new Error(`expected ${code}, got ${String(err)}`);
  }
  throw new Error(`expected ${code}, nothing was thrown`);
}

type Row = readonly [hue: number | null, saturation: number | null, brightness: number | null, kelvin: number | null];

/** Compares to 4 decimals, as the expected results below print them. */
function expectHsbk(actual: ValidatedColor, [hue, saturation, brightness, kelvin]: Row): void {
  const fields = { hue, saturation, brightness, kelvin };
  for (const [key, want] of Object.entries(fields) as [keyof ValidatedColor, number | null][]) {
    const got = actual[key];
    if (want === null) expect(got, key).to.equal(null);
    else expect(got, key).to.be.a('number').and.closeTo(want, 5e-5);
  }
}

describe('parseColor and validateColor', () => {
  describe('the expected results of Validate Color', () => {
    const rows: readonly (readonly [string, Row])[] = [
      ['white', [null, 0, null, null]],
      ['red', [0, 1, null, null]],
      ['orange', [36, 1, null, null]],
      ['yellow', [60, 1, null, null]],
      ['cyan', [180, 1, null, null]],
      ['green', [120, 1, null, null]],
      ['blue', [250, 1, null, null]],
      ['purple', [280, 1, null, null]],
      ['pink', [325, 1, null, null]],
      ['hue:120', [120, null, null, null]],
      ['saturation:0.5', [null, 0.5, null, null]],
      ['brightness:0.5', [null, null, 0.5, null]],
      ['kelvin:5000', [null, 0, null, 5000]],
      ['kelvin:2700 saturation:1', [null, 1, null, 2700]],
      [decodeURIComponent('%23ff0000'), [0, 1, 1, null]],
      ['rgb:0,255,255', [180, 1, 1, null]],
      ['rgb:255,255,0', [60, 1, 1, null]],
      [decodeURIComponent('%23674322'), [28.6957, 0.6699, 0.4039, null]],
      ['hue:120 saturation:1.0 brightness:0.5', [120, 1, 0.5, null]],
      ['blue saturation:0.5', [250, 0.5, null, null]],
    ];
    for (const [text, row] of rows) {
      it(`validates ${JSON.stringify(text)} as (${row.map((v) => v ?? 'null').join(', ')})`, () => {
        expectHsbk(validateColor(text), row);
      });
    }

    it('answers red exactly as the recorded Validate Color body', () => {
      expect(validateColor('red')).to.deep.equal({ hue: 0, saturation: 1.0, brightness: null, kelvin: null });
    });

    for (const [text, component] of [
      ['kelvin:9001', 'kelvin'],
      ['hue:361', 'hue'],
      ['brightness:2', 'brightness'],
      ['rgb:256,0,0', 'rgb'],
      ['#12345', '#12345'],
      ['#fff', '#fff'],
      ['blue-ish', 'blue-ish'],
      ['', 'empty'],
    ] as const) {
      it(`rejects ${JSON.stringify(text)} with COLOR_INVALID naming ${component}`, () => {
        const err = thrown('COLOR_INVALID', () => validateColor(text));
        expect(err.params.color).to.equal(text);
        expect(err.params.reason).to.include(component);
        expect(err.httpStatus).to.equal(422);
      });
    }
  });

  describe('the documented colour-string examples', () => {
    const examples: readonly (readonly [string, PartialHsbk])[] = [
      ['#ff0000', { hue: 0, saturation: 1, brightness: 1 }],
      ['hue:120 saturation:1.0 brightness:0.5', { hue: 120, saturation: 1, brightness: 0.5 }],
      ['kelvin:2700 brightness: 0.5', { saturation: 0, brightness: 0.5, kelvin: 2700 }],
      ['rgb:0,255,255', { hue: 180, saturation: 1, brightness: 1 }],
      ['kelvin:5000', { saturation: 0, kelvin: 5000 }],
      ['kelvin:2700 saturation:1', { saturation: 1, kelvin: 2700 }],
      ['brightness:0.75', { brightness: 0.75 }],
      ['saturation:0.25', { saturation: 0.25 }],
      ['red', { hue: 0, saturation: 1 }],
      ['rgb:255,255,0', { hue: 60, saturation: 1, brightness: 1 }],
    ];
    for (const [text, want] of examples) {
      it(`reads ${JSON.stringify(text)} as ${JSON.stringify(want)}, setting nothing else`, () => {
        expect(parseColor(text)).to.deep.equal(want);
      });
    }
  });

  describe('named colours', () => {
    it('has exactly the nine names of the server table', () => {
      expect(Object.keys(NAMED_COLORS).sort()).to.deep.equal(
        ['blue', 'cyan', 'green', 'orange', 'pink', 'purple', 'red', 'white', 'yellow'],
      );
    });

    it('reads white as saturation 0 with hue untouched', () => {
      expect(parseColor('white')).to.deep.equal({ saturation: 0 });
    });

    it('reads names in any case', () => {
      expect(parseColor('RED')).to.deep.equal({ hue: 0, saturation: 1 });
      expect(parseColor('Blue')).to.deep.equal({ hue: 250, saturation: 1 });
      expect(parseColor('wHiTe')).to.deep.equal({ saturation: 0 });
    });

    for (const name of ['cold white', 'warm_white', 'magenta', 'pastel', 'constructor', 'toString', '__proto__']) {
      it(`does not know ${JSON.stringify(name)}`, () => {
        expect(thrown('COLOR_INVALID', () => parseColor(name)).params.color).to.equal(name);
      });
    }
  });

  describe('combinations', () => {
    it('reads blue kelvin:3500 saturation:0.4 as (250, 0.4, -, 3500), as photons does', () => {
      expect(parseColor('blue kelvin:3500 saturation:0.4')).to.deep.equal({ hue: 250, saturation: 0.4, kelvin: 3500 });
    });

    it('reads #010101 hue:240 kelvin:2500 as (240, 0, 0.0039, 2500), as photons does', () => {
      expectHsbk(validateColor('#010101 hue:240 kelvin:2500'), [240, 0, 0.0039, 2500]);
    });

    it('lets kelvin force saturation 0 even after an earlier saturation', () => {
      expect(parseColor('saturation:1 kelvin:2700')).to.deep.equal({ saturation: 0, kelvin: 2700 });
    });

    it('lets a later component override the same field', () => {
      expect(parseColor('red blue')).to.deep.equal({ hue: 250, saturation: 1 });
      expect(parseColor('hue:10 red')).to.deep.equal({ hue: 0, saturation: 1 });
      expect(parseColor('red hue:10')).to.deep.equal({ hue: 10, saturation: 1 });
      expect(parseColor('brightness:0.2 #ff0000')).to.deep.equal({ hue: 0, saturation: 1, brightness: 1 });
      expect(parseColor('#ff0000 brightness:0.2')).to.deep.equal({ hue: 0, saturation: 1, brightness: 0.2 });
      expect(parseColor('kelvin:2700 kelvin:6500')).to.deep.equal({ saturation: 0, kelvin: 6500 });
    });

    it('keeps a kelvin set earlier when a colour follows', () => {
      expect(parseColor('kelvin:3500 red')).to.deep.equal({ hue: 0, saturation: 1, kelvin: 3500 });
    });

    it('reads the "pastel" style red saturation:0.5', () => {
      expect(parseColor('red saturation:0.5')).to.deep.equal({ hue: 0, saturation: 0.5 });
    });

    it('fails the whole string when any one component is invalid', () => {
      expect(thrown('COLOR_INVALID', () => parseColor('red hue:400')).params.reason).to.include('hue');
    });
  });

  describe('whitespace', () => {
    for (const text of ['  red   brightness:0.5  ', 'red\tbrightness:0.5', 'red\n brightness:0.5', 'red\u00a0brightness:0.5']) {
      it(`separates components by any run of whitespace in ${JSON.stringify(text)}`, () => {
        expect(parseColor(text)).to.deep.equal({ hue: 0, saturation: 1, brightness: 0.5 });
      });
    }

    it('allows spaces after every key', () => {
      expect(parseColor('hue:  120 saturation: 1 brightness:\t0.5 kelvin: 3500')).to.deep.equal({
        hue: 120,
        saturation: 0,
        brightness: 0.5,
        kelvin: 3500,
      });
      expect(parseColor('rgb: 0,255,255')).to.deep.equal({ hue: 180, saturation: 1, brightness: 1 });
    });

    for (const text of ['brightness:', 'red brightness:', 'brightness: red', 'brightness: kelvin:2700']) {
      it(`rejects the key without a value in ${JSON.stringify(text)}`, () => {
        expect(thrown('COLOR_INVALID', () => parseColor(text)).params.reason).to.include('brightness');
      });
    }

    for (const text of ['hue :120', 'rgb:0, 255, 255', 'rgb:0 ,255,255', '# ff0000']) {
      it(`allows no space elsewhere, as in ${JSON.stringify(text)}`, () => {
        thrown('COLOR_INVALID', () => parseColor(text));
      });
    }

    for (const text of [' ', '\t\n']) {
      it(`rejects the blank string ${JSON.stringify(text)} as empty`, () => {
        expect(thrown('COLOR_INVALID', () => parseColor(text)).params.reason).to.include('empty');
      });
    }
  });

  describe('case', () => {
    it('reads keys in any case', () => {
      expect(parseColor('Hue:120 SATURATION:0.5 Brightness:1 KELVIN:2700')).to.deep.equal({
        hue: 120,
        saturation: 0,
        brightness: 1,
        kelvin: 2700,
      });
      expect(parseColor('RGB:255,255,0')).to.deep.equal({ hue: 60, saturation: 1, brightness: 1 });
      expect(parseColor('RANDOM', { random: () => 0.5 })).to.deep.equal({ hue: 180, saturation: 1 });
    });

    it('reads hex digits in any case', () => {
      expect(parseColor('#FFaa00')).to.deep.equal(parseColor('#ffAA00'));
      expectHsbk(validateColor('#FFAA00'), [40, 1, 1, null]);
    });
  });

  describe('ranges, inclusive', () => {
    const edges: readonly (readonly [string, PartialHsbk])[] = [
      ['hue:0', { hue: 0 }],
      ['hue:360', { hue: 360 }],
      ['hue:359.99', { hue: 359.99 }],
      ['saturation:0', { saturation: 0 }],
      ['saturation:1', { saturation: 1 }],
      ['saturation:1.000', { saturation: 1 }],
      ['brightness:0', { brightness: 0 }],
      ['brightness:1', { brightness: 1 }],
      ['brightness:.5', { brightness: 0.5 }],
      ['brightness:1.', { brightness: 1 }],
      ['kelvin:1500', { saturation: 0, kelvin: 1500 }],
      ['kelvin:9000', { saturation: 0, kelvin: 9000 }],
      ['kelvin:02700', { saturation: 0, kelvin: 2700 }],
      ['rgb:0,0,0', { hue: 0, saturation: 0, brightness: 0 }],
      ['rgb:255,255,255', { hue: 0, saturation: 0, brightness: 1 }],
      ['#000000', { hue: 0, saturation: 0, brightness: 0 }],
    ];
    for (const [text, want] of edges) {
      it(`accepts ${text}`, () => {
        expect(parseColor(text)).to.deep.equal(want);
      });
    }

    for (const [text, component] of [
      ['hue:360.01', 'hue'],
      ['hue:-1', 'hue'],
      ['hue:-0', 'hue'],
      ['hue:+5', 'hue'],
      ['hue:1e2', 'hue'],
      ['hue:.', 'hue'],
      ['hue:1.2.3', 'hue'],
      ['hue:one', 'hue'],
      ['hue:', 'hue'],
      ['saturation:1.01', 'saturation'],
      ['saturation:50%', 'saturation'],
      ['saturation:-0.5', 'saturation'],
      ['brightness:1.0001', 'brightness'],
      ['brightness:NaN', 'brightness'],
      ['brightness:Infinity', 'brightness'],
      ['kelvin:1499', 'kelvin'],
      ['kelvin:9001', 'kelvin'],
      ['kelvin:2700.5', 'kelvin'],
      ['kelvin:-2700', 'kelvin'],
      ['rgb:255,256,0', 'rgb g'],
      ['rgb:0,0,300', 'rgb b'],
      ['rgb:-1,0,0', 'rgb r'],
      ['rgb:1.5,0,0', 'rgb r'],
      ['rgb:1,2', 'rgb'],
      ['rgb:1,2,3,4', 'rgb'],
      ['rgb:1,,3', 'rgb g'],
      ['rgb:', 'rgb'],
    ] as const) {
      it(`rejects ${text}, naming ${component}`, () => {
        const err = thrown('COLOR_INVALID', () => parseColor(text));
        expect(err.params.color).to.equal(text);
        expect(err.params.reason).to.include(component);
      });
    }
  });

  describe('hex and rgb', () => {
    it('converts #674322 with standard RGB to HSV, leaving kelvin unset', () => {
      const c = parseColor('#674322');
      expect(c.hue).to.be.closeTo(28.6957, 5e-5);
      expect(c.saturation).to.be.closeTo(0.6699, 5e-5);
      expect(c.brightness).to.be.closeTo(0.4039, 5e-5);
      expect(c).not.to.have.property('kelvin');
    });

    it('gives rgb:r,g,b the same colour as the matching #RRGGBB', () => {
      expect(parseColor('rgb:103,67,34')).to.deep.equal(parseColor('#674322'));
    });

    it('places each primary and secondary at its hue', () => {
      const hues = ['#ff0000', '#ffff00', '#00ff00', '#00ffff', '#0000ff', '#ff00ff'].map((h) => parseColor(h).hue);
      expect(hues).to.deep.equal([0, 60, 120, 180, 240, 300]);
    });

    it('gives greys hue 0 and saturation 0', () => {
      expectHsbk(validateColor('#808080'), [0, 0, 128 / 255, null]);
    });

    for (const text of ['#fff', '#12345', '#1234567', '#gg0000', 'ff0000', 'hex:ff0000', 'hex:#ff0000', '##ff0000']) {
      it(`rejects ${JSON.stringify(text)}, which is not # and six hex digits`, () => {
        expect(thrown('COLOR_INVALID', () => parseColor(text)).params.color).to.equal(text);
      });
    }

    it('keeps every converted value inside its range', () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), (r, g, b) => {
          const c = rgbToHsb(r, g, b);
          expect(c.hue).to.be.at.least(0).and.below(360);
          expect(c.saturation).to.be.within(0, 1);
          expect(c.brightness).to.equal(Math.max(r, g, b) / 255);
        }),
      );
    });
  });

  describe('random', () => {
    it('sets a hue from the injected generator and saturation 1, nothing else', () => {
      expect(parseColor('random', { random: () => 0 })).to.deep.equal({ hue: 0, saturation: 1 });
      expect(parseColor('random', { random: () => 0.5 })).to.deep.equal({ hue: 180, saturation: 1 });
      expect(parseColor('random', { random: () => 0.99999 })).to.deep.equal({ hue: 359, saturation: 1 });
    });

    it('keeps the hue a whole number from 0 to 359 even when the generator misbehaves', () => {
      expect(parseColor('random', { random: () => 1 }).hue).to.equal(359);
      expect(parseColor('random', { random: () => -1 }).hue).to.equal(0);
    });

    it('combines with other components left to right', () => {
      expect(parseColor('random brightness:0.3', { random: () => 0.25 })).to.deep.equal({ hue: 90, saturation: 1, brightness: 0.3 });
      expect(parseColor('random saturation:0.5', { random: () => 0.25 })).to.deep.equal({ hue: 90, saturation: 0.5 });
      expect(parseColor('random kelvin:3000', { random: () => 0.25 })).to.deep.equal({ hue: 90, saturation: 0, kelvin: 3000 });
    });

    it('falls back to Math.random', () => {
      const c = parseColor('random');
      expect(Number.isInteger(c.hue)).to.equal(true);
      expect(c.hue).to.be.within(0, 359);
      expect(c.saturation).to.equal(1);
    });

    it('passes the generator through validateColor', () => {
      expect(validateColor('random', { random: () => 0.5 })).to.deep.equal({ hue: 180, saturation: 1, brightness: null, kelvin: null });
    });
  });

  describe('results', () => {
    it('gives validateColor exactly the four keys of the Validate Color body', () => {
      expect(validateColor('brightness:0.5')).to.have.all.keys('hue', 'saturation', 'brightness', 'kelvin');
    });

    it('returns frozen values', () => {
      expect(Object.isFrozen(parseColor('red'))).to.equal(true);
      expect(Object.isFrozen(validateColor('red'))).to.equal(true);
    });

    it('equals the left-to-right merge of its components for any valid string', () => {
      const part = fc.oneof(
        fc.constantFrom(...Object.keys(NAMED_COLORS)),
        fc.double({ min: 0, max: 360, noNaN: true }).map((h) => `hue:${h.toFixed(3)}`),
        fc.double({ min: 0, max: 1, noNaN: true }).map((s) => `saturation:${s.toFixed(3)}`),
        fc.double({ min: 0, max: 1, noNaN: true }).map((b) => `brightness: ${b.toFixed(3)}`),
        fc.integer({ min: 1500, max: 9000 }).map((k) => `kelvin:${k}`),
        fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([r, g, b]) => `rgb:${r},${g},${b}`),
        fc.nat(0xffffff).map((n) => `#${n.toString(16).padStart(6, '0')}`),
      );
      fc.assert(
        fc.property(fc.array(part, { minLength: 1, maxLength: 6 }), fc.constantFrom(' ', '  ', '\t'), (parts, sep) => {
          const whole = parseColor(parts.join(sep));
          expect(whole).to.deep.equal(parts.map((p) => parseColor(p)).reduce(mergeColor));
          if (whole.hue !== undefined) expect(whole.hue).to.be.within(0, 360);
          if (whole.saturation !== undefined) expect(whole.saturation).to.be.within(0, 1);
          if (whole.brightness !== undefined) expect(whole.brightness).to.be.within(0, 1);
          if (whole.kelvin !== undefined) expect(whole.kelvin).to.be.within(1500, 9000);
        }),
        { numRuns: 300 },
      );
    });
  });
});

describe('mergeColor', () => {
  it('lets the later colour win field by field', () => {
    expect(mergeColor({ hue: 120, saturation: 1, brightness: 0.5 }, { saturation: 0, kelvin: 3500 })).to.deep.equal({
      hue: 120,
      saturation: 0,
      brightness: 0.5,
      kelvin: 3500,
    });
  });

  it('keeps the base where the later colour sets nothing, even an explicit undefined', () => {
    expect(mergeColor({ hue: 10, kelvin: 2700 }, { hue: undefined })).to.deep.equal({ hue: 10, kelvin: 2700 });
    expect(mergeColor({}, {})).to.deep.equal({});
  });

  it('keeps a zero from the later colour', () => {
    expect(mergeColor({ hue: 10, brightness: 1 }, { hue: 0, brightness: 0 })).to.deep.equal({ hue: 0, brightness: 0 });
  });
});

describe('withBrightness', () => {
  it('overrides the brightness inside the colour string with the brightness parameter', () => {
    expect(withBrightness(parseColor('kelvin:2700 brightness: 0.5'), 0.8)).to.deep.equal({
      saturation: 0,
      brightness: 0.8,
      kelvin: 2700,
    });
  });

  it('adds the brightness to a colour that had none', () => {
    expect(withBrightness(parseColor('red'), 0.3)).to.deep.equal({ hue: 0, saturation: 1, brightness: 0.3 });
  });

  it('gives a brightness-only colour when there is no colour string', () => {
    expect(withBrightness(undefined, 0)).to.deep.equal({ brightness: 0 });
  });

  it('leaves the colour as it is without a brightness parameter', () => {
    const color = parseColor('#ff0000');
    expect(withBrightness(color, undefined)).to.equal(color);
    expect(withBrightness(undefined, undefined)).to.equal(undefined);
  });

  // The brightness is checked once, by the parser, before it is merged here.
  for (const brightness of [-0.1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`the parser rejects the brightness ${brightness} with PARAMETER_INVALID before any merge`, () => {
      expect(thrown('PARAMETER_INVALID', () => parseStateChange({ color: 'red', brightness }, { vocabulary: 'library', defaultDurationS: 1 })).params.field).to.equal('brightness');
    });
  }
});
