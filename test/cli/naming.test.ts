// `lightwire label`, `lightwire group` and `lightwire location` against virtual lights: each renames on the lights
// themselves (read back from the fleet), prints one result line per light, and refuses what the service refuses
// (a long label, a selector naming several lights) with its code and exit 2, before or without writing anything.

import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { groupCommand, labelCommand, locationCommand } from '../../core/cli/naming.js';
import { main } from '../../core/cli/main.js';
import { Fleet } from '../../core/simulator/fleet.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';
import { captureIO } from '../helpers/cli-io.js';

const DESK = 'd073d5000001';
const SHELF = 'd073d5000002';
const HALL = 'd073d5000003';

const lights: LightInput[] = [
  { serial: DESK, product: 91, label: 'Desk', group: { label: 'Office' }, location: { label: 'Home' } },
  { serial: SHELF, product: 91, label: 'Shelf', group: { label: 'Office' }, location: { label: 'Home' } },
  { serial: HALL, product: 91, label: 'Hall', group: { label: 'Hallway' }, location: { label: 'Home' } },
];

describe('lightwire label, group and location', function () {
  this.timeout(20_000);
  let fleet: Fleet;
  let dir: string;
  let finding: string[];
  beforeEach(async () => {
    fleet = new Fleet({ lights }, { port: 0 });
    await fleet.start();
    dir = mkdtempSync(path.join(os.tmpdir(), 'lightwire-cli-naming-'));
    finding = ['--broadcast', '127.255.255.255', '--lan-port', String(fleet.port), '--wait-ms', '3000', '--scenes', path.join(dir, 'scenes.json')];
  });
  afterEach(async () => {
    await fleet.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('renames one light: lightwire label SELECTOR TEXT', async () => {
    const io = captureIO();
    expect(await main(['label', `id:${DESK}`, 'Writing desk', ...finding], io)).to.equal(0);
    expect(io.out()).to.match(new RegExp(`${DESK}\\s+Writing desk\\s+ok`));
    expect(fleet.light(DESK).state.label).to.equal('Writing desk');
    expect(fleet.light(DESK).received('SetLabel')[0]!.header.resRequired).to.equal(true);
  });

  it('refuses a selector naming more than one light (SELECTOR_NOT_ONE_LIGHT) and a label over 32 bytes (LABEL_TOO_LONG), exit 2, nothing sent', async () => {
    const many = captureIO();
    expect(await labelCommand.run(['group:Office', 'Both', ...finding], many)).to.equal(2);
    expect(many.err()).to.match(/^lightwire label: SELECTOR_NOT_ONE_LIGHT: selector 'group:Office' names 2 lights/m);
    const long = captureIO();
    const started = performance.now();
    expect(await labelCommand.run([`id:${DESK}`, 'ü'.repeat(17), ...finding], long)).to.equal(2);
    expect(long.err()).to.match(/^lightwire label: LABEL_TOO_LONG: label is 34 bytes of UTF-8/);
    // Checked before any light is looked for.
    expect(performance.now() - started).to.be.below(300);
    const usage = captureIO();
    expect(await labelCommand.run([`id:${DESK}`, ...finding], usage)).to.equal(2);
    expect(usage.err()).to.match(/^lightwire label: CLI_USAGE: give a selector and the new label/);
    for (const serial of [DESK, SHELF]) expect(fleet.light(serial).received('SetLabel')).to.have.length(0);
  });

  it('moves lights to a group by name (lightwire group SELECTOR NAME), making it when none has the name', async () => {
    const io = captureIO();
    expect(await groupCommand.run([`id:${HALL}`, 'office', ...finding], io)).to.equal(0);
    expect(fleet.light(HALL).state.group).to.deep.equal(fleet.light(DESK).state.group);
    const studio = captureIO();
    expect(await groupCommand.run([`id:${HALL},id:${SHELF}`, 'Studio', '--json', ...finding], studio)).to.equal(0);
    const results = (JSON.parse(studio.out()) as { results: { id: string; status: string }[] }).results;
    expect(results.map((r) => [r.id, r.status]).sort()).to.deep.equal([[SHELF, 'ok'], [HALL, 'ok']]);
    expect(fleet.light(HALL).state.group.label).to.equal('Studio');
    expect(fleet.light(HALL).state.group.id).to.not.equal(fleet.light(DESK).state.group.id);
  });

  it('renames a group on every member with one updated_at (lightwire group --rename OLD NEW), and a location the same way', async () => {
    const office = fleet.light(DESK).state.group;
    const io = captureIO();
    expect(await groupCommand.run(['--rename', 'Office', 'Study', ...finding], io)).to.equal(0);
    expect(io.out().trim().split('\n').slice(1).map((l) => l.split(/\s+/)[0]).sort()).to.deep.equal([DESK, SHELF]);
    const desk = fleet.light(DESK).state.group;
    expect(desk).to.deep.equal(fleet.light(SHELF).state.group);
    expect(desk).to.include({ id: office.id, label: 'Study' });
    expect(fleet.light(HALL).state.group.label).to.equal('Hallway');
    const where = captureIO();
    expect(await locationCommand.run(['--rename', 'home', 'Flat', ...finding], where)).to.equal(0);
    const locations = [DESK, SHELF, HALL].map((s) => fleet.light(s).state.location);
    expect(new Set(locations.map((l) => `${l.id} ${l.label} ${l.updatedAtNs}`)).size).to.equal(1);
    expect(locations[0]!.label).to.equal('Flat');
    const none = captureIO();
    expect(await groupCommand.run(['--rename', 'Nowhere', 'Somewhere', ...finding], none)).to.equal(1);
    expect(none.err()).to.contain('LIGHTS_NOT_FOUND');
  });

  it('lists the commands in the top help and explains --rename in its own', async () => {
    const io = captureIO();
    expect(await main(['--help'], io)).to.equal(0);
    for (const name of ['label', 'group', 'location']) expect(io.out()).to.match(new RegExp(`^  ${name}\\s+`, 'm'));
    const help = captureIO();
    expect(await main(['group', '--help'], help)).to.equal(0);
    expect(help.out()).to.contain('lightwire group --rename OLD NEW');
  });
});
