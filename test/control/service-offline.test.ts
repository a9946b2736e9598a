// Lights that stop answering, and lights that never did: listed only once read, offline within one refresh
// interval (whatever discovery hears from them), shown as last read, and writes to them answer `offline` at once.

import { expect } from 'chai';
import { LightService, type LightView } from '../../core/index.js';
import { Fleet } from '../../core/simulator/index.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';
import { isLightwireError } from '../../core/errors.js';
import { until } from '../helpers/wait.js';

const BROADCAST = '127.255.255.255';
const DESK = 'd073d5000001';
const HALL = 'd073d5000002';

const lights: LightInput[] = [
  { serial: DESK, product: 91, label: 'Desk', power: 'on', color: { hue: 200, saturation: 0.5, brightness: 0.7, kelvin: 3500 } },
  { serial: HALL, product: 91, label: 'Hall', power: 'on', color: { hue: 30, saturation: 1, brightness: 0.4, kelvin: 3500 } },
];

const REFRESH_MS = 800;
const READ_TIMEOUT_MS = 150;

describe('LightService and lights that do not answer', function () {
  this.timeout(20_000);
  let fleet: Fleet;
  let service: LightService | undefined;

  afterEach(async () => {
    await service?.stop();
    service = undefined;
    await fleet.stop();
  });

  async function start(input: LightInput[], extra: { refreshIntervalMs?: number; readyTimeoutMs?: number; deadlineMs?: number } = {}): Promise<LightService> {
    fleet = new Fleet({ lights: input }, { port: 0 });
    await fleet.start();
    service = await LightService.start({
      discovery: {
        broadcastAddresses: [BROADCAST],
        port: fleet.port,
        burstScheduleMs: [0, 100],
        // Discovery keeps hearing every light: its StateService replies must not keep a silent light online.
        heartbeatMs: 100,
        refreshIntervalMs: extra.refreshIntervalMs ?? REFRESH_MS,
        readTimeoutMs: READ_TIMEOUT_MS,
        offlineAfterMisses: 3,
      },
      transport: { requestTimeoutMs: 1000 },
      readyTimeoutMs: extra.readyTimeoutMs ?? 10_000,
      ...(extra.deadlineMs === undefined ? {} : { deadlineMs: extra.deadlineMs }),
    });
    await service.ready;
    return service;
  }

  it('marks a light that stops answering reads offline within one refresh interval, though it answers discovery', async () => {
    const s = await start(lights);
    const before = s.list(`id:${HALL}`)[0]!;
    expect(before.connected).to.equal(true);
    const offline: LightView[] = [];
    s.on('offline', (v) => offline.push(v));
    fleet.light(HALL).setFaults({ unresponsive: true });
    const since = Date.now();
    await until(() => offline.length > 0, { timeoutMs: 4 * REFRESH_MS, what: 'an offline event' });
    expect(offline.map((v) => v.serial)).to.deep.equal([HALL]);
    // The first read after the fault comes within one interval (with jitter), the misses within one more at most.
    expect(Date.now() - since).to.be.below(2 * REFRESH_MS);
    const firstMiss = fleet.light(HALL).received('GetColor').find((p) => p.atMs >= since)!;
    expect(Date.now() - firstMiss.atMs).to.be.below(REFRESH_MS);
    // Discovery still hears it: it stays offline, shown as last read.
    await until(() => fleet.light(HALL).receivedCount('GetService') > 2, { what: 'discovery to hear it again' });
    expect(fleet.light(HALL).receivedCount('GetService')).to.be.greaterThan(2);
    const after = s.list(`id:${HALL}`)[0]!;
    expect(after.connected).to.equal(false);
    expect({ ...after, connected: true, last_seen: '', seconds_since_seen: 0 }).to.deep.equal({ ...before, last_seen: '', seconds_since_seen: 0 });
    expect(after.product.name).to.equal('LIFX Color 800lm');
    expect(after.power).to.equal('on');
    expect(after.brightness).to.be.closeTo(0.4, 0.0001);
  });

  it('answers offline at once for a write to an offline light, and ok for the others', async () => {
    const s = await start(lights);
    fleet.light(HALL).setFaults({ unresponsive: true });
    const since = Date.now();
    await until(() => !s.light(HALL)!.online, { timeoutMs: 4 * REFRESH_MS, what: 'Hall offline' });
    expect(s.light(HALL)!.online).to.equal(false);
    fleet.clearRecords();
    const started = performance.now();
    const results = await s.setState('all', { power: 'off', durationS: 0 });
    expect(performance.now() - started).to.be.below(500);
    expect(results.map((r) => [r.id, r.status])).to.deep.equal([
      [DESK, 'ok'],
      [HALL, 'offline'],
    ]);
    expect(fleet.light(HALL).receivedCount('SetLightPower')).to.equal(0);
  });

  it('keeps a light that answers online when a flood of our own writes times out in its queue', async () => {
    // 40 confirmed writes at once to one light, 400 ms each, none setting all that the one before it sets (so none
    // replaces another while it waits): they run in turn at the light's pace, and most wait past their deadline and
    // answer timed_out. The light answered the ones that went out: it is not offline.
    const s = await start(lights, { refreshIntervalMs: 0, deadlineMs: 400 });
    const offline: LightView[] = [];
    s.on('offline', (v) => offline.push(v));
    fleet.clearRecords();
    const flood = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        s.setState(`id:${DESK}`, i % 2 === 0 ? { brightness: 0.2 + i / 100, durationS: 0 } : { power: 'on', durationS: 0 }),
      ),
    );
    const statuses = flood.map((r) => r[0]!.status);
    expect(statuses.filter((st) => st === 'timed_out').length).to.be.greaterThan(10);
    // Each write planned from what the one before it left: the light's messages went to the writes themselves.
    expect(fleet.light(DESK).receivedCount('GetColor')).to.be.at.most(2);
    // A write that timed out waiting its turn was never sent: the light got one message a write that ran.
    const sent = fleet.light(DESK).receivedCount('SetColor') + fleet.light(DESK).receivedCount('SetWaveformOptional') + fleet.light(DESK).receivedCount('SetLightPower');
    expect(sent).to.be.at.most(statuses.filter((st) => st === 'ok').length + 2);
    expect(statuses.filter((st) => st === 'ok').length).to.be.at.least(4);
    expect(statuses.filter((st) => st !== 'ok' && st !== 'timed_out')).to.deep.equal([]);
    expect(offline).to.deep.equal([]);
    expect(s.light(DESK)!.online).to.equal(true);
    // Every other caller's write still goes out.
    const after = await s.setState(`id:${DESK}`, { power: 'off', durationS: 0 });
    expect(after.map((r) => r.status)).to.deep.equal(['ok']);
    expect(fleet.light(DESK).state.power).to.equal('off');
  });

  it('comes back online when it answers reads again', async () => {
    const s = await start(lights);
    fleet.light(HALL).setFaults({ unresponsive: true });
    const since = Date.now();
    await until(() => !s.light(HALL)!.online, { timeoutMs: 4 * REFRESH_MS, what: 'Hall offline' });
    expect(s.light(HALL)!.online).to.equal(false);
    const online: LightView[] = [];
    s.on('online', (v) => online.push(v));
    fleet.light(HALL).setFaults({ unresponsive: false });
    const back = Date.now();
    await until(() => online.length > 0, { timeoutMs: 4 * REFRESH_MS, what: 'an online event' });
    expect(online.map((v) => v.serial)).to.deep.equal([HALL]);
    expect(s.light(HALL)!.online).to.equal(true);
  });

  it('lists a light only once its state was read: not on a discovery reply alone', async () => {
    const added: string[] = [];
    const startedAt = Date.now();
    // HALL answers discovery but no read from the start.
    const s = await start([lights[0]!, { ...lights[1]!, faults: { unresponsive: true } }], { refreshIntervalMs: 0, readyTimeoutMs: 10_000 });
    s.on('added', (v) => added.push(v.serial));
    // Ready did not wait for the light that never answered a read.
    expect(Date.now() - startedAt).to.be.below(5_000);
    expect(s.diagnostics().devices.find((d) => d.serial === HALL)).to.include({ read: false });
    expect(s.views().map((v) => v.serial)).to.deep.equal([DESK]);
    expect(s.light(HALL)).to.equal(undefined);
    expect(s.list().map((l) => l.id)).to.deep.equal([DESK]);
    const err = await s.setState(`id:${HALL}`, { power: 'on' }).then(() => null, (e: unknown) => e);
    expect(isLightwireError(err, 'LIGHTS_NOT_FOUND')).to.equal(true);
    // Once a read succeeds it is known, and announced.
    fleet.light(HALL).setFaults({ unresponsive: false });
    await s.refreshLight(HALL);
    expect(added).to.deep.equal([HALL]);
    expect(s.list(`id:${HALL}`)[0]).to.deep.include({ label: 'Hall', connected: true, power: 'on' });
  });
});
