import { expect } from 'chai';
import { isoSeconds, printable, table } from '../../core/cli/format.js';

describe('CLI text output', () => {
  it('escapes control characters and bidirectional overrides, so a label cannot drive the terminal', () => {
    expect(printable('\u001b[31mRED\u001b[0m\u001b[2K\rX')).to.equal('\\x1b[31mRED\\x1b[0m\\x1b[2K\\rX');
    expect(printable('\u001b]0;pwned\u0007')).to.equal('\\x1b]0;pwned\\x07');
    expect(printable('Home\nOffice\tdesk\u007f\u009b')).to.equal('Home\\nOffice\\tdesk\\x7f\\x9b');
    expect(printable('abc\u202eexe.txt')).to.equal('abc\\u202eexe.txt');
    // Everything else, Unicode included, is left as it is.
    expect(printable('Küche 💡 "Desk" 書斎')).to.equal('Küche 💡 "Desk" 書斎');
  });

  it('prints every table cell escaped, one row a line, the columns aligned to the escaped text', () => {
    const out = table(['ID', 'LABEL', 'GROUP'], [
      ['d073d5000001', 'Desk\n\u001b[2J', 'Office'],
      ['d073d5000002', 'Lamp', 'A'],
    ]);
    expect(out.split('\n')).to.deep.equal([
      'ID            LABEL          GROUP',
      'd073d5000001  Desk\\n\\x1b[2J  Office',
      'd073d5000002  Lamp           A',
    ]);
  });

  it('shows a time no date has as its number instead of failing', () => {
    expect(isoSeconds(1_700_000_000)).to.equal('2023-11-14T22:13:20.000Z');
    expect(isoSeconds(9_007_199_254_740_991)).to.equal('9007199254740991');
  });
});
