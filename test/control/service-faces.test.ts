// The members faces use instead of the service's client: a write to one light by serial, a read of one device now,
// the diagnostics of what was heard, the doctor's report, and "all results ok". Virtual lights on loopback.

import { expect } from 'chai';
import { allOk, isLightwireError, type LightResult } from '../../core/index.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';

const BULB = 'd073d5000001';
const LAMP = 'd073d5000002';
const SWITCH = 'd073d5000003';

const lights: LightInput[] = [
  { serial: BULB, product: 91, label: 'Desk', power: 'off', color: { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 } },
  { serial: LAMP, product: 91, label: 'Lamp', power: 'on', color: { hue: 60, saturation: 1, brightness: 0.4, kelvin: 3500 } },
  { serial: SWITCH, product: 70, label: 'Hall Switch', firmware: { major: 3, minor: 70 } },
];

const codeOf = (p: Promise<unknown>): Promise<string> => p.then(() => 'resolved', (e: unknown) => (isLightwireError(e) ? e.code : String(e)));

describe('LightService: what the faces use instead of its client', function () {
  this.timeout(20_000);
  let rig: ServiceRig;
  beforeEach(async () => {
    rig = await serviceRig({ lights });
  });
  afterEach(() => rig.close());

  it('setLightState writes to one light by its serial, as setState does with its id: selector', async () => {
    const results = await rig.service.setLightState(BULB, { power: 'on', color: 'blue', durationS: 0 });
    expect(results).to.deep.equal([{ id: BULB, label: 'Desk', status: 'ok' }]);
    expect(rig.fleet.light(BULB).state).to.deep.include({ power: 'on' });
    expect(rig.fleet.light(BULB).state.color.hue).to.be.closeTo(250, 0.5);
    // The other light is not touched; an upper-case serial names the same light.
    expect(rig.fleet.light(LAMP).received('SetColor')).to.have.length(0);
    expect(await rig.service.setLightState(BULB.toUpperCase(), { power: 'off', durationS: 0 })).to.deep.equal([{ id: BULB, label: 'Desk', status: 'ok' }]);
    expect(rig.fleet.light(BULB).state.power).to.equal('off');
  });

  it('setLightState refuses a serial it has no light for (a LIFX Switch is none), and a bad request before anything is sent', async () => {
    expect(await codeOf(rig.service.setLightState('d073d50000ff', { power: 'on' }))).to.equal('LIGHTS_NOT_FOUND');
    expect(await codeOf(rig.service.setLightState(SWITCH, { power: 'on' }))).to.equal('LIGHTS_NOT_FOUND');
    expect(await codeOf(rig.service.setLightState(BULB, { brightness: 2 }))).to.equal('PARAMETER_INVALID');
    expect(rig.fleet.light(BULB).received().filter((p) => p.name?.startsWith('Set') === true)).to.have.length(0);
  });

  it('refreshLight reads one device now and gives its view: a light, and a Switch with its relays', async () => {
    rig.fleet.light(LAMP).setState({ power: 'off' });
    expect(rig.service.light(LAMP)!.power).to.equal('on');
    const view = await rig.service.refreshLight(LAMP, { timeoutMs: 1000 });
    expect(view!.power).to.equal('off');
    expect(rig.fleet.light(BULB).received('GetColor')).to.have.length(0);
    rig.fleet.light(SWITCH).setState({ relays: ['on', 'off', 'on', 'off'] });
    const device = await rig.service.refreshLight(SWITCH);
    expect(device!.relays).to.deep.equal([
      { index: 0, on: true },
      { index: 1, on: false },
      { index: 2, on: true },
      { index: 3, on: false },
    ]);
    expect(await rig.service.refreshLight('d073d50000ff')).to.equal(undefined);
    expect(await codeOf(rig.service.refreshLight(LAMP, { timeoutMs: 0 }))).to.equal('PARAMETER_INVALID');
  });

  it('diagnostics gives the discovery settings and every device heard, with its address and port', () => {
    const { discovery, devices } = rig.service.diagnostics();
    expect(discovery.port).to.equal(rig.fleet.port);
    expect(discovery.broadcastAddresses).to.deep.equal(['127.255.255.255']);
    expect(devices.map((d) => d.serial)).to.deep.equal([BULB, LAMP, SWITCH]);
    for (const d of devices) {
      expect(d).to.include({ port: rig.fleet.port, online: true, read: true });
      expect(d.address).to.match(/^127\.0\.0\.\d+$/);
    }
  });

  it('doctorReport judges the service\'s lights from its own transport figures', async () => {
    const report = await rig.service.doctorReport();
    expect(report.probeCount).to.equal(0);
    expect(report.lights.map((l) => l.serial)).to.deep.equal([BULB, LAMP, SWITCH]);
    const desk = report.lights.find((l) => l.serial === BULB)!;
    expect(desk).to.include({ online: true, label: 'Desk' });
    expect(desk.requests).to.be.above(0);
    expect(await codeOf(rig.service.doctorReport({ probeCount: -1 }))).to.equal('OPTIONS_INVALID');
  });

  it('allOk: every light answered ok, and there was at least one', () => {
    const r = (status: LightResult['status']): LightResult => ({ id: BULB, label: 'Desk', status });
    expect(allOk([r('ok'), r('ok')])).to.equal(true);
    expect(allOk([r('ok'), r('timed_out')])).to.equal(false);
    expect(allOk([r('offline')])).to.equal(false);
    expect(allOk([])).to.equal(false);
  });
});
