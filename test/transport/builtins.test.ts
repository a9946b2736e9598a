// core/builtins.ts: the address check and random ids that replace node:net's and node:crypto's on the light path.

import { expect } from 'chai';
import { isIPv4 as netIsIPv4 } from 'node:net';
import { isIPv4, randomNonZeroUint32 } from '../../core/builtins.js';

describe('builtins', () => {
  describe('isIPv4', () => {
    const cases = [
      '127.0.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '192.168.1.20',
      '10.0.0.255',
      '256.0.0.1',
      '1.2.3',
      '1.2.3.4.5',
      '01.2.3.4',
      '1.2.3.04',
      '1.2.3.-4',
      ' 1.2.3.4',
      '1.2.3.4 ',
      '1.2.3.4\n',
      '1..3.4',
      '',
      'localhost',
      '::1',
      '::ffff:127.0.0.1',
      '1.2.3.4:56700',
      '1e2.0.0.1',
      '0x7f.0.0.1',
      '１.2.3.4',
    ];

    it('accepts exactly the dotted quads node:net accepts', () => {
      const differ = cases.filter((text) => isIPv4(text) !== netIsIPv4(text));
      expect(differ).to.deep.equal([]);
      expect(cases.filter(isIPv4)).to.deep.equal(['127.0.0.1', '0.0.0.0', '255.255.255.255', '192.168.1.20', '10.0.0.255']);
    });

    it('agrees with node:net on every octet value, with and without leading zeros', () => {
      const differ: string[] = [];
      for (let octet = 0; octet <= 300; octet++) {
        for (const text of [`${octet}.1.2.3`, `1.2.3.${octet}`, `1.0${octet}.2.3`]) if (isIPv4(text) !== netIsIPv4(text)) differ.push(text);
      }
      expect(differ).to.deep.equal([]);
    });
  });

  describe('randomNonZeroUint32', () => {
    it('gives integers 1 to 2^32 - 1 that differ from call to call', () => {
      const values = Array.from({ length: 2000 }, () => randomNonZeroUint32());
      expect(values.filter((v) => !Number.isInteger(v) || v < 1 || v > 0xffff_ffff)).to.deep.equal([]);
      expect(new Set(values).size).to.be.greaterThan(1990);
      // Spread over the whole range, not stuck in its low half.
      expect(values.some((v) => v > 0x8000_0000)).to.equal(true);
      expect(values.some((v) => v < 0x8000_0000)).to.equal(true);
    });
  });
});
