// The LIFX Switch is no light (it answers Light messages with StateUnhandled): the service reads its label and
// power with device messages from the first read on, keeps it out of light selectors, and offers its relays.

import { expect } from 'chai';
import { LightService, LightwireError } from '../../core/index.js';
import { Fleet } from '../../core/simulator/index.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';
import { until } from '../helpers/wait.js';

const BROADCAST = '127.255.255.255';
const BULB = 'd073d5000001';
const SWITCH = 'd073d5000030';

const lights: LightInput[] = [
  { serial: BULB, product: 91, label: 'Desk', power: 'off' },
  { serial: SWITCH, product: 70, label: 'Hall switch', power: 'on' },
];

describe('LightService and the LIFX Switch', function () {
  this.timeout(20_000);
  let fleet: Fleet;
  let service: LightService;

  beforeEach(async () => {
    fleet = new Fleet({ lights }, { port: 0 });
    await fleet.start();
    service = await LightService.start({
      discovery: { broadcastAddresses: [BROADCAST], port: fleet.port, burstScheduleMs: [0, 200], refreshIntervalMs: 0 },
      transport: { requestTimeoutMs: 2000 },
      deadlineMs: 1500,
    });
    await service.ready;
  });
  afterEach(async () => {
    await service.stop();
    await fleet.stop();
  });

  it('reads its label and power with device messages in the first read', () => {
    const view = service.light(SWITCH)!;
    expect(view).to.include({ label: 'Hall switch', power: 'on', color: null });
    expect(view.capabilities).to.include({ isLight: false, relays: true });
    const sw = fleet.light(SWITCH);
    expect(sw.receivedCount('GetLabel')).to.be.at.least(1);
    expect(sw.receivedCount('GetPower')).to.be.at.least(1);
  });

  it('is visible to the service but left out of light selectors: `all` writes only lights, all ok', async () => {
    expect(service.views().map((v) => v.serial)).to.deep.equal([BULB, SWITCH]);
    expect(service.list().map((l) => l.id)).to.deep.equal([BULB]);
    fleet.clearRecords();
    const results = await service.setState('all', { power: 'on', durationS: 0 });
    expect(results).to.deep.equal([{ id: BULB, label: 'Desk', status: 'ok' }]);
    expect(fleet.light(SWITCH).receivedTotal).to.equal(0);
    const err = await service.setState(`id:${SWITCH}`, { power: 'off' }).then(() => null, (e: unknown) => e);
    expect((err as LightwireError).code).to.equal('LIGHTS_NOT_FOUND');
  });

  it('reads and switches its relays', async () => {
    expect(await service.relays(SWITCH)).to.deep.equal([0, 1, 2, 3].map((index) => ({ index, on: false })));
    const result = await service.setRelayPower(SWITCH, 2, true);
    expect(result).to.deep.equal({ id: SWITCH, label: 'Hall switch', status: 'ok' });
    expect(fleet.light(SWITCH).state.relays).to.deep.equal(['off', 'off', 'on', 'off']);
    expect((await service.relays(SWITCH)).map((r) => r.on)).to.deep.equal([false, false, true, false]);
    await service.setRelayPower(SWITCH, 2, false, { fast: true });
    // Fast: accepted at once, on the light at its turn.
    await until(() => fleet.light(SWITCH).state.relays![2] === 'off', { what: 'relay 2 off on the light' });
    expect(fleet.light(SWITCH).state.relays).to.deep.equal(['off', 'off', 'off', 'off']);
  });

  it('reports its relays in its view from the first read on, and a relay switched at once, with a changed event', async () => {
    expect(service.light(SWITCH)!.relays).to.deep.equal([0, 1, 2, 3].map((index) => ({ index, on: false })));
    expect(service.light(BULB)!.relays).to.equal(null);
    const changes: string[][] = [];
    service.on('changed', (v, fields) => v.serial === SWITCH && changes.push([...fields]));
    await service.setRelayPower(SWITCH, 1, true);
    expect(service.light(SWITCH)!.relays!.map((r) => r.on)).to.deep.equal([false, true, false, false]);
    expect(changes.flat()).to.include('relays');
  });

  it('refuses relay operations on a light, an unknown serial or a bad relay index, with coded errors', async () => {
    const codeOf = (p: Promise<unknown>): Promise<string | undefined> =>
      p.then(() => undefined, (e: unknown) => (e instanceof LightwireError ? e.code : 'uncoded'));
    expect(await codeOf(service.relays(BULB))).to.equal('CAPABILITY_MISSING');
    expect(await codeOf(service.setRelayPower('d073d5ffffff', 0, true))).to.equal('LIGHTS_NOT_FOUND');
    expect(await codeOf(service.setRelayPower(SWITCH, 4, true))).to.equal('PARAMETER_INVALID');
    expect(await codeOf(service.setRelayPower(SWITCH, 0, 'on' as never))).to.equal('PARAMETER_INVALID');
  });

  it('answers offline at once for a relay write to a switch that went offline', async () => {
    fleet.light(SWITCH).setFaults({ offline: true });
    // Reads fail until the switch is marked offline (three misses).
    for (let i = 0; i < 3; i++) await service.refreshLight(SWITCH, { timeoutMs: 100 });
    expect(service.light(SWITCH)!.online).to.equal(false);
    const started = performance.now();
    expect((await service.setRelayPower(SWITCH, 0, true)).status).to.equal('offline');
    expect(performance.now() - started).to.be.below(100);
  });
});
