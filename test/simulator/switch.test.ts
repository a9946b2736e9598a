import { expect } from 'chai';
import { namesOf, payloadsOf } from './client.js';
import { rig, type Rig } from './helpers.js';

const SWITCH = 'd073d5000030';

describe('simulator LIFX Switch', () => {
  let r: Rig;

  beforeEach(async () => {
    r = await rig({ lights: [{ serial: SWITCH, product: 70, label: 'Hall switch' }] });
  });
  afterEach(() => r.close());

  it('answers GetColor with StateUnhandled naming type 101, after the ack', async () => {
    const replies = await r.client.request('GetColor', {}, r.at(SWITCH), { ack: true, count: 2 });
    expect(namesOf(replies)).to.deep.equal(['Acknowledgement', 'StateUnhandled']);
    expect(payloadsOf(replies, 'StateUnhandled')).to.deep.equal([{ unhandledType: 101 }]);
  });

  it('answers multizone and tile messages with StateUnhandled too', async () => {
    const zones = await r.client.request('GetColorZones', { startIndex: 0, endIndex: 255 }, r.at(SWITCH), { count: 1 });
    const tiles = await r.client.request('Get64', { tileIndex: 0, length: 1, rect: { fbIndex: 0, x: 0, y: 0, width: 8 } }, r.at(SWITCH), { count: 1 });
    const power = await r.client.request('SetLightPower', { level: 0, durationMs: 0 }, r.at(SWITCH), { count: 1 });
    expect(payloadsOf(zones, 'StateUnhandled')).to.deep.equal([{ unhandledType: 502 }]);
    expect(payloadsOf(tiles, 'StateUnhandled')).to.deep.equal([{ unhandledType: 707 }]);
    expect(payloadsOf(power, 'StateUnhandled')).to.deep.equal([{ unhandledType: 117 }]);
  });

  it('never answers a StateUnhandled or an Acknowledgement with StateUnhandled (a reply sent back would bounce for ever)', async () => {
    const unhandled = await r.client.request('StateUnhandled', { unhandledType: 101 }, r.at(SWITCH), { timeoutMs: 150 });
    const ack = await r.client.request('Acknowledgement', {}, r.at(SWITCH), { timeoutMs: 150 });
    expect(unhandled).to.deep.equal([]);
    expect(ack).to.deep.equal([]);
    expect(r.fleet.light(SWITCH).receivedCount('StateUnhandled')).to.equal(1);
    // Any other message it does not handle, a State included, still gets its StateUnhandled.
    const state = await r.client.request('StatePower', { level: 0 }, r.at(SWITCH), { count: 1 });
    expect(payloadsOf(state, 'StateUnhandled')).to.deep.equal([{ unhandledType: 22 }]);
  });

  it('answers device messages normally', async () => {
    const label = await r.client.request('GetLabel', {}, r.at(SWITCH), { count: 1 });
    expect(payloadsOf(label, 'StateLabel')).to.deep.equal([{ label: 'Hall switch' }]);
    const version = await r.client.request('GetVersion', {}, r.at(SWITCH), { count: 1 });
    expect(payloadsOf(version, 'StateVersion')).to.deep.equal([{ vendor: 1, product: 70 }]);
  });

  it('switches relays with SetRPower, answering the level from before, and reports them with GetRPower', async () => {
    const set = await r.client.request('SetRPower', { relayIndex: 2, level: 65535 }, r.at(SWITCH), { res: true, count: 1 });
    expect(payloadsOf(set, 'StateRPower')).to.deep.equal([{ relayIndex: 2, level: 0 }]);
    const get = await r.client.request('GetRPower', { relayIndex: 2 }, r.at(SWITCH), { count: 1 });
    expect(payloadsOf(get, 'StateRPower')).to.deep.equal([{ relayIndex: 2, level: 65535 }]);
    expect(r.fleet.light(SWITCH).state.relays).to.deep.equal(['off', 'off', 'on', 'off']);
    const missing = await r.client.request('GetRPower', { relayIndex: 9 }, r.at(SWITCH), { timeoutMs: 100 });
    expect(missing).to.deep.equal([]);
  });

  it('reports four buttons and keeps the button configuration', async () => {
    const buttons = await r.client.request('GetButton', {}, r.at(SWITCH), { count: 1 });
    expect(payloadsOf(buttons, 'StateButton')[0]).to.include({ count: 4, index: 0, buttonsCount: 4 });
    const config = {
      hapticDurationMs: 120,
      backlightOnColor: { hue: 100, saturation: 200, brightness: 300, kelvin: 4000 },
      backlightOffColor: { hue: 1, saturation: 2, brightness: 3, kelvin: 2700 },
    };
    await r.client.request('SetButtonConfig', config, r.at(SWITCH), { ack: true, count: 1 });
    const got = await r.client.request('GetButtonConfig', {}, r.at(SWITCH), { count: 1 });
    expect(payloadsOf(got, 'StateButtonConfig')).to.deep.equal([config]);
  });
});
