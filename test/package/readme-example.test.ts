// The README's "Use as a library" example is examples/library.mjs, word for word, and it runs: installed from the
// packed tarball into an empty project, against virtual lights on loopback, it lists them and turns them green.

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultFleet, Fleet } from '../../core/simulator/index.js';
import { REPO_ROOT, installTarball, packTarball } from '../helpers/packed.js';

const EXAMPLE = path.join(REPO_ROOT, 'examples', 'library.mjs');

function runExample(cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete childEnv.NODE_OPTIONS;
  return new Promise((resolve) => {
    execFile(process.execPath, ['library.mjs'], { cwd, env: childEnv, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

describe('README: Use as a library', function () {
  this.timeout(180_000);
  let project: string;
  let fleet: Fleet;

  before(async () => {
    project = await mkdtemp(path.join(os.tmpdir(), 'lightwire-example-'));
    await installTarball(project, await packTarball());
    await copyFile(EXAMPLE, path.join(project, 'library.mjs'));
  });

  after(async () => {
    await fleet?.stop();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('shows examples/library.mjs in the README, unchanged', () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const code = readFileSync(EXAMPLE, 'utf8').trimEnd();
    expect(readme).to.include('## Use as a library');
    expect(readme).to.include(`\`\`\`js\n${code}\n\`\`\``);
  });

  it('lists the virtual lights and turns every one on at half brightness, the colour ones green', async () => {
    fleet = new Fleet(defaultFleet(3), { port: 0 });
    await fleet.start();
    for (const serial of ['d073d5000001', 'd073d5000002', 'd073d5000003']) fleet.light(serial).setState({ power: 'off' });
    const result = await runExample(project, { LIFX_BROADCAST: '127.255.255.255', LIFX_PORT: String(fleet.port) });
    expect(result.code, result.stderr).to.equal(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.filter((l) => /^d073d50000\d\d /.test(l))).to.have.length(3);
    expect(lines.filter((l) => l.endsWith(': ok'))).to.have.length(3);
    for (const serial of ['d073d5000001', 'd073d5000002', 'd073d5000003']) {
      const state = fleet.light(serial).state;
      expect(state.power, serial).to.equal('on');
      // d073d5000002 is a white-to-warm bulb: it takes the brightness, and has no hue to take.
      if (serial !== 'd073d5000002') expect(state.color.hue, serial).to.be.closeTo(120, 0.1);
      expect(state.color.brightness, serial).to.be.closeTo(0.5, 0.001);
    }
  });
});
