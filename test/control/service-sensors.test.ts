// What newer devices report, against virtual lights: the ambient light sensor (401/402) where a light answers it,
// read in the background of the state refresh and never from a light that stays silent; the button configuration
// of a device with buttons, decoded; a running firmware effect our tables cannot name, shown by its number; and the
// sky effects only on matrix lights with firmware 4 or later.

import { expect } from 'chai';
import { isLightwireError } from '../../core/errors.js';
import type { LightInput } from '../../core/simulator/fleet-file.js';
import { CAPABILITY_PROBE_TIMEOUT_MS, PROBE_ROUNDS } from '../../core/discovery/capability-prober.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';
import { quietFor, until } from '../helpers/wait.js';
import { TestClient } from '../simulator/client.js';

const BULB = 'd073d5000021';
const LAMP = 'd073d5000022';
const CANDLE = 'd073d5000023';
const TILE = 'd073d5000024';
const SWITCH = 'd073d5000025';

const lights: LightInput[] = [
  { serial: BULB, product: 91, label: 'Bulb', power: 'on' },
  { serial: LAMP, product: 91, label: 'Lamp', power: 'off', lux: 42.5 },
  { serial: CANDLE, product: 137, label: 'Candle', firmware: { major: 4, minor: 10 }, power: 'on' },
  { serial: TILE, product: 55, label: 'Tile', firmware: { major: 3, minor: 50 }, tileCount: 2, power: 'on' },
  { serial: SWITCH, product: 70, label: 'Hall switch' },
];

/** The read timeout of the rig: a silent light's sensor probe waits this long (CAPABILITY_PROBE_TIMEOUT_MS caps it). */
const READ_TIMEOUT_MS = CAPABILITY_PROBE_TIMEOUT_MS;

describe('LightService and what newer devices report (ambient light, buttons, unknown effects, sky)', function () {
  this.timeout(20_000);
  let rig: ServiceRig;
  let raw: TestClient;
  beforeEach(async () => {
    rig = await serviceRig({ lights }, {}, {}, { readTimeoutMs: READ_TIMEOUT_MS });
    raw = await TestClient.open();
  });
  afterEach(async () => {
    await raw.close();
    await rig.close();
  });

  const endpoint = (serial: string): { address: string; port: number } => ({ address: rig.fleet.light(serial).address, port: rig.fleet.light(serial).port });

  describe('ambient light', () => {
    it('shows the reading of a light that answers 401 in its view, and updates it on the state refresh', async () => {
      // Not in the first read (it fits the light's quiet burst): the first state refresh after it asks.
      expect(rig.service.light(LAMP)!.ambientLux).to.equal(null);
      await rig.client.refreshState(LAMP);
      await until(() => rig.service.light(LAMP)!.ambientLux === 42.5, { what: 'the lamp reading 42.5 lux' });
      rig.fleet.light(LAMP).setState({ lux: 3.25 });
      await rig.client.refreshState(LAMP);
      await until(() => rig.service.light(LAMP)!.ambientLux === 3.25, { what: 'the new reading after a refresh' });
      expect(rig.fleet.light(LAMP).receivedCount('GetAmbientLight')).to.be.at.least(1);
    });

    it('leaves a light without the sensor at null, and stops asking it after PROBE_ROUNDS silent probes', async () => {
      for (let i = 0; i < PROBE_ROUNDS + 1; i++) {
        await rig.client.refreshState(BULB);
        // Each probe is one transmission awaited at most the read timeout: let it end before the next refresh.
        await quietFor(READ_TIMEOUT_MS + 100);
      }
      expect(rig.service.light(BULB)!.ambientLux).to.equal(null);
      const asked = rig.fleet.light(BULB).received('GetAmbientLight');
      // The first read's probe (before clearRecords) counts too: at most PROBE_ROUNDS in all, one per refresh.
      expect(asked.length).to.be.within(PROBE_ROUNDS - 1, PROBE_ROUNDS);
    });

    it('keeps the reading out of the List Lights records (the cloud shape)', async () => {
      await rig.client.refreshState(LAMP);
      await until(() => rig.service.light(LAMP)!.ambientLux === 42.5, { what: 'the lamp read' });
      const [record] = rig.service.list(`id:${LAMP}`);
      expect(Object.keys(record!)).to.deep.equal([
        'id', 'uuid', 'label', 'connected', 'power', 'color', 'brightness', 'effect', 'group', 'location', 'product', 'last_seen', 'seconds_since_seen',
      ]);
      expect(JSON.stringify(record)).not.to.match(/lux|ambient|42\.5/i);
    });
  });

  describe('buttons', () => {
    it('decodes the button configuration of a device with buttons: gestures, target types and their targets', async () => {
      const kelvinStep = Buffer.alloc(16);
      // ButtonTargetKelvinStep: 6 reserved bytes, then min, max, step, duration (u16 little-endian each).
      kelvinStep.writeUInt16LE(2700, 6);
      kelvinStep.writeUInt16LE(6500, 8);
      kelvinStep.writeUInt16LE(500, 10);
      kelvinStep.writeUInt16LE(1000, 12);
      const device = Buffer.from('d073d500002100000000000000000000', 'hex');
      const relays = Buffer.from([2, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
      const group = Buffer.from('1c8de82b81f445e7cfaafae49b259c71', 'hex');
      const actions = [
        { gesture: 1, targetType: 3, target: device },
        { gesture: 2, targetType: 31, target: kelvinStep },
        { gesture: 3, targetType: 2, target: relays },
        { gesture: 4, targetType: 19, target: group },
        { gesture: 99, targetType: 200, target: Buffer.alloc(16, 0xab) },
      ];
      raw.send('SetButton', { index: 0, buttonsCount: 1, buttons: [{ actionsCount: actions.length, actions }] }, endpoint(SWITCH), { target: SWITCH });
      await until(() => rig.fleet.light(SWITCH).receivedCount('SetButton') === 1, { what: 'the switch configured' });
      // A facts read already in flight (the first read's) is shared and may predate the change: read until one after it.
      const configured = (): boolean => rig.service.light(SWITCH)?.buttons?.buttons[0]?.actions.length === actions.length;
      await until(async () => (await Promise.all([rig.client.refreshInfo(SWITCH, 3000), rig.client.refreshState(SWITCH, 3000)]), configured()), {
        what: 'the new configuration read',
      });
      const buttons = rig.service.light(SWITCH)!.buttons!;
      expect(buttons.buttons).to.have.length(4);
      expect(buttons.buttons[0]!.actions).to.deep.equal([
        { gesture: 'PRESS', targetType: 'POWER_TOGGLE_DEVICE', target: { serial: 'd073d5000021' } },
        { gesture: 'HOLD', targetType: 'KELVIN_STEP_LOCAL_DEVICE', target: { minKelvin: 2700, maxKelvin: 6500, kelvinStep: 500, duration: 1000 } },
        { gesture: 'PRESS_PRESS', targetType: 'POWER_TOGGLE_RELAYS', target: { relays: [0, 3] } },
        { gesture: 'PRESS_HOLD', targetType: 'POWER_ON_GROUP', target: { group: '1c8de82b81f445e7cfaafae49b259c71' } },
        { gesture: '99', targetType: '200', target: { raw: 'ab'.repeat(16) } },
      ]);
      expect(buttons.buttons[1]!.actions).to.deep.equal([]);
      expect(buttons.config!.hapticDurationMs).to.equal(50);
      expect(buttons.config!.backlightOnColor).to.deep.include({ brightness: 1, kelvin: 3500 });
      expect(rig.service.light(BULB)!.buttons).to.equal(null);
    });
  });

  describe('the firmware effect running', () => {
    const runEffect = async (serial: string, type: number): Promise<void> => {
      const settings = { instanceid: 1, type, speedMs: 3000, durationNs: 0n, parameters: [], paletteCount: 0, palette: [] };
      raw.send('SetTileEffect', { settings }, endpoint(serial), { target: serial });
      await until(() => rig.fleet.light(serial).receivedCount('SetTileEffect') >= 1, { what: 'the effect set' });
      await rig.client.refreshInfo(serial);
    };

    it('shows an effect our tables do not name by its number, never as OFF', async () => {
      await runEffect(CANDLE, 7);
      expect(rig.service.light(CANDLE)!.effect).to.equal('7');
      expect(rig.service.list(`id:${CANDLE}`)[0]!.effect).to.equal('7');
    });

    it('names COLOR_SWEEP (6)', async () => {
      await runEffect(CANDLE, 6);
      expect(rig.service.light(CANDLE)!.effect).to.equal('COLOR_SWEEP');
    });
  });

  describe('sky effects', () => {
    it('run on a matrix light with firmware 4 or later only; the others are left out, not answered ok', async () => {
      for (const run of [() => rig.service.sunrise('all', { durationS: 60 }), () => rig.service.clouds('all', {}), () => rig.service.sunset('all', {})]) {
        const results = await run();
        expect(results).to.deep.equal([{ id: CANDLE, label: 'Candle', status: 'ok' }]);
      }
      expect(rig.fleet.light(CANDLE).receivedCount('SetTileEffect')).to.equal(3);
      expect(rig.fleet.light(TILE).receivedCount('SetTileEffect')).to.equal(0);
    });

    it('answers CAPABILITY_MISSING, as for any incapable light, when no selected light has the firmware', async () => {
      const err = await rig.service.sunrise(`id:${TILE}`, {}).then(() => undefined, (e: unknown) => e);
      expect(isLightwireError(err, 'CAPABILITY_MISSING')).to.equal(true);
      expect((err as Error).message).to.match(/needs matrix and firmware 4 or later/);
      // Morph and flame need no such firmware: the Tile still runs them.
      expect(await rig.service.flame(`id:${TILE}`, {})).to.deep.equal([{ id: TILE, label: 'Tile', status: 'ok' }]);
      expect(rig.fleet.light(TILE).receivedCount('SetTileEffect')).to.equal(1);
    });
  });
});
