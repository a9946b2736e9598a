// A confirmed write skips its read when what the service knows of the light is fresh (read or written within
// freshStateMs, no transition running, nothing unacknowledged), keeps it otherwise, and ends in the requested state
// either way, even when the light was changed behind the service's back.

import { expect } from 'chai';
import type { LightServiceOptions } from '../../core/index.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';
import { until } from '../helpers/wait.js';

const BULB = 'd073d5000001';
const OTHER = 'd073d5000002';
const STRIP = 'd073d5000003';
const lights = [
  { serial: BULB, product: 91, label: 'Desk', power: 'off' as const, color: { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 } },
  { serial: OTHER, product: 91, label: 'Lamp', power: 'on' as const, color: { hue: 60, saturation: 1, brightness: 0.4, kelvin: 3500 } },
  { serial: STRIP, product: 32, label: 'Strip', power: 'on' as const, color: { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 }, zoneCount: 16, firmware: { major: 2, minor: 80 } },
];

describe('Confirmed writes from fresh state', function () {
  this.timeout(20_000);
  let rig: ServiceRig;
  const start = async (options: LightServiceOptions = {}): Promise<void> => {
    rig = await serviceRig({ lights }, options);
  };
  afterEach(() => rig?.close());

  const reads = (serial: string): number => rig.fleet.light(serial).receivedCount('GetColor');
  const writes = (serial: string): string[] =>
    rig.fleet
      .light(serial)
      .received()
      .map((p) => p.name ?? '')
      .filter((n) => n.startsWith('Set'));

  it('skips the read when the state was just read, and still paints the colour before powering on', async () => {
    await start();
    const results = await rig.service.setState(`id:${BULB}`, { power: 'on', color: 'blue', durationS: 0.2 });
    expect(results.map((r) => r.status)).to.deep.equal(['ok']);
    expect(reads(BULB)).to.equal(0);
    // Known off: colour at once while dark, then power over the duration.
    expect(writes(BULB)).to.deep.equal(['SetColor', 'SetLightPower']);
    const [color, power] = [rig.fleet.light(BULB).received('SetColor')[0]!, rig.fleet.light(BULB).received('SetLightPower')[0]!];
    expect(color.payload).to.deep.include({ durationMs: 0 });
    expect(power.payload).to.deep.equal({ level: 65535, durationMs: 200 });
    // The power fades in over 0.2 s from the acknowledgement (at 0 ms it is still dark): it ends on and blue.
    await until(() => rig.fleet.light(BULB).state.power === 'on' && Math.round(rig.fleet.light(BULB).state.color.hue) === 250, { what: 'the light on and blue' });
    const s = rig.fleet.light(BULB).state;
    expect([s.power, Math.round(s.color.hue)]).to.deep.equal(['on', 250]);
  });

  it('plans from our own write: a second write right after the first (no transition) reads nothing', async () => {
    await start();
    await rig.service.setState(`id:${OTHER}`, { color: 'red', durationS: 0 });
    await rig.service.setState(`id:${OTHER}`, { brightness: 0.25, durationS: 0 });
    expect(reads(OTHER)).to.equal(0);
    // The brightness merges over the colour we wrote: still red.
    const s = rig.fleet.light(OTHER).state;
    expect([Math.round(s.color.hue), s.color.brightness]).to.deep.equal([0, 0.25]);
  });

  it('reads only a strip\'s zones before part of a colour when its state is fresh, its colour and power too when not', async () => {
    await start();
    // The first read of a strip brings its zones once its product is known: that one is not the write's.
    await until(() => (rig.service.light(STRIP)?.zones?.length ?? 0) > 0, { what: 'the strip\'s zones read' });
    rig.fleet.clearRecords();
    rig.fleet.light(STRIP).setState({ zones: Array.from({ length: 16 }, (_, i) => ({ hue: i < 8 ? 240 : 0, saturation: 1, brightness: 1, kelvin: 3500 })) });
    expect((await rig.service.setState(`id:${STRIP}`, { brightness: 0.5, durationS: 0 }))[0]!.status).to.equal('ok');
    expect(reads(STRIP)).to.equal(0);
    expect(rig.fleet.light(STRIP).receivedCount('GetExtendedColorZones')).to.equal(1);
    // The zones painted behind the service's back keep their hues.
    expect(rig.fleet.light(STRIP).state.zones!.map((z) => [Math.round(z.hue), z.brightness])).to.deep.equal(
      Array.from({ length: 16 }, (_, i) => [i < 8 ? 240 : 0, 0.5]),
    );
    await rig.close();
    await start({ freshStateMs: 0 });
    await until(() => (rig.service.light(STRIP)?.zones?.length ?? 0) > 0, { what: 'the strip\'s zones read' });
    rig.fleet.clearRecords();
    await rig.service.setState(`id:${STRIP}`, { brightness: 0.5, durationS: 0 });
    expect([reads(STRIP), rig.fleet.light(STRIP).receivedCount('GetExtendedColorZones')]).to.deep.equal([1, 1]);
  });

  it('reads when the state is older than freshStateMs', async () => {
    await start({ freshStateMs: 150 });
    // Older than freshStateMs: the state was read (registry clock, Date.now) 150 ms and a margin ago.
    const readAt = rig.client.registry.get(BULB)!.facts.color!.readAt;
    await until(() => Date.now() - readAt >= 150 + 50, { what: 'the state older than freshStateMs' });
    await rig.service.setState(`id:${BULB}`, { power: 'on', color: 'green', durationS: 0 });
    expect(reads(BULB)).to.equal(1);
    expect(rig.fleet.light(BULB).state.power).to.equal('on');
  });

  it('always reads with freshStateMs 0', async () => {
    await start({ freshStateMs: 0 });
    await rig.service.setState(`id:${BULB}`, { color: 'green', durationS: 0 });
    expect(reads(BULB)).to.equal(1);
  });

  it('runs writes asked together in turn, each reading after the one before it was acknowledged', async () => {
    await start({ freshStateMs: 0 });
    rig.fleet.light(BULB).setFaults({ latencyMs: 60 });
    rig.fleet.clearRecords();
    // Asked together: the second reads what the first left (its Set acknowledged), so both changes show.
    const [a, b] = await Promise.all([
      rig.service.setState(`id:${BULB}`, { color: 'green', durationS: 0 }),
      rig.service.setState(`id:${BULB}`, { brightness: 0.5, durationS: 0 }),
    ]);
    expect([a[0]!.status, b[0]!.status]).to.deep.equal(['ok', 'ok']);
    const together = rig.fleet.light(BULB).received();
    const firstSet = together.find((p) => p.name === 'SetColor')!;
    const togetherReads = together.filter((p) => p.name === 'GetColor');
    expect(togetherReads).to.have.length(2);
    expect(togetherReads[1]!.atMs).to.be.at.least(firstSet.atMs + 50);
    const shown = rig.fleet.light(BULB).state.color;
    expect([Math.round(shown.hue), Math.round(shown.saturation * 100) / 100, Math.round(shown.brightness * 100) / 100]).to.deep.equal([120, 1, 0.5]);
    rig.fleet.clearRecords();
    // A read is in flight when a confirmed Set begins; a write asked after that reads again, once the Set is
    // acknowledged, so it plans from what the Set did.
    const first = rig.service.setState(`id:${BULB}`, { color: 'red', durationS: 0 });
    await until(() => reads(BULB) === 1, { what: 'the read on its way' });
    const device = rig.client.addressOf(BULB)!;
    const set = rig.client.requester.set(device, 'SetLightPower', { level: 0, durationMs: 0 }, { coalesceKey: false });
    await until(() => rig.fleet.light(BULB).receivedCount('SetLightPower') === 1, { what: 'the Set on its way' });
    const second = rig.service.setState(`id:${BULB}`, { brightness: 0.3, durationS: 0 });
    await Promise.all([first, set, second]);
    const got = rig.fleet.light(BULB).received();
    const colorReads = got.filter((p) => p.name === 'GetColor');
    expect(colorReads).to.have.length(2);
    const power = got.find((p) => p.name === 'SetLightPower')!;
    expect(colorReads[1]!.atMs).to.be.at.least(power.atMs + 50);
  });

  it('reads while a transition of ours runs (the light shows a mid-fade value)', async () => {
    await start();
    await rig.service.setState(`id:${OTHER}`, { color: 'red', durationS: 2 });
    expect(reads(OTHER)).to.equal(0);
    await rig.service.setState(`id:${OTHER}`, { brightness: 0.5, durationS: 0 });
    expect(reads(OTHER)).to.equal(1);
  });

  it('reads nothing for a change without a colour: a power change plans the same whatever the light shows', async () => {
    await start({ freshStateMs: 0 });
    await rig.service.setState(`id:${BULB}`, { power: 'on', durationS: 0 });
    await rig.service.toggle(`id:${BULB}`, { durationS: 0 });
    expect(reads(BULB)).to.equal(0);
    expect(rig.fleet.light(BULB).state.power).to.equal('off');
  });

  it('ends in the requested state when the light was switched off behind its back while known to be on', async () => {
    await start();
    await rig.service.setState(`id:${OTHER}`, { power: 'on', color: 'red', durationS: 0 });
    // The vendor's app switches it off; the service still believes it is on.
    rig.fleet.light(OTHER).setState({ power: 'off' });
    rig.fleet.clearRecords();
    const results = await rig.service.setState(`id:${OTHER}`, { power: 'on', color: 'blue', durationS: 0 });
    expect(results.map((r) => r.status)).to.deep.equal(['ok']);
    expect(reads(OTHER)).to.equal(0);
    // Known on: the power goes out with the colour in one step rather than being left out.
    expect(writes(OTHER).sort()).to.deep.equal(['SetColor', 'SetLightPower']);
    const s = rig.fleet.light(OTHER).state;
    expect([s.power, Math.round(s.color.hue)]).to.deep.equal(['on', 250]);
  });
});

describe('What a write leaves in the cache when other writes land before its acknowledgement', function () {
  this.timeout(20_000);
  let rig: ServiceRig;
  afterEach(() => rig?.close());

  it('a pulse acknowledged after a newer colour went out leaves that colour, as the light shows', async () => {
    rig = await serviceRig({ lights });
    // The light answers late, so a newer colour goes out (at the light's pace) while the pulse waits for its
    // acknowledgement.
    rig.fleet.light(OTHER).setFaults({ latencyMs: 1500 });
    const pulse = rig.service.pulse(`id:${OTHER}`, { color: 'red', periodS: 0.1, cycles: 1 });
    await until(() => rig.fleet.light(OTHER).receivedCount('SetWaveformOptional') > 0, { timeoutMs: 3000, what: 'the pulse on its way' });
    const fast = await rig.service.setState(`id:${OTHER}`, { color: 'blue', durationS: 0 }, { fast: true });
    expect(fast.map((r) => r.status)).to.deep.equal(['ok']);
    expect((await pulse).map((r) => r.status)).to.deep.equal(['ok']);
    // Fast mode paints with a non-transient SetWaveformOptional: the second one the light gets.
    await until(() => rig.fleet.light(OTHER).receivedCount('SetWaveformOptional') >= 2, { timeoutMs: 1000, what: 'the second SetWaveformOptional' });
    // The pulse was planned over yellow and ends where the light is when it ends: blue, on the light and in the cache.
    expect(Math.round(rig.fleet.light(OTHER).state.color.hue)).to.equal(250);
    expect(Math.round(rig.service.light(OTHER)!.color!.hue)).to.equal(250);
  });
});
