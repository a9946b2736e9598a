import { expect } from 'chai';
import { hsbkToWire } from '../../core/protocol/units.js';
import { ColorFade, LevelFade } from '../../core/simulator/fade.js';
import { payloadsOf } from './client.js';
import { BULB, bulb, manualClock, rig } from './helpers.js';
import { until } from '../helpers/wait.js';

describe('simulator transitions', () => {
  it('shows the colour half way through a 1000 ms SetColor at 500 ms, and the target at 1000 ms', async () => {
    const clock = manualClock();
    const r = await rig({ lights: [bulb({ color: { hue: 0, saturation: 0, brightness: 0.2, kelvin: 2500 } })] }, { now: clock.now });
    try {
      const target = hsbkToWire({ hue: 90, saturation: 1, brightness: 1, kelvin: 6500 });
      await r.client.request('SetColor', { color: target, durationMs: 1000 }, r.at(BULB), { ack: true, count: 1 });
      clock.advance(500);
      const half = await r.client.request('GetColor', {}, r.at(BULB), { count: 1 });
      const mid = payloadsOf(half, 'LightState')[0]!.color;
      expect(mid.hue).to.be.closeTo(target.hue / 2, 1);
      expect(mid.saturation).to.be.closeTo(32768, 1);
      expect(mid.brightness).to.be.closeTo((13107 + 65535) / 2, 1);
      expect(mid.kelvin).to.equal(4500);
      clock.advance(500);
      const done = await r.client.request('GetColor', {}, r.at(BULB), { count: 1 });
      expect(payloadsOf(done, 'LightState')[0]!.color).to.deep.equal(target);
    } finally {
      await r.close();
    }
  });

  it('fades power with SetLightPower over its duration', async () => {
    const clock = manualClock();
    const r = await rig({ lights: [bulb({ power: 'off' })] }, { now: clock.now });
    try {
      await r.client.request('SetLightPower', { level: 65535, durationMs: 2000 }, r.at(BULB), { ack: true, count: 1 });
      clock.advance(500);
      const quarter = await r.client.request('GetLightPower', {}, r.at(BULB), { count: 1 });
      expect(payloadsOf(quarter, 'StateLightPower')[0]!.level).to.be.closeTo(16384, 1);
      expect(r.fleet.light(BULB).state).to.include({ power: 'on', powerLevel: 0.25 });
      clock.advance(1500);
      const full = await r.client.request('GetPower', {}, r.at(BULB), { count: 1 });
      expect(payloadsOf(full, 'StatePower')[0]!.level).to.equal(65535);
    } finally {
      await r.close();
    }
  });

  it('fades zones with SetColorZones over its duration', async () => {
    const clock = manualClock();
    const r = await rig({ lights: [{ serial: 'd073d5000010', product: 38, zoneCount: 10, color: { brightness: 0 } }] }, { now: clock.now });
    try {
      const white = hsbkToWire({ hue: 0, saturation: 0, brightness: 1, kelvin: 3500 });
      await r.client.request('SetColorZones', { startIndex: 0, endIndex: 9, color: white, durationMs: 400, apply: 1 }, r.at('d073d5000010'), { ack: true, count: 1 });
      clock.advance(100);
      expect(r.fleet.light('d073d5000010').state.zones![9]!.brightness).to.be.closeTo(0.25, 0.001);
    } finally {
      await r.close();
    }
  });

  it('progresses on the real clock by default', async () => {
    const r = await rig({ lights: [bulb({ color: { hue: 0, saturation: 1, brightness: 0, kelvin: 3500 } })] });
    try {
      const target = hsbkToWire({ hue: 0, saturation: 1, brightness: 1, kelvin: 3500 });
      const sentAt = Date.now();
      r.client.send('SetColor', { color: target, durationMs: 400 }, r.at(BULB), { ack: true });
      await r.client.waitUntil(() => r.client.inbox.length === 1, 1000);
      const ackedAt = Date.now();
      // Some real time passes: the light's brightness moves off 0.
      await until(() => r.fleet.light(BULB).state.color.brightness > 0, { what: 'the fade to start moving' });
      const readFrom = Date.now();
      const brightness = r.fleet.light(BULB).state.color.brightness;
      const readTo = Date.now();
      // The fade started between sending and the ack, so it is this far along (whatever the machine's load).
      expect(brightness).to.be.at.least(Math.min(1, (readFrom - ackedAt) / 400) - 0.001);
      expect(brightness).to.be.at.most(Math.min(1, (readTo - sentAt) / 400) + 0.001);
      expect(brightness).to.be.above(0);
      // The fade (durationMs 400, started no earlier than sentAt) ends at full brightness, and not before its time.
      await until(() => r.fleet.light(BULB).state.color.brightness === 1, { what: 'the fade to end at full brightness' });
      expect(Date.now() - sentAt).to.be.at.least(395);
      expect(r.fleet.light(BULB).state.color.brightness).to.equal(1);
    } finally {
      await r.close();
    }
  });

  it('turns the short way round the hue circle and restarts a fade from where the last one is', () => {
    const from = { hue: 65000, saturation: 0, brightness: 0, kelvin: 3500 };
    const fade = new ColorFade(from, { ...from, hue: 1000 }, 0, 1000);
    expect(fade.at(500).hue).to.equal((65000 + 768) % 65536);
    const level = new LevelFade(0, 65535, 0, 1000).toward(0, 500, 1000);
    expect(level.at(500)).to.equal(32768);
    expect(level.at(1000)).to.equal(16384);
  });
});
