import dgram from 'node:dgram';
import { expect } from 'chai';
import sinon from 'sinon';
import { isLightwireError } from '../../core/errors.js';
import { PACING_WINDOW_MS } from '../../core/transport/pacer.js';
import { hsbkToWire } from '../../core/protocol/index.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';
import { until } from '../helpers/wait.js';

const BULB = 'd073d5000001';
const WHITE = 'd073d5000002';
const STRIP = 'd073d5000003';
const SECOND_BULB = 'd073d5000004';

const lights: LightInput[] = [
  { serial: BULB, product: 91, label: 'Desk', power: 'off', color: { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 }, group: { label: 'Office' } },
  { serial: WHITE, product: 125, label: 'Hall', power: 'on', color: { hue: 0, saturation: 0, brightness: 0.5, kelvin: 2700 }, group: { label: 'Hallway' } },
  { serial: STRIP, product: 32, label: 'Shelf', firmware: { major: 2, minor: 80 }, zoneCount: 16, power: 'on', color: { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 }, group: { label: 'Office' } },
  { serial: SECOND_BULB, product: 91, label: 'Desk', power: 'on', color: { hue: 60, saturation: 1, brightness: 0.4, kelvin: 3500 }, group: { label: 'Bedroom' } },
];

describe('LightService against virtual lights', function () {
  this.timeout(20_000);
  let rig: ServiceRig;
  beforeEach(async () => {
    rig = await serviceRig({ lights });
  });
  afterEach(() => rig.close());

  it('turns an off red light on in blue by sending the colour first, waiting for its ack, then power', async () => {
    const results = await rig.service.setState(`id:${BULB}`, { power: 'on', color: 'blue', durationS: 0.5 });
    expect(results).to.deep.equal([{ id: BULB, label: 'Desk', status: 'ok' }]);
    const received = rig.fleet.light(BULB).received().map((p) => p.name);
    const writes = received.filter((n) => n === 'SetColor' || n === 'SetLightPower' || n === 'SetPower');
    expect(writes).to.deep.equal(['SetColor', 'SetLightPower']);
    expect(received.indexOf('GetColor')).to.be.lessThan(received.indexOf('SetColor'));
    const setColor = rig.fleet.light(BULB).received('SetColor')[0]!;
    const setPower = rig.fleet.light(BULB).received('SetLightPower')[0]!;
    expect(setColor.payload).to.deep.include({ durationMs: 0 });
    expect((setColor.payload as { color: { hue: number } }).color.hue).to.equal(hsbkToWire({ hue: 250, saturation: 1, brightness: 1, kelvin: 3500 }).hue);
    expect(setPower.payload).to.deep.equal({ level: 65535, durationMs: 500 });
    expect(setPower.atMs).to.be.at.least(setColor.atMs);
    // The 0.5 s power transition ends with the light on and blue.
    await until(() => rig.fleet.light(BULB).state.power === 'on' && Math.abs(rig.fleet.light(BULB).state.color.hue - 250) < 0.1, { what: 'the light on and blue' });
    const state = rig.fleet.light(BULB).state;
    expect(state.power).to.equal('on');
    expect(state.color.hue).to.be.closeTo(250, 0.1);
  });

  it('shows a light heard from again with its new lastSeenAt and everything else as it was; a fast set of every light plans from it', async () => {
    const before = rig.service.light(BULB)!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    rig.client.registry.heard(BULB, before.address);
    const after = rig.service.light(BULB)!;
    expect(after.lastSeenAt).to.be.greaterThan(before.lastSeenAt);
    expect(Object.isFrozen(after)).to.equal(true);
    expect({ ...after, lastSeenAt: 0 }).to.deep.equal({ ...before, lastSeenAt: 0 });
    expect(Object.keys(after)).to.deep.equal(Object.keys(before));
    rig.client.registry.heard(BULB, before.address);
    const results = await rig.service.setState('all', { power: 'on', color: 'green', durationS: 0 }, { fast: true });
    expect(results.map((r) => `${r.id} ${r.label} ${r.status}`)).to.deep.equal([`${BULB} Desk ok`, `${SECOND_BULB} Desk ok`, `${WHITE} Hall ok`, `${STRIP} Shelf ok`]);
    await until(() => rig.fleet.light(BULB).state.power === 'on' && Math.abs(rig.fleet.light(BULB).state.color.hue - 120) < 0.1, { what: 'the light on and green' });
  });

  it('leaves power alone and keeps unsupplied colour components when no power is asked for', async () => {
    await rig.service.setState(`id:${SECOND_BULB}`, { color: 'saturation:0.5', durationS: 0 });
    const light = rig.fleet.light(SECOND_BULB);
    expect(light.received('SetLightPower')).to.have.length(0);
    expect(light.received('SetPower')).to.have.length(0);
    const state = light.state;
    expect(state.power).to.equal('on');
    expect(state.color.hue).to.be.closeTo(60, 0.1);
    expect(state.color.saturation).to.be.closeTo(0.5, 0.001);
    expect(state.color.brightness).to.be.closeTo(0.4, 0.001);
  });

  it('tells every member of a group that was renamed through one of them, not only that one', async () => {
    await rig.service.start();
    const heard: [string, string | undefined, readonly string[]][] = [];
    rig.service.on('changed', (view, fields) => heard.push([view.serial, view.group?.name, fields]));
    const office = rig.fleet.light(BULB).state.group;
    rig.fleet.light(BULB).setState({ group: { id: office.id, label: 'Study' } });
    await rig.client.refreshInfo(BULB);
    expect(rig.service.light(STRIP)!.group!.name).to.equal('Study');
    const renamed = heard.filter(([, , fields]) => fields.includes('group'));
    expect(renamed.find(([serial]) => serial === STRIP)).to.deep.equal([STRIP, 'Study', ['group']]);
    expect(renamed.find(([serial]) => serial === BULB)?.[1]).to.equal('Study');
    expect(renamed.map(([serial]) => serial).sort()).to.deep.equal([BULB, STRIP]);
  });

  it('answers one result per light of a label shared by two lights', async () => {
    const results = await rig.service.setState('label:Desk', { brightness: 0.7, durationS: 0 });
    expect(results.map((r) => r.id).sort()).to.deep.equal([BULB, SECOND_BULB]);
    expect(results.every((r) => r.status === 'ok')).to.equal(true);
  });

  it('reports timed_out for a light that stopped answering and ok for the others, without hanging', async () => {
    rig.fleet.light(SECOND_BULB).setFaults({ unresponsive: true });
    const started = performance.now();
    const results = await rig.service.setState('all', { power: 'on', durationS: 0 });
    const bySerial = Object.fromEntries(results.map((r) => [r.id, r.status]));
    expect(bySerial).to.deep.equal({ [BULB]: 'ok', [WHITE]: 'ok', [STRIP]: 'ok', [SECOND_BULB]: 'timed_out' });
    expect(performance.now() - started).to.be.below(6000);
  });

  it('sends only end-state messages in fast mode, with no read', async () => {
    const results = await rig.service.setState(`id:${BULB}`, { power: 'on', color: 'red brightness:1 kelvin:3500' }, { fast: true });
    expect(results[0]!.status).to.equal('ok');
    // Accepted at once; they go out at the light's pace (it was just read: its next turns are a few hundred ms away).
    const light = rig.fleet.light(BULB);
    await until(() => light.receivedCount('SetLightPower') > 0, { timeoutMs: 1000, what: 'the SetLightPower at its turn' });
    const names = light.received().map((p) => p.name);
    expect(names).to.not.include('GetColor');
    expect(names).to.include.members(['SetColor', 'SetLightPower']);
  });

  it('hands every datagram of a fast run to the socket before the registry and its events learn of it', async () => {
    // Quiet lights (their pacing budget refilled): the last read of each was answered (so asked) a whole
    // PACING_WINDOW_MS ago, so the whole run goes out within the call.
    const lastAnswerAt = (serial: string): number => Math.max(...Object.values(rig.client.registry.get(serial)!.facts).map((f) => f.readAt));
    await until(() => lights.every((l) => Date.now() - lastAnswerAt(l.serial) >= PACING_WINDOW_MS), { what: 'every light quiet for a pacing window' });
    const send = sinon.spy(dgram.Socket.prototype, 'send');
    const sendsAtChange: number[] = [];
    const onChanged = (): void => void sendsAtChange.push(send.callCount);
    rig.service.on('changed', onChanged);
    try {
      const results = await rig.service.setState('all', { power: 'on', color: 'hue:200 saturation:1 brightness:0.7' }, { fast: true });
      expect(results.map((r) => r.status)).to.deep.equal(['ok', 'ok', 'ok', 'ok']);
      const sent = send.callCount;
      expect(sent).to.be.at.least(lights.length + 1);
      expect(sendsAtChange).to.not.be.empty;
      expect(sendsAtChange[0]).to.equal(sent);
    } finally {
      rig.service.off('changed', onChanged);
      send.restore();
    }
  });

  it('rejects bad requests with coded errors before sending anything', async () => {
    const codeOf = async (p: () => Promise<unknown>): Promise<string | undefined> =>
      p().then(() => undefined, (err: unknown) => (isLightwireError(err) ? err.code : 'uncoded'));
    expect(await codeOf(() => rig.service.setState('all', { brightness: 1.5 }))).to.equal('PARAMETER_INVALID');
    expect(await codeOf(() => rig.service.setState('all', { durationS: -1 }))).to.equal('PARAMETER_INVALID');
    expect(await codeOf(() => rig.service.setState('all', { color: 'blue-ish' }))).to.equal('COLOR_INVALID');
    expect(await codeOf(() => rig.service.setState('label:Nope', { power: 'on' }))).to.equal('LIGHTS_NOT_FOUND');
    expect(await codeOf(() => rig.service.setState('foo:bar', { power: 'on' }))).to.equal('SELECTOR_INVALID');
    const sent = rig.fleet.lights.reduce((n, l) => n + l.received().filter((p) => p.name?.startsWith('Set')).length, 0);
    expect(sent).to.equal(0);
  });

  it('toggles: any light on turns them all off, and results carry the new power', async () => {
    const results = await rig.service.toggle('group:Office', { durationS: 0 });
    expect(results.map((r) => [r.id, r.power])).to.deep.equal([
      [BULB, 'off'],
      [STRIP, 'off'],
    ]);
    expect(rig.fleet.light(STRIP).state.power).to.equal('off');
    const again = await rig.service.toggle('group:Office', { durationS: 0 });
    expect(again.every((r) => r.power === 'on')).to.equal(true);
  });

  it('runs Set States with defaults and reports a non-matching selector without failing the rest', async () => {
    const out = await rig.service.setStates(
      [
        { selector: `id:${BULB}`, power: 'on' },
        { selector: 'label:Nowhere', brightness: 0.5 },
      ],
      { durationS: 0 },
    );
    expect(out[0]).to.have.property('results').that.deep.equals([{ id: BULB, label: 'Desk', status: 'ok' }]);
    expect(out[0]!.operation).to.deep.equal({ durationS: 0, selector: `id:${BULB}`, power: 'on' });
    expect(out[1]).to.include({ error: 'not found' });
  });

  it('lists lights in the HTTP API shape', () => {
    const [strip] = rig.service.list(`id:${STRIP}`);
    expect(strip).to.include({ id: STRIP, label: 'Shelf', connected: true, power: 'on', effect: 'OFF' });
    expect(strip!.color).to.deep.equal({ hue: 120, saturation: 1, kelvin: 3500 });
    expect(strip!.brightness).to.equal(1);
    expect(strip!.group.name).to.equal('Office');
    expect(strip!.product).to.include({ name: 'LIFX Z', product_id: 32, vendor_id: 1, company: 'LIFX' });
    expect(strip!.product.capabilities).to.include({ has_multizone: true, has_color: true, min_kelvin: 1500, max_kelvin: 9000 });
    expect(strip!.uuid).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(strip!.last_seen).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Object.keys(strip!)).to.deep.equal([
      'id', 'uuid', 'label', 'connected', 'power', 'color', 'brightness', 'effect', 'group', 'location', 'product', 'last_seen', 'seconds_since_seen',
    ]);
  });

  it('lists the zones of a multizone light once they were read', async () => {
    await rig.client.refreshState(STRIP);
    const [strip] = rig.service.list(`id:${STRIP}`);
    expect(strip!.zones!.count).to.equal(16);
    expect(strip!.zones!.zones[0]).to.deep.equal({ brightness: 1, hue: 120, kelvin: 3500, saturation: 1, zone: 0 });
    expect(Object.keys(strip!).indexOf('zones')).to.equal(Object.keys(strip!).indexOf('brightness') + 1);
  });
});
