import { expect } from 'chai';
import { editDistance } from '../../core/text.js';
import { hostValues, intValue, nearest, parseFlags, renderHelp, type FlagSpecs } from '../../core/cli/args.js';
import { idSerials } from '../../core/cli/connect.js';
import { isLightwireError } from '../../core/index.js';

const FLAGS = {
  light: { type: 'string', multiple: true, value: 'IP[:PORT]', help: 'a light', aliases: ['host'], section: 'Finding lights' },
  'lan-port': { type: 'string', value: 'PORT', help: 'the port', aliases: ['port'], section: 'Finding lights' },
  json: { type: 'boolean', help: 'print JSON' },
} as const satisfies FlagSpecs;

function ok(args: string[]) {
  const outcome = parseFlags(FLAGS, args);
  if (outcome.kind !== 'ok') throw new Error(`parsed as ${outcome.kind}`);
  return outcome.parsed;
}

function usage(fn: () => unknown): { message: string; flag: string | undefined } {
  try {
    fn();
  } catch (err) {
    if (isLightwireError(err, 'CLI_USAGE')) return { message: err.message, flag: err.params.flag };
    throw err;
  }
  throw new Error('no error');
}

describe('lightwire argument parsing (core/cli/args)', () => {
  it('takes a flag by its name or a hidden old name, and remembers which the user typed', () => {
    const p = ok(['--host', '127.0.0.2', '--light', '127.0.0.3:56701', '--port=56800', 'all']);
    expect(p.values.light).to.deep.equal(['127.0.0.2', '127.0.0.3:56701']);
    expect(p.values['lan-port']).to.equal('56800');
    expect(p.values.json).to.equal(false);
    expect(p.positionals).to.deep.equal(['all']);
    expect(p.flag('light')).to.equal('--light');
    expect(p.flag('lan-port')).to.equal('--port');
    expect(p.flag('json')).to.equal('--json');
    expect(p.given('json')).to.equal(false);
  });

  it('answers help and version before looking at anything else', () => {
    expect(parseFlags(FLAGS, ['--bogus', '-h']).kind).to.equal('help');
    expect(parseFlags(FLAGS, ['--light', 'x', '--version']).kind).to.equal('version');
    expect(parseFlags(FLAGS, ['--', '--help']).kind).to.equal('ok');
  });

  it('throws CLI_USAGE errors that carry the flag as typed', () => {
    expect(usage(() => parseFlags(FLAGS, ['--jsn']))).to.deep.equal({ message: 'unknown option --jsn (did you mean --json?)', flag: '--jsn' });
    expect(usage(() => parseFlags(FLAGS, ['--port']))).to.deep.equal({ message: '--port needs a value: --port PORT', flag: '--port' });
    expect(usage(() => parseFlags(FLAGS, ['--json=1']))).to.deep.equal({ message: '--json takes no value (got --json=1)', flag: '--json' });
    const p = ok(['--port', '99999', '--host', '1.2.3.4:0']);
    expect(usage(() => intValue(p, 'lan-port', 1, 65535))).to.deep.equal({ message: '--port "99999": must be an integer from 1 to 65535', flag: '--port' });
    expect(usage(() => hostValues(p, 'light'))).to.deep.equal({ message: '--host "1.2.3.4:0": the port must be from 1 to 65535', flag: '--host' });
  });

  it('takes integers written as digits only: not hex, exponents or decimals', () => {
    expect(intValue(ok(['--port', '56700']), 'lan-port', 1, 65535)).to.equal(56700);
    expect(intValue(ok(['--port', ' 080 ']), 'lan-port', 1, 65535)).to.equal(80);
    for (const text of ['0x10', '1e3', '1.0', '0b1', '', ' ', '5 6', 'Infinity']) {
      expect(usage(() => intValue(ok(['--port', text]), 'lan-port', 0, 65535)), text).to.deep.equal({ message: `--port ${JSON.stringify(text)}: must be an integer from 0 to 65535`, flag: '--port' });
    }
  });

  it('accepts a negative number as a value, not as a flag', () => {
    expect(ok(['--port', '-1']).values['lan-port']).to.equal('-1');
  });

  it('finds the nearest name: one typo, a swap, a prefix; nothing when far', () => {
    const names = ['--brightness', '--broadcast', '--light', '--lan-port', '--wait-ms', '--expect'];
    expect(nearest('--brigtness', names)).to.equal('--brightness');
    expect(nearest('--lgiht', names)).to.equal('--light');
    expect(nearest('--lan', names)).to.equal('--lan-port');
    expect(nearest('--expcet', names)).to.equal('--expect');
    expect(nearest('--colour', names)).to.equal(undefined);
    expect(nearest('--', names)).to.equal(undefined);
    expect(editDistance('abcd', 'abdc')).to.equal(1);
    expect(editDistance('', 'abc')).to.equal(3);
  });

  it('renders help from the table: sections, placeholders, built-in flags last, no hidden names', () => {
    const help = renderHelp({ usage: 'lightwire x [options]', description: 'Does x.', flags: FLAGS, footer: 'Exit codes: 0.' });
    expect(help).to.equal(
      [
        'Usage: lightwire x [options]',
        '',
        'Does x.',
        '',
        'Finding lights:',
        '  --light IP[:PORT]  a light',
        '  --lan-port PORT    the port',
        '',
        'Options:',
        '  --json             print JSON',
        '',
        'General:',
        '  -h, --help         show this help',
        '  --version          print the version',
        '',
        'Exit codes: 0.',
      ].join('\n'),
    );
    expect(help).to.not.contain('--host').and.not.contain('--port ');
  });

  it('knows which selectors name their lights by id', () => {
    expect(idSerials('id:D073D5000001')).to.deep.equal(new Set(['d073d5000001']));
    expect(idSerials('id:d073d5000001, id:d073d5000002|0-3')).to.deep.equal(new Set(['d073d5000001', 'd073d5000002']));
    expect(idSerials('id:d073d5000001:random')).to.deep.equal(new Set(['d073d5000001']));
    expect(idSerials('all')).to.equal(null);
    expect(idSerials('id:d073d5000001,label:Desk')).to.equal(null);
    expect(idSerials('id:xyz')).to.equal(null);
  });
});
