// The Set State planner (https://api.developer.lifx.com/docs/set-state, fast mode included): one table row per rule and capability, payloads in wire
// units, then properties over every product of the registry.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { planSetState as planChecked, type SetStateOptions } from '../../core/control/planner.js';
import { parseStateChange, trustedChange } from '../../core/control/requests.js';

/** The planner takes checked changes (requests.ts); these tables write them out as the parser would make them. */
const planSetState = (change: StateChange, ...rest: Parameters<typeof planChecked> extends [unknown, ...infer R] ? R : never) => planChecked(trustedChange(change), ...rest);
import type { LightView, Plan, PlannedMessage, StateChange, ZoneRange } from '../../core/control/types.js';
import { isLightwireError } from '../../core/errors.js';
import { PRODUCTS, encode, type Hsbk } from '../../core/protocol/index.js';
import { lightOf, type LightState as State } from '../helpers/light-view.js';

// ---- fixtures ----



type W = readonly [hue: number, saturation: number, brightness: number, kelvin: number];
const wire = ([hue, saturation, brightness, kelvin]: W) => ({ hue, saturation, brightness, kelvin });
const SetColor = (c: W, durationMs: number): PlannedMessage => ({ name: 'SetColor', payload: { color: wire(c), durationMs } });
const SetLightPower = (on: boolean, durationMs: number): PlannedMessage => ({
  name: 'SetLightPower',
  payload: { level: on ? 65535 : 0, durationMs },
});
const SetInfrared = (brightness: number): PlannedMessage => ({ name: 'SetInfrared', payload: { brightness } });
const SetColorZones = (startIndex: number, endIndex: number, c: W, durationMs: number, apply: 0 | 1): PlannedMessage => ({
  name: 'SetColorZones',
  payload: { startIndex, endIndex, color: wire(c), durationMs, apply },
});
const SetWaveformOptional = (c: W, periodMs: number, set: string): PlannedMessage => ({
  name: 'SetWaveformOptional',
  payload: {
    transient: false,
    color: wire(c),
    periodMs,
    cycles: 1,
    skewRatio: 32767,
    waveform: 0,
    setHue: set.includes('h'),
    setSaturation: set.includes('s'),
    setBrightness: set.includes('b'),
    setKelvin: set.includes('k'),
  },
});

const RED: Hsbk = { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 };
const WARM_WHITE: Hsbk = { hue: 0, saturation: 0, brightness: 1, kelvin: 2700 };
/** "blue brightness:0.5 kelvin:4000": hue 250 -> 45511, 0.5 -> 32768 (https://lan.developer.lifx.com/docs/representing-color-with-hsbk). */
const BLUE_HALF = { hue: 250, saturation: 1, brightness: 0.5, kelvin: 4000 } as const;

interface Kind {
  readonly name: string;
  readonly pid: number;
  /** What the light shows before the request. */
  readonly current: Hsbk;
  /** BLUE_HALF as this light ends up showing it, or null for a non-light. */
  readonly blue: W | null;
}

const KINDS: readonly Kind[] = [
  { name: 'colour bulb (A19, 1500-9000 K)', pid: 62, current: RED, blue: [45511, 65535, 32768, 4000] },
  // White-only: hue and saturation ignored, the current hue kept, saturation 0.
  { name: 'white-to-warm bulb (Candle WW, 2200-6500 K)', pid: 81, current: WARM_WHITE, blue: [0, 0, 32768, 4000] },
  // Fixed kelvin: kelvin ignored, the product's 2700 K.
  { name: 'fixed white bulb (Mini White, 2700 K)', pid: 51, current: WARM_WHITE, blue: [0, 0, 32768, 2700] },
  { name: 'infrared bulb (A19 Night Vision)', pid: 64, current: RED, blue: [45511, 65535, 32768, 4000] },
  { name: 'multizone strip (LIFX Z, 2500-9000 K)', pid: 31, current: RED, blue: [45511, 65535, 32768, 4000] },
  { name: 'extended multizone strip (Z US)', pid: 117, current: RED, blue: [45511, 65535, 32768, 4000] },
  { name: 'matrix (Tile)', pid: 55, current: RED, blue: [45511, 65535, 32768, 4000] },
  { name: 'HEV light (Clean)', pid: 90, current: RED, blue: [45511, 65535, 32768, 4000] },
  { name: 'non-light (Switch)', pid: 70, current: RED, blue: null },
];

const SLOW: SetStateOptions = { fast: false };
const FAST: SetStateOptions = { fast: true };

function steps(p: Plan): PlannedMessage[][] {
  return p.steps.map((s) => [...s]);
}

/** JSON with NaN and infinities spelled out. */
const show = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (typeof x === 'number' && !Number.isFinite(x) ? String(x) : x)).replace(/"(NaN|-?Infinity)"/g, '$1');

function assertInvalid(fn: () => unknown, field: string): void {
  assert.throws(fn, (err: unknown) => isLightwireError(err, 'PARAMETER_INVALID') && err.params.field === field);
}

// ---- the rules, for every capability ----

interface Row {
  readonly rule: string;
  readonly state: (k: Kind) => State;
  readonly change: StateChange;
  readonly options?: SetStateOptions;
  readonly expect: (k: Kind, blue: W) => PlannedMessage[][];
}

const RULES: readonly Row[] = [
  {
    rule: 'off and asked for on in a new colour: the colour first with duration 0 while dark, then power on over the duration',
    state: (k) => ({ power: 'off', color: k.current }),
    change: { power: 'on', color: BLUE_HALF, durationS: 2 },
    expect: (_k, blue) => [[SetColor(blue, 0)], [SetLightPower(true, 2000)]],
  },
  {
    rule: 'already on and asked for on in a new colour: one step, the colour over the duration, no redundant power message',
    state: (k) => ({ power: 'on', color: k.current }),
    change: { power: 'on', color: BLUE_HALF, durationS: 2 },
    expect: (_k, blue) => [[SetColor(blue, 2000)]],
  },
  {
    rule: 'turning off with a colour: colour and power-off in the same step, both over the duration',
    state: (k) => ({ power: 'on', color: k.current }),
    change: { power: 'off', color: BLUE_HALF, durationS: 2 },
    expect: (_k, blue) => [[SetColor(blue, 2000), SetLightPower(false, 2000)]],
  },
  {
    rule: 'power only (off): SetLightPower over the duration',
    state: (k) => ({ power: 'on', color: k.current }),
    change: { power: 'off', durationS: 1.5 },
    expect: () => [[SetLightPower(false, 1500)]],
  },
  {
    rule: 'power only (on, already on): SetLightPower still sent so the light acks it',
    state: (k) => ({ power: 'on', color: k.current }),
    change: { power: 'on', durationS: 0 },
    expect: () => [[SetLightPower(true, 0)]],
  },
  {
    rule: 'no power in the request: the power is untouched, the colour changes over the duration',
    state: (k) => ({ power: 'off', color: k.current }),
    change: { color: BLUE_HALF, durationS: 0.25 },
    expect: (_k, blue) => [[SetColor(blue, 250)]],
  },
  {
    rule: 'an explicit brightness overrides the colour string\'s brightness',
    state: (k) => ({ power: 'on', color: k.current }),
    change: { color: { ...BLUE_HALF, brightness: 1 }, brightness: 0.5, durationS: 1 },
    expect: (_k, blue) => [[SetColor(blue, 1000)]],
  },
  {
    rule: 'fast mode: the end state in one step, colour and power both over the duration',
    state: () => ({}),
    change: { power: 'on', color: BLUE_HALF, durationS: 1 },
    options: FAST,
    expect: (_k, blue) => [[SetColor(blue, 1000), SetLightPower(true, 1000)]],
  },
  {
    rule: 'power unknown (the read failed) and asked for on with a colour: one step like fast mode',
    state: (k) => ({ color: k.current }),
    change: { power: 'on', color: BLUE_HALF, durationS: 1 },
    expect: (_k, blue) => [[SetColor(blue, 1000), SetLightPower(true, 1000)]],
  },
];

describe('planSetState: the rules of Set State and fast mode, for every capability', () => {
  for (const row of RULES) {
    describe(row.rule, () => {
      for (const kind of KINDS) {
        it(kind.blue === null ? `${kind.name}: plans nothing (not a light)` : `${kind.name}`, () => {
          const got = planSetState(row.change, lightOf(kind.pid, row.state(kind)), row.options ?? SLOW);
          assert.deepEqual(steps(got), kind.blue === null ? [] : row.expect(kind, kind.blue));
        });
      }
    });
  }
});

describe('planSetState: partial colours keep the unsupplied components', () => {
  const rows: readonly { name: string; pid: number; current: Hsbk; change: StateChange; expect: PlannedMessage[][] }[] = [
    {
      name: 'hue only on a colour bulb keeps its saturation, brightness and kelvin',
      pid: 62,
      current: { hue: 0, saturation: 0.5, brightness: 0.25, kelvin: 3500 },
      change: { color: { hue: 120 }, durationS: 0 },
      expect: [[SetColor([21845, 32768, 16384, 3500], 0)]],
    },
    {
      name: '"kelvin:5000" (saturation 0 and kelvin) on a colour bulb keeps its hue and brightness',
      pid: 62,
      current: { hue: 120, saturation: 1, brightness: 0.25, kelvin: 3500 },
      change: { color: { saturation: 0, kelvin: 5000 }, durationS: 0 },
      expect: [[SetColor([21845, 0, 16384, 5000], 0)]],
    },
    {
      name: 'brightness only on a strip keeps its colour',
      pid: 31,
      current: RED,
      change: { brightness: 0.25, durationS: 0 },
      expect: [[SetColor([0, 65535, 16384, 3500], 0)]],
    },
    {
      name: '"red" on a white-to-warm bulb changes nothing: an empty plan',
      pid: 81,
      current: WARM_WHITE,
      change: { color: { hue: 0, saturation: 1 }, durationS: 1 },
      expect: [],
    },
    {
      name: '"red brightness:0.5" on a white-to-warm bulb sets only the brightness, saturation stays 0',
      pid: 81,
      current: { hue: 30, saturation: 0, brightness: 1, kelvin: 2700 },
      change: { color: { hue: 0, saturation: 1, brightness: 0.5 }, durationS: 1 },
      expect: [[SetColor([5461, 0, 32768, 2700], 1000)]],
    },
    {
      name: '"kelvin:5000" on a fixed-white bulb changes nothing: an empty plan',
      pid: 51,
      current: WARM_WHITE,
      change: { color: { saturation: 0, kelvin: 5000 }, durationS: 1 },
      expect: [],
    },
    {
      name: '"kelvin:5000" with power on for a fixed-white bulb only powers it on',
      pid: 51,
      current: WARM_WHITE,
      change: { power: 'on', color: { saturation: 0, kelvin: 5000 }, durationS: 1 },
      expect: [[SetLightPower(true, 1000)]],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(steps(planSetState(row.change, lightOf(row.pid, { power: 'on', color: row.current }), SLOW)), row.expect);
    });
  }

  it('uses SetWaveformOptional for a partial colour when the colour could not be read, setting only the supplied components', () => {
    const got = planSetState({ color: { hue: 120, saturation: 1 }, durationS: 2 }, lightOf(62, { power: 'on' }), SLOW);
    assert.deepEqual(steps(got), [[SetWaveformOptional([21845, 65535, 0, 0], 2000, 'hs')]]);
  });
});

describe('planSetState: kelvin is clamped to the product range', () => {
  const rows: readonly { name: string; pid: number; kelvin: number; expect: number }[] = [
    { name: 'colour bulb 1500-9000: 9500 -> 9000', pid: 62, kelvin: 9500, expect: 9000 },
    { name: 'colour bulb 1500-9000: 1000 -> 1500', pid: 62, kelvin: 1000, expect: 1500 },
    { name: 'LIFX Z 2500-9000: 1500 -> 2500', pid: 31, kelvin: 1500, expect: 2500 },
    { name: 'white-to-warm 2200-6500: 9000 -> 6500', pid: 81, kelvin: 9000, expect: 6500 },
    { name: 'white-to-warm 2200-6500: 4000 stays', pid: 81, kelvin: 4000, expect: 4000 },
    { name: 'fixed white 2700: 6500 is ignored (stays 2700)', pid: 51, kelvin: 6500, expect: 2700 },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const current = row.pid === 62 || row.pid === 31 ? RED : WARM_WHITE;
      const got = planSetState(
        { color: { kelvin: row.kelvin }, brightness: 1, durationS: 0 },
        lightOf(row.pid, { power: 'on', color: current }),
        SLOW,
      );
      const msg = got.steps[0]?.[0];
      assert.equal(msg?.name, 'SetColor');
      assert.equal(msg.name === 'SetColor' && msg.payload.color.kelvin, row.expect);
    });
  }

  it('clamps kelvin inside SetWaveformOptional in fast mode too', () => {
    const got = planSetState({ color: { kelvin: 9000 }, durationS: 0 }, lightOf(81), FAST);
    assert.deepEqual(steps(got), [[SetWaveformOptional([0, 0, 0, 6500], 0, 'k')]]);
  });
});

describe('planSetState: durations', () => {
  const rows: readonly [seconds: number, ms: number][] = [
    [0, 0],
    [1, 1000],
    [1.5, 1500],
    [0.0004, 0],
    [0.0005, 1],
    [4294967.295, 4294967295],
    // Set State allows 100 years; the u32 ms field holds 49.7 days, so longer transitions are capped.
    [3155760000, 4294967295],
  ];
  for (const [seconds, ms] of rows) {
    it(`turns ${seconds} s into ${ms} ms for both the power and the colour`, () => {
      const got = planSetState({ power: 'off', color: { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 }, durationS: seconds }, lightOf(62, { power: 'on', color: RED }), SLOW);
      assert.deepEqual(steps(got), [[SetColor([0, 65535, 65535, 3500], ms), SetLightPower(false, ms)]]);
    });
  }
});

describe('planSetState: infrared', () => {
  const rows: readonly { name: string; pid: number; change: StateChange; state?: State; expect: PlannedMessage[][] }[] = [
    { name: 'sets IR on an infrared bulb (0.5 -> 32768), no transition', pid: 64, change: { infrared: 0.5, durationS: 1 }, expect: [[SetInfrared(32768)]] },
    {
      name: 'Set State docs example {power: off, infrared: 1.0}: IR to full and the visible light off',
      pid: 64,
      change: { power: 'off', infrared: 1, durationS: 1 },
      state: { power: 'on', color: RED },
      expect: [[SetInfrared(65535), SetLightPower(false, 1000)]],
    },
    {
      name: 'goes with the colour in step 1 when powering on from off',
      pid: 64,
      change: { power: 'on', color: BLUE_HALF, infrared: 0, durationS: 1 },
      state: { power: 'off', color: RED },
      expect: [[SetColor([45511, 65535, 32768, 4000], 0), SetInfrared(0)], [SetLightPower(true, 1000)]],
    },
    { name: 'is ignored on a bulb without IR', pid: 62, change: { infrared: 1, durationS: 1 }, expect: [] },
    {
      name: 'is ignored on a bulb without IR, the power-off still goes',
      pid: 62,
      change: { power: 'off', infrared: 1, durationS: 1 },
      expect: [[SetLightPower(false, 1000)]],
    },
    { name: 'is ignored on the Switch', pid: 70, change: { power: 'off', infrared: 1, durationS: 1 }, expect: [] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(steps(planSetState(row.change, lightOf(row.pid, row.state ?? { power: 'on', color: RED }), SLOW)), row.expect);
    });
  }
});

describe('planSetState: fast mode assumes no state read', () => {
  const rows: readonly { name: string; pid: number; state?: State; change: StateChange; expect: PlannedMessage[][] }[] = [
    {
      name: 'a partial colour becomes one SetWaveformOptional: SAW, one cycle, period = duration, skew 1, flags for the supplied parts',
      pid: 62,
      change: { color: { hue: 120, saturation: 1 }, durationS: 1 },
      expect: [[SetWaveformOptional([21845, 65535, 0, 0], 1000, 'hs')]],
    },
    {
      name: 'even when a cached colour is known (it may be stale)',
      pid: 62,
      state: { power: 'on', color: RED },
      change: { brightness: 0.5, durationS: 1 },
      expect: [[SetWaveformOptional([0, 0, 32768, 0], 1000, 'b')]],
    },
    {
      name: 'a full colour is one SetColor',
      pid: 62,
      change: { color: { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 }, durationS: 1 },
      expect: [[SetColor([21845, 65535, 65535, 3500], 1000)]],
    },
    {
      name: 'brightness on a white-to-warm bulb is a SetWaveformOptional (kelvin unknown)',
      pid: 81,
      change: { brightness: 0.5, durationS: 0 },
      expect: [[SetWaveformOptional([0, 0, 32768, 0], 0, 'b')]],
    },
    {
      name: 'brightness on a fixed-white bulb is a full SetColor (hue, saturation and kelvin are fixed)',
      pid: 51,
      change: { brightness: 0.5, durationS: 0 },
      expect: [[SetColor([0, 0, 32768, 2700], 0)]],
    },
    {
      name: 'power off with a partial colour: both in one step',
      pid: 62,
      change: { power: 'off', color: { kelvin: 2500, saturation: 0 }, durationS: 3 },
      expect: [[SetWaveformOptional([0, 0, 0, 2500], 3000, 'sk'), SetLightPower(false, 3000)]],
    },
    { name: 'power only: SetLightPower', pid: 62, change: { power: 'on', durationS: 0 }, expect: [[SetLightPower(true, 0)]] },
    { name: 'the Switch: nothing', pid: 70, change: { power: 'on', durationS: 0 }, expect: [] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      assert.deepEqual(steps(planSetState(row.change, lightOf(row.pid, row.state ?? {}), FAST)), row.expect);
    });
  }
});

describe('planSetState: zones (multizone lights only; power stays whole-device)', () => {
  const eight = (c: Hsbk): Hsbk[] => Array.from({ length: 8 }, () => c);
  const GREEN: W = [21845, 65535, 65535, 3500];
  const zones = (...r: [number, number][]): ZoneRange[] => r.map(([start, end]) => ({ start, end }));

  it('paints known zones of a LIFX Z with SetColorZones per range: NO_APPLY on all but the last, APPLY on the last', () => {
    const got = planSetState({ color: { hue: 120 }, durationS: 1 }, lightOf(31, { power: 'on', color: RED, zones: eight(RED) }), {
      fast: false,
      zones: zones([0, 1], [4, 5]),
    });
    assert.deepEqual(steps(got), [[SetColorZones(0, 1, GREEN, 1000, 0), SetColorZones(4, 5, GREEN, 1000, 1)]]);
  });

  it('keeps each zone\'s own unsupplied components: one SetColorZones per run of zones that end alike', () => {
    const dim = { ...RED, brightness: 0.25 };
    const current = [RED, RED, dim, dim, RED, RED, RED, RED];
    const got = planSetState({ color: { hue: 120 }, durationS: 0 }, lightOf(31, { power: 'on', color: RED, zones: current }), {
      fast: false,
      zones: zones([1, 4]),
    });
    assert.deepEqual(steps(got), [
      [
        SetColorZones(1, 1, GREEN, 0, 0),
        SetColorZones(2, 3, [21845, 65535, 16384, 3500], 0, 0),
        SetColorZones(4, 4, GREEN, 0, 1),
      ],
    ]);
  });

  it('changes part of the colour of a whole strip zone by zone when its zones differ, keeping each one\'s hue', () => {
    const dim = { ...RED, brightness: 0.25 };
    const green = { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 };
    const current = [RED, RED, green, green, RED, RED, RED, RED];
    const got = planSetState({ brightness: 0.5, durationS: 0 }, lightOf(31, { power: 'on', color: dim, zones: current }), { fast: false });
    assert.deepEqual(steps(got), [
      [
        SetColorZones(0, 1, [0, 65535, 32768, 3500], 0, 0),
        SetColorZones(2, 3, [21845, 65535, 32768, 3500], 0, 0),
        SetColorZones(4, 7, [0, 65535, 32768, 3500], 0, 1),
      ],
    ]);
    // A whole colour, or zones that are all alike, is one SetColor as before.
    const whole = planSetState({ color: { hue: 240, saturation: 1, brightness: 1, kelvin: 3500 }, durationS: 0 }, lightOf(31, { power: 'on', color: dim, zones: current }), { fast: false });
    assert.deepEqual(steps(got).length, 1);
    assert.deepEqual(whole.steps[0]!.map((m) => m.name), ['SetColor']);
    const alike = planSetState({ brightness: 0.5, durationS: 0 }, lightOf(31, { power: 'on', color: RED, zones: eight(RED) }), { fast: false });
    assert.deepEqual(alike.steps[0]!.map((m) => m.name), ['SetColor']);
  });

  it('takes the zones, not the strip\'s one colour, as the base when they are alike (that colour lags zone writes)', () => {
    const green = { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 };
    const got = planSetState({ brightness: 0.5, durationS: 0 }, lightOf(31, { power: 'on', color: RED, zones: eight(green) }), { fast: false });
    assert.deepEqual(steps(got), [[{ name: 'SetColor', payload: { color: wire([21845, 65535, 32768, 3500]), durationMs: 0 } }]]);
  });

  it('merges overlapping and adjacent ranges of known zones and clips them to the strip', () => {
    const got = planSetState({ color: { hue: 120 }, durationS: 0 }, lightOf(31, { power: 'on', color: RED, zones: eight(RED) }), {
      fast: false,
      zones: zones([2, 3], [0, 2], [6, 40]),
    });
    assert.deepEqual(steps(got), [[SetColorZones(0, 3, GREEN, 0, 0), SetColorZones(6, 7, GREEN, 0, 1)]]);
  });

  it('sends no colour when every range lies past the end of the strip (the power still goes)', () => {
    const got = planSetState({ power: 'on', color: { hue: 120 }, durationS: 0 }, lightOf(31, { power: 'off', color: RED, zones: eight(RED) }), {
      fast: false,
      zones: zones([8, 9]),
    });
    assert.deepEqual(steps(got), [[SetLightPower(true, 0)]]);
  });

  it('sends an extended strip one SetExtendedColorZones with the full zone array, selected zones replaced', () => {
    const current = [RED, RED, RED, { ...RED, brightness: 0.5 }, RED];
    const got = planSetState({ color: { hue: 120 }, durationS: 2 }, lightOf(117, { power: 'on', color: RED, zones: current }), {
      fast: false,
      zones: zones([2, 3]),
    });
    const R = wire([0, 65535, 65535, 3500]);
    assert.deepEqual(steps(got), [
      [
        {
          name: 'SetExtendedColorZones',
          payload: {
            durationMs: 2000,
            apply: 1,
            index: 0,
            colorsCount: 5,
            colors: [R, R, wire(GREEN), wire([21845, 65535, 32768, 3500]), R],
          },
        },
      ],
    ]);
  });

  it('splits the full array of a strip longer than 82 zones into messages at 0 and 82 (NO_APPLY, then APPLY)', () => {
    const current = Array.from({ length: 100 }, () => RED);
    const got = planSetState({ color: { hue: 120 }, durationS: 0 }, lightOf(117, { power: 'on', color: RED, zones: current }), {
      fast: false,
      zones: zones([81, 82]),
    });
    const msgs = got.steps[0] ?? [];
    assert.equal(got.steps.length, 1);
    assert.deepEqual(
      msgs.map((m) => m.name === 'SetExtendedColorZones' && [m.payload.index, m.payload.colorsCount, m.payload.apply, m.payload.colors[81 - m.payload.index]?.hue ?? null, m.payload.colors[0]?.hue]),
      [
        [0, 82, 0, 21845, 0],
        [82, 18, 1, null, 21845],
      ],
    );
  });

  it('uses SetColorZones on an extended strip in fast mode, touching only the selected zones of the cached array', () => {
    const got = planSetState({ color: { hue: 120 }, durationS: 0 }, lightOf(117, { zones: eight(RED) }), { fast: true, zones: zones([3, 4]) });
    assert.deepEqual(steps(got), [[SetColorZones(3, 4, GREEN, 0, 1)]]);
  });

  it('falls back to SetColorZones per range, in the given order, with light.color as the base when the zones are unknown', () => {
    const got = planSetState({ color: { hue: 120 }, durationS: 1 }, lightOf(117, { power: 'on', color: RED }), {
      fast: false,
      zones: zones([5, 7], [0, 0]),
    });
    assert.deepEqual(steps(got), [[SetColorZones(5, 7, GREEN, 1000, 0), SetColorZones(0, 0, GREEN, 1000, 1)]]);
  });

  it('assumes white at full brightness, 3500 K for unsupplied components when neither zones nor colour are known', () => {
    const got = planSetState({ color: { hue: 120, saturation: 1 }, durationS: 0 }, lightOf(31), { fast: true, zones: zones([0, 3]) });
    assert.deepEqual(steps(got), [[SetColorZones(0, 3, GREEN, 0, 1)]]);
  });

  it('paints the zones while dark, then powers on, when off and asked for on', () => {
    const got = planSetState({ power: 'on', color: { hue: 120 }, durationS: 1 }, lightOf(31, { power: 'off', color: RED, zones: eight(RED) }), {
      fast: false,
      zones: zones([0, 7]),
    });
    assert.deepEqual(steps(got), [[SetColorZones(0, 7, GREEN, 0, 1)], [SetLightPower(true, 1000)]]);
  });

  for (const pid of [62, 81, 55]) {
    it(`ignores zones on a light that is not multizone (${PRODUCTS.get(1, pid).name}): the whole light changes`, () => {
      const got = planSetState({ brightness: 0.5, durationS: 0 }, lightOf(pid, { power: 'on', color: RED }), { fast: false, zones: zones([0, 1]) });
      assert.deepEqual(steps(got)[0]?.map((m) => m.name), ['SetColor']);
    });
  }

  it('treats an empty zone list as the whole light', () => {
    const got = planSetState({ brightness: 0.5, durationS: 0 }, lightOf(31, { power: 'on', color: RED }), { fast: false, zones: [] });
    assert.deepEqual(steps(got), [[SetColor([0, 65535, 32768, 3500], 0)]]);
  });
});

describe('Set State: checked once, by the parser, before the planner (PARAMETER_INVALID naming the field)', () => {
  const light = lightOf(62, { power: 'on', color: RED });
  const rows: readonly [field: string, change: unknown][] = [
    ['durationS', { durationS: -1 }],
    ['durationS', { durationS: 3155760000.5 }],
    ['durationS', { durationS: Number.NaN }],
    ['power', { power: 'dim', durationS: 1 }],
    ['color.hue', { color: { hue: 361 }, durationS: 1 }],
    ['color.hue', { color: { hue: -1 }, durationS: 1 }],
    ['color.saturation', { color: { saturation: 1.01 }, durationS: 1 }],
    ['color.brightness', { color: { brightness: Number.POSITIVE_INFINITY }, durationS: 1 }],
    ['color.kelvin', { color: { kelvin: 70000 }, durationS: 1 }],
    ['brightness', { brightness: -0.1, durationS: 1 }],
    ['infrared', { infrared: 2, durationS: 1 }],
  ];
  for (const [field, change] of rows) {
    it(`rejects ${show(change)} naming ${field}`, () => {
      assertInvalid(() => parseStateChange(change, { vocabulary: 'library', defaultDurationS: 1 }), field);
    });
  }
  const zoneRows: readonly unknown[] = [[{ start: 3, end: 1 }], [{ start: -1, end: 1 }], [{ start: 0, end: 1.5 }]];
  for (const zones of zoneRows) {
    it(`the planner rejects zones ${show(zones)} naming zones`, () => {
      assertInvalid(() => planSetState({ durationS: 1 }, light, { fast: false, zones: zones as ZoneRange[] }), 'zones');
    });
  }
});

// ---- properties over every product ----

const hsbkArb = fc.record({
  hue: fc.double({ min: 0, max: 360, noNaN: true }),
  saturation: fc.double({ min: 0, max: 1, noNaN: true }),
  brightness: fc.double({ min: 0, max: 1, noNaN: true }),
  kelvin: fc.integer({ min: 0, max: 65535 }),
});
const products = PRODUCTS.all();
/** Half the lights come from the rarer kinds: strips, white-only, fixed white, infrared, the Switch. */
const rare = products.flatMap((p, i) => {
  const c = p.capabilities;
  return c.multizone || !c.color || !c.variableColorTemp || c.infrared ? [i] : [];
});
const lightArb = fc.record({
  index: fc.oneof(fc.nat({ max: products.length - 1 }), fc.constantFrom(...rare)),
  power: fc.constantFrom('on' as const, 'off' as const, null),
  color: fc.option(hsbkArb, { nil: null }),
  infrared: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
  zones: fc.option(fc.array(hsbkArb, { minLength: 1, maxLength: 180 }), { nil: null }),
}).map(({ index, ...state }): LightView => {
  const product = products[index]!;
  return { ...lightOf(product.productId), product, capabilities: product.capabilities, ...state };
});
const changeArb: fc.Arbitrary<StateChange> = fc.record(
  {
    power: fc.constantFrom('on' as const, 'off' as const),
    color: fc.record(
      {
        hue: fc.double({ min: 0, max: 360, noNaN: true }),
        saturation: fc.double({ min: 0, max: 1, noNaN: true }),
        brightness: fc.double({ min: 0, max: 1, noNaN: true }),
        kelvin: fc.double({ min: 0, max: 65535, noNaN: true }),
      },
      { requiredKeys: [] },
    ),
    brightness: fc.double({ min: 0, max: 1, noNaN: true }),
    infrared: fc.double({ min: 0, max: 1, noNaN: true }),
    durationS: fc.double({ min: 0, max: 3155760000, noNaN: true }),
  },
  { requiredKeys: ['durationS'] },
);
const optionsArb: fc.Arbitrary<SetStateOptions> = fc.record({
  fast: fc.boolean(),
  zones: fc.option(
    fc.array(
      fc.tuple(fc.nat({ max: 300 }), fc.nat({ max: 300 })).map(([a, b]) => ({ start: Math.min(a, b), end: Math.max(a, b) })),
      { maxLength: 4 },
    ),
    { nil: null },
  ),
});

/** Every kelvin the light is asked to take (unset SetWaveformOptional components excepted). */
function kelvinsOf(m: PlannedMessage): number[] {
  switch (m.name) {
    case 'SetColor':
    case 'SetColorZones':
      return [m.payload.color.kelvin];
    case 'SetWaveformOptional':
      return m.payload.setKelvin ? [m.payload.color.kelvin] : [];
    case 'SetExtendedColorZones':
      return m.payload.colors.slice(0, m.payload.colorsCount).map((c) => c.kelvin);
    default:
      return [];
  }
}

describe('planSetState: properties over every product of the registry', () => {
  it('never plans a payload the codec rejects', () => {
    fc.assert(
      fc.property(changeArb, lightArb, optionsArb, (change, light, options) => {
        for (const step of planSetState(change, light, options).steps) {
          for (const m of step) encode({ name: m.name, header: { source: 1, sequence: 0, target: light.serial }, payload: m.payload } as never);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('keeps every kelvin it sends inside the product range', () => {
    fc.assert(
      fc.property(changeArb, lightArb, optionsArb, (change, light, options) => {
        const range = light.capabilities.kelvinRange;
        for (const m of planSetState(change, light, options).steps.flat()) {
          for (const k of kelvinsOf(m)) assert.ok(range !== null && k >= range.minK && k <= range.maxK, `${k} K outside ${JSON.stringify(range)}`);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('sends no light message to a non-light, no power message without power, one step in fast mode, and power last when powering on from off', () => {
    fc.assert(
      fc.property(changeArb, lightArb, optionsArb, (change, light, options) => {
        const p = planSetState(change, light, options);
        if (light.capabilities.kelvinRange === null) assert.equal(p.steps.length, 0);
        const names = p.steps.flat().map((m) => m.name);
        if (change.power === undefined) assert.ok(!names.includes('SetLightPower'));
        if (options.fast) assert.ok(p.steps.length <= 1);
        assert.ok(p.steps.every((s) => s.length > 0));
        if (p.steps.length === 2) {
          assert.ok(!options.fast && change.power === 'on' && light.power === 'off');
          assert.deepEqual(p.steps[1]?.map((m) => m.name), ['SetLightPower']);
          assert.ok(p.steps[0]?.every((m) => m.name === 'SetInfrared' || ('durationMs' in m.payload && m.payload.durationMs === 0) || ('periodMs' in m.payload && m.payload.periodMs === 0)));
        }
        assert.ok(p.steps.length <= 2);
      }),
      { numRuns: 400 },
    );
  });
});
