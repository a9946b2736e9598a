// User units <-> wire units (LIFX LAN docs: representing-color-with-hsbk, waveforms, information-messages): every rounding rule, with the documented examples.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  dateToNs,
  fractionFromWire,
  fractionToWire,
  headerToUser,
  hsbkFromWire,
  hsbkToWire,
  hueDegreesToWire,
  hueWireToDegrees,
  kelvinToMireds,
  miredsToKelvin,
  msToSeconds,
  nsToDate,
  nsToSeconds,
  payloadToUserUnits,
  powerFromWire,
  powerToWire,
  readHeader,
  encode,
  secondsToMs,
  secondsToNs,
  signalQuality,
  signalToRssi,
  skewRatioFromWire,
  skewRatioToWire,
} from '../../core/protocol/index.js';

/** The float32 signal a product reports for a given rssi (the inverse of the StateWifiInfo formula). */
const signalFor = (rssi: number): number => Math.fround(10 ** (rssi / 10));

describe('units: hue', () => {
  it('scales degrees by 65536 with wrap: 120° -> 21845, 10° -> 1820, 0° -> 0', () => {
    assert.equal(hueDegreesToWire(120), 21845);
    assert.equal(hueDegreesToWire(10), 1820);
    assert.equal(hueDegreesToWire(0), 0);
  });

  it('wraps 360° to 0 (not 65535 as lifx-lan-client does), 359.999° to 0 and -10° to 350°', () => {
    assert.equal(hueDegreesToWire(360), 0);
    assert.equal(hueDegreesToWire(359.999), 0);
    assert.equal(hueDegreesToWire(720 + 120), 21845);
    assert.equal(hueDegreesToWire(-10), hueDegreesToWire(350));
    assert.equal(hueDegreesToWire(-10), 63716);
  });

  it('reads 1792 as 9.84°, 1820 as 10°, 21845 as 120° and 65535 as 359.99°, rounded to 2 decimals', () => {
    assert.equal(hueWireToDegrees(1792), 9.84);
    assert.equal(hueWireToDegrees(1820), 10);
    assert.equal(hueWireToDegrees(21845), 120);
    assert.equal(hueWireToDegrees(65535), 359.99);
    assert.equal(hueWireToDegrees(0), 0);
  });

  it('round-trips every wire hue through degrees to within 1 step, and every whole degree exactly', () => {
    for (let wire = 0; wire < 0x10000; wire++) {
      const back = hueDegreesToWire(hueWireToDegrees(wire));
      const diff = Math.min(Math.abs(back - wire), 0x10000 - Math.abs(back - wire));
      assert.ok(diff <= 1, `wire ${wire} -> ${hueWireToDegrees(wire)}° -> ${back}`);
    }
    for (let deg = 0; deg < 360; deg++) assert.equal(hueWireToDegrees(hueDegreesToWire(deg)), deg);
  });
});

describe('units: fractions, kelvin and power', () => {
  it('maps 0..1 to 0..65535 by rounding (0.5 -> 32768, 0.1 -> 6554) and clamps outside 0..1', () => {
    assert.equal(fractionToWire(0), 0);
    assert.equal(fractionToWire(1), 65535);
    assert.equal(fractionToWire(0.5), 32768);
    assert.equal(fractionToWire(0.1), 6554);
    assert.equal(fractionToWire(1.5), 65535);
    assert.equal(fractionToWire(-0.2), 0);
  });

  it('reads photons\' 6553 as 0.1 and 32767 as 0.5, rounded to 4 decimals', () => {
    assert.equal(fractionFromWire(6553), 0.1);
    assert.equal(fractionFromWire(32767), 0.5);
    assert.equal(fractionFromWire(65535), 1);
    assert.equal(fractionFromWire(0), 0);
  });

  it('round-trips any fraction to within one wire step', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (x) => {
        assert.ok(Math.abs(fractionFromWire(fractionToWire(x)) - x) <= 1 / 65535 + 1e-4);
      }),
    );
  });

  it('converts colours both ways: 120°, 1, 0.5, 3500 K <-> 21845, 65535, 32768, 3500', () => {
    assert.deepEqual(hsbkToWire({ hue: 120, saturation: 1, brightness: 0.5, kelvin: 3500 }), {
      hue: 21845, saturation: 65535, brightness: 32768, kelvin: 3500,
    });
    assert.deepEqual(hsbkFromWire({ hue: 21845, saturation: 65535, brightness: 32768, kelvin: 3500 }), {
      hue: 120, saturation: 1, brightness: 0.5, kelvin: 3500,
    });
  });

  it('converts kelvin and mireds both ways (2500 K = 400 mireds, 6500 K = 154)', () => {
    assert.equal(kelvinToMireds(2500), 400);
    assert.equal(kelvinToMireds(6500), 154);
    assert.equal(miredsToKelvin(400), 2500);
    assert.equal(miredsToKelvin(140), 7143);
  });

  it('shows power 0 as off and anything else as on, and sends on as 65535', () => {
    assert.equal(powerFromWire(0), 'off');
    assert.equal(powerFromWire(65535), 'on');
    assert.equal(powerFromWire(1), 'on');
    assert.equal(powerToWire('on'), 65535);
    assert.equal(powerToWire('off'), 0);
  });
});

describe('units: waveform skew ratio (signed int16)', () => {
  // The docs' table; the two quarter points may differ by up to 2 between codecs.
  const TABLE: [number, number][] = [
    [-32768, 0],
    [-16383, 0.25],
    [0, 0.5],
    [16383, 0.75],
    [32767, 1],
  ];

  for (const [wire, ratio] of TABLE) {
    it(`maps ratio ${ratio} to ${wire} within ±2, and ${wire} back to ${ratio}`, () => {
      assert.ok(Math.abs(skewRatioToWire(ratio) - wire) <= 2, `${ratio} -> ${skewRatioToWire(ratio)}`);
      assert.equal(skewRatioFromWire(wire), ratio);
    });
  }

  it('encodes 0.5 as exactly 0 (not -0 or photons\' -1) and the ends exactly', () => {
    assert.ok(Object.is(skewRatioToWire(0.5), 0));
    assert.equal(skewRatioToWire(0), -32768);
    assert.equal(skewRatioToWire(1), 32767);
  });

  it('reads V7\'s 3276 as 0.55 and clamps ratios outside 0..1', () => {
    assert.equal(skewRatioFromWire(3276), 0.55);
    assert.equal(skewRatioToWire(2), 32767);
    assert.equal(skewRatioToWire(-1), -32768);
  });

  it('always produces an int16 for any ratio', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (r) => {
        const wire = skewRatioToWire(r);
        assert.ok(Number.isInteger(wire) && wire >= -32768 && wire <= 32767);
      }),
    );
  });
});

describe('units: StateWifiInfo signal', () => {
  it('reads the worked example 2.5119e-7 as rssi -66, "alright"', () => {
    const signal = Math.fround(2.5119e-7);
    assert.equal(signalToRssi(signal), -66);
    assert.equal(signalQuality(signal), 'alright');
  });

  it('grades dBm-style readings: <= -80 very bad, <= -70 somewhat bad, < -60 alright, -60 and above good', () => {
    const cases: [number, string][] = [
      [-90, 'very bad'],
      [-80, 'very bad'],
      [-79, 'somewhat bad'],
      [-70, 'somewhat bad'],
      [-69, 'alright'],
      [-61, 'alright'],
      // The boundary the vendor's web page puts on the other side (alright): for us -60 is good.
      [-60, 'good'],
      [-59, 'good'],
      [-1, 'good'],
    ];
    for (const [rssi, quality] of cases) {
      assert.equal(signalToRssi(signalFor(rssi)), rssi);
      assert.equal(signalQuality(signalFor(rssi)), quality, `rssi ${rssi}`);
    }
  });

  it('grades SNR-style readings: 4-5 very bad, 7-11 somewhat bad, 12-16 alright, above 16 good, 0-3 and 6 none', () => {
    const cases: [number, string][] = [
      [0, 'none'],
      [3, 'none'],
      [4, 'very bad'],
      [5, 'very bad'],
      // The rule names 4 and 5 only: an SNR of 6 is no signal, not very bad (the vendor page says very bad).
      [6, 'none'],
      [7, 'somewhat bad'],
      [11, 'somewhat bad'],
      [12, 'alright'],
      [16, 'alright'],
      [17, 'good'],
      [40, 'good'],
    ];
    for (const [rssi, quality] of cases) {
      assert.equal(signalToRssi(signalFor(rssi)), rssi);
      assert.equal(signalQuality(signalFor(rssi)), quality, `rssi ${rssi}`);
    }
  });

  it('reads rssi 200, a zero, negative or NaN signal as no signal', () => {
    assert.equal(signalToRssi(1e20), 200);
    assert.equal(signalQuality(1e20), 'none');
    assert.equal(signalQuality(0), 'none');
    assert.equal(signalQuality(-1), 'none');
    assert.equal(signalQuality(Number.NaN), 'none');
  });
});

describe('units: times', () => {
  it('converts seconds and milliseconds (1.5 s = 1500 ms, 1234 ms = 1.234 s, rounded to whole ms)', () => {
    assert.equal(secondsToMs(1.5), 1500);
    assert.equal(secondsToMs(0.0004), 0);
    assert.equal(msToSeconds(1234), 1.234);
    assert.equal(msToSeconds(0), 0);
  });

  it('converts seconds and nanoseconds as bigint (2.5 s = 2500000000n) and back to 3 decimals', () => {
    assert.equal(secondsToNs(2.5), 2_500_000_000n);
    assert.equal(nsToSeconds(1_500_000_000n), 1.5);
    assert.equal(nsToSeconds(1_234_567_891n), 1.235);
  });

  it('converts epoch nanoseconds and dates both ways', () => {
    const date = new Date('2025-10-31T12:00:00.123Z');
    assert.equal(dateToNs(date), 1_761_912_000_123_000_000n);
    assert.equal(nsToDate(dateToNs(date)).toISOString(), date.toISOString());
  });
});

describe('units: whole messages for display', () => {
  it('shows a SetWaveform with degrees, fractions, seconds, skew ratio and kelvin', () => {
    assert.deepEqual(
      payloadToUserUnits('SetWaveform', {
        transient: true,
        color: { hue: 21845, saturation: 65535, brightness: 32767, kelvin: 2500 },
        periodMs: 2000,
        cycles: 5,
        skewRatio: 0,
        waveform: 1,
      }),
      {
        transient: true,
        color: { hue: 120, saturation: 1, brightness: 0.5, kelvin: 2500 },
        periodS: 2,
        cycles: 5,
        skewRatio: 0.5,
        waveform: 'SINE',
      },
    );
  });

  it('shows ids as hex, epoch times as ISO dates (0 as null) and u64 durations in seconds', () => {
    assert.deepEqual(
      payloadToUserUnits('StateGroup', { group: 'ab'.repeat(16), label: 'Kitchen', updatedAtNs: 1_761_912_000_123_000_000n }),
      { group: 'ab'.repeat(16), label: 'Kitchen', updatedAtNs: '2025-10-31T12:00:00.123Z' },
    );
    assert.deepEqual(payloadToUserUnits('StateInfo', { timeNs: 0n, uptimeNs: 90_000_000_000n, downtimeNs: 5_000_000_000n }), {
      timeNs: null,
      uptimeNs: 90,
      downtimeNs: 5,
    });
  });

  it('shows a broadcast header target as "all"', () => {
    const bytes = encode({ name: 'GetService', header: { source: 7, sequence: 1 }, payload: {} });
    assert.equal(headerToUser(readHeader(bytes, 0)).target, 'all');
  });
});
