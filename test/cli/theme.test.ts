// `lightwire theme` and `lightwire themes` against virtual lights: the theme shows on the fleet's strip and bulbs.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { themeCommand, themesCommand } from '../../core/cli/theme.js';
import { THEME_NAMES } from '../../core/control/catalogue.js';
import { Fleet } from '../../core/simulator/fleet.js';
import { captureIO } from '../helpers/cli-io.js';

const STRIP = 'd073d5000041';
const BULB_A = 'd073d5000042';
const BULB_B = 'd073d5000043';

describe('lightwire theme and themes', function () {
  this.timeout(20_000);
  let fleet: Fleet;
  let dir: string;
  let finding: string[];
  before(async () => {
    fleet = new Fleet(
      {
        lights: [
          { serial: STRIP, product: 32, label: 'Shelf', firmware: { major: 2, minor: 80 }, zoneCount: 16, group: { label: 'Office' }, power: 'on' },
          { serial: BULB_A, product: 91, label: 'Desk', group: { label: 'Office' }, power: 'off' },
          { serial: BULB_B, product: 91, label: 'Lamp', group: { label: 'Office' }, power: 'on' },
        ],
      },
      { port: 0 },
    );
    await fleet.start();
    dir = mkdtempSync(path.join(os.tmpdir(), 'lightwire-cli-theme-'));
    finding = ['--broadcast', '127.255.255.255', '--lan-port', String(fleet.port), '--wait-ms', '3000', '--expect', '3', '--scenes', path.join(dir, 'scenes.json')];
  });
  after(async () => {
    await fleet.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('paints a theme over a group: a gradient over the strip, neighbouring bulbs differ, an off bulb is switched on', async () => {
    const io = captureIO();
    expect(await themeCommand.run(['group:Office', 'tranquil', '--duration', '0', ...finding], io)).to.equal(0);
    expect(io.out().trim().split('\n')).to.have.length(4);
    expect(io.out()).to.match(new RegExp(`${STRIP}\\s+Shelf\\s+ok`));
    expect(new Set(fleet.light(STRIP).state.zones!.map((z) => Math.round(z.hue))).size).to.be.greaterThan(2);
    const a = fleet.light(BULB_A).state;
    const b = fleet.light(BULB_B).state;
    expect(a.power).to.equal('on');
    expect(Math.round(a.color.hue)).to.not.equal(Math.round(b.color.hue));
  });

  it('refuses an unknown theme with exit code 2 and the names closest to it, before looking for lights', async () => {
    const io = captureIO();
    const started = performance.now();
    expect(await themeCommand.run(['all', 'tranquill', ...finding], io)).to.equal(2);
    expect(io.err()).to.match(/^lightwire theme: THEME_UNKNOWN: there is no theme named "tranquill"; close names: tranquil/);
    expect(performance.now() - started).to.be.below(300);
  });

  it('lists every theme (table and --json)', async () => {
    const io = captureIO();
    expect(await themesCommand.run([], io)).to.equal(0);
    const lines = io.out().trim().split('\n');
    expect(lines[0]).to.match(/^THEME\s+COLOURS\s+HUES/);
    expect(lines).to.have.length(THEME_NAMES.length + 1);
    const json = captureIO();
    expect(await themesCommand.run(['--json'], json)).to.equal(0);
    expect((JSON.parse(json.out()) as { name: string }[]).map((t) => t.name)).to.deep.equal([...THEME_NAMES]);
  });
});
