import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COMMANDS } from '../../core/cli/commands.js';
import { main } from '../../core/cli/main.js';
import { packageInfo } from '../../core/index.js';
import { captureIO } from '../helpers/cli-io.js';

const VERSION = `${packageInfo().version}\n`;
const NAMES = ['serve', 'simulate', 'discover', 'list', 'set', 'theme', 'themes', 'label', 'group', 'location', 'scene', 'doctor', 'decode'];

describe('lightwire (top level)', () => {
  it('has the thirteen commands (label, group and location rename, issue 28; theme and themes, issue 29)', () => {
    expect(COMMANDS.map((c) => c.name)).to.deep.equal(NAMES);
  });

  it('lists the commands with --help, -h and help', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const io = captureIO();
      expect(await main(args, io)).to.equal(0);
      for (const name of NAMES) expect(io.out()).to.match(new RegExp(`^  ${name}\\s+\\S`, 'm'));
      expect(io.out()).to.contain("Run 'lightwire help <command>'");
      expect(io.err()).to.equal('');
    }
  });

  it('prints the top help on stderr and exits 2 without a command', async () => {
    const io = captureIO();
    expect(await main([], io)).to.equal(2);
    expect(io.err()).to.match(/^Usage: lightwire <command>/);
  });

  it('prints the package version with --version and -v', async () => {
    for (const args of [['--version'], ['-v'], ['help', '--version']]) {
      const io = captureIO();
      expect(await main(args, io)).to.equal(0);
      expect(io.out()).to.equal(VERSION);
      expect(io.out().trim()).to.match(/^\d+\.\d+\.\d+$/);
    }
  });

  for (const name of NAMES) {
    it(`${name}: 'lightwire help ${name}' prints the same help as '${name} --help', which lists --help and --version`, async () => {
      const viaHelp = captureIO();
      expect(await main(['help', name], viaHelp)).to.equal(0);
      const viaFlag = captureIO();
      expect(await main([name, '--help'], viaFlag)).to.equal(0);
      expect(viaHelp.out()).to.equal(viaFlag.out());
      expect(viaHelp.out()).to.match(new RegExp(`^Usage: lightwire ${name} `));
      expect(viaHelp.out()).to.match(/^ {2}-h, --help\s+show this help$/m);
      expect(viaHelp.out()).to.match(/^ {2}--version\s+print the version$/m);
    });

    it(`${name}: --version prints the version, whatever else is given`, async () => {
      const io = captureIO();
      expect(await main([name, '--version'], io)).to.equal(0);
      expect(io.out()).to.equal(VERSION);
      const late = captureIO();
      expect(await main([name, 'x', '--version'], late)).to.equal(0);
      expect(late.out()).to.equal(VERSION);
    });

    it(`${name}: an unknown flag is a usage error of two lines (no help dump), exit 2`, async () => {
      const io = captureIO();
      expect(await main([name, '--no-such-flag'], io)).to.equal(2);
      expect(io.err()).to.equal(`lightwire ${name}: CLI_USAGE: unknown option --no-such-flag\nRun 'lightwire ${name} --help' for usage.\n`);
      expect(io.out()).to.equal('');
    });
  }

  it('suggests the nearest flag for a typo, in every command that has it', async () => {
    const typos: [string, string[], string][] = [
      ['set', ['all', '--brigtness', '0.5'], '--brightness'],
      ['set', ['all', '--powr', 'on'], '--power'],
      ['list', ['--expcet', '2'], '--expect'],
      ['list', ['--wait'], '--wait-ms'],
      ['discover', ['--brodcast', '127.255.255.255'], '--broadcast'],
      ['scene', ['list', '--jsno'], '--json'],
      ['serve', ['--log-levl', 'warn'], '--log-level'],
      ['simulate', ['--virtul', '2'], '--virtual'],
      ['decode', ['--wier', '00'], '--wire'],
      // A typo of an old name suggests the current name.
      ['list', ['--discover-mss', '10'], '--wait-ms'],
    ];
    for (const [name, args, suggestion] of typos) {
      const io = captureIO();
      expect(await main([name, ...args], io), `${name} ${args.join(' ')}`).to.equal(2);
      expect(io.err().split('\n')[0]).to.match(new RegExp(`unknown option ${args.find((a) => a.startsWith('--'))} \\(did you mean ${suggestion}\\?\\)$`));
    }
  });

  it('suggests nothing when no flag is near', async () => {
    const io = captureIO();
    expect(await main(['list', '--zzzzzzzz'], io)).to.equal(2);
    expect(io.err()).to.not.contain('did you mean');
  });

  it('names a flag whose value is missing, and one that takes none', async () => {
    const missing = captureIO();
    expect(await main(['set', 'all', '--color', '--fast'], missing)).to.equal(2);
    expect(missing.err().split('\n')[0]).to.equal('lightwire set: CLI_USAGE: --color needs a value: --color STR');
    const extra = captureIO();
    expect(await main(['set', 'all', '--power', 'on', '--fast=yes'], extra)).to.equal(2);
    expect(extra.err().split('\n')[0]).to.equal('lightwire set: CLI_USAGE: --fast takes no value (got --fast=yes)');
  });

  it('suggests the nearest command for an unknown one, in two lines', async () => {
    const io = captureIO();
    expect(await main(['lsit'], io)).to.equal(2);
    expect(io.err()).to.equal('lightwire: CLI_USAGE: unknown command "lsit" (did you mean list?)\nRun \'lightwire --help\' for the commands.\n');
    const far = captureIO();
    expect(await main(['frobnicate'], far)).to.equal(2);
    expect(far.err()).to.equal('lightwire: CLI_USAGE: unknown command "frobnicate"\nRun \'lightwire --help\' for the commands.\n');
    const help = captureIO();
    expect(await main(['help', 'sett'], help)).to.equal(2);
    expect(help.err()).to.contain('unknown command "sett" (did you mean set?)');
  });

  it("prints the top help for 'help --help', 'help -h' and 'help help' (not an unknown command)", async () => {
    for (const args of [['help', '--help'], ['help', '-h'], ['help', 'help']]) {
      const io = captureIO();
      expect(await main(args, io), args.join(' ')).to.equal(0);
      expect(io.out()).to.match(/^Usage: lightwire <command>/);
      expect(io.err()).to.equal('');
    }
  });

  it('never sends a control character the user typed back to the terminal (unknown options, values, commands)', async () => {
    const escape = '\x1b]0;pwned\x07\x1b[2J\x9b31m';
    for (const args of [['list', `--${escape}`], ['set', 'all', `--fast=${escape}`], ['list', '--wait-ms', escape], [`x${escape}`], [`--${escape}`], ['scene', escape]]) {
      const io = captureIO();
      expect(await main(args, io), JSON.stringify(args)).to.equal(2);
      expect(io.err(), JSON.stringify(args)).to.not.match(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
      expect(io.err(), JSON.stringify(args)).to.match(/\\(x1b|u001b)/);
    }
  });

  it('cuts a very long value in a usage error, saying how long it was', async () => {
    const io = captureIO();
    expect(await main(['list', '--wait-ms', '9'.repeat(5000)], io)).to.equal(2);
    expect(io.err().length).to.be.below(600);
    expect(io.err()).to.contain('(5000 characters)');
  });

  it('says an option before the command is misplaced', async () => {
    const io = captureIO();
    expect(await main(['--json', 'list'], io)).to.equal(2);
    expect(io.err()).to.contain('lightwire: CLI_USAGE: unknown option --json; options come after the command');
  });

  it('never names an internal option in an error (staticHosts, broadcastAddresses, port)', async () => {
    for (const args of [['list', '--light', 'lamp'], ['set', 'all', '--power', 'on', '--broadcast', 'x'], ['discover', '--lan-port', '0'], ['scene', 'capture', 'A', '--host', '1.2.3']]) {
      const io = captureIO();
      expect(await main(args, io), args.join(' ')).to.equal(2);
      expect(io.err(), args.join(' ')).to.not.match(/staticHosts|broadcastAddresses|option port|OPTIONS_INVALID/);
      expect(io.err().split('\n')[0], args.join(' ')).to.match(/^lightwire \w+: CLI_USAGE: --(light|broadcast|lan-port|host) "[^"]*": /);
    }
  });

  it('stops quietly when the reader of its output goes away (`| head`), with no stack trace', async function () {
    this.timeout(30_000);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lightwire-epipe-'));
    try {
      // 20,000 scenes: megabytes of JSON, far more than a pipe holds.
      const scenes = Array.from({ length: 20_000 }, (_, i) => ({
        uuid: `11111111-2222-4333-8444-${String(i).padStart(12, '0')}`,
        name: `scene ${i}`,
        account: { uuid: '00000000-0000-0000-0000-000000000000' },
        states: [{ selector: 'id:d073d5000001', power: 'on' }],
        created_at: 1,
        updated_at: 2,
      }));
      const file = path.join(dir, 'scenes.json');
      writeFileSync(file, JSON.stringify({ version: 1, scenes }));
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../core/cli/main.ts'), 'scene', 'list', '--json', '--scenes', file], { stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
      let first = 0;
      child.stdout.once('data', (c: Buffer) => {
        first = c.length;
        child.stdout.destroy();
      });
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])));
      expect(first).to.be.greaterThan(0);
      expect(err).to.not.match(/EPIPE|Unhandled|at .*\.js:\d+/);
      expect(signal).to.equal(null);
      expect(code).to.be.oneOf([0, 1]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
