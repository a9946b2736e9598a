// Confirmed writes to one light run in turn; with latestWins a write still waiting is replaced by a newer one that
// sets all of its fields, answering with that one's result marked superseded; one that sets something the newer
// does not runs. Without it every write runs, so `ok` means the light took it.

import { expect } from 'chai';
import { LightLanes, covers, fieldsSet, type StateField } from '../../core/control/light-lanes.js';
import { STREAM_TRUST_MS } from '../../core/control/executor.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';
import { until } from '../helpers/wait.js';

const fields = (...f: StateField[]): ReadonlySet<StateField> => new Set(f);

/** A write the test settles by hand. */
function held<R>(): { start: (waited: boolean) => Promise<R>; settle: (r: R) => void; fail: (err: Error) => void; started: boolean[] } {
  let settle!: (r: R) => void;
  let fail!: (err: Error) => void;
  const started: boolean[] = [];
  const done = new Promise<R>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  return {
    start: (waited) => {
      started.push(waited);
      return done;
    },
    settle: (r) => settle(r),
    fail: (err) => fail(err),
    started,
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('LightLanes', () => {
  it('says which fields a Set State change sets, its transition not among them', () => {
    expect([...fieldsSet({ power: 'on', color: { hue: 120, saturation: 1 }, durationS: 1 })].sort()).to.deep.equal(['hue', 'power', 'saturation']);
    expect([...fieldsSet({ brightness: 0.5, infrared: 0.2, durationS: 0 })].sort()).to.deep.equal(['brightness', 'infrared']);
    expect([...fieldsSet({ color: { kelvin: 2700, brightness: 0.3 }, durationS: 0 })].sort()).to.deep.equal(['brightness', 'kelvin']);
    expect(fieldsSet({ durationS: 2 }).size).to.equal(0);
  });

  it('covers an older write only when the newer sets every field it set', () => {
    expect(covers(fields('power', 'hue', 'saturation'), fields('hue', 'saturation'))).to.equal(true);
    expect(covers(fields('hue', 'saturation'), fields('power', 'hue'))).to.equal(false);
    expect(covers(fields('brightness'), fields('power'))).to.equal(false);
    expect(covers(fields('power'), fields())).to.equal(false);
  });

  it('starts a write at once on an idle light and the next only when it settled, told that it waited', async () => {
    const lanes = new LightLanes<string>((r) => `${r} (replaced)`);
    const a = held<string>();
    const b = held<string>();
    const pa = lanes.inTurn('L', fields('power'), a.start);
    const pb = lanes.inTurn('L', fields('hue'), b.start);
    const other = held<string>();
    const po = lanes.inTurn('M', fields('power'), other.start);
    expect([a.started, b.started, other.started]).to.deep.equal([[false], [], [false]]);
    a.settle('a');
    expect(await pa).to.equal('a');
    await tick();
    expect(b.started).to.deep.equal([true]);
    b.settle('b');
    other.settle('o');
    expect([await pb, await po]).to.deep.equal(['b', 'o']);
    expect(lanes.waitingCount).to.equal(0);
  });

  it('replaces the newest waiting write by a newer one covering it, which answers both', async () => {
    const lanes = new LightLanes<string>((r) => `${r} (replaced)`);
    const running = held<string>();
    const replaced = held<string>();
    const newest = held<string>();
    const p0 = lanes.inTurn('L', fields('power', 'hue'), running.start);
    const p1 = lanes.inTurn('L', fields('hue', 'saturation'), replaced.start);
    const p2 = lanes.inTurn('L', fields('hue', 'saturation', 'brightness'), newest.start);
    expect(lanes.waitingCount).to.equal(1);
    running.settle('first');
    await tick();
    expect([replaced.started, newest.started]).to.deep.equal([[], [true]]);
    newest.settle('newest');
    expect(await Promise.all([p0, p1, p2])).to.deep.equal(['first', 'newest (replaced)', 'newest']);
  });

  it('keeps a waiting write the newer one does not cover, and one without fields, in the order asked', async () => {
    const lanes = new LightLanes<string>((r) => `${r} (replaced)`);
    const order: string[] = [];
    const job = (name: string) => (): Promise<string> => {
      order.push(name);
      return Promise.resolve(name);
    };
    const running = held<string>();
    const all = [
      lanes.inTurn('L', fields('power'), running.start),
      lanes.inTurn('L', fields('power'), job('power')),
      lanes.inTurn('L', fields('brightness'), job('brightness')),
      lanes.inTurn('L', undefined, job('effect')),
      lanes.inTurn('L', fields('brightness', 'power'), job('both')),
    ];
    running.settle('running');
    expect(await Promise.all(all)).to.deep.equal(['running', 'power', 'brightness', 'effect', 'both']);
    expect(order).to.deep.equal(['power', 'brightness', 'effect', 'both']);
  });

  it('passes a failed write\'s error to the writes it replaced, and goes on with the next', async () => {
    const lanes = new LightLanes<string>((r) => `${r} (replaced)`);
    const running = held<string>();
    const failing = held<string>();
    const p0 = lanes.inTurn('L', fields('power'), running.start);
    const p1 = lanes.inTurn('L', fields('power'), () => Promise.resolve('never'));
    const p2 = lanes.inTurn('L', fields('power'), failing.start);
    running.settle('ok');
    await tick();
    const p3 = lanes.inTurn('L', undefined, () => Promise.resolve('after'));
    failing.fail(new Error('boom'));
    const settled = await Promise.allSettled([p0, p1, p2, p3]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).to.deep.equal(['ok', 'boom', 'boom', 'after']);
  });

  it('settles a write whose start throws, and runs the next', async () => {
    const lanes = new LightLanes<string>((r) => `${r} (replaced)`);
    const p0 = lanes.inTurn('L', undefined, () => {
      throw new Error('thrown');
    });
    const p1 = lanes.inTurn('L', undefined, () => Promise.resolve('next'));
    const settled = await Promise.allSettled([p0, p1]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).to.deep.equal(['thrown', 'next']);
  });
});

describe('A flood of confirmed writes to one light', function () {
  this.timeout(20_000);
  const BULB = 'd073d5000001';
  let rig: ServiceRig;
  afterEach(() => rig?.close());

  /** The most messages the light received in any one second. */
  const mostInASecond = (atMs: readonly number[]): number => {
    let most = 0;
    for (let i = 0, j = 0; i < atMs.length; i++) {
      while (atMs[i]! - atMs[j]! >= 1000) j++;
      most = Math.max(most, i - j + 1);
    }
    return most;
  };

  const desk = (power: 'on' | 'off') => ({ lights: [{ serial: BULB, product: 91, label: 'Desk', power, color: { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 } }] });

  it('latest wins: ends in the newest state within the vendor pacing, skipping writes replaced while they waited', async () => {
    rig = await serviceRig(desk('on'));
    rig.fleet.clearRecords();
    const hues = Array.from({ length: 60 }, (_, i) => (i * 6) % 360);
    const results = await Promise.all(
      hues.map((hue) => rig.service.setState(`id:${BULB}`, { power: 'on', color: { hue, saturation: 1 }, brightness: 0.5, durationS: 0 }, { latestWins: true })),
    );
    // Every caller hears ok: its write ran, or was replaced by a newer one that set all it asked and ran.
    expect(results.map((r) => r[0]!.status)).to.deep.equal(hues.map(() => 'ok'));
    // The first ran at once, the last ran in the second's place, every one between was replaced while it waited.
    expect(results.map((r) => r[0]!.superseded === true)).to.deep.equal(hues.map((_, i) => i > 0 && i < hues.length - 1));
    const light = rig.fleet.light(BULB);
    expect(Math.round(light.state.color.hue)).to.equal(hues.at(-1));
    const colours = light.received().filter((p) => p.name === 'SetColor' || p.name === 'SetWaveformOptional');
    expect(colours.length).to.equal(2);
    // A stream trusts the power it confirmed within the last second: at most one SetLightPower, not one a colour.
    expect(light.receivedCount('SetLightPower')).to.be.at.most(1);
    expect(mostInASecond(light.received().map((p) => p.atMs))).to.be.at.most(20);
  });

  it('latest wins: still sends a waiting write that sets a field the newer one does not', async () => {
    rig = await serviceRig(desk('off'));
    const latest = { latestWins: true };
    const [first, power, color] = await Promise.all([
      rig.service.setState(`id:${BULB}`, { brightness: 0.3, durationS: 0 }, latest),
      rig.service.setState(`id:${BULB}`, { power: 'on', durationS: 0 }, latest),
      rig.service.setState(`id:${BULB}`, { color: { hue: 240, saturation: 1 }, durationS: 0 }, latest),
    ]);
    expect([first[0], power[0], color[0]].map((r) => [r!.status, r!.superseded ?? false])).to.deep.equal([
      ['ok', false],
      ['ok', false],
      ['ok', false],
    ]);
    const s = rig.fleet.light(BULB).state;
    expect([s.power, Math.round(s.color.hue), Math.round(s.color.brightness * 100) / 100]).to.deep.equal(['on', 240, 0.3]);
  });

  it('latest wins: trusts power confirmed within the last second, and sends it again once that is older', async () => {
    rig = await serviceRig(desk('off'));
    const latest = { latestWins: true };
    await rig.service.setState(`id:${BULB}`, { power: 'on', color: { hue: 10, saturation: 1 }, durationS: 0 }, latest);
    const light = rig.fleet.light(BULB);
    // The vendor's app switches it off; a stream's next colour, within the second, does not send power again.
    light.setState({ power: 'off' });
    light.clearRecords();
    await rig.service.setState(`id:${BULB}`, { power: 'on', color: { hue: 20, saturation: 1 }, durationS: 0 }, latest);
    expect(light.receivedCount('SetLightPower')).to.equal(0);
    // Once the power the service knows is older than STREAM_TRUST_MS, it goes out with the colour again.
    const readAt = rig.client.registry.get(BULB)!.facts.power!.readAt;
    await until(() => Date.now() - readAt > STREAM_TRUST_MS + 20, { what: 'the power older than the trust' });
    const results = await rig.service.setState(`id:${BULB}`, { power: 'on', color: { hue: 30, saturation: 1 }, durationS: 0 }, latest);
    expect(results.map((r) => r.status)).to.deep.equal(['ok']);
    expect(light.receivedCount('SetLightPower')).to.equal(1);
    expect([light.state.power, Math.round(light.state.color.hue)]).to.deep.equal(['on', 30]);
  });

  it('latest wins: a stream of part colours keeps each zone\'s own kelvin without reading the zones before every write', async () => {
    const STRIP = 'd073d5000009';
    const warm = { hue: 0, saturation: 0, brightness: 1, kelvin: 2700 };
    const cool = { ...warm, kelvin: 5000 };
    rig = await serviceRig({
      lights: [{ serial: STRIP, product: 38, label: 'Beam', firmware: { major: 3, minor: 70 }, zoneCount: 16, power: 'on', color: warm }],
    });
    const strip = rig.fleet.light(STRIP);
    // Another app paints half the zones cool; once what the service read is older than a stream trusts, the
    // stream's first write reads the zones, and keeps each zone's kelvin.
    strip.setState({ zones: Array.from({ length: 16 }, (_, i) => (i < 8 ? warm : cool)) });
    const readAt = rig.client.registry.get(STRIP)!.facts.zones?.readAt ?? 0;
    await until(() => Date.now() - readAt > STREAM_TRUST_MS + 20, { what: 'the zones older than a stream trusts' });
    strip.clearRecords();
    for (const hue of [20, 40, 60, 80, 100, 120]) {
      const results = await rig.service.setState(`id:${STRIP}`, { color: { hue, saturation: 0.5 }, durationS: 0 }, { latestWins: true });
      expect(results[0]!.status).to.equal('ok');
    }
    // Read before the first write (a background read may have come first); the stream's own writes painted them
    // since, so none read them after the first went out.
    const got = strip.received().map((p) => p.name ?? '');
    const firstSet = got.findIndex((n) => n.startsWith('Set'));
    expect(got.slice(0, firstSet).filter((n) => n.includes('ColorZones')).length).to.be.at.least(1);
    expect(got.slice(firstSet).filter((n) => n.startsWith('Get') && n.includes('ColorZones'))).to.deep.equal([]);
    expect(got.filter((n) => n.startsWith('Set')).length).to.equal(6);
    expect(strip.state.zones!.map((z) => [Math.round(z.hue), z.kelvin])).to.deep.equal(Array.from({ length: 16 }, (_, i) => [120, i < 8 ? 2700 : 5000]));
  });

  it('by default runs every write in turn, each planned from the one before, so ok means the light took it', async () => {
    rig = await serviceRig(desk('on'));
    rig.fleet.clearRecords();
    const hues = [30, 60, 90, 120, 150, 180];
    const results = await Promise.all(hues.map((hue) => rig.service.setState(`id:${BULB}`, { color: { hue, saturation: 1 }, durationS: 0 })));
    expect(results.map((r) => [r[0]!.status, r[0]!.superseded ?? false])).to.deep.equal(hues.map(() => ['ok', false]));
    const light = rig.fleet.light(BULB);
    const sent = light.received().filter((p) => p.name === 'SetColor' || p.name === 'SetWaveformOptional');
    expect(sent).to.have.length(hues.length);
    // In turn: each colour went out after the one before it was acknowledged, and none was read first.
    expect(light.receivedCount('GetColor')).to.equal(0);
    expect(Math.round(light.state.color.hue)).to.equal(180);
  });
});
