// Names the plugin gives HomeKit, checked against HAP-NodeJS's own rule (its "invalid 'Name'" warning).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as hap from '@homebridge/hap-nodejs';
import { expect } from 'chai';
import fc from 'fast-check';
import { HOMEKIT_NAME, homeKitName, isHomeKitName, lightFallbackName } from '../../homebridge-plugin/names.js';
import { sceneSwitchName } from '../../homebridge-plugin/scenes.js';
import { hapNameWarnings } from './helpers.js';

const ROOT = path.resolve(__dirname, '../..');

/** The regular expression HAP-NodeJS's checkName tests names with, read from the installed HAP-NodeJS. */
function hapRule(): RegExp {
  const source = readFileSync(path.join(ROOT, 'node_modules/@homebridge/hap-nodejs/dist/lib/util/checkName.js'), 'utf8');
  const match = /!\/(\^.*\$)\/([a-z]*)\.test\(value\)/.exec(source);
  if (match === null) throw new Error('checkName.js of HAP-NodeJS no longer has the expected test');
  return new RegExp(match[1]!, match[2]);
}

/** Whether HAP-NodeJS names a service with it without its "invalid 'Name'" warning. */
async function hapAccepts(name: string): Promise<boolean> {
  const warnings = await hapNameWarnings(() => void new hap.Service.Switch(name, 'x'));
  return warnings.length === 0;
}

const light = (label: string): string => homeKitName(label, lightFallbackName('d073d5001337', 'LIFX Color'), 'Light');

describe('homebridge names', () => {
  it('uses exactly the rule of the installed HAP-NodeJS', () => {
    const rule = hapRule();
    expect(HOMEKIT_NAME.source).to.equal(rule.source);
    expect(HOMEKIT_NAME.flags).to.equal(rule.flags);
  });

  it('keeps labels HomeKit accepts as they are', async () => {
    for (const label of ['Kitchen', 'Desk (left) 2', "Anna's Lamp", 'Büro Decke', 'Couch & TV', '2nd floor', 'Lampe', 'Ab']) {
      expect(light(label), label).to.equal(label);
      expect(await hapAccepts(label), label).to.equal(true);
    }
  });

  it('cleans labels HomeKit refuses into names HAP-NodeJS accepts', async () => {
    const cases: [string, string][] = [
      ['Lamp 💡', 'Lamp'],
      ['Desk (left)', 'Desk left'],
      ['#2 Hall', '2 Hall'],
      ['A', 'Light A'],
      ['Lamp 💡 Desk', 'Lamp Desk'],
      ['Cafe\u0301', 'Café'],
      ['Hall\tway', 'Hall way'],
      ['💡💡', 'LIFX Color 001337'],
      ['', 'LIFX Color 001337'],
      ['(-)', 'LIFX Color 001337'],
    ];
    for (const [label, name] of cases) {
      expect(hapRule().test(label), `HAP refuses ${JSON.stringify(label)}`).to.equal(false);
      expect(light(label), label).to.equal(name);
      expect(await hapAccepts(name), name).to.equal(true);
    }
  });

  it('falls back to the product and serial, cleaned too, and to the noun when even that has nothing usable', () => {
    expect(lightFallbackName('d073d5001337', undefined)).to.equal('LIFX 001337');
    expect(homeKitName('⚡', lightFallbackName('d073d5001337', 'LIFX Ceiling 13x26" US'), 'Light')).to.equal('LIFX Ceiling 13x26 US 001337');
    expect(homeKitName('⚡', '★', 'Switch')).to.equal('Switch');
    expect(homeKitName('⚡', 'B', 'Switch')).to.equal('Switch B');
  });

  it('names scene switches the same way', () => {
    expect(sceneSwitchName({ uuid: '6f1c2a9e-0000-4000-8000-000000000000', name: 'Movie 🎬' })).to.equal('Movie');
    expect(sceneSwitchName({ uuid: '6f1c2a9e-0000-4000-8000-000000000000', name: '🎬' })).to.equal('Scene 6f1c2a');
    expect(sceneSwitchName({ uuid: 'u', name: 'Evening' })).to.equal('Evening');
  });

  it('gives any text a name HAP-NodeJS accepts, and leaves accepted names alone', () => {
    const rule = hapRule();
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 16 }),
      fc.string({ unit: fc.constantFrom('a', 'Z', '7', ' ', '(', ')', '#', '💡', '\u0301', "'", '\u2019', '-', '\t', '\u00a0'), maxLength: 12 }),
    );
    fc.assert(
      fc.property(text, (label) => {
        const name = light(label);
        expect(rule.test(name), `${JSON.stringify(label)} -> ${JSON.stringify(name)}`).to.equal(true);
        expect(isHomeKitName(name)).to.equal(true);
        if (rule.test(label)) expect(name).to.equal(label);
        // Cleaning twice changes nothing.
        expect(light(name)).to.equal(name);
      }),
      { numRuns: 3000, seed: 7 },
    );
  });
});
