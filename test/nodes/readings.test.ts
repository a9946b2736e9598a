// The ambient light sensor's reading in the get-info and discover nodes' records (`ambient_lux`), for lights that
// answer SensorGetAmbientLight, against virtual lights: absent on a light without the sensor, and updated (a
// `changed` event naming it) when a refresh reads a new value.

import { expect } from 'chai';
import type { Fleet } from '../../core/simulator/index.js';
import { NODES, collect, configFor, helper, inject, nextMessage, onTab, startFleet } from './rig.js';
import { until } from '../helpers/wait.js';

const BULB = 'd073d5000001';
const LAMP = 'd073d5000002';

type Light = Record<string, unknown> & { id: string; ambient_lux?: number };
type Msg = { topic: string; serial?: string; changes?: string[]; payload: unknown };

describe('lightwire-get-info and lightwire-discover: ambient light', function () {
  this.timeout(20_000);
  let fleet: Fleet;

  beforeEach(async () => {
    fleet = await startFleet({
      lights: [
        { serial: BULB, product: 91, label: 'Bulb', power: 'on' },
        { serial: LAMP, product: 91, label: 'Lamp', power: 'off', lux: 120 },
      ],
    });
    await helper.load(
      NODES,
      onTab(
        configFor(fleet),
        { id: 'info', type: 'lightwire-get-info', config: 'cfg', selector: 'all', read: 'cache', wires: [['out']] },
        { id: 'fresh', type: 'lightwire-get-info', config: 'cfg', selector: `id:${LAMP}`, read: 'fresh', wires: [['out']] },
        { id: 'disc', type: 'lightwire-discover', config: 'cfg', selector: '', wires: [['events']] },
        { id: 'out', type: 'helper' },
        { id: 'events', type: 'helper' },
      ),
    );
  });

  afterEach(async () => {
    await helper.unload();
    await fleet.stop();
  });

  async function ask(id: string): Promise<Light[]> {
    const out = nextMessage('out');
    inject(id, { payload: 'go' });
    return (await out).payload as Light[];
  }

  it('get info adds ambient_lux to the record of a light with the sensor only', async () => {
    let lights: Light[] = [];
    // The sensor is asked on a state refresh after the first read (refresh is off here: a fresh read of the lamp).
    await until(async () => (await ask('fresh'), (lights = await ask('info')).some((l) => l.ambient_lux !== undefined)), { what: 'the lamp read' });
    const lamp = lights.find((l) => l.id === LAMP)!;
    const bulb = lights.find((l) => l.id === BULB)!;
    expect(lamp.ambient_lux).to.equal(120);
    expect(bulb).not.to.have.property('ambient_lux');
    // The rest of the record is the List Lights record.
    expect(lamp).to.include.keys('id', 'uuid', 'label', 'connected', 'power', 'color', 'brightness', 'effect', 'group', 'location', 'product');
  });

  it('discover shows it on the list and reports a new reading as a change naming ambientLux', async () => {
    const got = collect<Msg>('events');
    await until(() => got.filter((m) => m.topic === 'added').length >= 2, { what: 'both lights added' });
    let list: Light[] = [];
    await until(async () => {
      await ask('fresh');
      const seen = got.length;
      inject('disc', { payload: 'list' });
      const reply = await until(() => got.slice(seen).find((m) => m.topic === 'list'), { what: 'the list' });
      list = reply.payload as Light[];
      return list.find((l) => l.id === LAMP)?.ambient_lux === 120;
    }, { what: 'the lamp read in the list' });
    expect(list.find((l) => l.id === BULB)).not.to.have.property('ambient_lux');
    fleet.light(LAMP).setState({ lux: 7.5 });
    // A fresh read of the lamp reads its sensor again (in the background of its state read).
    await ask('fresh');
    const isNewReading = (m: Msg): boolean => m.topic === 'changed' && (m.payload as Light).ambient_lux === 7.5;
    await until(() => got.some(isNewReading), { what: 'a changed event for the new reading' });
    const changed = got.find(isNewReading)!;
    expect(changed.serial).to.equal(LAMP);
    expect(changed.changes).to.deep.equal(['ambientLux']);
  });
});
