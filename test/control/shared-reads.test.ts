// A write's read and the client's background state read (refresh schedule, first read, refreshState) of one light
// share one read, whichever was asked first: the light is asked GetColor and its zones once, not twice in a row in
// its pacing lane, where each request is a turn of ~66 ms once the light is busy (a strip refreshed as a write to it
// was asked timed out under a 300 ms deadline, the Node-RED example with a 0.3 s timeout).

import { expect } from 'chai';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';
import { until } from '../helpers/wait.js';

const STRIP = 'd073d5000010';
const lights = [
  { serial: STRIP, product: 32, label: 'Strip', firmware: { major: 2, minor: 80 }, zoneCount: 16, power: 'on' as const, color: { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 } },
];
/** Not a whole colour (no hue): a strip's zones are read before it is painted (planner.usesZones). */
const WARM = { power: 'on' as const, color: 'kelvin:2700', brightness: 0.8, durationS: 0 };
/** A read is on its way for two round trips (GetColor, then the zones), under the first retransmission (200 ms). */
const LATENCY_MS = 150;

describe('Shared state reads: a write and a background read of one light', function () {
  this.timeout(20_000);
  let rig: ServiceRig;
  afterEach(() => rig?.close());

  /** The rig, once the first read's zones (read in the background once the product is known) are in. */
  const start = async (): Promise<void> => {
    rig = await serviceRig({ lights });
    await until(() => rig.client.registry.peek(STRIP)?.facts.zones !== undefined, { what: "the strip's zones read" });
    rig.fleet.light(STRIP).setFaults({ latencyMs: LATENCY_MS });
    rig.fleet.clearRecords();
  };
  const count = (name: 'GetColor' | 'GetExtendedColorZones'): number => rig.fleet.light(STRIP).receivedCount(name);
  const paintedWarm = (): void => {
    const s = rig.fleet.light(STRIP).state;
    expect([s.power, s.color.kelvin, s.color.brightness, s.color.saturation]).to.deep.equal(['on', 2700, 0.8, 0]);
  };

  it('a write asked while a background read is on its way plans from that read, sending none of its own', async () => {
    await start();
    const background = rig.client.refreshState(STRIP);
    await until(() => count('GetColor') === 1, { what: 'the background read on its way' });
    const results = await rig.service.setState(`id:${STRIP}`, WARM);
    await background;
    expect(results.map((r) => r.status)).to.deep.equal(['ok']);
    expect([count('GetColor'), count('GetExtendedColorZones')]).to.deep.equal([1, 1]);
    paintedWarm();
  });

  it('a background read asked while a write reads the light joins that read', async () => {
    await start();
    const write = rig.service.setState(`id:${STRIP}`, WARM);
    await until(() => count('GetColor') === 1, { what: "the write's read on its way" });
    await rig.client.refreshState(STRIP);
    const results = await write;
    expect(results.map((r) => r.status)).to.deep.equal(['ok']);
    expect([count('GetColor'), count('GetExtendedColorZones')]).to.deep.equal([1, 1]);
    paintedWarm();
  });

  it('a write asked after a confirmed Set began since the background read was asked reads again', async () => {
    await start();
    const background = rig.client.refreshState(STRIP);
    await until(() => count('GetColor') === 1, { what: 'the background read on its way' });
    const set = rig.client.requester.set(rig.client.addressOf(STRIP)!, 'SetLightPower', { level: 0, durationMs: 0 }, { coalesceKey: false });
    const results = await rig.service.setState(`id:${STRIP}`, WARM);
    await Promise.all([background, set]);
    expect(results.map((r) => r.status)).to.deep.equal(['ok']);
    // Its own read, after the Set: the background one was asked before it and may not show what it did.
    expect(count('GetColor')).to.equal(2);
    paintedWarm();
  });
});
