import * as hap from '@homebridge/hap-nodejs';
import { expect } from 'chai';
import { kelvinToMireds, type Capabilities } from '../../core/index.js';
import { PRODUCTS } from '../../core/protocol/index.js';
import {
  LIGHTBULB,
  NIGHT_VISION,
  kelvinToLightMireds,
  mergePatch,
  miredsRange,
  miredsToLightKelvin,
  type Mapping,
} from '../../homebridge-plugin/characteristics.js';
import { lightOf } from '../helpers/light-view.js';

const product = (pid: number) => PRODUCTS.get(1, pid, { major: 3, minor: 70 });
const caps = (pid: number): Capabilities => product(pid).capabilities;

/** A real HAP Lightbulb with the characteristics and ranges the table gives a product. */
function bulbFor(capabilities: Capabilities, table: readonly Mapping[] = LIGHTBULB): { service: hap.Service; writes: unknown[] } {
  const service = new hap.Service.Lightbulb('Test');
  const writes: unknown[] = [];
  for (const m of table) {
    if (!m.applies(capabilities)) continue;
    const c = service.getCharacteristic(hap.Characteristic[m.characteristic]);
    const props = m.props?.(capabilities);
    if (props) c.setProps(props);
    c.onSet((value) => {
      writes.push(m.write(value, capabilities));
    });
  }
  return { service, writes };
}

const names = (capabilities: Capabilities, table = LIGHTBULB) => table.filter((m) => m.applies(capabilities)).map((m) => m.characteristic);

describe('homebridge characteristic mapping', () => {
  describe('which characteristics a light gets', () => {
    it('gives a colour bulb On, Brightness, Hue, Saturation and ColorTemperature', () => {
      expect(names(caps(91))).to.deep.equal(['On', 'Brightness', 'Hue', 'Saturation', 'ColorTemperature']);
    });

    it('gives a white-to-warm bulb a colour temperature but no hue or saturation', () => {
      expect(names(caps(125))).to.deep.equal(['On', 'Brightness', 'ColorTemperature']);
    });

    it('gives a fixed-white bulb only On and Brightness', () => {
      expect(caps(51).variableColorTemp).to.equal(false);
      expect(names(caps(51))).to.deep.equal(['On', 'Brightness']);
    });

    it('gives a Switch (no light) nothing of a Lightbulb', () => {
      expect(names(caps(70))).to.deep.equal([]);
    });

    it('gives night-vision lights the infrared tile and others not', () => {
      expect(names(caps(109), NIGHT_VISION)).to.deep.equal(['On', 'Brightness']);
      expect(names(caps(91), NIGHT_VISION)).to.deep.equal([]);
    });
  });

  describe('colour temperature in mireds, per product', () => {
    it('covers 1500-9000 K products fully: 111-667 mireds, beyond HAP default 140-500', () => {
      const { service } = bulbFor(caps(62));
      const ct = service.getCharacteristic(hap.Characteristic.ColorTemperature);
      expect(caps(62).kelvinRange).to.deep.equal({ minK: 1500, maxK: 9000 });
      expect([ct.props.minValue, ct.props.maxValue]).to.deep.equal([111, 667]);
    });

    it('sets each variable-white product to exactly its own range', () => {
      let checked = 0;
      for (const p of PRODUCTS.all()) {
        const c = PRODUCTS.get(p.vendorId, p.productId, { major: 3, minor: 70 }).capabilities;
        if (!c.variableColorTemp || c.kelvinRange === null) continue;
        const { service } = bulbFor(c);
        const ct = service.getCharacteristic(hap.Characteristic.ColorTemperature);
        expect(ct.props.minValue, p.name).to.equal(kelvinToMireds(c.kelvinRange.maxK));
        expect(ct.props.maxValue, p.name).to.equal(kelvinToMireds(c.kelvinRange.minK));
        checked++;
      }
      expect(checked).to.be.greaterThan(20);
    });

    it('accepts writes at both ends of the range and HAP rejects one step beyond (-70410)', async () => {
      const { service, writes } = bulbFor(caps(62));
      const ct = service.getCharacteristic(hap.Characteristic.ColorTemperature);
      await ct.handleSetRequest(111);
      await ct.handleSetRequest(667);
      expect(writes).to.deep.equal([
        { kelvin: 9000, saturation: 0 },
        { kelvin: 1500, saturation: 0 },
      ]);
      // A write from a controller (with a connection) is checked against the props before onSet runs.
      const controller = { username: 'controller' } as unknown as hap.HAPConnection;
      let status: unknown;
      await ct.handleSetRequest(668, controller).catch((s: unknown) => (status = s));
      expect(writes).to.have.length(2);
      expect(status).to.equal(hap.HAPStatus.INVALID_VALUE_IN_REQUEST);
    });

    it('never asks a light for a kelvin outside its range', () => {
      const range = caps(10).kelvinRange!; // 2700-6500 K
      const { minValue, maxValue } = miredsRange(range);
      for (let m = minValue; m <= maxValue; m++) {
        const k = miredsToLightKelvin(m, range);
        expect(k).to.be.within(range.minK, range.maxK);
      }
      expect(miredsToLightKelvin(50, range)).to.equal(6500);
      expect(miredsToLightKelvin(1000, range)).to.equal(2700);
    });

    it('reads a light kelvin back as mireds in the light range (round trip within 1 %)', () => {
      const range = caps(62).kelvinRange!;
      for (const k of [1500, 2000, 2700, 3500, 5000, 6500, 9000]) {
        const m = kelvinToLightMireds(k, range);
        expect(Math.abs(miredsToLightKelvin(m, range) - k) / k).to.be.below(0.01);
      }
      // A light reporting a kelvin beyond its range reads at the edge.
      expect(kelvinToLightMireds(1200, caps(10).kelvinRange!)).to.equal(kelvinToMireds(2700));
    });
  });

  describe('reads from a cached light', () => {
    const view = lightOf(109, { power: 'on', color: { hue: 120.4, saturation: 0.256, brightness: 0.504, kelvin: 2700 }, infrared: 0.25 });
    const read = (table: readonly Mapping[], name: string) => table.find((m) => m.characteristic === name)!.read(view);

    it('converts fractions to whole percent and keeps degrees', () => {
      expect(read(LIGHTBULB, 'On')).to.equal(true);
      expect(read(LIGHTBULB, 'Brightness')).to.equal(50);
      expect(read(LIGHTBULB, 'Hue')).to.equal(120);
      expect(read(LIGHTBULB, 'Saturation')).to.equal(26);
      expect(read(LIGHTBULB, 'ColorTemperature')).to.equal(370);
      expect(read(NIGHT_VISION, 'On')).to.equal(true);
      expect(read(NIGHT_VISION, 'Brightness')).to.equal(25);
    });

    it('gives values HAP accepts for every characteristic (no warnings, value kept)', () => {
      const { service } = bulbFor(view.capabilities);
      for (const m of LIGHTBULB) {
        if (!m.applies(view.capabilities)) continue;
        const c = service.getCharacteristic(hap.Characteristic[m.characteristic]);
        c.updateValue(m.read(view));
        expect(c.value, m.characteristic).to.equal(m.read(view));
      }
    });

    it('reads a light not read yet as off and dark', () => {
      const unread = lightOf(91);
      expect(LIGHTBULB.map((m) => m.read(unread))).to.deep.equal([false, 0, 0, 0, kelvinToLightMireds(3500, unread.capabilities.kelvinRange!)]);
    });
  });

  describe('writes', () => {
    it('turn percent into fractions, booleans into power', async () => {
      const { service, writes } = bulbFor(caps(91));
      await service.getCharacteristic(hap.Characteristic.On).handleSetRequest(true);
      await service.getCharacteristic(hap.Characteristic.Brightness).handleSetRequest(40);
      await service.getCharacteristic(hap.Characteristic.Hue).handleSetRequest(300);
      await service.getCharacteristic(hap.Characteristic.Saturation).handleSetRequest(100);
      await service.getCharacteristic(hap.Characteristic.On).handleSetRequest(0);
      expect(writes).to.deep.equal([{ power: 'on' }, { brightness: 0.4 }, { hue: 300 }, { saturation: 1 }, { power: 'off' }]);
    });

    it('merge into one patch, the later value of a field winning', () => {
      const merged = [{ power: 'on' as const }, { brightness: 0.4 }, { hue: 300 }, { saturation: 1 }, { brightness: 0.6 }].reduce(mergePatch, {});
      expect(merged).to.deep.equal({ power: 'on', brightness: 0.6, hue: 300, saturation: 1 });
    });

    it('merge night vision: a level outranks a bare On, a later Off outranks a level', () => {
      expect(mergePatch({ infrared: 0.5 }, { infraredOn: true })).to.deep.equal({ infrared: 0.5 });
      expect(mergePatch({ infraredOn: true }, { infrared: 0.3 })).to.deep.equal({ infrared: 0.3 });
      expect(mergePatch({ infrared: 0.5 }, { infraredOn: false })).to.deep.equal({ infraredOn: false });
    });
  });
});
