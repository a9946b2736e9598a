import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listCommand, setCommand } from '../../core/cli/lights.js';
import { sceneCommand } from '../../core/cli/scene.js';
import { defaultFleet, defaultSerial } from '../../core/simulator/default-fleet.js';
import { Fleet } from '../../core/simulator/fleet.js';
import { captureIO } from '../helpers/cli-io.js';

describe('lightwire list, set and scene', function () {
  this.timeout(20_000);
  let fleet: Fleet;
  let dir: string;
  let finding: string[];
  before(async () => {
    fleet = new Fleet(defaultFleet(3), { port: 0 });
    await fleet.start();
    dir = mkdtempSync(path.join(os.tmpdir(), 'lightwire-cli-'));
    finding = ['--broadcast', '127.255.255.255', '--port', String(fleet.port), '--discover-ms', '400', '--scenes', path.join(dir, 'scenes.json')];
  });
  after(async () => {
    await fleet.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the lights a selector names as HTTP API records', async () => {
    const io = captureIO();
    expect(await listCommand.run([`id:${defaultSerial(1)}`, '--json', ...finding], io)).to.equal(0);
    const lights = JSON.parse(io.out()) as { id: string; label: string; connected: boolean }[];
    expect(lights).to.have.length(1);
    expect(lights[0]).to.include({ id: defaultSerial(1), label: fleet.light(defaultSerial(1)).state.label, connected: true });
  });

  it('sets a light and prints one result line per light', async () => {
    const io = captureIO();
    const code = await setCommand.run([`id:${defaultSerial(0)}`, '--power', 'on', '--color', 'hue:30 saturation:1', '--duration', '0', ...finding], io);
    expect(code).to.equal(0);
    expect(io.out()).to.match(new RegExp(`${defaultSerial(0)}\\s+.*\\s+ok`));
    expect(fleet.light(defaultSerial(0)).state.color.hue).to.be.closeTo(30, 0.1);
  });

  it('rejects a bad colour with exit code 2 before looking for lights', async () => {
    const io = captureIO();
    const started = performance.now();
    expect(await setCommand.run(['all', '--color', 'hue:400', ...finding], io)).to.equal(2);
    expect(io.err()).to.contain('Unable to parse color');
    expect(performance.now() - started).to.be.below(300);
  });

  it('exits 1 when the selector matches nothing', async () => {
    const io = captureIO();
    expect(await setCommand.run(['label:Nobody', '--power', 'on', ...finding], io)).to.equal(1);
    expect(io.err()).to.contain("Could not find light with selector 'label:Nobody'");
  });

  it('exits 2 when there is nothing to change', async () => {
    const io = captureIO();
    expect(await setCommand.run(['all', ...finding], io)).to.equal(2);
    expect(io.err()).to.contain('nothing to change');
  });

  it('captures a scene, lists it and activates it by name', async () => {
    const light = fleet.light(defaultSerial(2));
    await setCommand.run([`id:${defaultSerial(2)}`, '--color', 'hue:200 saturation:1 brightness:0.6', '--duration', '0', ...finding], captureIO());
    const capture = captureIO();
    expect(await sceneCommand.run(['capture', 'Reading', `id:${defaultSerial(2)}`, ...finding], capture)).to.equal(0);
    expect(capture.out()).to.match(/captured "Reading" \([0-9a-f-]{36}\) with 1 light/);
    const list = captureIO();
    expect(await sceneCommand.run(['list', '--json', '--scenes', path.join(dir, 'scenes.json')], list)).to.equal(0);
    const scenes = JSON.parse(list.out()) as { name: string; states: { selector: string }[] }[];
    expect(scenes.map((s) => s.name)).to.deep.equal(['Reading']);
    expect(scenes[0]!.states[0]!.selector).to.equal(`id:${defaultSerial(2)}`);
    await setCommand.run([`id:${defaultSerial(2)}`, '--color', 'hue:10', '--duration', '0', ...finding], captureIO());
    expect(light.state.color.hue).to.be.closeTo(10, 0.1);
    const activate = captureIO();
    expect(await sceneCommand.run(['activate', 'reading', '--duration', '0', ...finding], activate)).to.equal(0);
    expect(light.state.color.hue).to.be.closeTo(200, 0.1);
    expect(light.state.color.brightness).to.be.closeTo(0.6, 0.01);
  });

  it('says which scene it could not find', async () => {
    const io = captureIO();
    expect(await sceneCommand.run(['activate', 'Nope', ...finding], io)).to.equal(1);
    expect(io.err()).to.contain("Could not find scene with id 'Nope'");
  });
});
