// The optional HomeKit LightSensor (lights.ambientLight, off by default) against virtual lights: a light whose
// ambient light sensor answers gets one with its reading (CurrentAmbientLightLevel, lux, at least HAP's 0.0001),
// following a new reading; a light without the sensor gets none; with the option off no light gets one.

import * as hap from '@homebridge/hap-nodejs';
import { expect } from 'chai';
import type { PlatformAccessory } from 'homebridge';
import type { Fleet } from '../../core/simulator/index.js';
import { AMBIENT_LUX_MIN } from '../../homebridge-plugin/characteristics.js';
import { SUBTYPE } from '../../homebridge-plugin/settings.js';
import { hapRead, platformRig, startFleet, type PlatformRig } from './helpers.js';
import { until } from '../helpers/wait.js';

const LAMP = 'd073d5000041';
const BULB = 'd073d5000042';

function sensorOf(accessory: PlatformAccessory): hap.Service | undefined {
  return accessory.services.find((s) => s.UUID === hap.Service.LightSensor.UUID && s.subtype === SUBTYPE.ambientLight) as hap.Service | undefined;
}

describe('homebridge LightSensor for the ambient light sensor', function () {
  this.timeout(20_000);
  let fleet: Fleet;
  let rig: PlatformRig | undefined;

  beforeEach(async () => {
    fleet = await startFleet({
      lights: [
        { serial: LAMP, product: 91, label: 'Lamp', power: 'off', lux: 42.5 },
        { serial: BULB, product: 91, label: 'Bulb', power: 'on' },
      ],
    });
  });

  afterEach(async () => {
    await rig?.close();
    rig = undefined;
    await fleet.stop();
  });

  const accessory = (serial: string): PlatformAccessory => rig!.platform.lights.get(serial)!.accessory;

  it('is off by default: no light gets a LightSensor, even one whose sensor answered', async () => {
    rig = await platformRig({}, fleet);
    await until(() => rig!.platform.lights.size === 2, { what: 'two accessories' });
    // The sensor is asked on a state refresh after the first read: refresh until the service has the reading.
    await until(async () => (await rig!.platform.service!.refresh(`id:${LAMP}`), rig!.platform.service!.light(LAMP)?.ambientLux === 42.5), { what: 'the lamp read' });
    expect(sensorOf(accessory(LAMP))).to.equal(undefined);
    expect(sensorOf(accessory(BULB))).to.equal(undefined);
  });

  it('with lights.ambientLight, gives the light with the sensor a LightSensor showing its reading, and follows it', async () => {
    rig = await platformRig({ lights: { ambientLight: true } }, fleet);
    await until(() => rig!.platform.lights.size === 2, { what: 'two accessories' });
    const sensor = await until(async () => (await rig!.platform.service!.refresh(`id:${LAMP}`), sensorOf(accessory(LAMP))), { what: 'the lamp\'s LightSensor' });
    expect(sensor.displayName).to.equal('Lamp Light Level');
    const level = sensor.getCharacteristic(hap.Characteristic.CurrentAmbientLightLevel);
    expect(level.props.minValue).to.equal(AMBIENT_LUX_MIN);
    // HAP rounds to the characteristic's step (0.0001 lux), in floating point.
    expect((await hapRead(level)).value).to.be.closeTo(42.5, 1e-9);
    expect(sensorOf(accessory(BULB))).to.equal(undefined);
    // Darkness reads as HAP's minimum, never 0; a new reading reaches HomeKit after the refresh that reads it.
    fleet.light(LAMP).setState({ lux: 0 });
    await rig.platform.service!.refresh(`id:${LAMP}`);
    await until(() => level.value === AMBIENT_LUX_MIN, { what: 'the dark reading pushed to HomeKit' });
    expect(await hapRead(level)).to.deep.equal({ value: AMBIENT_LUX_MIN });
  });
});
