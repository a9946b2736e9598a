// The Matter face in-process: the platform with `matter: true` over virtual lights on loopback, a stand-in for
// Homebridge's api.matter that records registrations and updates (a real controller and Homebridge run in
// matter-e2e.test.ts), and Homebridges without Matter.

import * as hap from '@homebridge/hap-nodejs';
import { expect } from 'chai';
import type { API, MatterAccessory, PlatformConfig } from 'homebridge';
import type { Fleet } from '../../core/simulator/index.js';
import { MATTER_CACHE_SETTLE_MS, matterProblem } from '../../homebridge-plugin/matter.js';
import { LightwirePlatform } from '../../homebridge-plugin/platform.js';
import { MATTER_UUID_SEED } from '../../homebridge-plugin/settings.js';
import { until } from '../helpers/wait.js';
import { fakeApi, fleetServiceOptions, startFleet, testLog, type FakeApi, type TestLog } from './helpers.js';

const COLOUR = 'd073d5000001';
const TUNABLE = 'd073d5000002';
const WHITE = 'd073d5000003';

class Failure extends Error {}

interface Update {
  readonly uuid: string;
  readonly cluster: string;
  readonly attributes: Record<string, unknown>;
}

function fakeMatter() {
  const registered = new Map<string, MatterAccessory>();
  const updates: Update[] = [];
  const unregistered: string[] = [];
  const saved: MatterAccessory[] = [];
  const matter = {
    uuid: hap.uuid,
    deviceTypes: {
      ExtendedColorLight: { name: 'ExtendedColorLight' },
      ColorTemperatureLight: { name: 'ColorTemperatureLight' },
      DimmableLight: { name: 'DimmableLight' },
      OnOffOutlet: { name: 'OnOffPlugInUnit' },
      LightSensor: { name: 'LightSensor' },
    },
    types: { ColorControl: { ColorMode: { CurrentHueAndCurrentSaturation: 0, CurrentXAndCurrentY: 1, ColorTemperatureMireds: 2 } } },
    status: { Failure },
    registerPlatformAccessories: async (_plugin: string, _platform: string, list: MatterAccessory[]) => {
      for (const a of list) registered.set(a.UUID, a);
    },
    updatePlatformAccessories: async (list: MatterAccessory[]) => {
      saved.push(...list);
    },
    unregisterPlatformAccessories: async (_plugin: string, _platform: string, list: MatterAccessory[]) => {
      for (const a of list) {
        registered.delete(a.UUID);
        unregistered.push(a.UUID);
      }
    },
    updateAccessoryState: async (uuid: string, cluster: string, attributes: Record<string, unknown>) => {
      updates.push({ uuid, cluster, attributes });
    },
    getAccessoryState: async (uuid: string) => (registered.has(uuid) ? {} : undefined),
  };
  return { matter, registered, updates, unregistered, saved };
}

const uuidOf = (serial: string): string => hap.uuid.generate(MATTER_UUID_SEED + serial);
const sensorUuidOf = (serial: string): string => hap.uuid.generate(`${MATTER_UUID_SEED}${serial}:ambient-light`);
const partUuidOf = (serial: string, part: string): string => hap.uuid.generate(`${MATTER_UUID_SEED}${serial}:part-${part}`);

interface Rig {
  readonly platform: LightwirePlatform;
  readonly fake: FakeApi;
  readonly log: TestLog;
}

/** The platform's clock, moved ahead by the tests that wait for Homebridge's Matter cache (MATTER_CACHE_SETTLE_MS). */
const clock = { aheadMs: 0 };

function rig(fleet: Fleet, config: Record<string, unknown>, api: (fake: FakeApi) => Record<string, unknown>): Rig {
  const fake = fakeApi();
  Object.assign(fake.api, api(fake));
  const log = testLog();
  clock.aheadMs = 0;
  const platform = new LightwirePlatform(log.log, { platform: 'Lightwire', ...config } as PlatformConfig, fake.api, {
    createService: fleetServiceOptions(fleet),
    now: () => Date.now() + clock.aheadMs,
  });
  return { platform, fake, log };
}

describe('homebridge Matter face', function () {
  this.timeout(20000);
  let fleet: Fleet;
  let current: Rig | undefined;

  beforeEach(async () => {
    fleet = await startFleet({
      lights: [
        { serial: COLOUR, product: 91, label: 'Desk', power: 'on', color: { hue: 120, saturation: 1, brightness: 0.4, kelvin: 3500 } },
        { serial: TUNABLE, product: 125, label: 'Hall' },
        { serial: WHITE, product: 51, label: 'Porch' },
      ],
    });
  });

  afterEach(async () => {
    await current?.platform.shutdown();
    current = undefined;
    await fleet.stop();
  });

  it('says in one line why Matter is not started on a Homebridge without Matter, and HomeKit gets every light', async () => {
    for (const [api, reason] of [
      [{}, /has no Matter API \(Homebridge 2 or later is needed\)/],
      [{ isMatterAvailable: () => true, isMatterEnabled: () => false, matter: undefined }, /Matter is off on this bridge \(add "matter": \{\} to the "bridge" block/],
    ] as const) {
      current = rig(fleet, { matter: true }, () => api);
      await current.platform.launch();
      const lines = current.log.lines.filter((l) => /Matter/.test(l.text));
      expect(lines, current.log.text()).to.have.length(1);
      expect(lines[0]!.level).to.equal('warn');
      expect(lines[0]!.text).to.match(reason).and.to.match(/The lights stay in HomeKit\./);
      expect(current.fake.registered.map((a) => a.context.serial).sort()).to.deep.equal([COLOUR, TUNABLE, WHITE]);
      await current.platform.shutdown();
      current = undefined;
    }
    expect(matterProblem({ isMatterAvailable: () => true, isMatterEnabled: () => true, matter: {} } as unknown as API)).to.equal(undefined);
  });

  it('refuses a matter option that is not true or false with the coded config error', () => {
    current = rig(fleet, { matter: 'yes' }, () => ({}));
    expect(current.log.text('error')).to.match(/Config: OPTIONS_INVALID: matter: must be true or false, got string "yes"/);
    expect(current.platform.service).to.equal(undefined);
  });

  it('starts no Matter device without the option, and removes Matter devices cached from when it was on', async () => {
    const m = fakeMatter();
    current = rig(fleet, {}, () => ({ isMatterAvailable: () => true, isMatterEnabled: () => true, matter: m.matter }));
    current.platform.configureMatterAccessory({ UUID: uuidOf(COLOUR), context: { kind: 'matter-light', serial: COLOUR, lastSeenAt: null } } as unknown as MatterAccessory);
    await current.platform.launch();
    expect(m.registered.size).to.equal(0);
    expect(m.unregistered).to.deep.equal([uuidOf(COLOUR)]);
    expect(current.fake.registered).to.have.length(3);
  });

  it('registers each light as the device type of its product, with ids from serials and ranges from the product', async () => {
    const m = fakeMatter();
    current = rig(fleet, { matter: true }, () => ({ isMatterAvailable: () => true, isMatterEnabled: () => true, matter: m.matter }));
    await current.platform.launch();
    await until(() => m.registered.size === 3 || null, { what: 'three Matter registrations' });
    const colour = m.registered.get(uuidOf(COLOUR))!;
    expect((colour.deviceType as unknown as { name: string }).name).to.equal('ExtendedColorLight');
    expect((m.registered.get(uuidOf(TUNABLE))!.deviceType as unknown as { name: string }).name).to.equal('ColorTemperatureLight');
    expect((m.registered.get(uuidOf(WHITE))!.deviceType as unknown as { name: string }).name).to.equal('DimmableLight');
    expect(colour.serialNumber).to.equal(COLOUR);
    expect(colour.displayName).to.equal('Desk');
    expect(colour.clusters?.colorControl).to.include({ colorTempPhysicalMinMireds: 111, colorTempPhysicalMaxMireds: 667, currentHue: 85, currentSaturation: 254 });
    expect(colour.clusters?.levelControl).to.include({ currentLevel: 102, minLevel: 1, maxLevel: 254 });
    // Every command Homebridge routes has a handler (a missing one answers FAILURE; a missing stopAllColorMovement stops Homebridge).
    expect(Object.keys(colour.handlers?.levelControl ?? {})).to.include.members(['moveToLevel', 'moveToLevelWithOnOff', 'move', 'step', 'stop']);
    expect(Object.keys(colour.handlers?.colorControl ?? {})).to.include.members([
      'moveToHueAndSaturationLogic',
      'moveToHueLogic',
      'moveToSaturationLogic',
      'moveToColorLogic',
      'moveToColorTemperatureLogic',
      'stopAllColorMovement',
    ]);
    expect(Object.keys(m.registered.get(uuidOf(WHITE))!.handlers ?? {})).to.deep.equal(['onOff', 'levelControl']);
  });

  it('sends a command with its own transition time, and a follow-up of the same hue and saturation sends nothing more', async () => {
    const m = fakeMatter();
    current = rig(fleet, { matter: true, lights: { transitionS: 0.5 } }, () => ({ isMatterAvailable: () => true, isMatterEnabled: () => true, matter: m.matter }));
    await current.platform.launch();
    await until(() => m.registered.has(uuidOf(COLOUR)) || null);
    const handlers = m.registered.get(uuidOf(COLOUR))!.handlers!;
    const light = fleet.light(COLOUR);
    light.clearRecords();
    // 2.5 s: the virtual light fades, so only the transition asked for is checked here.
    await handlers.levelControl!.moveToLevel!({ level: 127, transitionTime: 25 } as never);
    const durations = () => light.received().filter((p) => p.name === 'SetColor' || p.name === 'SetWaveformOptional').map((p) => (p.payload as { durationMs?: number; periodMs?: number }).durationMs ?? (p.payload as { periodMs?: number }).periodMs);
    expect(durations()).to.deep.equal([2500]);
    light.clearRecords();
    const colour = handlers.colorControl!;
    await colour.moveToHueAndSaturationLogic!({ hue: 127, saturation: 127, transitionTime: 0 } as never);
    await colour.moveToHueLogic!({ targetHue: 127, direction: 0, transitionTime: 0, isEnhancedHue: false } as never);
    await colour.moveToSaturationLogic!({ targetSaturation: 127, transitionTime: 0 } as never);
    expect(light.state.color.hue).to.be.closeTo(180, 0.1);
    expect(light.state.color.saturation).to.be.closeTo(0.5, 0.001);
    expect(durations()).to.deep.equal([0]);
    // A command without a transition (null) fades over the light's setting.
    light.clearRecords();
    await handlers.levelControl!.moveToLevelWithOnOff!({ level: 254, transitionTime: null } as never);
    expect(durations()).to.deep.equal([500]);
  });

  it('pushes changes made elsewhere, new labels and reachability; a command to a silent light fails fast with FAILURE', async () => {
    const m = fakeMatter();
    current = rig(fleet, { matter: true, discovery: { refreshIntervalS: 1, offlineAfterMisses: 1 }, lights: { responseTimeoutMs: 300 } }, () => ({
      isMatterAvailable: () => true,
      isMatterEnabled: () => true,
      matter: m.matter,
    }));
    await current.platform.launch();
    const uuid = uuidOf(COLOUR);
    await until(() => m.updates.some((u) => u.uuid === uuid && u.cluster === 'bridgedDeviceBasicInformation' && u.attributes.reachable === true) || null, { what: 'the first state push' });
    expect(m.saved, 'no cache update before Homebridge has written the entry').to.deep.equal([]);
    clock.aheadMs = MATTER_CACHE_SETTLE_MS;
    const pushed = (cluster: string, attribute: string, value: unknown) => () => m.updates.some((u) => u.uuid === uuid && u.cluster === cluster && u.attributes[attribute] === value) || null;
    fleet.light(COLOUR).setState({ power: 'off', label: 'Study' });
    await until(pushed('onOff', 'onOff', false), { timeoutMs: 3000, what: 'onOff false pushed' });
    await until(pushed('bridgedDeviceBasicInformation', 'nodeLabel', 'Study'), { timeoutMs: 3000, what: 'the new label pushed' });
    // Saved to Homebridge's Matter cache under the new name (the name a restart registers it with).
    await until(() => m.saved.some((a) => a.UUID === uuid && a.displayName === 'Study') || null, { timeoutMs: 2000, what: 'the new name saved' });
    fleet.light(COLOUR).setFaults({ unresponsive: true });
    const started = performance.now();
    const on = m.registered.get(uuid)!.handlers!.onOff!.on!;
    const failed = await Promise.resolve()
      .then(() => on(undefined as never))
      .then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failed).to.be.instanceOf(Failure);
    expect(performance.now() - started).to.be.below(1000);
    await until(pushed('bridgedDeviceBasicInformation', 'reachable', false), { timeoutMs: 5000, what: 'reachable false pushed' });
    fleet.light(COLOUR).setFaults({ unresponsive: false });
    const count = m.updates.filter((u) => u.attributes.reachable === true && u.uuid === uuid).length;
    await until(() => m.updates.filter((u) => u.attributes.reachable === true && u.uuid === uuid).length > count || null, { timeoutMs: 5000, what: 'reachable true pushed again' });
  });

  it('removes a cached Matter device whose light was not seen for the grace period, and shows one not found yet unreachable', async () => {
    const m = fakeMatter();
    current = rig(fleet, { matter: true, discovery: { removeAfterHours: 1 } }, () => ({ isMatterAvailable: () => true, isMatterEnabled: () => true, matter: m.matter }));
    const gone = 'd073d5ffffff';
    current.platform.configureMatterAccessory({ UUID: uuidOf(gone), displayName: 'Gone', context: { kind: 'matter-light', serial: gone, lastSeenAt: Date.now() - 2 * 3_600_000 } } as unknown as MatterAccessory);
    current.platform.configureMatterAccessory({ UUID: uuidOf('d073d5eeeeee'), displayName: 'Away', context: { kind: 'matter-light', serial: 'd073d5eeeeee', lastSeenAt: Date.now() - 1000 } } as unknown as MatterAccessory);
    current.platform.configureMatterAccessory({ UUID: uuidOf(COLOUR), displayName: 'Desk', context: { kind: 'matter-light', serial: COLOUR, lastSeenAt: Date.now() - 2 * 3_600_000 } } as unknown as MatterAccessory);
    await current.platform.launch();
    expect(m.unregistered).to.deep.equal([uuidOf(gone)]);
    const away = 'd073d5eeeeee';
    expect(m.updates.filter((u) => u.uuid === uuidOf(away))).to.deep.equal([{ uuid: uuidOf(away), cluster: 'bridgedDeviceBasicInformation', attributes: { reachable: false } }]);
    expect(current.log.text('info')).to.match(/Matter: removed Gone: not seen for 2 h/);
    await until(() => m.registered.has(uuidOf(COLOUR)) || null, { what: 'the light found registered again under its cached id' });
  });

  describe('the ambient light sensor (lights.ambientLight, as in HomeKit)', () => {
    const LAMP = 'd073d5000041';
    const BULB = 'd073d5000042';
    const withMatter = (m: ReturnType<typeof fakeMatter>) => () => ({ isMatterAvailable: () => true, isMatterEnabled: () => true, matter: m.matter });

    beforeEach(async () => {
      await fleet.stop();
      fleet = await startFleet({
        lights: [
          { serial: LAMP, product: 91, label: 'Lamp', power: 'off', lux: 42.5 },
          { serial: BULB, product: 91, label: 'Bulb', power: 'on' },
        ],
      });
    });

    it('gives a light whose sensor answered a Light Sensor of its own, pushes new readings and reachability', async () => {
      const m = fakeMatter();
      current = rig(fleet, { matter: true, lights: { ambientLight: true }, discovery: { refreshIntervalS: 1, offlineAfterMisses: 1 } }, withMatter(m));
      await current.platform.launch();
      const uuid = sensorUuidOf(LAMP);
      // The sensor is first asked on the light's first background read (refreshIntervalS).
      const sensor = await until(() => m.registered.get(uuid), { timeoutMs: 5000, what: "the lamp's Light Sensor registered" });
      expect((sensor.deviceType as unknown as { name: string }).name).to.equal('LightSensor');
      expect(sensor.displayName).to.equal('Lamp Light Level');
      expect(sensor.serialNumber).to.equal(`${LAMP}-lux`);
      expect(sensor.context).to.include({ kind: 'matter-light', serial: LAMP, sensor: 'ambientLight' });
      // 10000 * log10(42.5) + 1, in the cluster's whole range (the LIFX sensor's own is not published).
      expect(sensor.clusters?.illuminanceMeasurement).to.deep.equal({ measuredValue: 16285, minMeasuredValue: 1, maxMeasuredValue: 0xfffe });
      expect(sensor.handlers).to.equal(undefined);
      // The light itself is registered as before, and a light without the sensor gets none.
      expect(m.registered.has(uuidOf(LAMP))).to.equal(true);
      expect(m.registered.has(uuidOf(BULB))).to.equal(true);
      expect(m.registered.has(sensorUuidOf(BULB))).to.equal(false);
      expect(current.log.text('info')).to.match(/Matter: added Lamp Light Level as a Light Sensor \(d073d5000041\)/);
      const pushed = (cluster: string, attribute: string, value: unknown) => () => m.updates.some((u) => u.uuid === uuid && u.cluster === cluster && u.attributes[attribute] === value) || null;
      await until(pushed('bridgedDeviceBasicInformation', 'reachable', true), { what: 'the sensor reachable' });
      fleet.light(LAMP).setState({ lux: 420 });
      await until(pushed('illuminanceMeasurement', 'measuredValue', 26233), { timeoutMs: 5000, what: 'the new reading (420 lx) pushed' });
      fleet.light(LAMP).setState({ lux: 0 });
      await until(pushed('illuminanceMeasurement', 'measuredValue', 0), { timeoutMs: 5000, what: 'darkness pushed as 0 (too low to be measured)' });
      // Only the sensor's own cluster: no light cluster is pushed to it.
      expect(m.updates.filter((u) => u.uuid === uuid).map((u) => u.cluster)).to.satisfy((c: string[]) => c.every((x) => x === 'illuminanceMeasurement' || x === 'bridgedDeviceBasicInformation'));
      fleet.light(LAMP).setFaults({ unresponsive: true });
      await until(pushed('bridgedDeviceBasicInformation', 'reachable', false), { timeoutMs: 5000, what: 'the sensor unreachable with its light' });
      fleet.light(LAMP).setFaults({ unresponsive: false });
    });

    it('keeps a Light Sensor restored from the cache until the first reading, and removes one when the option is off or its light is gone', async () => {
      const restored = (serial: string, lastSeenAt: number) =>
        ({ UUID: sensorUuidOf(serial), displayName: 'x Light Level', context: { kind: 'matter-light', serial, sensor: 'ambientLight', lastSeenAt } }) as unknown as MatterAccessory;
      const gone = 'd073d5ffffff';
      const on = fakeMatter();
      current = rig(fleet, { matter: true, lights: { ambientLight: true }, discovery: { removeAfterHours: 1, refreshIntervalS: 60 } }, withMatter(on));
      current.platform.configureMatterAccessory(restored(LAMP, Date.now()));
      current.platform.configureMatterAccessory(restored(gone, Date.now() - 2 * 3_600_000));
      await current.platform.launch();
      // Claimed under its cached id when the light is found, before the light was asked for a reading.
      await until(() => on.registered.get(sensorUuidOf(LAMP)), { what: 'the restored sensor claimed' });
      expect(current.platform.service!.light(LAMP)?.ambientLux).to.equal(null);
      expect(on.unregistered).to.deep.equal([sensorUuidOf(gone)]);
      expect(current.log.text('info')).to.match(/Matter: removed x Light Level: not seen for 2 h/);
      await current.platform.shutdown();

      const off = fakeMatter();
      current = rig(fleet, { matter: true, discovery: { refreshIntervalS: 1 } }, withMatter(off));
      current.platform.configureMatterAccessory(restored(LAMP, Date.now()));
      await current.platform.launch();
      await until(() => off.unregistered.includes(sensorUuidOf(LAMP)) || null, { what: 'the restored sensor removed' });
      expect(current.log.text('info')).to.match(/Matter: removed x Light Level: lights\.ambientLight is off/);
      // Reading after reading, no Light Sensor comes back while the option is off.
      await until(async () => (await current!.platform.service!.refresh(`id:${LAMP}`), current!.platform.service!.light(LAMP)?.ambientLux === 42.5), { what: 'the lamp read' });
      fleet.light(LAMP).setState({ lux: 7 });
      await until(async () => (await current!.platform.service!.refresh(`id:${LAMP}`), current!.platform.service!.light(LAMP)?.ambientLux === 7), { what: 'a new reading' });
      expect(off.registered.has(sensorUuidOf(LAMP))).to.equal(false);
      expect(off.registered.has(uuidOf(LAMP))).to.equal(true);
    });
  });
  describe('the parts of a light (lights.parts, as in HomeKit)', () => {
    const CEILING = 'd073d5000051';
    const pixels = () => fleet.light(CEILING).state.tiles![0]!;
    const withMatter = (m: ReturnType<typeof fakeMatter>) => () => ({ isMatterAvailable: () => true, isMatterEnabled: () => true, matter: m.matter });

    beforeEach(async () => {
      await fleet.stop();
      fleet = await startFleet({ lights: [{ serial: CEILING, product: 176, label: 'Ceiling', power: 'on', color: { hue: 30, saturation: 0.2, brightness: 0.8, kelvin: 3000 } }] });
    });

    it('makes each part of a Ceiling a light of its own: its id, name and state, commands through the part, changes and reachability pushed', async () => {
      const m = fakeMatter();
      current = rig(fleet, { matter: true, discovery: { refreshIntervalS: 1, offlineAfterMisses: 1 }, lights: { transitionS: 0 } }, withMatter(m));
      await current.platform.launch();
      const up = partUuidOf(CEILING, 'uplight');
      const down = partUuidOf(CEILING, 'downlight');
      const uplight = await until(() => m.registered.get(up), { timeoutMs: 5000, what: "the Ceiling's uplight registered" });
      const downlight = m.registered.get(down)!;
      expect(m.registered.has(uuidOf(CEILING)), 'the fixture itself stays a device').to.equal(true);
      expect([uplight, downlight].map((a) => (a.deviceType as unknown as { name: string }).name)).to.deep.equal(['ExtendedColorLight', 'ExtendedColorLight']);
      expect([uplight.displayName, downlight.displayName]).to.deep.equal(['Ceiling Uplight', 'Ceiling Downlight']);
      expect(uplight.serialNumber).to.equal(`${CEILING}-uplight`);
      expect(uplight.context).to.include({ kind: 'matter-light', serial: CEILING, part: 'uplight' });
      expect(uplight.clusters?.onOff).to.deep.equal({ onOff: true });
      expect(current.log.text('info')).to.match(/Matter: added Ceiling Uplight as an Extended Color Light \(d073d5000051\)/);
      await until(() => m.updates.some((u) => u.uuid === up && u.cluster === 'bridgedDeviceBasicInformation' && u.attributes.reachable === true) || null, { what: 'the uplight reachable' });

      // A level with its own transition reaches pixel 63 alone, with that transition.
      const before = pixels();
      const light = fleet.light(CEILING);
      light.clearRecords();
      await uplight.handlers!.levelControl!.moveToLevel!({ level: 127, transitionTime: 3 } as never);
      const durations = light.received().filter((p) => p.name === 'Set64').map((p) => (p.payload as { durationMs: number }).durationMs);
      expect(durations).to.deep.equal([300]);
      await until(() => pixels()[63]!.brightness === 0.5 || null, { timeoutMs: 2000, what: 'pixel 63 at half brightness' });
      const changed = (now: readonly { brightness: number; hue: number }[]) => now.flatMap((p, i) => (p.brightness === before[i]!.brightness && p.hue === before[i]!.hue ? [] : [i]));
      expect(changed(pixels())).to.deep.equal([63]);

      // Off: the uplight dark, the fixture on (the downlight is lit); pushed to the uplight only.
      await uplight.handlers!.onOff!.off!(undefined as never);
      expect(pixels()[63]!.brightness).to.equal(0);
      expect(changed(pixels())).to.deep.equal([63]);
      expect(light.state.power).to.equal('on');
      await until(() => m.updates.some((u) => u.uuid === up && u.cluster === 'onOff' && u.attributes.onOff === false) || null, { timeoutMs: 3000, what: 'the uplight off pushed' });
      expect(m.updates.some((u) => u.uuid === down && u.cluster === 'onOff' && u.attributes.onOff === false)).to.equal(false);
      expect(m.updates.some((u) => u.uuid === uuidOf(CEILING) && u.cluster === 'onOff' && u.attributes.onOff === false)).to.equal(false);

      // A toggle reads the part's own power: the uplight comes back on, at its level.
      await uplight.handlers!.onOff!.toggle!(undefined as never);
      expect(pixels()[63]!.brightness).to.be.greaterThan(0);
      await until(() => m.updates.filter((u) => u.uuid === up && u.cluster === 'onOff').at(-1)?.attributes.onOff === true || null, { timeoutMs: 3000, what: 'the uplight on pushed' });

      light.setFaults({ unresponsive: true });
      await until(() => m.updates.some((u) => u.uuid === up && u.cluster === 'bridgedDeviceBasicInformation' && u.attributes.reachable === false) || null, { timeoutMs: 5000, what: 'the uplight unreachable with its light' });
      light.setFaults({ unresponsive: false });
    });

    it('removes restored part devices when lights.parts is off, and those of a light gone for the grace period', async () => {
      const restored = (serial: string, part: string, lastSeenAt: number) =>
        ({ UUID: partUuidOf(serial, part), displayName: `x ${part}`, context: { kind: 'matter-light', serial, part, lastSeenAt } }) as unknown as MatterAccessory;
      const gone = 'd073d5ffffff';
      const m = fakeMatter();
      current = rig(fleet, { matter: true, lights: { parts: false }, discovery: { removeAfterHours: 1 } }, withMatter(m));
      current.platform.configureMatterAccessory(restored(CEILING, 'uplight', Date.now()));
      current.platform.configureMatterAccessory(restored(gone, 'front', Date.now() - 2 * 3_600_000));
      await current.platform.launch();
      expect(m.unregistered).to.include(partUuidOf(gone, 'front'));
      await until(() => m.unregistered.includes(partUuidOf(CEILING, 'uplight')) || null, { what: 'the restored uplight removed' });
      expect(m.unregistered).to.have.length(2);
      expect(current.log.text('info')).to.match(/Matter: removed x uplight: lights\.parts is off/).and.to.match(/Matter: removed x front: not seen for 2 h/);
      await until(() => m.registered.has(uuidOf(CEILING)) || null, { what: 'the Ceiling itself registered' });
      expect([...m.registered.values()].map((a) => a.displayName)).to.deep.equal(['Ceiling']);
    });
  });
});
