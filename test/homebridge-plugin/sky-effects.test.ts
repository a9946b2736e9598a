// The sky effect switches (clouds, sunrise, sunset) need a matrix light on firmware 4 or later, as the service does:
// against virtual lights, a Candle on 4.10 gets them and a Tile on 3.50 only the effects it can run.

import * as hap from '@homebridge/hap-nodejs';
import { expect } from 'chai';
import { PRODUCTS } from '../../core/protocol/index.js';
import type { Fleet } from '../../core/simulator/index.js';
import { effectsFor } from '../../homebridge-plugin/effects.js';
import { platformRig, startFleet, type PlatformRig } from './helpers.js';
import { until } from '../helpers/wait.js';

const CANDLE = 'd073d5000051';
const TILE = 'd073d5000052';

describe('homebridge sky effect switches and firmware', function () {
  this.timeout(20_000);
  let fleet: Fleet;
  let rig: PlatformRig | undefined;

  before(async () => {
    fleet = await startFleet({
      lights: [
        { serial: CANDLE, product: 137, label: 'Candle', firmware: { major: 4, minor: 10 } },
        { serial: TILE, product: 55, label: 'Tile', firmware: { major: 3, minor: 50 }, tileCount: 2 },
      ],
    });
  });
  after(async () => {
    await rig?.close();
    await fleet.stop();
  });

  it('chooses by capability and firmware; a firmware not known yet keeps the switches', () => {
    const matrix = PRODUCTS.get(1, 55).capabilities;
    const kinds = ['sunrise', 'flame', 'clouds'] as const;
    expect(effectsFor(kinds, matrix, 3).map((e) => e.kind)).to.deep.equal(['flame']);
    expect(effectsFor(kinds, matrix, 4).map((e) => e.kind)).to.deep.equal(['sunrise', 'flame', 'clouds']);
    expect(effectsFor(kinds, matrix, undefined).map((e) => e.kind)).to.deep.equal(['sunrise', 'flame', 'clouds']);
  });

  it('gives the Candle on firmware 4 its sunrise switch and the Tile on 3.50 only flame', async () => {
    rig = await platformRig({ lights: { effects: ['sunrise', 'flame'] } }, fleet);
    await until(() => rig!.platform.lights.size === 2, { what: 'two accessories' });
    const switches = (serial: string): string[] =>
      rig!.platform.lights.get(serial)!.accessory.services.filter((s) => s.UUID === hap.Service.Switch.UUID).map((s) => s.subtype ?? '').sort();
    await until(() => switches(CANDLE).length === 2 && switches(TILE).length === 1, { what: 'the effect switches' });
    expect(switches(CANDLE)).to.deep.equal(['effect-flame', 'effect-sunrise']);
    expect(switches(TILE)).to.deep.equal(['effect-flame']);
  });
});
