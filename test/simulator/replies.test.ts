import { expect } from 'chai';
import { encode } from '../../core/protocol/codec.js';
import { hsbkToWire } from '../../core/protocol/units.js';
import { idFromLabel } from '../../core/simulator/fleet-file.js';
import { payloadsOf, namesOf } from './client.js';
import { BULB, bulb, manualClock, rig, type Rig } from './helpers.js';
import { until } from '../helpers/wait.js';

const GREEN = hsbkToWire({ hue: 120, saturation: 1, brightness: 0.5, kelvin: 3500 });
const RED = hsbkToWire({ hue: 0, saturation: 1, brightness: 1, kelvin: 3500 });

describe('simulator replies', () => {
  let r: Rig;
  const clock = manualClock();

  beforeEach(async () => {
    clock.set(1_700_000_000_000);
    r = await rig(
      {
        lights: [
          bulb(),
          { serial: 'd073d5000002', product: 109, label: 'Porch', infrared: 0.5 },
          { serial: 'd073d5000003', product: 90, label: 'Clean' },
          { serial: 'd073d5000004', product: 91, label: 'Lamp', lux: 42.5 },
        ],
      },
      { now: clock.now },
    );
  });
  afterEach(() => r.close());

  const light = (): ReturnType<Rig['at']> => r.at(BULB);

  it('answers GetColor with LightState in wire units even without res_required', async () => {
    const replies = await r.client.request('GetColor', {}, light(), { count: 1 });
    expect(namesOf(replies)).to.deep.equal(['LightState']);
    expect(replies[0]!.header.target).to.equal(BULB);
    expect(payloadsOf(replies, 'LightState')[0]).to.deep.equal({ color: GREEN, power: 65535, label: 'Desk' });
  });

  it('answers SensorGetAmbientLight with the fleet entry\'s lux; a light without one stays silent, as real ones do', async () => {
    const lamp = r.at('d073d5000004');
    const replies = await r.client.request('GetAmbientLight', {}, lamp, { count: 1 });
    expect(namesOf(replies)).to.deep.equal(['StateAmbientLight']);
    expect(payloadsOf(replies, 'StateAmbientLight')[0]).to.deep.equal({ lux: 42.5 });
    // A negative window: nothing from the bulb (and no StateUnhandled: lights do not send it).
    expect(await r.client.request('GetAmbientLight', {}, light(), { timeoutMs: 300 })).to.deep.equal([]);
    r.fleet.light('d073d5000004').setState({ lux: 0.5 });
    const again = await r.client.request('GetAmbientLight', {}, lamp, { count: 1 });
    expect(payloadsOf(again, 'StateAmbientLight')[0]).to.deep.equal({ lux: 0.5 });
    expect(r.fleet.light('d073d5000004').state.lux).to.equal(0.5);
    expect(() => r.fleet.light(BULB).setState({ lux: 1 })).to.throw(/has no state.lux/);
  });

  it('sends the Acknowledgement before the State when both are asked for', async () => {
    const replies = await r.client.request('GetColor', {}, light(), { ack: true, res: true, count: 2 });
    expect(namesOf(replies)).to.deep.equal(['Acknowledgement', 'LightState']);
    // A Get answers its State even when only the ack is asked for (https://lan.developer.lifx.com/docs/communicating-with-device).
    const ackOnly = await r.client.request('GetLabel', {}, light(), { ack: true, count: 2 });
    expect(namesOf(ackOnly)).to.deep.equal(['Acknowledgement', 'StateLabel']);
    const set = await r.client.request('SetColor', { color: RED, durationMs: 0 }, light(), { ack: true, res: true, count: 2 });
    expect(namesOf(set)).to.deep.equal(['Acknowledgement', 'LightState']);
  });

  it('answers a Set with only an Acknowledgement when res_required is not set', async () => {
    const replies = await r.client.request('SetColor', { color: RED, durationMs: 0 }, light(), { ack: true, count: 1, settleMs: 80 });
    expect(namesOf(replies)).to.deep.equal(['Acknowledgement']);
    expect(r.fleet.light(BULB).state.color).to.deep.equal({ hue: 0, saturation: 1, brightness: 1, kelvin: 3500 });
  });

  it('sends nothing for a Set with neither ack nor res, and still applies it', async () => {
    const replies = await r.client.request('SetLightPower', { level: 0, durationMs: 0 }, light(), { timeoutMs: 120 });
    expect(replies).to.deep.equal([]);
    expect(r.fleet.light(BULB).state.power).to.equal('off');
  });

  it('returns the state from before the change for SetColor, SetLightPower and SetPower with res_required', async () => {
    const color = await r.client.request('SetColor', { color: RED, durationMs: 0 }, light(), { res: true, count: 1 });
    expect(payloadsOf(color, 'LightState')[0]!.color).to.deep.equal(GREEN);
    const power = await r.client.request('SetLightPower', { level: 0, durationMs: 0 }, light(), { res: true, count: 1 });
    expect(payloadsOf(power, 'StateLightPower')[0]).to.deep.equal({ level: 65535 });
    const device = await r.client.request('SetPower', { level: 65535 }, light(), { res: true, count: 1 });
    expect(payloadsOf(device, 'StatePower')[0]).to.deep.equal({ level: 0 });
    const now = await r.client.request('GetColor', {}, light(), { count: 1 });
    expect(payloadsOf(now, 'LightState')[0]).to.deep.equal({ color: RED, power: 65535, label: 'Desk' });
  });

  it('returns the label after the change for SetLabel', async () => {
    const replies = await r.client.request('SetLabel', { label: 'Reading lamp' }, light(), { res: true, count: 1 });
    expect(payloadsOf(replies, 'StateLabel')).to.deep.equal([{ label: 'Reading lamp' }]);
    const get = await r.client.request('GetLabel', {}, light(), { count: 1 });
    expect(payloadsOf(get, 'StateLabel')).to.deep.equal([{ label: 'Reading lamp' }]);
  });

  it('echoes the 32 label bytes it was sent, byte for byte, in StateLabel, LightState, StateGroup and StateLocation', async () => {
    // Bytes after the first NUL and a byte that is not UTF-8 (Latin-1 é) come back as they were sent (a device stores what it is sent).
    const bytes = Buffer.alloc(32);
    bytes.write('Caf', 0, 'latin1');
    bytes[3] = 0xe9;
    bytes.write('\0old tail', 4, 'latin1');
    const sendWith = (name: 'SetLabel' | 'SetGroup' | 'SetLocation', payload: never, labelAt: number, sequence: number): void => {
      const datagram = encode({ name, header: { source: r.client.source, sequence, target: BULB, ackRequired: true }, payload });
      bytes.copy(datagram, 36 + labelAt);
      r.client.sendRaw(datagram, light());
    };
    sendWith('SetLabel', { label: '' } as never, 0, 201);
    sendWith('SetGroup', { group: '0123456789abcdef0123456789abcdef', label: '', updatedAtNs: 7n } as never, 16, 202);
    sendWith('SetLocation', { location: 'fedcba9876543210fedcba9876543210', label: '', updatedAtNs: 8n } as never, 16, 203);
    await r.client.waitUntil(() => [201, 202, 203].every((q) => r.client.repliesTo(q).length === 1), 1000);
    const raw = async (name: 'GetLabel' | 'GetColor' | 'GetGroup' | 'GetLocation'): Promise<Buffer> => {
      const sequence = r.client.send(name, {}, light());
      await r.client.waitUntil(() => r.client.repliesTo(sequence).length === 1, 1000);
      return r.client.repliesTo(sequence)[0]!.datagram;
    };
    expect((await raw('GetLabel')).subarray(36, 68)).to.deep.equal(bytes);
    expect((await raw('GetColor')).subarray(36 + 12, 36 + 44)).to.deep.equal(bytes);
    expect((await raw('GetGroup')).subarray(36 + 16, 36 + 48)).to.deep.equal(bytes);
    expect((await raw('GetLocation')).subarray(36 + 16, 36 + 48)).to.deep.equal(bytes);
    expect(r.fleet.light(BULB).state.label).to.equal('Caf\ufffd');
    // A label set by other means is encoded afresh.
    r.fleet.light(BULB).setState({ label: 'Desk' });
    expect((await raw('GetLabel')).subarray(36, 68)).to.deep.equal(Buffer.concat([Buffer.from('Desk'), Buffer.alloc(28)]));
  });

  it('stores group and location verbatim, updated_at included, and answers them after the change', async () => {
    const before = await r.client.request('GetGroup', {}, light(), { count: 1 });
    expect(payloadsOf(before, 'StateGroup')[0]).to.deep.equal({
      group: idFromLabel('group', 'Office'),
      label: 'Office',
      updatedAtNs: 1_700_000_000_000_000_000n,
    });
    const group = { group: '0123456789abcdef0123456789abcdef', label: 'Study', updatedAtNs: 1_234_567_890_123_456_789n };
    const set = await r.client.request('SetGroup', group, light(), { res: true, count: 1 });
    expect(payloadsOf(set, 'StateGroup')).to.deep.equal([group]);
    const location = { location: 'fedcba9876543210fedcba9876543210', label: 'Cabin', updatedAtNs: 42n };
    const setLocation = await r.client.request('SetLocation', location, light(), { res: true, count: 1 });
    expect(payloadsOf(setLocation, 'StateLocation')).to.deep.equal([location]);
    const get = await r.client.request('GetLocation', {}, light(), { count: 1 });
    expect(payloadsOf(get, 'StateLocation')).to.deep.equal([location]);
    expect(r.fleet.light(BULB).state.group).to.deep.equal({ id: group.group, label: 'Study', updatedAtNs: '1234567890123456789' });
  });

  it('reports version, host firmware, Wi-Fi firmware, Wi-Fi info and power', async () => {
    const version = await r.client.request('GetVersion', {}, light(), { count: 1 });
    expect(payloadsOf(version, 'StateVersion')).to.deep.equal([{ vendor: 1, product: 91 }]);
    const host = await r.client.request('GetHostFirmware', {}, light(), { count: 1 });
    expect(payloadsOf(host, 'StateHostFirmware')[0]).to.include({ versionMajor: 3, versionMinor: 70 });
    const wifiFw = await r.client.request('GetWifiFirmware', {}, light(), { count: 1 });
    expect(payloadsOf(wifiFw, 'StateWifiFirmware')).to.have.length(1);
    const wifi = await r.client.request('GetWifiInfo', {}, light(), { count: 1 });
    expect(payloadsOf(wifi, 'StateWifiInfo')[0]!.signal).to.be.closeTo(1e-5, 1e-9);
    const power = await r.client.request('GetPower', {}, light(), { count: 1 });
    expect(payloadsOf(power, 'StatePower')).to.deep.equal([{ level: 65535 }]);
  });

  it('reports time and uptime in ns from its clock in StateInfo, and SetReboot restarts the uptime', async () => {
    clock.advance(90_000);
    const info = await r.client.request('GetInfo', {}, light(), { count: 1 });
    expect(payloadsOf(info, 'StateInfo')[0]).to.deep.equal({
      timeNs: 1_700_000_090_000_000_000n,
      uptimeNs: 90_000_000_000n,
      downtimeNs: 0n,
    });
    const reboot = await r.client.request('SetReboot', {}, light(), { ack: true, count: 1 });
    expect(namesOf(reboot)).to.deep.equal(['Acknowledgement']);
    clock.advance(2000);
    const after = await r.client.request('GetInfo', {}, light(), { count: 1 });
    expect(payloadsOf(after, 'StateInfo')[0]!.uptimeNs).to.equal(2_000_000_000n);
  });

  it('echoes the 64 bytes of an EchoRequest', async () => {
    const echoing = new Uint8Array(64).map((_, i) => (i * 7) & 0xff);
    const replies = await r.client.request('EchoRequest', { echoing }, light(), { count: 1 });
    expect(payloadsOf(replies, 'EchoResponse')[0]!.echoing).to.deep.equal(echoing);
  });

  it('answers infrared on an infrared product and ignores it, acking only, on a plain colour bulb', async () => {
    const porch = r.at('d073d5000002');
    const get = await r.client.request('GetInfrared', {}, porch, { count: 1 });
    expect(payloadsOf(get, 'StateInfrared')).to.deep.equal([{ brightness: 32768 }]);
    const set = await r.client.request('SetInfrared', { brightness: 65535 }, porch, { res: true, count: 1 });
    expect(payloadsOf(set, 'StateInfrared')).to.deep.equal([{ brightness: 32768 }]);
    expect(r.fleet.light('d073d5000002').state.infrared).to.equal(1);
    const onBulb = await r.client.request('GetInfrared', {}, light(), { ack: true, timeoutMs: 120 });
    expect(namesOf(onBulb)).to.deep.equal(['Acknowledgement']);
  });

  it('ignores multizone, matrix and relay messages on a bulb but still acknowledges them', async () => {
    const zones = await r.client.request('GetColorZones', { startIndex: 0, endIndex: 255 }, light(), { ack: true, timeoutMs: 120 });
    const tiles = await r.client.request('GetDeviceChain', {}, light(), { ack: true, timeoutMs: 120 });
    const relay = await r.client.request('GetRPower', { relayIndex: 0 }, light(), { timeoutMs: 120 });
    expect(namesOf(zones)).to.deep.equal(['Acknowledgement']);
    expect(namesOf(tiles)).to.deep.equal(['Acknowledgement']);
    expect(relay).to.deep.equal([]);
    expect(r.fleet.light(BULB).receivedCount('GetColorZones')).to.equal(1);
  });

  it('ignores a message type it does not know, acking it when asked', async () => {
    const datagram = encode({ name: 'GetColor', header: { source: r.client.source, sequence: 77, target: BULB, ackRequired: true }, payload: {} });
    datagram.writeUInt16LE(999, 32);
    r.client.sendRaw(datagram, light());
    await r.client.waitUntil(() => r.client.repliesTo(77).length > 0, 500);
    // Handled, and every datagram the light sent received: nothing more can arrive.
    const bulbLight = r.fleet.light(BULB);
    await until(() => bulbLight.receivedCount('#999') === 1 && r.client.inbox.length >= bulbLight.stats.sent, { what: 'the datagram handled and its replies received' });
    expect(r.client.repliesTo(77).map((x) => x.packet.name)).to.deep.equal(['Acknowledgement']);
    expect(r.fleet.light(BULB).receivedCount('#999')).to.equal(1);
  });

  it('drops datagrams that are too short, whose size field lies or whose protocol is not 1024', async () => {
    const good = encode({ name: 'GetColor', header: { source: r.client.source, sequence: 5, target: BULB, ackRequired: true }, payload: {} });
    const wrongSize = Buffer.from(good);
    wrongSize.writeUInt16LE(40, 0);
    const wrongProtocol = Buffer.from(good);
    wrongProtocol.writeUInt16LE((wrongProtocol.readUInt16LE(2) & 0xf000) | 1023, 2);
    for (const bad of [good.subarray(0, 30), wrongSize, wrongProtocol]) r.client.sendRaw(bad, light());
    // All three seen (and found undecodable), and whatever the light sent received: nothing more can arrive.
    const bulbLight = r.fleet.light(BULB);
    await until(() => bulbLight.stats.undecodable === 3 && r.client.inbox.length >= bulbLight.stats.sent, { what: 'the three datagrams seen' });
    expect(r.client.inbox).to.deep.equal([]);
    expect(r.fleet.light(BULB).stats.undecodable).to.equal(3);
    expect(r.fleet.light(BULB).receivedTotal).to.equal(0);
  });

  it('applies a non-transient waveform colour and leaves a transient one', async () => {
    const waveform = { transient: true, color: RED, periodMs: 100, cycles: 1, skewRatio: 0, waveform: 0 };
    await r.client.request('SetWaveform', waveform, light(), { ack: true, count: 1 });
    expect(r.fleet.light(BULB).state.color.hue).to.equal(120);
    const optional = { ...waveform, transient: false, periodMs: 0, setHue: true, setSaturation: false, setBrightness: false, setKelvin: false };
    await r.client.request('SetWaveformOptional', optional, light(), { ack: true, count: 1 });
    expect(r.fleet.light(BULB).state.color).to.deep.equal({ hue: 0, saturation: 1, brightness: 0.5, kelvin: 3500 });
  });

  it('comes back to the colour it had after a SINE or TRIANGLE waveform even when it is not transient', async () => {
    // https://lan.developer.lifx.com/docs/waveforms: SINE and TRIANGLE return to the original colour; HALF_SINE, SAW and PULSE stay.
    for (const [waveform, hue] of [[1, 120], [3, 120], [2, 0]] as const) {
      await r.client.request('SetColor', { color: GREEN, durationMs: 0 }, light(), { ack: true, count: 1 });
      const shape = { transient: false, color: RED, periodMs: 0, cycles: 1, skewRatio: 0, waveform };
      await r.client.request('SetWaveform', shape, light(), { ack: true, count: 1 });
      expect(r.fleet.light(BULB).state.color.hue, `waveform ${waveform}`).to.equal(hue);
      const got = await r.client.request('GetColor', {}, light(), { count: 1 });
      expect(payloadsOf(got, 'LightState')[0]!.color, `waveform ${waveform}`).to.deep.equal(hue === 0 ? RED : GREEN);
    }
  });

  it('runs an HEV cycle on a LIFX Clean with remaining time from its clock and records the result', async () => {
    const clean = r.at('d073d5000003');
    const config = await r.client.request('GetHevCycleConfiguration', {}, clean, { count: 1 });
    expect(payloadsOf(config, 'StateHevCycleConfiguration')).to.deep.equal([{ indication: true, durationS: 7200 }]);
    const start = await r.client.request('SetHevCycle', { enable: true, durationS: 60 }, clean, { res: true, count: 1 });
    expect(payloadsOf(start, 'StateHevCycle')).to.deep.equal([{ durationS: 0, remainingS: 0, lastPower: false }]);
    clock.advance(20_000);
    const running = await r.client.request('GetHevCycle', {}, clean, { count: 1 });
    expect(payloadsOf(running, 'StateHevCycle')).to.deep.equal([{ durationS: 60, remainingS: 40, lastPower: true }]);
    const none = await r.client.request('GetLastHevCycleResult', {}, clean, { count: 1 });
    expect(payloadsOf(none, 'StateLastHevCycleResult')).to.deep.equal([{ result: 255 }]);
    clock.advance(40_000);
    const done = await r.client.request('GetLastHevCycleResult', {}, clean, { count: 1 });
    expect(payloadsOf(done, 'StateLastHevCycleResult')).to.deep.equal([{ result: 0 }]);
    await r.client.request('SetHevCycle', { enable: true, durationS: 0 }, clean, { ack: true, count: 1 });
    clock.advance(1000);
    const defaulted = await r.client.request('GetHevCycle', {}, clean, { count: 1 });
    expect(payloadsOf(defaulted, 'StateHevCycle')[0]).to.include({ durationS: 7200, remainingS: 7199 });
    await r.client.request('SetHevCycle', { enable: false, durationS: 0 }, clean, { ack: true, count: 1 });
    const interrupted = await r.client.request('GetLastHevCycleResult', {}, clean, { count: 1 });
    expect(payloadsOf(interrupted, 'StateLastHevCycleResult')).to.deep.equal([{ result: 4 }]);
    const onBulb = await r.client.request('GetHevCycle', {}, light(), { timeoutMs: 100 });
    expect(onBulb).to.deep.equal([]);
  });
});
