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
    deviceTypes: { ExtendedColorLight: { name: 'ExtendedColorLight' }, ColorTemperatureLight: { name: 'ColorTemperatureLight' }, DimmableLight: { name: 'DimmableLight' }, OnOffOutlet: { name: 'OnOffPlugInUnit' } },
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
});
