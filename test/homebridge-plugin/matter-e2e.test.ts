// End to end over Matter: the packed tarball as plugin in a real Homebridge 2 with Matter on (`bridge.matter`) and
// the platform's `matter: true`, against virtual lights in another process, commissioned by a real Matter
// controller (matter.js's CommissioningController, in a process of its own: matter-controller.ts). Everything is
// checked from outside: the controller's device list and its subscription, and the fleet's control endpoint.
// Runs only inside the tests' private network namespace, where the harness turns on multicast and IPv6 on loopback.

import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { installTarball, packTarball } from '../helpers/packed.js';
import { until } from '../helpers/wait.js';
import { control, median, startFleetProcess, startHomebridge, type FleetProcess, type HomebridgeProcess } from './e2e-harness.js';
import { MATTER_DEVICE_TYPE, MatterController, commissioningOf, prepareMatterLoopback, type MatterDevice } from './matter-harness.js';

const S = (n: number): string => `d073d5${n.toString(16).padStart(6, '0')}`;
const WHITE = 'd073d5a00001';
const SWITCH = 'd073d5a00002';
const CEILING = 'd073d5a00003';
const MATTER_PORT = 5541;
// With no option given, a command applies to a light that is off too (the light keeps the change for when it is on).
const OPTIONS = { optionsMask: {}, optionsOverride: {} };

interface Hsbk {
  readonly hue: number;
  readonly saturation: number;
  readonly brightness: number;
  readonly kelvin: number;
}
interface Summary {
  readonly state: { readonly power: string; readonly color: Hsbk; readonly relays?: readonly string[]; readonly tiles?: readonly (readonly Hsbk[])[] };
}
const same = (a: Hsbk, b: Hsbk): boolean => a.hue === b.hue && a.saturation === b.saturation && a.brightness === b.brightness && a.kelvin === b.kelvin;

describe('homebridge end to end over Matter: a real controller commissions Homebridge 2 with the packed plugin', function () {
  this.timeout(60000);
  let fleet: FleetProcess;
  let hb: HomebridgeProcess;
  let controller: MatterController;
  let devices: MatterDevice[];
  const timings: Record<string, number> = {};

  const light = async (serial: string): Promise<Summary> => (await control(fleet, 'GET', `/lights/${serial}`)) as Summary;
  const endpointOf = (serial: string): number => {
    const device = devices.find((d) => d.serial === serial);
    if (device === undefined) throw new Error(`no Matter device with serial ${serial}: ${JSON.stringify(devices)}`);
    return device.endpoint;
  };
  const invoke = (serial: string, cluster: string, command: string, args?: Record<string, unknown>) =>
    controller.request('invoke', { endpoint: endpointOf(serial), cluster, command, ...(args === undefined ? {} : { args }) });
  const reported = (serial: string, cluster: string, attribute: string) =>
    controller.must('attribute', { endpoint: endpointOf(serial), cluster, attribute }).then((a) => a.value);

  before(async function () {
    this.timeout(240000);
    prepareMatterLoopback();
    const tarball = await packTarball();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-hb-matter-'));
    await installTarball(dir, tarball);
    // Five default lights (colour, white to warm, strip, A19, candle), a white-only Mini with an ambient light
    // sensor, a LIFX Switch and an 8 x 8 LIFX Ceiling (its downlight and uplight are parts: lights.parts, the default).
    fleet = await startFleetProcess(dir, 5, [
      { serial: WHITE, product: 51, label: 'Mini White', lux: 42.5 },
      { serial: SWITCH, product: 70, label: 'Hall Switch' },
      { serial: CEILING, product: 176, label: 'Ceiling', power: 'on', color: { hue: 30, saturation: 0.2, brightness: 0.8, kelvin: 3000 } },
    ]);
    hb = await startHomebridge(
      path.join(dir, 'node_modules'),
      { matter: true, discovery: { broadcastAddresses: ['127.255.255.255'], port: fleet.port, refreshIntervalS: 1, offlineAfterMisses: 1 }, lights: { transitionS: 0, ambientLight: true } },
      { matter: { port: MATTER_PORT } },
    );
    const { passcode, discriminator } = await commissioningOf(hb.storage, 60000, () => hb.child.running);
    // Every device registered (each relay of the Switch is one, the Mini's sensor too, once read, and each part of the
    // Ceiling) before the controller reads the list.
    await until(() => (hb.child.output.match(/Matter: added /g)?.length ?? 0) >= 14 || null, { timeoutMs: 30000, what: () => `14 Matter devices added:\n${hb.child.tail()}` });
    controller = await MatterController.start();
    const commissioned = await controller.must('commission', { port: MATTER_PORT, passcode, discriminator }, 60000).catch((err: Error) => {
      throw new Error(`${err.message}\nhomebridge:\n${hb.child.tail(30)}`);
    });
    timings.commissionMs = commissioned.commissionedMs as number;
    devices = await controller.devices();
  });

  after(async () => {
    await controller?.close();
    hb?.hap.close();
    await hb?.child.stop();
    await fleet?.child.stop();
  });

  it('lists every light as a bridged device of the type its product calls for, named after its label', () => {
    const type = (serial: string) => devices.find((d) => d.serial === serial)?.deviceType;
    expect(type(S(1)), 'Color').to.equal(MATTER_DEVICE_TYPE.ExtendedColorLight);
    expect(type(S(2)), 'White to Warm').to.equal(MATTER_DEVICE_TYPE.ColorTemperatureLight);
    expect(type(S(3)), 'Strip').to.equal(MATTER_DEVICE_TYPE.ExtendedColorLight);
    expect(type(WHITE), 'Mini White').to.equal(MATTER_DEVICE_TYPE.DimmableLight);
    // Each relay of the Switch is a plug-in unit of its own (serial-relay number).
    expect([1, 2, 3, 4].map((n) => type(`${SWITCH}-${n}`))).to.deep.equal(Array(4).fill(MATTER_DEVICE_TYPE.OnOffPlugInUnit));
    expect(devices.find((d) => d.serial === S(5))?.label).to.equal('Candle 5');
    // The Mini's ambient light sensor is a Light Sensor of its own (serial-lux), beside the light.
    expect(type(`${WHITE}-lux`), 'the Mini\'s sensor').to.equal(MATTER_DEVICE_TYPE.LightSensor);
    expect(devices.find((d) => d.serial === `${WHITE}-lux`)?.label).to.equal('Mini White Light Level');
    // The Ceiling, and each of its parts a light of its own (serial-part), of the Ceiling's type.
    expect([CEILING, `${CEILING}-downlight`, `${CEILING}-uplight`].map(type), 'the Ceiling and its parts').to.deep.equal(Array(3).fill(MATTER_DEVICE_TYPE.ExtendedColorLight));
    expect(devices.find((d) => d.serial === `${CEILING}-uplight`)?.label).to.equal('Ceiling Uplight');
    expect(devices).to.have.length(14);
    expect(devices.every((d) => d.reachable)).to.equal(true);
    process.stdout.write(`      (commissioned in ${Math.round(timings.commissionMs!)} ms)\n`);
  });

  it('OnOff reaches the light and a relay of the Switch', async () => {
    const ok = async (serial: string, command: string): Promise<void> => {
      const answer = await invoke(serial, 'OnOff', command);
      expect(answer.ok, `${serial} ${command}: ${answer.error}`).to.equal(true);
    };
    expect((await light(S(1))).state.power).to.equal('on');
    await ok(S(1), 'off');
    expect((await light(S(1))).state.power).to.equal('off');
    await ok(S(1), 'on');
    expect((await light(S(1))).state.power).to.equal('on');
    await ok(`${SWITCH}-2`, 'on');
    expect((await light(SWITCH)).state.relays?.[1]).to.equal('on');
  });

  it('MoveToLevel reaches the light (level 127 of 254 is half brightness)', async () => {
    const answer = await invoke(S(4), 'LevelControl', 'moveToLevel', { level: 127, transitionTime: 0, ...OPTIONS });
    expect(answer.ok, answer.error).to.equal(true);
    expect((await light(S(4))).state.color.brightness).to.be.closeTo(0.5, 0.001);
    const dim = await invoke(WHITE, 'LevelControl', 'moveToLevelWithOnOff', { level: 64, transitionTime: 0, ...OPTIONS });
    expect(dim.ok, dim.error).to.equal(true);
    expect((await light(WHITE)).state.color.brightness).to.be.closeTo(64 / 254, 0.001);
  });

  it('OnOff and MoveToLevel to the Ceiling\'s Uplight change pixel 63 alone on the fleet; off keeps the Ceiling on', async () => {
    const pixels = async (): Promise<{ power: string; pixels: readonly Hsbk[] }> => {
      const { state } = await light(CEILING);
      return { power: state.power, pixels: state.tiles![0]! };
    };
    const before = await pixels();
    expect(before.pixels).to.have.length(64);
    const changedSince = (now: readonly Hsbk[]): number[] => now.flatMap((p, i) => (same(p, before.pixels[i]!) ? [] : [i]));
    const uplight = `${CEILING}-uplight`;
    const level = await invoke(uplight, 'LevelControl', 'moveToLevel', { level: 127, transitionTime: 0, ...OPTIONS });
    expect(level.ok, level.error).to.equal(true);
    const dimmed = await pixels();
    expect(changedSince(dimmed.pixels)).to.deep.equal([63]);
    expect(dimmed.pixels[63]!.brightness).to.be.closeTo(0.5, 0.001);
    const off = await invoke(uplight, 'OnOff', 'off');
    expect(off.ok, off.error).to.equal(true);
    const dark = await pixels();
    expect(changedSince(dark.pixels)).to.deep.equal([63]);
    expect(dark.pixels[63]!.brightness).to.equal(0);
    expect(dark.power, 'the Ceiling stays on while its downlight is lit').to.equal('on');
    await until(async () => (await reported(uplight, 'OnOff', 'onOff')) === false || null, { timeoutMs: 5000, what: 'the controller told the Uplight is off' });
    expect(await reported(`${CEILING}-downlight`, 'OnOff', 'onOff')).to.equal(true);
    const on = await invoke(uplight, 'OnOff', 'on');
    expect(on.ok, on.error).to.equal(true);
    const lit = await pixels();
    expect(changedSince(lit.pixels)).to.deep.equal([63]);
    expect(lit.pixels[63]!.brightness).to.be.closeTo(0.5, 0.001);
  });

  it('MoveToHueAndSaturation reaches the light (hue 127 is 180°)', async () => {
    const answer = await invoke(S(1), 'ColorControl', 'moveToHueAndSaturation', { hue: 127, saturation: 254, transitionTime: 0, ...OPTIONS });
    expect(answer.ok, answer.error).to.equal(true);
    const { color } = (await light(S(1))).state;
    expect(color.hue).to.be.closeTo(180, 0.1);
    expect(color.saturation).to.be.closeTo(1, 0.001);
  });

  it('MoveToColorTemperature reaches the light (250 mireds is 4000 K), on a colour light and a white-to-warm one', async () => {
    for (const serial of [S(2), S(1)]) {
      const answer = await invoke(serial, 'ColorControl', 'moveToColorTemperature', { colorTemperatureMireds: 250, transitionTime: 0, ...OPTIONS });
      expect(answer.ok, `${serial}: ${answer.error}`).to.equal(true);
      const { color } = (await light(serial)).state;
      expect(color.kelvin, serial).to.equal(4000);
      expect(color.saturation, serial).to.equal(0);
    }
    expect(hb.child.running, 'Homebridge still running after the colour-mode switch').to.equal(true);
  });

  it('reports a change made on the fleet to the controller', async () => {
    expect(await reported(S(3), 'OnOff', 'onOff')).to.equal(true);
    const started = performance.now();
    await control(fleet, 'PATCH', `/lights/${S(3)}`, { state: { power: 'off', color: { brightness: 0.25 } } });
    await until(async () => (await reported(S(3), 'OnOff', 'onOff')) === false || null, { timeoutMs: 5000, what: 'the controller to be told the Strip is off' });
    timings.reportMs = performance.now() - started;
    await until(async () => (await reported(S(3), 'LevelControl', 'currentLevel')) === Math.round(0.25 * 254) || null, { timeoutMs: 3000, what: 'the level reported' });
    process.stdout.write(`      (fleet change -> controller told: ${Math.round(timings.reportMs)} ms with a 1 s refresh)\n`);
  });

  it('reports the ambient light sensor\'s reading and a new one made on the fleet (MeasuredValue 10000 * log10(lux) + 1)', async () => {
    expect(await reported(`${WHITE}-lux`, 'IlluminanceMeasurement', 'measuredValue')).to.equal(16285);
    expect(await reported(`${WHITE}-lux`, 'IlluminanceMeasurement', 'maxMeasuredValue')).to.equal(0xfffe);
    await control(fleet, 'PATCH', `/lights/${WHITE}`, { state: { lux: 420 } });
    await until(async () => (await reported(`${WHITE}-lux`, 'IlluminanceMeasurement', 'measuredValue')) === 26233 || null, {
      timeoutMs: 5000,
      what: 'the controller to be told the new reading (420 lx)',
    });
  });

  it('reports an unresponsive light unreachable, fails a command to it fast, and reports it back when it answers', async () => {
    await control(fleet, 'PATCH', `/lights/${S(5)}`, { faults: { unresponsive: true } });
    try {
      await until(async () => (await reported(S(5), 'BridgedDeviceBasicInformation', 'reachable')) === false || null, {
        timeoutMs: 15000,
        what: 'the controller to be told the Candle is unreachable',
      });
      const started = performance.now();
      const answer = await invoke(S(5), 'OnOff', 'off');
      expect(answer.ok).to.equal(false);
      expect(performance.now() - started).to.be.below(2000);
    } finally {
      await control(fleet, 'PATCH', `/lights/${S(5)}`, { faults: { unresponsive: false } });
    }
    await until(async () => (await reported(S(5), 'BridgedDeviceBasicInformation', 'reachable')) === true || null, {
      timeoutMs: 15000,
      what: 'the controller to be told the Candle is back',
    });
  });

  it('measures a Matter command until the light changed (median of 20)', async () => {
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const level = 60 + i * 5;
      const started = performance.now();
      const answer = await invoke(S(4), 'LevelControl', 'moveToLevel', { level, transitionTime: 0, ...OPTIONS });
      expect(answer.ok, answer.error).to.equal(true);
      // The command is answered once the light confirmed: the light shows the level by now.
      expect((await light(S(4))).state.color.brightness).to.be.closeTo(level / 254, 0.001);
      times.push(performance.now() - started);
    }
    process.stdout.write(`      (Matter command -> light changed: median ${median(times).toFixed(1)} ms of 20)\n`);
  });

  it('stops cleanly on SIGTERM (exit code 0) without an unhandled error', async () => {
    await controller.close();
    hb.hap.close();
    expect(await hb.child.stop(8000)).to.equal(0);
    expect(hb.child.output).not.to.match(/unhandled|TypeError|No handler registered|Cannot update Matter accessory/i);
    expect(hb.child.output).to.match(/Matter: added Candle 5 as an Extended Color Light/);
    expect(hb.child.output).to.match(/Matter: added Mini White Light Level as a Light Sensor/);
    expect(hb.child.output).to.match(/Matter: added Ceiling Uplight as an Extended Color Light/);
  });
});
