// The effect planners (the HTTP API's effect and clean endpoints): one table row per rule and capability, payloads in wire
// units, then a property: every plan for every product encodes.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import * as planners from '../../core/control/effects.js';
import { DEFAULT_MORPH_PALETTE } from '../../core/control/effects.js';
import { parseRequest, type RequestOf } from '../../core/control/requests.js';
import type { LightView, PartialHsbk, Plan, PlannedMessage } from '../../core/control/types.js';
import { isLightwireError, type ErrorCode } from '../../core/errors.js';
import { PRODUCTS, encode, type Hsbk } from '../../core/protocol/index.js';
import { lightOf, type LightState as State } from '../helpers/light-view.js';

// ---- fixtures ----

// Planners take checked requests only: each is checked here by the service's parser (the library's names), as
// the service does before planning; firmware effects carry the instance id the service would pick.
type BreatheRequest = RequestOf<'breathe'>;
type MoveRequest = RequestOf<'move'> & { readonly instanceId?: number };
const checked = <N extends Parameters<typeof parseRequest>[0]>(name: N, request: unknown) =>
  parseRequest(name, request, { vocabulary: 'library', defaultDurationS: 1 });
const instance = (r: unknown) => ({ instanceId: (r as { instanceId?: number } | undefined)?.instanceId ?? 0 });
const planBreathe = (r: unknown, l: LightView): Plan => planners.planBreathe(checked('breathe', r), l);
const planPulse = (r: unknown, l: LightView): Plan => planners.planPulse(checked('pulse', r), l);
const planMove = (r: unknown, l: LightView): Plan => planners.planMove({ ...checked('move', r), ...instance(r) }, l);
const planMorph = (r: unknown, l: LightView): Plan => planners.planMorph({ ...checked('morph', r), ...instance(r) }, l);
const planFlame = (r: unknown, l: LightView): Plan => planners.planFlame({ ...checked('flame', r), ...instance(r) }, l);
const planClouds = (r: unknown, l: LightView): Plan => planners.planClouds({ ...checked('clouds', r), ...instance(r) }, l);
const planSunrise = (r: unknown, l: LightView): Plan => planners.planSunrise({ ...checked('sunrise', r), ...instance(r) }, l);
const planSunset = (r: unknown, l: LightView): Plan => planners.planSunset({ ...checked('sunset', r), ...instance(r) }, l);
const planEffectsOff = (r: unknown, l: LightView): Plan => planners.planEffectsOff(checked('effectsOff', r), l);
const planClean = (r: unknown, l: LightView): Plan => planners.planClean(checked('clean', r), l);



type W = readonly [hue: number, saturation: number, brightness: number, kelvin: number];
const wire = ([hue, saturation, brightness, kelvin]: W) => ({ hue, saturation, brightness, kelvin });
const SetColor = (c: W, durationMs: number): PlannedMessage => ({ name: 'SetColor', payload: { color: wire(c), durationMs } });
const PowerOn: PlannedMessage = { name: 'SetLightPower', payload: { level: 65535, durationMs: 0 } };
const PowerOff: PlannedMessage = { name: 'SetLightPower', payload: { level: 0, durationMs: 0 } };

interface Wave {
  readonly transient: boolean;
  readonly periodMs: number;
  readonly cycles: number;
  readonly skewRatio: number;
  /** SAW 0, SINE 1, PULSE 4 (https://lan.developer.lifx.com/docs/waveforms). */
  readonly waveform: number;
}
const SINE: Wave = { transient: true, periodMs: 1000, cycles: 1, skewRatio: 0, waveform: 1 };
const PULSE: Wave = { transient: true, periodMs: 1000, cycles: 1, skewRatio: 0, waveform: 4 };
/** The instant partial colour change of the planner: SAW, period 0, kept, skew 1. */
const INSTANT: Wave = { transient: false, periodMs: 0, cycles: 1, skewRatio: 32767, waveform: 0 };
const SetWaveform = (c: W, w: Wave): PlannedMessage => ({ name: 'SetWaveform', payload: { ...w, color: wire(c) } });
const SetWaveformOptional = (c: W, w: Wave, set: string): PlannedMessage => ({
  name: 'SetWaveformOptional',
  payload: {
    ...w,
    color: wire(c),
    setHue: set.includes('h'),
    setSaturation: set.includes('s'),
    setBrightness: set.includes('b'),
    setKelvin: set.includes('k'),
  },
});
const zeros8 = [0, 0, 0, 0, 0, 0, 0, 0];
const SetMultiZoneEffect = (type: number, speedMs: number, durationNs: bigint, parameters: number[], instanceid = 0): PlannedMessage => ({
  name: 'SetMultiZoneEffect',
  payload: { settings: { instanceid, type, speedMs, durationNs, parameters } },
});
const SetTileEffect = (
  type: number,
  speedMs: number,
  durationNs: bigint,
  parameters: number[],
  palette: W[] = [],
  instanceid = 0,
): PlannedMessage => ({
  name: 'SetTileEffect',
  payload: { settings: { instanceid, type, speedMs, durationNs, parameters, paletteCount: palette.length, palette: palette.map(wire) } },
});
const MZ_OFF = SetMultiZoneEffect(0, 0, 0n, zeros8);
const TILE_OFF = SetTileEffect(0, 0, 0n, zeros8);

const RED: Hsbk = { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 };
const WARM_WHITE: Hsbk = { hue: 0, saturation: 0, brightness: 1, kelvin: 2700 };
const GREEN: PartialHsbk = { hue: 120, saturation: 1 };
const BLUE_HALF: PartialHsbk = { hue: 250, saturation: 1, brightness: 0.5, kelvin: 4000 };

interface Kind {
  readonly name: string;
  readonly pid: number;
  readonly current: Hsbk;
  readonly kind: 'colour' | 'white' | 'fixed' | 'multizone' | 'matrix' | 'hev' | 'switch';
}

const KINDS: readonly Kind[] = [
  { name: 'colour bulb (A19)', pid: 62, current: RED, kind: 'colour' },
  { name: 'white-to-warm bulb (Candle WW, 2200-6500 K)', pid: 81, current: WARM_WHITE, kind: 'white' },
  { name: 'fixed white bulb (Mini White, 2700 K)', pid: 51, current: WARM_WHITE, kind: 'fixed' },
  { name: 'multizone strip (LIFX Z)', pid: 31, current: RED, kind: 'multizone' },
  { name: 'extended multizone strip (Z US)', pid: 117, current: RED, kind: 'multizone' },
  { name: 'matrix (Tile, 2500-9000 K)', pid: 55, current: RED, kind: 'matrix' },
  { name: 'matrix (Ceiling)', pid: 176, current: RED, kind: 'matrix' },
  { name: 'HEV light (Clean)', pid: 90, current: RED, kind: 'hev' },
  { name: 'non-light (Switch)', pid: 70, current: RED, kind: 'switch' },
];

const steps = (p: Plan): PlannedMessage[][] => p.steps.map((s) => [...s]);

function assertCode(fn: () => unknown, code: ErrorCode, field: string): void {
  assert.throws(fn, (err: unknown) => isLightwireError(err, code) && (err.params as { field: string }).field === field);
}

/** A table over every kind: the expected steps per kind, or a function of it. */
function forEveryKind(title: string, run: (k: Kind) => Plan, expect: (k: Kind) => PlannedMessage[][]): void {
  describe(title, () => {
    for (const k of KINDS) {
      it(k.name, () => assert.deepEqual(steps(run(k)), expect(k)));
    }
  });
}

// ---- breathe and pulse ----

describe('planBreathe: one SINE waveform', () => {
  const on = (k: Kind) => lightOf(k.pid, { power: 'on', color: k.current });

  forEveryKind(
    'breathe "green" with the defaults: SetWaveformOptional (hue and saturation only), transient, 1 s, 1 cycle, skew 0.5 -> 0',
    (k) => planBreathe({ color: GREEN }, on(k)),
    (k) =>
      ['white', 'fixed', 'switch'].includes(k.kind)
        ? [] // hue and saturation mean nothing to a white-only light: no waveform at all
        : [[SetWaveformOptional([21845, 65535, 0, 0], SINE, 'hs')]],
  );

  forEveryKind(
    'breathe a colour complete for the light: SetWaveform with the colour as the light can show it',
    (k) => planBreathe({ color: BLUE_HALF }, on(k)),
    (k) =>
      k.kind === 'switch'
        ? []
        : k.kind === 'white'
          ? [[SetWaveform([0, 0, 32768, 4000], SINE)]]
          : k.kind === 'fixed'
            ? [[SetWaveform([0, 0, 32768, 2700], SINE)]]
            : [[SetWaveform([45511, 65535, 32768, 4000], SINE)]],
  );

  forEveryKind(
    'power_on (default true) turns an off light on first, with duration 0, in its own step',
    (k) => planBreathe({ color: { brightness: 0.5 } }, lightOf(k.pid, { power: 'off', color: k.current })),
    (k) =>
      k.kind === 'switch'
        ? []
        : [[PowerOn], [k.kind === 'fixed' ? SetWaveform([0, 0, 32768, 2700], SINE) : SetWaveformOptional([0, 0, 32768, 0], SINE, 'b')]],
  );

  const rows: readonly { name: string; request: BreatheRequest; state: State; expect: PlannedMessage[][] }[] = [
    {
      name: 'the docs example (period 2, cycles 5, green): 2000 ms, 5 cycles',
      request: { color: GREEN, periodS: 2, cycles: 5 },
      state: { power: 'on', color: RED },
      expect: [[SetWaveformOptional([21845, 65535, 0, 0], { ...SINE, periodMs: 2000, cycles: 5 }, 'hs')]],
    },
    {
      name: 'persist true: not transient; peak 0.25 -> skew -16384; fractional cycles kept',
      request: { color: GREEN, persist: true, peak: 0.25, cycles: 2.5 },
      state: { power: 'on', color: RED },
      expect: [[SetWaveformOptional([21845, 65535, 0, 0], { ...SINE, transient: false, skewRatio: -16384, cycles: 2.5 }, 'hs')]],
    },
    {
      name: 'peak 1 -> skew 32767, peak 0 is -32768 (the waveforms docs table)',
      request: { color: GREEN, peak: 1 },
      state: { power: 'on', color: RED },
      expect: [[SetWaveformOptional([21845, 65535, 0, 0], { ...SINE, skewRatio: 32767 }, 'hs')]],
    },
    {
      name: 'power_on false leaves an off light off',
      request: { color: GREEN, powerOn: false },
      state: { power: 'off', color: RED },
      expect: [[SetWaveformOptional([21845, 65535, 0, 0], SINE, 'hs')]],
    },
    {
      name: 'power unknown (fast mode, no read): power on is sent anyway',
      request: { color: GREEN },
      state: {},
      expect: [[PowerOn], [SetWaveformOptional([21845, 65535, 0, 0], SINE, 'hs')]],
    },
    {
      name: 'from_color: a first step sets it (merged with the current colour) with duration 0',
      request: { color: GREEN, fromColor: { hue: 250 } },
      state: { power: 'on', color: RED },
      expect: [[SetColor([45511, 65535, 65535, 3500], 0)], [SetWaveformOptional([21845, 65535, 0, 0], SINE, 'hs')]],
    },
    {
      name: 'from_color with the current colour unknown: an instant SetWaveformOptional of the given components',
      request: { color: GREEN, fromColor: { hue: 250, saturation: 1 }, powerOn: false },
      state: {},
      expect: [[SetWaveformOptional([45511, 65535, 0, 0], INSTANT, 'hs')], [SetWaveformOptional([21845, 65535, 0, 0], SINE, 'hs')]],
    },
    {
      name: 'from_color and power on share the first step: colour first, then power',
      request: { color: GREEN, fromColor: { hue: 250 } },
      state: { power: 'off', color: RED },
      expect: [[SetColor([45511, 65535, 65535, 3500], 0), PowerOn], [SetWaveformOptional([21845, 65535, 0, 0], SINE, 'hs')]],
    },
    {
      name: 'kelvin is clamped to the range (white-to-warm: 9000 -> 6500) and saturation ignored on white-only lights',
      request: { color: { saturation: 0, kelvin: 9000 } },
      state: { power: 'on', color: WARM_WHITE },
      expect: [[SetWaveformOptional([0, 0, 0, 6500], SINE, 'k')]],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const pid = row.name.startsWith('kelvin') ? 81 : 62;
      assert.deepEqual(steps(planBreathe(row.request, lightOf(pid, row.state))), row.expect);
    });
  }

  const invalid: readonly [code: ErrorCode, field: string, request: unknown][] = [
    ['PARAMETER_MISSING', 'color', {}],
    ['PARAMETER_INVALID', 'color.hue', { color: { hue: 400 } }],
    ['PARAMETER_INVALID', 'fromColor.saturation', { color: GREEN, fromColor: { saturation: 2 } }],
    ['PARAMETER_INVALID', 'peak', { color: GREEN, peak: 1.5 }],
    ['PARAMETER_INVALID', 'periodS', { color: GREEN, periodS: -1 }],
    ['PARAMETER_INVALID', 'periodS', { color: GREEN, periodS: 4294968 }],
    ['PARAMETER_INVALID', 'cycles', { color: GREEN, cycles: Number.NaN }],
    ['PARAMETER_INVALID', 'cycles', { color: GREEN, cycles: -1 }],
    ['PARAMETER_INVALID', 'persist', { color: GREEN, persist: 'yes' }],
    ['PARAMETER_INVALID', 'powerOn', { color: GREEN, powerOn: 1 }],
  ];
  for (const [code, field, request] of invalid) {
    it(`rejects ${JSON.stringify(request)} with ${code} naming ${field}`, () => {
      assertCode(() => planBreathe(request as BreatheRequest, lightOf(62)), code, field);
    });
  }
});

describe('planPulse: one PULSE waveform, skew 0.5', () => {
  forEveryKind(
    'pulse "green": SetWaveformOptional PULSE (4), skew 0, transient',
    (k) => planPulse({ color: GREEN }, lightOf(k.pid, { power: 'on', color: k.current })),
    (k) => (['white', 'fixed', 'switch'].includes(k.kind) ? [] : [[SetWaveformOptional([21845, 65535, 0, 0], PULSE, 'hs')]]),
  );

  it('the pulse example (red from blue, period 0.5, 3 cycles): from_color first, then a complete PULSE', () => {
    const got = planPulse(
      { color: { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 }, fromColor: { hue: 250, saturation: 1 }, periodS: 0.5, cycles: 3 },
      lightOf(62, { power: 'on', color: { hue: 120, saturation: 0, brightness: 0.5, kelvin: 5000 } }),
    );
    assert.deepEqual(steps(got), [
      [SetColor([45511, 65535, 32768, 5000], 0)],
      [SetWaveform([0, 65535, 65535, 3500], { ...PULSE, periodMs: 500, cycles: 3 })],
    ]);
  });

  it('persist true keeps the colour (not transient)', () => {
    const got = planPulse({ color: GREEN, persist: true }, lightOf(62, { power: 'on', color: RED }));
    assert.deepEqual(steps(got), [[SetWaveformOptional([21845, 65535, 0, 0], { ...PULSE, transient: false }, 'hs')]]);
  });
});

// ---- firmware effects ----

describe('planMove: SetMultiZoneEffect MOVE, multizone lights only', () => {
  forEveryKind(
    'move with the defaults: forward (parameters[1] = 1), speed 1000 ms, forever (duration 0)',
    (k) => planMove({}, lightOf(k.pid, { power: 'on', color: k.current })),
    (k) => (k.kind === 'multizone' ? [[SetMultiZoneEffect(1, 1000, 0n, [0, 1, 0, 0, 0, 0, 0, 0])]] : []),
  );

  const rows: readonly { name: string; request: MoveRequest; state: State; expect: PlannedMessage[][] }[] = [
    {
      name: 'backward (towards the controller) is 0 in parameters[1]; 5 cycles of 2 s run 10 s (in ns)',
      request: { direction: 'backward', periodS: 2, cycles: 5 },
      state: { power: 'on' },
      expect: [[SetMultiZoneEffect(1, 2000, 10_000_000_000n, zeros8)]],
    },
    {
      name: 'fractional period and cycles: 0.5 s x 3 = 1.5 s',
      request: { periodS: 0.5, cycles: 3 },
      state: { power: 'on' },
      expect: [[SetMultiZoneEffect(1, 500, 1_500_000_000n, [0, 1, 0, 0, 0, 0, 0, 0])]],
    },
    {
      name: 'cycles 0 switches the effect off (type OFF) and does not power an off strip on',
      request: { cycles: 0 },
      state: { power: 'off' },
      expect: [[MZ_OFF]],
    },
    {
      name: 'power_on turns an off strip on first, with duration 0',
      request: {},
      state: { power: 'off' },
      expect: [[PowerOn], [SetMultiZoneEffect(1, 1000, 0n, [0, 1, 0, 0, 0, 0, 0, 0])]],
    },
    {
      name: 'power_on false leaves it off',
      request: { powerOn: false },
      state: { power: 'off' },
      expect: [[SetMultiZoneEffect(1, 1000, 0n, [0, 1, 0, 0, 0, 0, 0, 0])]],
    },
    {
      name: 'carries the instance id the caller picked',
      request: { instanceId: 0xdeadbeef },
      state: { power: 'on' },
      expect: [[SetMultiZoneEffect(1, 1000, 0n, [0, 1, 0, 0, 0, 0, 0, 0], 0xdeadbeef)]],
    },
  ];
  for (const row of rows) {
    it(row.name, () => assert.deepEqual(steps(planMove(row.request, lightOf(31, row.state))), row.expect));
  }

  const invalid: readonly [field: string, request: unknown][] = [
    ['direction', { direction: 'left' }],
    ['periodS', { periodS: -2 }],
    ['cycles', { cycles: -1 }],
    ['cycles', { periodS: 4000000, cycles: 1000 }],
    ['powerOn', { powerOn: 'true' }],
  ];
  for (const [field, request] of invalid) {
    it(`rejects ${JSON.stringify(request)} naming ${field}`, () => {
      assertCode(() => planMove(request as MoveRequest, lightOf(31)), 'PARAMETER_INVALID', field);
    });
  }
});

/** The default morph palette on a Tile: red, orange, yellow, green, cyan, blue, purple at 3500 K. */
const RAINBOW: W[] = [0, 6554, 10923, 21845, 32768, 45511, 50972].map((hue): W => [hue, 65535, 65535, 3500]);

describe('planMorph: SetTileEffect MORPH, matrix lights only', () => {
  forEveryKind(
    'morph with the defaults: speed 5000 ms, forever, the seven-colour default palette',
    (k) => planMorph({}, lightOf(k.pid, { power: 'on', color: k.current })),
    (k) => (k.kind === 'matrix' ? [[SetTileEffect(2, 5000, 0n, zeros8, RAINBOW)]] : []),
  );

  it('has a default palette of seven colours across the spectrum', () => {
    assert.equal(DEFAULT_MORPH_PALETTE.length, 7);
    assert.deepEqual(DEFAULT_MORPH_PALETTE.map((c) => c.hue), [0, 36, 60, 120, 180, 250, 280]);
  });

  it('takes parsed palette colours, completing unspecified components (brightness 1, kelvin 3500) and clamping kelvin', () => {
    const got = planMorph(
      { periodS: 5, durationS: 10, palette: [{ hue: 0, saturation: 1 }, { hue: 100, saturation: 1 }, { saturation: 0, kelvin: 1500 }] },
      lightOf(55, { power: 'on' }),
    );
    assert.deepEqual(steps(got), [
      [SetTileEffect(2, 5000, 10_000_000_000n, zeros8, [[0, 65535, 65535, 3500], [18204, 65535, 65535, 3500], [0, 0, 65535, 2500]])],
    ]);
  });

  it('accepts 16 colours', () => {
    const palette = Array.from({ length: 16 }, (_, i) => ({ hue: i * 20, saturation: 1 }));
    const got = planMorph({ palette }, lightOf(176, { power: 'on' }));
    const m = got.steps[0]?.[0];
    assert.ok(m?.name === 'SetTileEffect' && m.payload.settings.paletteCount === 16 && m.payload.settings.palette.length === 16);
  });

  it('turns duration 0 into type OFF, with no palette and no power-on', () => {
    assert.deepEqual(steps(planMorph({ durationS: 0 }, lightOf(55, { power: 'off' }))), [[TILE_OFF]]);
  });

  it('powers an off matrix on first', () => {
    assert.deepEqual(steps(planMorph({}, lightOf(55, { power: 'off' }))), [[PowerOn], [SetTileEffect(2, 5000, 0n, zeros8, RAINBOW)]]);
  });

  const invalid: readonly [field: string, request: unknown][] = [
    ['palette', { palette: [] }],
    ['palette', { palette: Array.from({ length: 17 }, () => ({ hue: 0 })) }],
    ['palette[1].hue', { palette: [{ hue: 0 }, { hue: 361 }] }],
    ['durationS', { durationS: -1 }],
    ['durationS', { durationS: 3155760001 }],
    ['periodS', { periodS: Number.POSITIVE_INFINITY }],
  ];
  for (const [field, request] of invalid) {
    it(`rejects ${field}`, () => assertCode(() => planMorph(request as never, lightOf(55)), 'PARAMETER_INVALID', field));
  }
});

describe('planFlame: SetTileEffect FLAME, matrix lights only', () => {
  forEveryKind(
    'flame with the defaults: speed 5000 ms, forever, no palette (firmware colours)',
    (k) => planFlame({}, lightOf(k.pid, { power: 'on', color: k.current })),
    (k) => (k.kind === 'matrix' ? [[SetTileEffect(3, 5000, 0n, zeros8)]] : []),
  );

  it('takes period and duration; duration 0 stops it', () => {
    assert.deepEqual(steps(planFlame({ periodS: 2, durationS: 30 }, lightOf(55, { power: 'on' }))), [
      [SetTileEffect(3, 2000, 30_000_000_000n, zeros8)],
    ]);
    assert.deepEqual(steps(planFlame({ durationS: 0 }, lightOf(55, { power: 'on' }))), [[TILE_OFF]]);
  });

  it('the docs example {"power_on": true} on an off Tile: power on, then flame', () => {
    assert.deepEqual(steps(planFlame({ powerOn: true }, lightOf(55, { power: 'off' }))), [[PowerOn], [SetTileEffect(3, 5000, 0n, zeros8)]]);
  });
});

describe('planClouds / planSunrise / planSunset: SetTileEffect SKY (type 5), matrix lights only', () => {
  forEveryKind(
    'clouds: sky type CLOUDS (2) in parameters[0], saturation min/max 51/178 in [1]/[2], speed 50 s, forever',
    (k) => planClouds({}, lightOf(k.pid, { power: 'on', color: k.current })),
    (k) => (k.kind === 'matrix' ? [[SetTileEffect(5, 50_000, 0n, [2, 51, 178, 0, 0, 0, 0, 0])]] : []),
  );
  forEveryKind(
    'sunrise: sky type SUNRISE (0)',
    (k) => planSunrise({}, lightOf(k.pid, { power: 'on', color: k.current })),
    (k) => (k.kind === 'matrix' ? [[SetTileEffect(5, 50_000, 0n, zeros8)]] : []),
  );
  forEveryKind(
    'sunset: sky type SUNSET (1)',
    (k) => planSunset({}, lightOf(k.pid, { power: 'on', color: k.current })),
    (k) => (k.kind === 'matrix' ? [[SetTileEffect(5, 50_000, 0n, [1, 0, 0, 0, 0, 0, 0, 0])]] : []),
  );

  it('clouds: duration is the run time, the speed stays', () => {
    assert.deepEqual(steps(planClouds({ durationS: 600 }, lightOf(176, { power: 'on' }))), [
      [SetTileEffect(5, 50_000, 600_000_000_000n, [2, 51, 178, 0, 0, 0, 0, 0])],
    ]);
  });

  it('sunrise over 30 minutes: the duration is also the speed (how long the sun takes)', () => {
    assert.deepEqual(steps(planSunrise({ durationS: 1800 }, lightOf(176, { power: 'on' }))), [
      [SetTileEffect(5, 1_800_000, 1_800_000_000_000n, zeros8)],
    ]);
  });


  it('a sunrise longer than the u32 speed allows rises at the slowest speed the wire carries', () => {
    const m = planSunrise({ durationS: 3155760000 }, lightOf(176, { power: 'on' })).steps[0]?.[0];
    assert.ok(m?.name === 'SetTileEffect');
    assert.equal(m.payload.settings.speedMs, 4294967295);
    assert.equal(m.payload.settings.durationNs, 3155760000n * 1_000_000_000n);
  });

  it('duration 0 stops any of them; power_on turns an off Ceiling on first', () => {
    assert.deepEqual(steps(planSunset({ durationS: 0 }, lightOf(176, { power: 'off' }))), [[TILE_OFF]]);
    assert.deepEqual(steps(planClouds({}, lightOf(176, { power: 'off' }))), [
      [PowerOn],
      [SetTileEffect(5, 50_000, 0n, [2, 51, 178, 0, 0, 0, 0, 0])],
    ]);
  });

  it('rejects a bad duration naming it', () => {
    assertCode(() => planSunrise({ durationS: -5 }, lightOf(176)), 'PARAMETER_INVALID', 'durationS');
    assertCode(() => planClouds({ durationS: Number.NaN }, lightOf(176)), 'PARAMETER_INVALID', 'durationS');
  });
});

// ---- effects off and clean ----

describe('planEffectsOff: firmware effects OFF and a colour message that ends any waveform', () => {
  const current = (k: Kind): W => (k.kind === 'white' || k.kind === 'fixed' ? [0, 0, 65535, 2700] : [0, 65535, 65535, 3500]);
  // Strips and matrix lights keep their zones: the waveform is ended by a SetWaveformOptional that sets nothing.
  const keepZones = SetWaveformOptional([0, 0, 0, 0], INSTANT, '');
  forEveryKind(
    'with the current colour known: SetColor to it with duration 0 (a strip or matrix: a SetWaveformOptional that sets nothing), after the firmware effect OFF where there is one',
    (k) => planEffectsOff({}, lightOf(k.pid, { power: 'on', color: k.current })),
    (k) => {
      if (k.kind === 'switch') return [];
      if (k.kind === 'multizone') return [[MZ_OFF, keepZones]];
      if (k.kind === 'matrix') return [[TILE_OFF, keepZones]];
      return [[SetColor(current(k), 0)]];
    },
  );

  forEveryKind(
    'power_off: SetLightPower off with duration 0 in the same step',
    (k) => planEffectsOff({ powerOff: true }, lightOf(k.pid, { power: 'on', color: k.current })),
    (k) => {
      if (k.kind === 'switch') return [];
      if (k.kind === 'multizone') return [[MZ_OFF, keepZones, PowerOff]];
      if (k.kind === 'matrix') return [[TILE_OFF, keepZones, PowerOff]];
      return [[SetColor(current(k), 0), PowerOff]];
    },
  );

  it('with the colour unknown: a SetWaveformOptional that sets nothing replaces the running waveform', () => {
    assert.deepEqual(steps(planEffectsOff({}, lightOf(62))), [[SetWaveformOptional([0, 0, 0, 0], INSTANT, '')]]);
  });

  it('on a fixed-white bulb too: without a read its brightness is unknown', () => {
    assert.deepEqual(steps(planEffectsOff({}, lightOf(51))), [[SetWaveformOptional([0, 0, 0, 0], INSTANT, '')]]);
  });

  it('rejects a power_off that is not a boolean', () => {
    assertCode(() => planEffectsOff({ powerOff: 'yes' as never }, lightOf(62)), 'PARAMETER_INVALID', 'powerOff');
  });
});

describe('planClean: SetHevCycle, HEV lights only', () => {
  const HevCycle = (enable: boolean, durationS: number): PlannedMessage => ({ name: 'SetHevCycle', payload: { enable, durationS } });
  forEveryKind(
    'start with the device default duration (0)',
    (k) => planClean({}, lightOf(k.pid, { power: 'on', color: k.current })),
    (k) => (k.kind === 'hev' ? [[HevCycle(true, 0)]] : []),
  );

  const rows: readonly [name: string, request: { stop?: boolean; durationS?: number }, expect: PlannedMessage][] = [
    ['start for 2 hours: duration_s 7200', { durationS: 7200 }, HevCycle(true, 7200)],
    ['rounds to whole seconds', { durationS: 1.4 }, HevCycle(true, 1)],
    ['stop: enable false, duration 0', { stop: true }, HevCycle(false, 0)],
    ['stop ignores a duration', { stop: true, durationS: 60 }, HevCycle(false, 0)],
  ];
  for (const [name, request, expect] of rows) {
    it(name, () => assert.deepEqual(steps(planClean(request, lightOf(90, { power: 'on' }))), [[expect]]));
  }

  it('rejects a negative duration and a non-boolean stop', () => {
    assertCode(() => planClean({ durationS: -1 }, lightOf(90)), 'PARAMETER_INVALID', 'durationS');
    assertCode(() => planClean({ stop: 1 as never }, lightOf(90)), 'PARAMETER_INVALID', 'stop');
  });
});

// ---- property: every plan encodes ----

describe('effect plans: properties over every product of the registry', () => {
  const products = PRODUCTS.all();
  const partial = fc.record(
    {
      hue: fc.double({ min: 0, max: 360, noNaN: true }),
      saturation: fc.double({ min: 0, max: 1, noNaN: true }),
      brightness: fc.double({ min: 0, max: 1, noNaN: true }),
      // A colour given as numbers is 1500-9000 K and names one component at least (the parser's rules).
      kelvin: fc.integer({ min: 1500, max: 9000 }),
    },
    { requiredKeys: [] },
  ).filter((c) => Object.keys(c).length > 0);
  const lightArb = fc
    .record({
      index: fc.nat({ max: products.length - 1 }),
      power: fc.constantFrom('on' as const, 'off' as const, null),
      color: fc.option(
        fc.record({
          hue: fc.double({ min: 0, max: 360, noNaN: true }),
          saturation: fc.double({ min: 0, max: 1, noNaN: true }),
          brightness: fc.double({ min: 0, max: 1, noNaN: true }),
          kelvin: fc.integer({ min: 0, max: 65535 }),
        }),
        { nil: null },
      ),
    })
    .map(({ index, ...state }) => {
      const product = products[index]!;
      return { ...lightOf(product.productId), ...state };
    });
  const seconds = fc.double({ min: 0, max: 4294967, noNaN: true });
  const plans = fc.oneof(
    fc.record({ color: partial, fromColor: fc.option(partial, { nil: undefined }), periodS: seconds, cycles: fc.double({ min: 0, max: 1e6, noNaN: true }), persist: fc.boolean(), powerOn: fc.boolean(), peak: fc.double({ min: 0, max: 1, noNaN: true }) }).map((r) => (l: LightView) => [planBreathe(r, l), planPulse(r, l)]),
    fc.record({ direction: fc.constantFrom('forward' as const, 'backward' as const), periodS: fc.double({ min: 0, max: 1000, noNaN: true }), cycles: fc.option(fc.double({ min: 0, max: 1000, noNaN: true }), { nil: undefined }), instanceId: fc.nat({ max: 0xffffffff }) }).map((r) => (l: LightView) => [planMove(r, l)]),
    fc.record({ periodS: seconds, durationS: fc.option(fc.double({ min: 0, max: 3155760000, noNaN: true }), { nil: undefined }), palette: fc.option(fc.array(partial, { minLength: 1, maxLength: 16 }), { nil: undefined }) }).map((r) => (l: LightView) => [planMorph(r, l), planFlame(r, l), planClouds(r, l), planSunrise(r, l), planSunset(r, l)]),
    fc.record({ powerOff: fc.boolean(), stop: fc.boolean(), durationS: fc.double({ min: 0, max: 0xffffffff, noNaN: true }) }).map((r) => (l: LightView) => [planEffectsOff(r, l), planClean(r, l)]),
  );

  it('never plans a payload the codec rejects, and sends nothing to a non-light', () => {
    fc.assert(
      fc.property(plans, lightArb, (make, light) => {
        for (const p of make(light)) {
          if (light.capabilities.kelvinRange === null) assert.equal(p.steps.length, 0);
          for (const m of p.steps.flat()) {
            encode({ name: m.name, header: { source: 1, sequence: 0, target: light.serial }, payload: m.payload } as never);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
