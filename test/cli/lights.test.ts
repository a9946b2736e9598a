import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sinon from 'sinon';
import { listCommand, setCommand } from '../../core/cli/lights.js';
import { sceneCommand } from '../../core/cli/scene.js';
import { discoverCommand } from '../../core/cli/discover.js';
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
    finding = ['--broadcast', '127.255.255.255', '--lan-port', String(fleet.port), '--wait-ms', '3000', '--scenes', path.join(dir, 'scenes.json')];
  });
  after(async () => {
    await fleet.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the lights a selector names as HTTP API records, saying on stderr what it looks for', async () => {
    const io = captureIO();
    expect(await listCommand.run([`id:${defaultSerial(1)}`, '--json', ...finding], io)).to.equal(0);
    const lights = JSON.parse(io.out()) as { id: string; label: string; connected: boolean }[];
    expect(lights).to.have.length(1);
    expect(lights[0]).to.include({ id: defaultSerial(1), label: fleet.light(defaultSerial(1)).state.label, connected: true });
    expect(io.err()).to.contain(`Looking for ${defaultSerial(1)} (broadcast 127.255.255.255:${fleet.port}) for at most 3000 ms...`);
    expect(io.err()).to.match(new RegExp(`found ${defaultSerial(1)} ".+" at 127\\.0\\.0\\.3:${fleet.port}`));
    expect(io.err()).to.match(new RegExp(`${defaultSerial(1)} answered in \\d+ ms; stopped looking`));
  });

  it('lists every light as a table once the first discovery round is read', async () => {
    const io = captureIO();
    expect(await listCommand.run(finding, io)).to.equal(0);
    const lines = io.out().trim().split('\n');
    expect(lines[0]).to.match(/^ID\s+LABEL\s+POWER\s+COLOUR/);
    expect(lines).to.have.length(4);
    expect(io.err()).to.contain('Looking for lights (broadcast 127.255.255.255');
    expect(io.err()).to.match(/3 lights answered in \d+ ms\./);
  });

  it('sets a light and prints one result line per light', async () => {
    const io = captureIO();
    const code = await setCommand.run([`id:${defaultSerial(0)}`, '--power', 'on', '--color', 'hue:30 saturation:1', '--duration', '0', ...finding], io);
    expect(code).to.equal(0);
    expect(io.out()).to.match(new RegExp(`${defaultSerial(0)}\\s+.*\\s+ok`));
    expect(fleet.light(defaultSerial(0)).state.color.hue).to.be.closeTo(30, 0.1);
  });

  it('rejects a bad colour with exit code 2, naming the flag, before looking for lights', async () => {
    const io = captureIO();
    const started = performance.now();
    expect(await setCommand.run(['all', '--color', 'hue:400', ...finding], io)).to.equal(2);
    expect(io.err()).to.equal(
      'lightwire set: CLI_USAGE: --color "hue:400": Unable to parse color: "hue:400" (hue 400 is not between 0 and 360)\n' +
        "Run 'lightwire set --help' for usage.\n",
    );
    expect(performance.now() - started).to.be.below(300);
  });

  it('names the flag as typed for values the service refuses (--brightness 2, --duration -1)', async () => {
    const bright = captureIO();
    expect(await setCommand.run(['all', '--brightness', '2', ...finding], bright)).to.equal(2);
    expect(bright.err()).to.match(/^lightwire set: CLI_USAGE: --brightness "2": .*\n/);
    const duration = captureIO();
    expect(await setCommand.run(['all', '--power', 'on', '--duration=-1', ...finding], duration)).to.equal(2);
    expect(duration.err()).to.match(/^lightwire set: CLI_USAGE: --duration "-1": /);
  });

  it('refuses a bad selector before looking for lights', async () => {
    const io = captureIO();
    expect(await setCommand.run(['colour:red', '--power', 'on', ...finding], io)).to.equal(2);
    expect(io.err()).to.match(/^lightwire set: CLI_USAGE: selector "colour:red" is invalid at "colour:red": unknown selector type "colour"\n/);
    expect(io.err()).to.not.contain('Looking for');
  });

  it('exits 1 when the selector matches nothing', async () => {
    const io = captureIO();
    expect(await setCommand.run(['label:Nobody', '--power', 'on', ...finding], io)).to.equal(1);
    expect(io.err()).to.contain("Could not find light with selector 'label:Nobody'");
  });

  it('lists nothing as [] with --json when the selector matches nothing, and exits 1 saying why', async () => {
    const io = captureIO();
    expect(await listCommand.run(['label:Nobody', '--json', ...finding], io)).to.equal(1);
    expect(JSON.parse(io.out())).to.deep.equal([]);
    expect(io.err()).to.contain("Could not find light with selector 'label:Nobody'");
  });

  it('prints no control character of a selector back in an error (a label with an escape sequence)', async () => {
    const io = captureIO();
    expect(await setCommand.run(['label:\x1b[31mRed\x9b2J', '--power', 'on', ...finding], io)).to.equal(1);
    expect(io.err()).to.contain("lightwire set: LIGHTS_NOT_FOUND: Could not find light with selector 'label:\\x1b[31mRed\\x9b2J'.");
    expect(io.err()).to.not.match(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  });

  it('says nothing more about lights found once it stopped looking', async () => {
    const io = captureIO();
    expect(await setCommand.run([`id:${defaultSerial(0)}`, '--power', 'on', ...finding], io)).to.equal(0);
    const [before = '', after = ''] = io.err().split(/stopped looking\.\n/);
    expect(before).to.contain(`found ${defaultSerial(0)}`);
    expect(after).to.not.contain('found');
  });

  it('exits 2 when there is nothing to change', async () => {
    const io = captureIO();
    expect(await setCommand.run(['all', ...finding], io)).to.equal(2);
    expect(io.err()).to.contain('nothing to change');
  });

  it('reports a light named by id that did not answer as offline instead of dropping it (set, list)', async () => {
    const absent = 'd073d50000ff';
    const set = captureIO();
    expect(await setCommand.run([`id:${defaultSerial(0)},id:${absent}`, '--power', 'on', '--json', ...finding, '--wait-ms', '1000'], set)).to.equal(1);
    const { results } = JSON.parse(set.out()) as { results: { id: string; status: string }[] };
    expect(results).to.deep.include({ id: absent, label: '', status: 'offline' });
    expect(results.find((r) => r.id === defaultSerial(0))!.status).to.equal('ok');
    expect(set.err()).to.contain(`offline: ${absent} did not answer`);

    const list = captureIO();
    expect(await listCommand.run([`id:${absent}`, ...finding, '--wait-ms', '1000'], list)).to.equal(1);
    expect(list.out()).to.match(new RegExp(`^${absent}\\s+-\\s+offline`, 'm'));
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
    // The scene names its light by id: looking stops once that light answered.
    expect(activate.err()).to.contain(`Looking for ${defaultSerial(2)} (`);
    expect(activate.err()).to.contain('stopped looking');
  });

  it('does not capture a scene when a light it names by id did not answer', async () => {
    const io = captureIO();
    expect(await sceneCommand.run(['capture', 'Partial', `id:${defaultSerial(0)},id:d073d50000fe`, ...finding, '--wait-ms', '800'], io)).to.equal(1);
    expect(io.err()).to.contain('not captured: d073d50000fe did not answer');
    const list = captureIO();
    await sceneCommand.run(['list', '--json', '--scenes', path.join(dir, 'scenes.json')], list);
    expect((JSON.parse(list.out()) as { name: string }[]).map((s) => s.name)).to.not.include('Partial');
  });

  it('says which scene it could not find, before looking for lights', async () => {
    const io = captureIO();
    expect(await sceneCommand.run(['activate', 'Nope', ...finding], io)).to.equal(1);
    expect(io.err()).to.contain("Could not find scene with id 'Nope'");
    expect(io.err()).to.not.contain('Looking for');
  });

  it('refuses a scene name it could not store and a duration out of range before looking for lights (exit 2)', async () => {
    for (const [args, message] of [
      [['capture', '  '], /the scene name "  " must not be empty/],
      [['capture', 'x'.repeat(70)], /the scene name "x+" must be at most \d+ characters/],
      [['activate', 'Reading', '--duration', '1e10'], /--duration "1e10"/],
    ] as const) {
      const io = captureIO();
      expect(await sceneCommand.run([...args, ...finding], io), args.join(' ')).to.equal(2);
      expect(io.err()).to.match(message);
      expect(io.err()).to.not.contain('Looking for');
    }
  });

  it('refuses a scene name that several scenes have (a hand-edited file), naming their UUIDs', async () => {
    const file = path.join(dir, 'twins.json');
    const scene = (uuid: string) => ({ uuid, name: 'Twin', account: { uuid: '00000000-0000-0000-0000-000000000000' }, states: [{ selector: `id:${defaultSerial(0)}`, power: 'on' }], created_at: 1, updated_at: 2 });
    writeFileSync(file, JSON.stringify({ version: 1, scenes: [scene('11111111-2222-4333-8444-555555555555'), scene('11111111-2222-4333-8444-555555555556')] }));
    const io = captureIO();
    expect(await sceneCommand.run(['activate', 'twin', ...finding.slice(0, -2), '--scenes', file], io)).to.equal(2);
    expect(io.err()).to.contain('2 scenes are named "twin" (11111111-2222-4333-8444-555555555555, 11111111-2222-4333-8444-555555555556): give the UUID of one');
    expect(io.err()).to.not.contain('Looking for');
  });

  it('suggests the nearest scene action', async () => {
    const io = captureIO();
    expect(await sceneCommand.run(['activte', 'x'], io)).to.equal(2);
    expect(io.err()).to.contain('unknown action "activte" (did you mean activate?)');
  });

  it('leaves a scene file that does not parse where it is: list, set and scene list only read scenes', async () => {
    const bad = path.join(dir, 'not-scenes.json');
    writeFileSync(bad, '{"some": "other file"}');
    const scenesFlag = ['--scenes', bad];
    const base = finding.slice(0, -2);
    const list = captureIO();
    expect(await listCommand.run([`id:${defaultSerial(1)}`, ...base, ...scenesFlag], list)).to.equal(0);
    expect(list.err()).to.match(/warning: scene file .*not-scenes\.json is not valid \(.*\); it was left as it is/);
    const set = captureIO();
    expect(await setCommand.run([`id:${defaultSerial(1)}`, '--power', 'on', ...base, ...scenesFlag], set)).to.equal(0);
    const scenes = captureIO();
    expect(await sceneCommand.run(['list', ...scenesFlag], scenes)).to.equal(1);
    expect(scenes.err()).to.match(/SCENE_STORE_CORRUPT: scene file .*not-scenes\.json is not valid .*; it was left as it is/);
    expect(scenes.err()).to.not.contain('No scenes');
    expect(readFileSync(bad, 'utf8')).to.equal('{"some": "other file"}');
    expect(readdirSync(dir).filter((f) => f.includes('corrupt'))).to.deep.equal([]);
  });

  it('gives the "No light answered" hint and exits 1 when nothing answers', async () => {
    const io = captureIO();
    // Port 9: no virtual light listens there.
    expect(await listCommand.run(['--broadcast', '127.255.255.255', '--light', '127.0.0.250', '--lan-port', '9', '--wait-ms', '300', '--scenes', path.join(dir, 'scenes.json')], io)).to.equal(1);
    expect(io.err()).to.contain('No light answered. Tried broadcast 127.255.255.255:9, light 127.0.0.250:9.');
    expect(io.out()).to.equal('');
  });

  describe('when no light answers (a stopped fleet)', () => {
    // Port 9: no virtual light listens there. The lights' own --wait-ms is long: the answer must not wait for it.
    const nowhere = (): string[] => ['--broadcast', '127.255.255.255', '--lan-port', '9', '--wait-ms', '20000', '--scenes', path.join(dir, 'scenes.json')];

    it('says so with a code (LIGHTS_NOT_FOUND), soon, and exits 1: list, set, scene activate', async () => {
      await sceneCommand.run(['capture', 'Stopped', `id:${defaultSerial(0)}`, ...finding], captureIO());
      for (const [name, run, args] of [
        ['list', listCommand, []],
        ['set', setCommand, ['all', '--power', 'on']],
        ['scene', sceneCommand, ['activate', 'Stopped']],
      ] as const) {
        const io = captureIO();
        const started = performance.now();
        expect(await run.run([...args, ...nowhere()], io), name).to.equal(1);
        expect(performance.now() - started, name).to.be.below(5000);
        expect(io.err(), name).to.contain(`lightwire ${name}: LIGHTS_NOT_FOUND: No light answered. Tried broadcast 127.255.255.255:9.`);
        expect(io.out(), name).to.equal('');
      }
    });

    it('still prints JSON with --json: [] from list, the results (named lights offline) from set and scene activate', async () => {
      const list = captureIO();
      expect(await listCommand.run(['--json', ...nowhere()], list)).to.equal(1);
      expect(JSON.parse(list.out())).to.deep.equal([]);
      const set = captureIO();
      expect(await setCommand.run(['all', '--power', 'on', '--json', ...nowhere()], set)).to.equal(1);
      expect(JSON.parse(set.out())).to.deep.equal({ results: [] });
      const byId = captureIO();
      expect(await setCommand.run([`id:${defaultSerial(1)}`, '--power', 'on', '--json', ...nowhere()], byId)).to.equal(1);
      expect(JSON.parse(byId.out())).to.deep.equal({ results: [{ id: defaultSerial(1), label: '', status: 'offline' }] });
      await sceneCommand.run(['capture', 'Stopped', `id:${defaultSerial(0)}`, ...finding], captureIO());
      const scene = captureIO();
      expect(await sceneCommand.run(['activate', 'Stopped', '--json', ...nowhere()], scene)).to.equal(1);
      expect(JSON.parse(scene.out())).to.deep.equal({ results: [{ id: defaultSerial(0), label: '', status: 'offline' }] });
    });
  });

  it('says NO_BROADCAST_ADDRESS (and still prints its JSON) when no interface can broadcast and no --light is given', async () => {
    // A host with loopback alone (a container, a network not up yet): nothing is sent, so the stub keeps this safe.
    const interfaces = sinon.stub(os, 'networkInterfaces').returns({});
    try {
      const scenes = ['--scenes', path.join(dir, 'scenes.json')];
      for (const [name, run, args, json] of [
        ['list', listCommand, ['--json', ...scenes], []],
        ['set', setCommand, ['all', '--power', 'on', '--json', ...scenes], { results: [] }],
        ['discover', discoverCommand, ['--json'], []],
      ] as const) {
        const io = captureIO();
        expect(await run.run([...args, '--lan-port', '9'], io), name).to.equal(1);
        expect(io.err(), name).to.match(new RegExp(`^lightwire ${name}: NO_BROADCAST_ADDRESS: .*nowhere to look for lights`));
        expect(io.err(), name).to.contain('--broadcast ADDR');
        expect(JSON.parse(io.out()), name).to.deep.equal(json);
      }
    } finally {
      interfaces.restore();
    }
  });

  it('prints {"results": []} with --json when the selector matches nothing, and exits 1 saying why', async () => {
    const io = captureIO();
    expect(await setCommand.run(['label:Nobody', '--power', 'on', '--json', ...finding], io)).to.equal(1);
    expect(JSON.parse(io.out())).to.deep.equal({ results: [] });
    expect(io.err()).to.contain("lightwire set: LIGHTS_NOT_FOUND: Could not find light with selector 'label:Nobody'");
  });

  it('exits 1 with LIGHTS_NOT_FOUND when lights answered but none that a scene names (nothing was changed)', async () => {
    const file = path.join(dir, 'elsewhere.json');
    const scene = { uuid: '11111111-2222-4333-8444-555555555557', name: 'Elsewhere', account: { uuid: '00000000-0000-0000-0000-000000000000' }, states: [{ selector: 'label:Not Here', power: 'on' }], created_at: 1, updated_at: 2 };
    writeFileSync(file, JSON.stringify({ version: 1, scenes: [scene] }));
    const io = captureIO();
    expect(await sceneCommand.run(['activate', 'Elsewhere', '--json', ...finding.slice(0, -2), '--scenes', file], io)).to.equal(1);
    expect(JSON.parse(io.out())).to.deep.equal({ results: [] });
    expect(io.err()).to.contain(`lightwire scene: LIGHTS_NOT_FOUND: Could not find light with selector 'scene_id:${scene.uuid}'`);
  });
});

describe('lightwire list and set: when to stop looking', function () {
  this.timeout(20_000);
  // Light 3 answers discovery but never the state read: a search that waits for every light to be read
  // runs for the whole --wait-ms, so finishing far sooner shows the search stopped on its own.
  const LONG_WAIT_MS = 60_000;
  let fleet: Fleet;
  let dir: string;
  let finding: (waitMs: number) => string[];
  before(async () => {
    fleet = new Fleet(defaultFleet(3), { port: 0 });
    await fleet.start();
    fleet.light(defaultSerial(2)).setFaults({ unresponsive: true });
    dir = mkdtempSync(path.join(os.tmpdir(), 'lightwire-cli-'));
    finding = (waitMs) => ['--broadcast', '127.255.255.255', '--lan-port', String(fleet.port), '--wait-ms', String(waitMs), '--scenes', path.join(dir, 'scenes.json')];
  });
  after(async () => {
    await fleet.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stops as soon as the light an id: selector names has answered', async () => {
    const io = captureIO();
    const started = performance.now();
    expect(await setCommand.run([`id:${defaultSerial(0)}`, '--power', 'on', '--fast', ...finding(LONG_WAIT_MS)], io)).to.equal(0);
    expect(performance.now() - started).to.be.below(5000);
    expect(io.err()).to.match(new RegExp(`${defaultSerial(0)} answered in \\d+ ms; stopped looking`));
    // A light still being read when the search stopped is not called offline.
    expect(io.err()).to.not.contain('offline');
  });

  it('stops as soon as --expect N lights have answered', async () => {
    const io = captureIO();
    const started = performance.now();
    expect(await listCommand.run(['--expect', '2', '--json', ...finding(LONG_WAIT_MS)], io)).to.equal(0);
    expect(performance.now() - started).to.be.below(5000);
    expect((JSON.parse(io.out()) as unknown[]).length).to.equal(2);
    expect(io.err()).to.contain('Looking for 2 lights');
    expect(io.err()).to.match(/2 lights answered in \d+ ms, as many as expected; stopped looking/);
  });

  it('reports a light that answered discovery but not the state read as offline, and lists it', async () => {
    const io = captureIO();
    expect(await listCommand.run(finding(1000), io)).to.equal(0);
    expect(io.err()).to.match(new RegExp(`offline: ${defaultSerial(2)} answered discovery at 127\\.0\\.0\\.4:${fleet.port} but not the state read`));
    expect(io.out()).to.match(new RegExp(`^${defaultSerial(2)}\\s+.*offline`, 'm'));
    expect(io.out().trim().split('\n')).to.have.length(4);
  });

  it('does not claim to have waited --wait-ms for --expect N when the first discovery round ended the search', async () => {
    const io = captureIO();
    const started = performance.now();
    expect(await listCommand.run(['--expect', '5', ...finding(LONG_WAIT_MS)], io)).to.equal(0);
    expect(performance.now() - started).to.be.below(10_000);
    expect(io.err()).to.match(/Expected 5 lights; 2 answered by the end of the first discovery round \(\d+ ms\)\.\n/);
    expect(io.err()).to.not.contain(`within ${LONG_WAIT_MS} ms`);
  });

  it('says how many answered when --expect N is not reached', async () => {
    const io = captureIO();
    expect(await listCommand.run(['--expect', '3', ...finding(800)], io)).to.equal(0);
    expect(io.err()).to.contain('Expected 3 lights; 2 answered within 800 ms.');
  });
});
