// State Delta, Toggle and Cycle decisions (https://api.developer.lifx.com/docs/state-delta, Toggle Power, Cycle): tables per rule and capability,
// then properties tying applyDelta to the planner.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyDelta, nextCycleState, toggleTarget, wrapHue, type StateChangeLike, type StateDelta } from '../../core/control/delta.js';
import { planSetState as planChecked } from '../../core/control/planner.js';
import { parseRequest, trustedChange } from '../../core/control/requests.js';

/** The planner takes checked changes; a delta's result is one by construction (the service marks it so). */
const planSetState = (change: StateChange, ...rest: Parameters<typeof planChecked> extends [unknown, ...infer R] ? R : never) => planChecked(trustedChange(change), ...rest);
import type { LightView, StateChange } from '../../core/control/types.js';
import { isLightwireError } from '../../core/errors.js';
import { PRODUCTS, encode, type Hsbk } from '../../core/protocol/index.js';
import { lightOf, type LightState as State } from '../helpers/light-view.js';



const COLOUR = 62; // A19, 1500-9000 K
const WHITE_TO_WARM = 81; // Candle WW, 2200-6500 K, no colour
const FIXED_WHITE = 51; // Mini White, 2700 K
const INFRARED = 64; // A19 Night Vision
const STRIP = 31; // LIFX Z, 2500-9000 K
const SWITCH = 70;

const hsbk = (hue: number, saturation: number, brightness: number, kelvin: number): Hsbk => ({ hue, saturation, brightness, kelvin });

function assertInvalid(fn: () => unknown, field: string): void {
  assert.throws(fn, (err: unknown) => isLightwireError(err, 'PARAMETER_INVALID') && err.params.field === field);
}

// ---- applyDelta ----

describe('applyDelta: relative changes become an absolute StateChange', () => {
  const rows: readonly { name: string; pid: number; state: State; delta: StateDelta; expect: StateChange }[] = [
    { name: 'hue wraps forward: 350 + 20 -> 10', pid: COLOUR, state: { color: hsbk(350, 1, 1, 3500) }, delta: { hue: 20, durationS: 1 }, expect: { color: { hue: 10 }, durationS: 1 } },
    { name: 'hue wraps backward: 10 - 20 -> 350', pid: COLOUR, state: { color: hsbk(10, 1, 1, 3500) }, delta: { hue: -20, durationS: 1 }, expect: { color: { hue: 350 }, durationS: 1 } },
    { name: 'hue + 360 comes back to where it was', pid: COLOUR, state: { color: hsbk(90, 1, 1, 3500) }, delta: { hue: 360, durationS: 0 }, expect: { color: { hue: 90 }, durationS: 0 } },
    { name: 'hue - 360 from 0 stays 0 (never 360)', pid: COLOUR, state: { color: hsbk(0, 1, 1, 3500) }, delta: { hue: -360, durationS: 0 }, expect: { color: { hue: 0 }, durationS: 0 } },
    { name: 'brightness adds: 0.5 + 0.25 -> 0.75', pid: COLOUR, state: { color: hsbk(0, 1, 0.5, 3500) }, delta: { brightness: 0.25, durationS: 1 }, expect: { color: { brightness: 0.75 }, durationS: 1 } },
    { name: 'brightness clips at 1: 0.9 + 0.2 -> 1', pid: COLOUR, state: { color: hsbk(0, 1, 0.9, 3500) }, delta: { brightness: 0.2, durationS: 1 }, expect: { color: { brightness: 1 }, durationS: 1 } },
    { name: 'brightness clips at 0: 0.1 - 0.5 -> 0', pid: COLOUR, state: { color: hsbk(0, 1, 0.1, 3500) }, delta: { brightness: -0.5, durationS: 1 }, expect: { color: { brightness: 0 }, durationS: 1 } },
    { name: 'any finite brightness delta is taken, the sum clipped: 0.5 - 5 -> 0', pid: COLOUR, state: { color: hsbk(0, 1, 0.5, 3500) }, delta: { brightness: -5, durationS: 1 }, expect: { color: { brightness: 0 }, durationS: 1 } },
    { name: 'any finite saturation delta is taken, the sum clipped: 0.2 + 7 -> 1', pid: COLOUR, state: { color: hsbk(0, 0.2, 1, 3500) }, delta: { saturation: 7, durationS: 1 }, expect: { color: { saturation: 1 }, durationS: 1 } },
    { name: 'saturation adds and clips: 0.75 + 0.5 -> 1', pid: COLOUR, state: { color: hsbk(0, 0.75, 1, 3500) }, delta: { saturation: 0.5, durationS: 1 }, expect: { color: { saturation: 1 }, durationS: 1 } },
    { name: 'kelvin adds: 3500 + 500 -> 4000', pid: COLOUR, state: { color: hsbk(0, 0, 1, 3500) }, delta: { kelvin: 500, durationS: 1 }, expect: { color: { kelvin: 4000 }, durationS: 1 } },
    { name: 'kelvin clips to the colour bulb range: 8800 + 500 -> 9000', pid: COLOUR, state: { color: hsbk(0, 0, 1, 8800) }, delta: { kelvin: 500, durationS: 1 }, expect: { color: { kelvin: 9000 }, durationS: 1 } },
    { name: 'kelvin clips to the white-to-warm range: 6400 + 500 -> 6500', pid: WHITE_TO_WARM, state: { color: hsbk(0, 0, 1, 6400) }, delta: { kelvin: 500, durationS: 1 }, expect: { color: { kelvin: 6500 }, durationS: 1 } },
    { name: 'kelvin clips to the LIFX Z range: 2600 - 500 -> 2500 (not the docs\' fixed 2500-9000 elsewhere)', pid: STRIP, state: { color: hsbk(0, 0, 1, 2600) }, delta: { kelvin: -500, durationS: 1 }, expect: { color: { kelvin: 2500 }, durationS: 1 } },
    { name: 'kelvin of any size is added and clipped: 3500 + 100000 -> 9000', pid: COLOUR, state: { color: hsbk(0, 0, 1, 3500) }, delta: { kelvin: 100000, durationS: 1 }, expect: { color: { kelvin: 9000 }, durationS: 1 } },
    { name: 'kelvin is left out on a fixed-white bulb', pid: FIXED_WHITE, state: { color: hsbk(0, 0, 1, 2700) }, delta: { kelvin: 500, durationS: 1 }, expect: { durationS: 1 } },
    { name: 'hue and saturation are left out on a white-to-warm bulb, brightness still moves', pid: WHITE_TO_WARM, state: { color: hsbk(0, 0, 0.5, 2700) }, delta: { hue: 20, saturation: 0.5, brightness: 0.1, durationS: 1 }, expect: { color: { brightness: 0.6 }, durationS: 1 } },
    { name: 'several components at once; power and duration are absolute (the docs example: on, +10 % over 5 s)', pid: COLOUR, state: { power: 'off', color: hsbk(100, 0.5, 0.5, 3500) }, delta: { power: 'on', brightness: 0.1, hue: -50, durationS: 5 }, expect: { power: 'on', color: { hue: 50, brightness: 0.6 }, durationS: 5 } },
    { name: 'infrared adds and clips on an infrared bulb: 0.5 + 0.75 -> 1', pid: INFRARED, state: { color: hsbk(0, 0, 1, 3500), infrared: 0.5 }, delta: { infrared: 0.75, durationS: 1 }, expect: { infrared: 1, durationS: 1 } },
    { name: 'any finite infrared delta is taken, the sum clipped: 0.5 - 3 -> 0', pid: INFRARED, state: { color: hsbk(0, 0, 1, 3500), infrared: 0.5 }, delta: { infrared: -3, durationS: 1 }, expect: { infrared: 0, durationS: 1 } },
    { name: 'infrared is left out on a bulb without IR', pid: COLOUR, state: { color: hsbk(0, 0, 1, 3500) }, delta: { infrared: 0.5, durationS: 1 }, expect: { durationS: 1 } },
    { name: 'power alone needs no colour', pid: COLOUR, state: {}, delta: { power: 'off', durationS: 2 }, expect: { power: 'off', durationS: 2 } },
    { name: 'a Switch gets no colour', pid: SWITCH, state: {}, delta: { brightness: 0.1, durationS: 1 }, expect: { durationS: 1 } },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const got = applyDelta(lightOf(row.pid, row.state), row.delta);
      assert.equal(Object.keys(got.color ?? {}).length, Object.keys(row.expect.color ?? {}).length);
      for (const [k, v] of Object.entries(row.expect.color ?? {})) {
        assert.ok(Math.abs((got.color as Record<string, number>)[k]! - (v as number)) < 1e-9, `${k}: ${String((got.color as Record<string, number>)[k])} != ${v}`);
      }
      assert.deepEqual({ ...got, color: undefined }, { ...row.expect, color: undefined });
    });
  }

  it('needs the current colour to move a colour component (PARAMETER_INVALID naming color)', () => {
    assertInvalid(() => applyDelta(lightOf(COLOUR), { brightness: 0.1, durationS: 1 }), 'color');
  });

  it('needs the current infrared level to move infrared on an infrared bulb', () => {
    assertInvalid(() => applyDelta(lightOf(INFRARED, { color: hsbk(0, 0, 1, 3500) }), { infrared: 0.1, durationS: 1 }), 'infrared');
  });

  const invalid: readonly [field: string, delta: unknown][] = [
    ['hue', { hue: 361, durationS: 1 }],
    ['saturation', { saturation: Number.NEGATIVE_INFINITY, durationS: 1 }],
    ['brightness', { brightness: Number.NaN, durationS: 1 }],
    ['kelvin', { kelvin: Number.POSITIVE_INFINITY, durationS: 1 }],
    ['infrared', { infrared: '2', durationS: 1 }],
    ['duration', { durationS: -1 }],
    ['power', { power: 'toggle', durationS: 1 }],
  ];
  it('says an unbounded amount must be a finite number', () => {
    assert.throws(
      () => parseRequest('stateDelta', { kelvin: Number.NaN, durationS: 1 }, { vocabulary: 'library' }),
      (err: unknown) => isLightwireError(err, 'PARAMETER_INVALID') && err.message.includes('must be a finite number (got NaN)'),
    );
  });

  for (const [field, delta] of invalid) {
    it(`rejects ${JSON.stringify(delta)} naming ${field}`, () => {
      // Checked once, by the service's parser, before any light is planned.
      assertInvalid(() => parseRequest('stateDelta', delta, { vocabulary: 'library' }), field === 'duration' ? 'durationS' : field);
    });
  }

  it('feeds the planner: +20° on a light at 350° is one SetColor at 10° (1820) keeping the rest', () => {
    const light = lightOf(COLOUR, { power: 'on', color: hsbk(350, 1, 0.5, 3500) });
    const plan = planSetState(applyDelta(light, { hue: 20, durationS: 1 }), light, { fast: false });
    assert.deepEqual(plan.steps, [[{ name: 'SetColor', payload: { color: { hue: 1820, saturation: 65535, brightness: 32768, kelvin: 3500 }, durationMs: 1000 } }]]);
  });
});

describe('wrapHue', () => {
  const rows: readonly [number, number][] = [[0, 0], [360, 0], [370, 10], [-10, 350], [-360, 0], [-1e-15, 0], [719.5, 359.5]];
  for (const [input, out] of rows) it(`${input} -> ${out}`, () => assert.equal(wrapHue(input), out));
});

// ---- toggleTarget ----

describe('toggleTarget: any light on -> all off, else all on', () => {
  const L = (power: 'on' | 'off' | null, online = true) => lightOf(COLOUR, { power, online });
  const rows: readonly [name: string, lights: LightView[], expect: 'on' | 'off'][] = [
    ['one of three on -> off', [L('off'), L('on'), L('off')], 'off'],
    ['all on -> off', [L('on'), L('on')], 'off'],
    ['all off -> on', [L('off'), L('off')], 'on'],
    ['unknown power is ignored: off + unknown -> on', [L('off'), L(null)], 'on'],
    ['unknown power is ignored: on + unknown -> off', [L(null), L('on')], 'off'],
    ['only unknown -> on', [L(null)], 'on'],
    ['an unreachable light that was last seen on is ignored -> on', [L('on', false), L('off')], 'on'],
    ['no lights -> on', [], 'on'],
  ];
  for (const [name, lights, expect] of rows) it(name, () => assert.equal(toggleTarget(lights), expect));
});

// ---- nextCycleState ----

describe('nextCycleState: where the light is in the list, and the next entry', () => {
  // The working body from https://community.lifx.com/t/setting-colour-temperature-with-cycle-api/1344, defaults merged.
  const FORUM: StateChangeLike[] = [
    { power: 'on', color: { saturation: 0, kelvin: 7000 }, brightness: 1 },
    { power: 'on', color: { saturation: 0, kelvin: 5000 }, brightness: 0.66 },
    { power: 'on', color: { saturation: 0, kelvin: 3000 }, brightness: 0.33 },
    { power: 'off' },
  ];
  const at = (power: 'on' | 'off' | null, color: Hsbk | null, pid = COLOUR) => lightOf(pid, { power, color });

  const rows: readonly [name: string, light: LightView, forward: number, backward: number][] = [
    ['at entry 1 (5000 K, 0.66): forward 2, backward 0', at('on', hsbk(0, 0, 0.66, 5000)), 2, 0],
    ['at entry 0: backward wraps to the last', at('on', hsbk(0, 0, 1, 7000)), 1, 3],
    ['at the last (off): forward wraps to 0', at('off', hsbk(0, 0, 0.33, 3000)), 0, 2],
    ['within tolerance: kelvin ±50, brightness ±0.01', at('on', hsbk(0, 0.01, 0.65, 5050)), 2, 0],
    ['outside tolerance (kelvin 5051): no match -> 0 forward, n-1 backward', at('on', hsbk(0, 0, 0.66, 5051)), 0, 3],
    ['outside tolerance (brightness 0.64): no match', at('on', hsbk(0, 0, 0.64, 5000)), 0, 3],
    ['power must match exactly: an off light showing entry 1\'s colour is at the "off" entry', at('off', hsbk(0, 0, 0.66, 5000)), 0, 2],
    ['power unknown matches no entry with power', at(null, hsbk(0, 0, 0.66, 5000)), 0, 3],
    ['colour unknown matches no entry with colour, but the off entry', at('off', null), 0, 2],
  ];
  for (const [name, light, forward, backward] of rows) {
    it(name, () => {
      assert.equal(nextCycleState(FORUM, light, 'forward'), forward);
      assert.equal(nextCycleState(FORUM, light, 'backward'), backward);
    });
  }

  const HUES: StateChangeLike[] = [{ color: { hue: 0, saturation: 1 } }, { color: { hue: 120, saturation: 1 } }, { color: { hue: 240, saturation: 1 } }];
  const hueRows: readonly [name: string, hue: number, forward: number][] = [
    ['hue within 1° around the circle: 359.5° is at 0°', 359.5, 1],
    ['hue 1° off still matches', 121, 2],
    ['hue 1.5° off does not', 121.5, 0],
  ];
  for (const [name, hue, forward] of hueRows) {
    it(name, () => assert.equal(nextCycleState(HUES, at('on', hsbk(hue, 1, 1, 3500)), 'forward'), forward));
  }

  it('takes the first matching entry when several match', () => {
    const states: StateChangeLike[] = [{ brightness: 0.5 }, { power: 'on' }, { brightness: 0.5 }];
    assert.equal(nextCycleState(states, at('on', hsbk(0, 0, 0.5, 3500)), 'forward'), 1);
  });

  it('an entry with no fields matches any light', () => {
    assert.equal(nextCycleState([{ power: 'off' }, {}], at('on', null), 'forward'), 0);
  });

  it('compares with what the light can show: a fixed-white bulb "at" 5000 K after being asked for it (it shows 2700)', () => {
    const states: StateChangeLike[] = [{ color: { saturation: 0, kelvin: 5000 }, brightness: 1 }, { brightness: 0.2 }];
    assert.equal(nextCycleState(states, at('on', hsbk(0, 0, 1, 2700), FIXED_WHITE), 'forward'), 1);
  });

  it('compares with what the light can show: kelvin clamped to the white-to-warm range, hue ignored', () => {
    const states: StateChangeLike[] = [{ color: { hue: 200, saturation: 1, kelvin: 9000 } }, { color: { kelvin: 2700 } }];
    assert.equal(nextCycleState(states, at('on', hsbk(0, 0, 1, 6500), WHITE_TO_WARM), 'forward'), 1);
  });

  it('rejects an empty list and an unknown direction', () => {
    assertInvalid(() => nextCycleState([], at('on', null), 'forward'), 'states');
    assertInvalid(() => nextCycleState(HUES, at('on', null), 'sideways' as never), 'direction');
  });
});

// ---- properties ----

describe('applyDelta: properties over every product', () => {
  const products = PRODUCTS.all();
  const hsbkArb = fc.record({
    hue: fc.double({ min: 0, max: 360, maxExcluded: true, noNaN: true }),
    saturation: fc.double({ min: 0, max: 1, noNaN: true }),
    brightness: fc.double({ min: 0, max: 1, noNaN: true }),
    kelvin: fc.integer({ min: 1500, max: 9000 }),
  });
  const lightArb = fc
    .record({ index: fc.nat({ max: products.length - 1 }), color: hsbkArb, infrared: fc.double({ min: 0, max: 1, noNaN: true }), power: fc.constantFrom('on' as const, 'off' as const) })
    .map(({ index, ...state }) => ({ ...lightOf(products[index]!.productId), ...state }));
  const deltaArb: fc.Arbitrary<StateDelta> = fc.record(
    {
      power: fc.constantFrom('on' as const, 'off' as const),
      durationS: fc.double({ min: 0, max: 3155760000, noNaN: true }),
      hue: fc.double({ min: -360, max: 360, noNaN: true }),
      saturation: fc.double({ min: -1, max: 1, noNaN: true }),
      brightness: fc.double({ min: -1, max: 1, noNaN: true }),
      kelvin: fc.integer({ min: -10000, max: 10000 }),
      infrared: fc.double({ min: -1, max: 1, noNaN: true }),
    },
    { requiredKeys: ['durationS'] },
  );

  it('stays in range (hue in [0, 360), fractions in [0, 1], kelvin in the product range) and plans what encodes', () => {
    fc.assert(
      fc.property(lightArb, deltaArb, fc.boolean(), (light, delta, fast) => {
        const change = applyDelta(light, delta);
        const c = change.color ?? {};
        if (c.hue !== undefined) assert.ok(c.hue >= 0 && c.hue < 360, `hue ${c.hue}`);
        for (const x of [c.saturation, c.brightness, change.infrared]) if (x !== undefined) assert.ok(x >= 0 && x <= 1);
        const range = light.capabilities.kelvinRange;
        if (c.kelvin !== undefined) assert.ok(range !== null && c.kelvin >= range.minK && c.kelvin <= range.maxK);
        for (const m of planSetState(change, light, { fast }).steps.flat()) {
          encode({ name: m.name, header: { source: 1, sequence: 0, target: light.serial }, payload: m.payload } as never);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('cycles back to where it started after n forward steps when every entry matches its own result', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 35 }), { minLength: 2, maxLength: 5 }), (tens) => {
        const states: StateChangeLike[] = tens.map((t) => ({ color: { hue: t * 10, saturation: 1, brightness: 1, kelvin: 3500 } }));
        let i = 0;
        for (let step = 0; step < states.length; step++) {
          const s = states[i]!;
          i = nextCycleState(states, lightOf(COLOUR, { power: 'on', color: { ...hsbk(0, 0, 0, 0), ...s.color } as Hsbk }), 'forward');
        }
        assert.equal(i, 0);
      }),
    );
  });
});
