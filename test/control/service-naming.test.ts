// Renaming on virtual lights, as the device protocol asks (https://lan.developer.lifx.com/docs/changing-a-device):
// SetLabel to one light, SetGroup / SetLocation to the lights moved (a fresh random id for a new group, the existing id
// and label otherwise), a group renamed on every online member with one updated_at, and a member that was offline
// during the rename corrected when it comes back. Every Set asks for the ack and the State reply.

import { expect } from 'chai';
import { LightService } from '../../core/index.js';
import { isLightwireError } from '../../core/errors.js';
import { Fleet } from '../../core/simulator/index.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';
import { until } from '../helpers/wait.js';

const DESK = 'd073d5000001';
const SHELF = 'd073d5000002';
const HALL = 'd073d5000003';
const LAMP = 'd073d5000004';

const lights: LightInput[] = [
  { serial: DESK, product: 91, label: 'Desk', group: { label: 'Office' }, location: { label: 'Home' } },
  { serial: SHELF, product: 32, label: 'Shelf', zoneCount: 8, group: { label: 'Office' }, location: { label: 'Home' } },
  { serial: HALL, product: 91, label: 'Hall', group: { label: 'Hallway' }, location: { label: 'Home' } },
  { serial: LAMP, product: 91, label: 'Lamp', group: { label: 'Office' }, location: { label: 'Cabin' } },
];

function refusedWith(code: string, run: () => Promise<unknown>): Promise<void> {
  return run().then(
    () => expect.fail(`expected ${code}`),
    (err: unknown) => {
      expect(isLightwireError(err), String(err)).to.equal(true);
      expect((err as { code: string }).code).to.equal(code);
    },
  );
}

describe('LightService renaming (labels, groups, locations)', function () {
  this.timeout(20_000);
  let rig: ServiceRig;
  beforeEach(async () => {
    rig = await serviceRig({ lights });
  });
  afterEach(() => rig.close());

  it('renames one light with SetLabel (ack and State asked for): the light, the view and label: selectors at once', async () => {
    const results = await rig.service.setLabel(`id:${DESK}`, '  Writing desk ');
    expect(results).to.deep.equal([{ id: DESK, label: 'Writing desk', status: 'ok' }]);
    const sent = rig.fleet.light(DESK).received('SetLabel');
    expect(sent).to.have.length(1);
    expect(sent[0]!.payload).to.deep.equal({ label: 'Writing desk' });
    expect(sent[0]!.header.ackRequired).to.equal(true);
    expect(sent[0]!.header.resRequired).to.equal(true);
    expect(rig.fleet.light(DESK).state.label).to.equal('Writing desk');
    expect(rig.service.light(DESK)!.label).to.equal('Writing desk');
    expect(rig.service.list('label:writing desk').map((l) => l.id)).to.deep.equal([DESK]);
  });

  it('refuses a label for more than one light (SELECTOR_NOT_ONE_LIGHT), a blank one, and one over 32 bytes of UTF-8 (LABEL_TOO_LONG), sending nothing', async () => {
    await refusedWith('SELECTOR_NOT_ONE_LIGHT', () => rig.service.setLabel('group:Office', 'One'));
    await refusedWith('PARAMETER_INVALID', () => rig.service.setLabel(`id:${DESK}`, '   '));
    // 17 two-byte characters: 34 bytes, refused whole rather than cut to 16 (or mid-character).
    await refusedWith('LABEL_TOO_LONG', () => rig.service.setLabel(`id:${DESK}`, 'é'.repeat(17)));
    await refusedWith('PARAMETER_INVALID', () => rig.service.setLabel(`id:${DESK}`, 'a\u0000b'));
    for (const serial of [DESK, SHELF, LAMP]) expect(rig.fleet.light(serial).received('SetLabel')).to.have.length(0);
    // 32 bytes exactly is a label, stored whole.
    await rig.service.setLabel(`id:${DESK}`, 'é'.repeat(16));
    expect(rig.fleet.light(DESK).state.label).to.equal('é'.repeat(16));
  });

  it('moves lights to a new group: a fresh random 16-byte id, the name as given, updated_at now; group: selectors see it at once', async () => {
    const before = new Set([DESK, SHELF, HALL, LAMP].map((s) => rig.fleet.light(s).state.group.id));
    const startNs = BigInt(Date.now()) * 1_000_000n;
    const results = await rig.service.setGroup(`id:${DESK},id:${HALL}`, 'Studio');
    expect(results.map((r) => [r.id, r.status]).sort()).to.deep.equal([[DESK, 'ok'], [HALL, 'ok']]);
    const desk = rig.fleet.light(DESK).state.group;
    const hall = rig.fleet.light(HALL).state.group;
    expect(desk).to.deep.equal(hall);
    expect(desk.label).to.equal('Studio');
    expect(desk.id).to.match(/^[0-9a-f]{32}$/);
    expect(before.has(desk.id)).to.equal(false);
    expect(BigInt(desk.updatedAtNs) >= startNs).to.equal(true);
    expect(rig.service.list('group:studio').map((l) => l.id).sort()).to.deep.equal([DESK, HALL]);
    expect(rig.service.light(DESK)!.group).to.deep.equal({ id: desk.id, name: 'Studio' });
    // Another new group gets another id.
    await rig.service.setGroup(`id:${LAMP}`, 'Attic');
    expect(rig.fleet.light(LAMP).state.group.id).to.not.equal(desk.id);
  });

  it('moves a light to a group that exists by name: its id and label (and updated_at) kept, so no member is renamed', async () => {
    const office = rig.fleet.light(DESK).state.group;
    const results = await rig.service.setGroup(`id:${HALL}`, 'OFFICE');
    expect(results).to.deep.equal([{ id: HALL, label: 'Hall', status: 'ok' }]);
    expect(rig.fleet.light(HALL).state.group).to.deep.equal(office);
    expect(rig.service.list('group:Office').map((l) => l.id).sort()).to.deep.equal([DESK, SHELF, HALL, LAMP].sort());
    expect(rig.fleet.light(DESK).received('SetGroup')).to.have.length(0);
  });

  it('moves lights to a location the same way (SetLocation)', async () => {
    const home = rig.fleet.light(DESK).state.location;
    await rig.service.setLocation(`id:${LAMP}`, 'home');
    expect(rig.fleet.light(LAMP).state.location).to.deep.equal(home);
    await rig.service.setLocation(`id:${LAMP}`, 'Boat');
    const boat = rig.fleet.light(LAMP).state.location;
    expect(boat.label).to.equal('Boat');
    expect(boat.id).to.not.equal(home.id);
    expect(rig.service.list('location:Boat').map((l) => l.id)).to.deep.equal([LAMP]);
    expect(rig.fleet.light(LAMP).received('SetLocation').every((p) => p.header.resRequired)).to.equal(true);
  });

  it('renames a group on every member with ONE updated_at, later than the old one; its id stays; others untouched', async () => {
    const office = rig.fleet.light(DESK).state.group;
    const hallway = rig.fleet.light(HALL).state.group;
    const results = await rig.service.rename('renameGroup', { from: 'office', to: 'Study' });
    expect(results.map((r) => [r.id, r.status])).to.deep.equal([[DESK, 'ok'], [SHELF, 'ok'], [LAMP, 'ok']]);
    const groups = [DESK, SHELF, LAMP].map((s) => rig.fleet.light(s).state.group);
    for (const g of groups) expect(g).to.deep.equal({ id: office.id, label: 'Study', updatedAtNs: groups[0]!.updatedAtNs });
    expect(BigInt(groups[0]!.updatedAtNs) > BigInt(office.updatedAtNs)).to.equal(true);
    for (const s of [DESK, SHELF, LAMP]) expect(rig.fleet.light(s).received('SetGroup')).to.have.length(1);
    expect(rig.fleet.light(HALL).state.group).to.deep.equal(hallway);
    expect(rig.fleet.light(HALL).received('SetGroup')).to.have.length(0);
    // The selectors see the new name at once, and no longer the old.
    expect(rig.service.list('group:Study').map((l) => l.id)).to.deep.equal([DESK, LAMP, SHELF]);
    expect(() => rig.service.list('group:Office')).to.throw().with.property('code', 'LIGHTS_NOT_FOUND');
    await refusedWith('LIGHTS_NOT_FOUND', () => rig.service.renameLocation('Nowhere', 'Somewhere'));
  });

  it('renames a location (renameLocation) the same way', async () => {
    await rig.service.renameLocation('Home', 'Flat');
    const locations = [DESK, SHELF, HALL].map((s) => rig.fleet.light(s).state.location);
    expect(new Set(locations.map((l) => `${l.label} ${l.updatedAtNs}`)).size).to.equal(1);
    expect(locations[0]!.label).to.equal('Flat');
    expect(rig.fleet.light(LAMP).state.location.label).to.equal('Cabin');
  });
});

describe('LightService correcting a member that missed a rename', function () {
  this.timeout(30_000);
  let fleet: Fleet | undefined;
  let service: LightService | undefined;
  afterEach(async () => {
    await service?.stop();
    await fleet?.stop();
    service = undefined;
    fleet = undefined;
  });

  it('renames the online members, answers offline for the one that is off, and corrects it with the newest label and updated_at when it is back', async () => {
    fleet = new Fleet({ lights }, { port: 0 });
    await fleet.start();
    service = await LightService.start({
      discovery: {
        broadcastAddresses: ['127.255.255.255'],
        port: fleet.port,
        burstScheduleMs: [0, 100],
        heartbeatMs: 200,
        refreshIntervalMs: 400,
        readTimeoutMs: 150,
        offlineAfterMisses: 2,
      },
      transport: { requestTimeoutMs: 1000 },
      expectLights: lights.length,
    });
    await service.ready;
    const s = service;
    await until(() => s.views().length === lights.length && s.views().every((v) => v.group !== null), { what: 'every light read' });
    fleet.light(LAMP).setFaults({ offline: true });
    await until(() => s.light(LAMP)?.online === false, { timeoutMs: 5000, what: 'the lamp offline' });
    const results = await s.renameGroup('Office', 'Study');
    expect(results.map((r) => [r.id, r.status])).to.deep.equal([[DESK, 'ok'], [SHELF, 'ok'], [LAMP, 'offline']]);
    const study = fleet.light(DESK).state.group;
    expect(fleet.light(SHELF).state.group).to.deep.equal(study);
    expect(fleet.light(LAMP).state.group.label).to.equal('Office');
    // The lamp is still shown in the group by its name: readers take the newest label.
    expect(s.list('group:Study').map((l) => l.id)).to.deep.equal([DESK, LAMP, SHELF]);

    fleet.light(LAMP).setFaults({ offline: false });
    const lamp = fleet.light(LAMP);
    await until(() => lamp.state.group.label === 'Study', { timeoutMs: 8000, what: 'the lamp corrected' });
    expect(lamp.state.group).to.deep.equal(study);
    const corrections = lamp.received('SetGroup');
    expect(corrections).to.have.length(1);
    expect(corrections[0]!.payload).to.deep.equal({ group: study.id, label: 'Study', updatedAtNs: BigInt(study.updatedAtNs) });
    expect(corrections[0]!.header.resRequired).to.equal(true);
    // The members that had it are not written again.
    expect(fleet.light(DESK).received('SetGroup')).to.have.length(1);
    expect(fleet.light(SHELF).received('SetGroup')).to.have.length(1);
  });
});
