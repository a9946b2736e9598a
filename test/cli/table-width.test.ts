import { expect } from 'chai';
import { displayWidth, tableLines } from '../../core/text.js';

describe('tables as a terminal draws them', () => {
  it('counts CJK and emoji as two columns, combining marks as none', () => {
    expect(displayWidth('Desk')).to.equal(4);
    expect(displayWidth('台所')).to.equal(4);
    expect(displayWidth('부엌')).to.equal(4);
    expect(displayWidth('Lamp 💡')).to.equal(7);
    expect(displayWidth('Cafe\u0301')).to.equal(4);
    expect(displayWidth('ﾗﾝﾌﾟ')).to.equal(4);
  });

  it('keeps the columns in line when a label is CJK or has an emoji', () => {
    const lines = tableLines(['SERIAL', 'LABEL', 'STATUS'], [
      ['d073d5000001', '台所', 'ok'],
      ['d073d5000002', 'Lamp 💡', 'ok'],
      ['d073d5000003', 'Hall', 'offline'],
    ]);
    expect(lines).to.deep.equal([
      'SERIAL        LABEL    STATUS',
      'd073d5000001  台所     ok',
      'd073d5000002  Lamp 💡  ok',
      'd073d5000003  Hall     offline',
    ]);
    // Every STATUS cell starts at the same terminal column.
    const statusColumn = (line: string): number => displayWidth(line.slice(0, line.search(/(ok|offline|STATUS)$/)));
    expect(new Set(lines.map(statusColumn)).size).to.equal(1);
  });
});
