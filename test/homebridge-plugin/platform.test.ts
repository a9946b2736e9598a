// The platform in-process: real LightService over virtual lights on loopback, real HAP-NodeJS characteristics and
// Homebridge's own PlatformAccessory, a stand-in for the rest of the Homebridge API.

import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as hap from '@homebridge/hap-nodejs';
import { expect } from 'chai';
import type { PlatformAccessory as PlatformAccessoryType, PlatformConfig } from 'homebridge';
import { PlatformAccessory } from '../../node_modules/homebridge/dist/platformAccessory.js';
import { defaultFleet, type Fleet } from '../../core/simulator/index.js';
import { ENUMS, PRODUCTS } from '../../core/protocol/index.js';
import { RELAYS_MAX, SceneStore } from '../../core/index.js';
import type { ServerOptions } from '../../core/http/index.js';
import { isLightContext, type LightContext } from '../../homebridge-plugin/accessory.js';
import { HOMEKIT_NAME } from '../../homebridge-plugin/names.js';
import { LightwirePlatform } from '../../homebridge-plugin/platform.js';
import { LIGHT_UUID_SEED, PLATFORM_NAME, PLUGIN_NAME, SUBTYPE } from '../../homebridge-plugin/settings.js';
import {
  COMMUNICATION_FAILURE,
  characteristic,
  fakeApi,
  has,
  hapNameWarnings,
  hapRead,
  hapWrite,
  lightbulbOf,
  fleetServiceOptions,
  platformRig,
  startFleet,
  testLog,
  type PlatformRig,
} from './helpers.js';
import { quietFor, turns, until } from '../helpers/wait.js';

// defaultFleet(11): 1 Color, 2 White to Warm, 3 Strip, 4 A19, 5 Candle, 6 Night Vision, 7 Mini (starts off),
// 8 Beam, 9 Color, 10 Tile, 11 Clean.
const S = (n: number): string => `d073d5${n.toString(16).padStart(6, '0')}`;

function accessoryOf(rig: PlatformRig, serial: string): PlatformAccessoryType {
  const light = rig.platform.lights.get(serial);
  if (light === undefined) throw new Error(`no accessory for ${serial}`);
  return light.accessory;
}

function cachedAccessory(serial: string, label: string, lastSeenAt: number | null, pid = 91): PlatformAccessoryType {
  const accessory = new PlatformAccessory(label, hap.uuid.generate(LIGHT_UUID_SEED + serial)) as unknown as PlatformAccessoryType;
  const context: LightContext = { kind: 'light', serial, label, capabilities: PRODUCTS.get(1, pid).capabilities, lastSeenAt };
  accessory.context = context;
  return accessory;
}

/**
 * An accessory as Homebridge restores it on the next start: written to its cache file (serialized to JSON) and read
 * back, services and context included.
 */
function restored(accessory: PlatformAccessoryType, context?: (cached: Record<string, unknown>) => void): PlatformAccessoryType {
  const platformAccessory = accessory as unknown as PlatformAccessory;
  platformAccessory._associatedPlugin ??= PLUGIN_NAME;
  platformAccessory._associatedPlatform ??= PLATFORM_NAME;
  const json = JSON.parse(JSON.stringify(PlatformAccessory.serialize(platformAccessory))) as Parameters<typeof PlatformAccessory.deserialize>[0];
  context?.(json.context as Record<string, unknown>);
  return PlatformAccessory.deserialize(json) as unknown as PlatformAccessoryType;
}

/** The names an accessory is given from now on (updateDisplayName, which the platform calls to rename it). */
function renames(accessory: PlatformAccessoryType): string[] {
  const names: string[] = [];
  const update = accessory.updateDisplayName.bind(accessory);
  accessory.updateDisplayName = (name: string) => {
    names.push(name);
    update(name);
  };
  return names;
}

describe('homebridge platform', function () {
  this.timeout(20000);
  let fleet: Fleet;
  let rig: PlatformRig | undefined;

  before(async () => {
    fleet = await startFleet(defaultFleet(11));
  });

  after(async () => {
    await fleet.stop();
  });

  afterEach(async () => {
    await rig?.close();
    rig = undefined;
    for (const light of fleet.lights) light.setFaults({ offline: false, unresponsive: false });
  });

  describe('configuration', () => {
    it('starts nothing without a configuration', () => {
      const fake = fakeApi();
      const log = testLog();
      const platform = new LightwirePlatform(log.log, undefined, fake.api);
      expect(platform.service).to.equal(undefined);
      expect(fake.events.listenerCount('didFinishLaunching')).to.equal(0);
      expect(log.text('info')).to.contain('not configured');
    });

    it('logs what is wrong with a broken config, starts nothing, and keeps Homebridge running', async () => {
      const fake = fakeApi();
      const log = testLog();
      const platform = new LightwirePlatform(log.log, { platform: 'Lightwire', discovery: { port: 'lifx', staticHosts: ['lamp'] } } as PlatformConfig, fake.api);
      expect(platform.service).to.equal(undefined);
      expect(log.text('error')).to.contain('Config: OPTIONS_INVALID: discovery.port: must be a whole number').and.to.contain('discovery.staticHosts[0]').and.to.contain('not started');
      // A cached light of the broken platform answers "No Response" instead of its stale cached state.
      const cached = cachedAccessory(S(1), 'Color 1', Date.now());
      cached.addService(hap.Service.Lightbulb, 'Color 1').getCharacteristic(hap.Characteristic.On).updateValue(true);
      platform.configureAccessory(cached);
      expect(await hapRead(characteristic(lightbulbOf(cached), 'On'))).to.deep.equal({ status: COMMUNICATION_FAILURE });
      await platform.launch();
      expect(fake.registered).to.have.length(0);
    });

    it('warns once at startup that scene switches need a scene file', async () => {
      rig = await platformRig({ scenes: { switches: true } }, fleet);
      await until(() => rig!.platform.lights.size === 11, { timeoutMs: 5000, what: '11 lights' });
      const warnings = rig.log.lines.filter((l) => l.level === 'warn' && l.text.includes('scenes.switches'));
      expect(warnings.map((l) => l.text)).to.deep.equal([
        'Config: scenes.file: scenes.switches is on but no scene file is set, so there are no scene switches; set scenes.file (e.g. "lightwire-scenes.json")',
      ]);
      expect(rig.fake.registered.map((a) => a.displayName)).not.to.include('Lightwire Scenes');
    });
  });

  describe('accessories', () => {
    it('registers one accessory per light, with the services each light supports', async () => {
      rig = await platformRig({ lights: { effects: ['flame', 'move'] } }, fleet);
      await until(() => rig!.platform.lights.size === 11, { timeoutMs: 5000, what: '11 accessories' });
      expect(rig.fake.registered).to.have.length(11);
      expect(new Set(rig.fake.registered.map((a) => a.UUID)).size).to.equal(11);

      const color = lightbulbOf(accessoryOf(rig, S(1)));
      expect(['On', 'Brightness', 'Hue', 'Saturation', 'ColorTemperature'].map((n) => has(color, n as 'On'))).to.deep.equal([true, true, true, true, true]);
      const whiteToWarm = lightbulbOf(accessoryOf(rig, S(2)));
      expect([has(whiteToWarm, 'Hue'), has(whiteToWarm, 'Saturation'), has(whiteToWarm, 'ColorTemperature')]).to.deep.equal([false, false, true]);
      expect(characteristic(whiteToWarm, 'ColorTemperature').props).to.deep.include({ minValue: 111, maxValue: 667 });
      // Adaptive Lighting: HAP adds its transition characteristics to the bulb.
      expect(whiteToWarm.testCharacteristic(hap.Characteristic.CharacteristicValueTransitionControl)).to.equal(true);

      const nightVision = accessoryOf(rig, S(6));
      expect(lightbulbOf(nightVision, SUBTYPE.infrared).displayName).to.equal('Night Vision 6 Night Vision');

      const switches = (serial: string) => accessoryOf(rig!, serial).services.filter((s) => s.UUID === hap.Service.Switch.UUID).map((s) => s.subtype);
      expect(switches(S(5))).to.deep.equal(['effect-flame']); // Candle: matrix
      expect(switches(S(3))).to.deep.equal(['effect-move']); // Strip: multizone
      expect(switches(S(1))).to.deep.equal([]);

      const info = accessoryOf(rig, S(5)).getService(hap.Service.AccessoryInformation)!;
      expect(info.getCharacteristic(hap.Characteristic.Manufacturer).value).to.equal('LIFX');
      expect(info.getCharacteristic(hap.Characteristic.Model).value).to.equal(fleet.light(S(5)).product.name);
      expect(info.getCharacteristic(hap.Characteristic.SerialNumber).value).to.equal(S(5));
      expect(info.getCharacteristic(hap.Characteristic.FirmwareRevision).value).to.equal('3.70');
    });

    it('binds restored accessories before launch and does not register them again', async () => {
      const cached = cachedAccessory(S(1), 'Old name', Date.now() - 3_600_000);
      rig = await platformRig({}, fleet, { cached: [cached], launch: false });
      const on = characteristic(lightbulbOf(cached), 'On');
      // Not found yet: "No Response", not a stale value.
      expect(await hapRead(on)).to.deep.equal({ status: COMMUNICATION_FAILURE });
      await rig.platform.launch();
      await until(() => rig!.platform.lights.size === 11, { timeoutMs: 5000, what: '11 lights' });
      expect(rig.fake.registered.map((a) => a.UUID)).not.to.include(cached.UUID);
      expect(rig.fake.registered).to.have.length(10);
      expect(await hapRead(on)).to.deep.equal({ value: true });
      expect(cached.displayName).to.equal('Color 1');
    });

    it('restores a cached accessory whose context is not usable without throwing: "No Response", then rebuilt in place', async () => {
      // Launched 3 hours ago (by the platform's clock), so the grace period of what was never found is over at once.
      let now = Date.now() - 3 * 3_600_000;
      const caps = PRODUCTS.get(1, 91).capabilities;
      const full = (serial: string): LightContext => ({ kind: 'light', serial, label: 'Cached', capabilities: caps, lastSeenAt: now });
      const cached = (serial: string, context: unknown): PlatformAccessoryType => {
        const accessory = new PlatformAccessory(`Cached ${serial}`, hap.uuid.generate(LIGHT_UUID_SEED + serial)) as unknown as PlatformAccessoryType;
        // Whatever the cache file holds, not only objects.
        accessory.context = context as PlatformAccessoryType['context'];
        return accessory;
      };
      // The audit's case: an older (or hand-edited) cache entry without capabilities, whose Lightbulb is cached.
      const noCaps = cached(S(1), { kind: 'light', serial: S(1), label: 'Color 1', lastSeenAt: now });
      noCaps.addService(hap.Service.Lightbulb, 'Color 1').getCharacteristic(hap.Characteristic.On).updateValue(false);
      // Broken shapes for lights of the fleet (rebuilt when found) ...
      const ofFleet = [
        cached(S(2), { ...full(S(2)), capabilities: { isLight: true } }),
        cached(S(3), { ...full(S(3)), label: 7 }),
        cached(S(4), { ...full(S(4)), serial: 42 }),
        cached(S(5), { ...full(S(5)), lastSeenAt: 'yesterday' }),
        cached(S(6), { ...full(S(6)), relayCount: 1e9 }),
        // More relays than a LIFX Switch has (the core's RELAYS_MAX), and a product name that is no text.
        cached(S(7), { ...full(S(7)), relayCount: RELAYS_MAX + 1 }),
        cached(S(11), { ...full(S(11)), productName: 7 }),
        cached(S(8), { ...full(S(8)), capabilities: { ...caps, kelvinRange: { minK: 9000, maxK: 0 } } }),
        cached(S(9), { ...full(S(9)), kind: 'lamp' }),
        cached(S(10), null),
      ];
      // The White to Warm bulb was cached with Adaptive Lighting's characteristics.
      ofFleet[0]!.addService(hap.Service.Lightbulb, 'White to Warm 2').addCharacteristic(hap.Characteristic.CharacteristicValueActiveTransitionCount);
      // ... and for lights that are never found (removed after the grace period).
      const lost = [undefined, 'light', 42, [], {}, { kind: 'light' }, { kind: 'light', serial: 'd073d5f00007', label: 'x', capabilities: 'all' }].map((context, i) =>
        cached(`d073d5f0000${i}`, context),
      );
      const all = [noCaps, ...ofFleet, ...lost];
      rig = await platformRig({ discovery: { removeAfterHours: 2 } }, fleet, { cached: all, launch: false, deps: { now: () => now } });
      const warnings = rig.log.lines.filter((l) => l.level === 'warn' && l.text.includes('cannot be restored'));
      expect(warnings).to.have.length(all.length);
      expect(warnings[0]!.text).to.equal(
        `Cached accessory "Cached ${S(1)}" cannot be restored: its context.capabilities are missing (Homebridge's accessory cache). ` +
          'It answers "No Response" until its light is found, then it is rebuilt; not found within 2 h, it is removed.',
      );
      expect(warnings[1]!.text).to.contain('its context.capabilities lack color, variableColorTemp');
      expect(warnings.find((w) => w.text.includes(`"Cached ${S(7)}"`))!.text).to.contain(`its context.relayCount is not a whole number from 0 to ${RELAYS_MAX}`);
      expect(warnings.find((w) => w.text.includes(`"Cached ${S(11)}"`))!.text).to.contain('its context.productName is not text');
      // A Switch's relays, up to RELAYS_MAX, and caches without a product name (older versions) are usable.
      expect(isLightContext({ ...full(S(7)), relayCount: RELAYS_MAX })).to.equal(true);
      expect(isLightContext({ ...full(S(7)), productName: 'LIFX Mini' })).to.equal(true);
      expect(rig.platform.lights.size).to.equal(0);
      // Not found yet: its state is "No Response", its name still answers.
      expect(await hapRead(characteristic(lightbulbOf(noCaps), 'On'))).to.deep.equal({ status: COMMUNICATION_FAILURE });
      expect(await hapRead(characteristic(lightbulbOf(noCaps), 'Name'))).to.deep.equal({ value: 'Color 1' });

      await rig.platform.launch();
      await until(() => rig!.platform.lights.size === 11, { timeoutMs: 5000, what: '11 lights' });
      // Rebuilt in place: the same accessories, with complete contexts, not registered a second time.
      const rebuilt = [noCaps, ...ofFleet];
      for (const accessory of rebuilt) {
        expect(isLightContext(accessory.context), accessory.displayName).to.equal(true);
        expect(rig.platform.lights.get((accessory.context as LightContext).serial)!.accessory).to.equal(accessory);
      }
      expect(rig.fake.registered.map((a) => a.UUID)).to.have.members(fleet.lights.map((l) => hap.uuid.generate(LIGHT_UUID_SEED + l.serial)).filter((u) => !rebuilt.some((a) => a.UUID === u)));
      expect(noCaps.context).to.deep.include({ kind: 'light', serial: S(1), label: 'Color 1', capabilities: fleet.light(S(1)).product.capabilities });
      expect(await hapRead(characteristic(lightbulbOf(noCaps), 'On'))).to.deep.equal({ value: true });
      // The White to Warm bulb came back with Adaptive Lighting, whose characteristics answer again.
      const transitions = lightbulbOf(ofFleet[0]!).getCharacteristic(hap.Characteristic.CharacteristicValueActiveTransitionCount);
      expect(await hapRead(transitions)).to.deep.equal({ value: 0 });
      expect(rig.log.text('info')).to.contain(`Rebuilt Color 1 from the light (${S(1)}): its cached data was not usable.`);

      // The entries no light claimed go after the grace period, like any unseen light.
      now = Date.now();
      rig.platform.removeStale();
      expect(rig.fake.unregistered.map((a) => a.UUID)).to.have.members(lost.map((a) => a.UUID));
      expect(rig.platform.lights.size).to.equal(11);
      expect(rig.log.text('info')).to.contain(`Removed Cached d073d5f00000: its cached data was not usable and its light was not found for 3 h.`);
    });

    it('keeps Homebridge running when restoring a cached accessory throws and so does its cleanup', async () => {
      const cached = cachedAccessory(S(1), 'Old name', Date.now());
      // Renamed as it is restored (its label changed), which throws; Adaptive Lighting is set up by then, and
      // removing its controller again throws too.
      cached.context = { ...(cached.context as LightContext), label: 'Color 1' } satisfies LightContext;
      cached.updateDisplayName = () => {
        throw new Error('name refused');
      };
      cached.removeController = () => {
        throw new Error('controller busy');
      };
      // configureAccessory (Homebridge calls it unguarded) must not throw.
      rig = await platformRig({}, fleet, { cached: [cached], launch: false });
      expect(rig.log.text('warn')).to.contain('Cached accessory "Old name" cannot be restored: its cached services cannot be restored (name refused)');
      expect(rig.log.text('debug')).to.contain('controller busy');
      expect(rig.platform.lights.size).to.equal(0);
      expect(await hapRead(characteristic(lightbulbOf(cached), 'On'))).to.deep.equal({ status: COMMUNICATION_FAILURE });
    });

    it('keeps answering "No Response" when rebuilding an unusable cache entry from its light fails, says so, and tries again', async () => {
      const cached = cachedAccessory(S(1), 'Color 1', Date.now());
      // An older cache entry without capabilities, whose Lightbulb was cached with a value now stale.
      const { capabilities: _, ...withoutCapabilities } = cached.context as LightContext;
      cached.context = withoutCapabilities;
      cached.addService(hap.Service.Lightbulb, 'Color 1').getCharacteristic(hap.Characteristic.On).updateValue(false);
      // HAP refuses the Adaptive Lighting controller the rebuild sets up last.
      cached.configureController = () => {
        throw new Error('controller refused');
      };
      rig = await platformRig({ discovery: { offlineAfterMisses: 1 } }, fleet, { cached: [cached], launch: false });
      const on = characteristic(lightbulbOf(cached), 'On');
      expect(await hapRead(on)).to.deep.equal({ status: COMMUNICATION_FAILURE });
      await rig.platform.launch();
      await until(() => rig!.platform.lights.size === 10 && rig!.log.text('error').includes('Cannot rebuild'), { timeoutMs: 5000, what: 'the other lights and the failed rebuild' });
      expect(rig.log.text('error')).to.contain(`Cannot rebuild "Color 1" from the light (${S(1)}): controller refused.`);
      // Not the stale cached value: the light is not bound, so "No Response", and nothing was saved.
      expect(await hapRead(on)).to.deep.equal({ status: COMMUNICATION_FAILURE });
      expect(rig.platform.lights.has(S(1))).to.equal(false);
      expect(cached.context).to.deep.equal(withoutCapabilities);
      expect(rig.log.text('info')).not.to.contain('Rebuilt Color 1');

      // Back online with the controller accepted: rebuilt then.
      delete (cached as { configureController?: unknown }).configureController;
      fleet.light(S(1)).setFaults({ offline: true });
      await rig.platform.service!.refresh(`id:${S(1)}`).catch(() => undefined);
      await until(() => rig!.platform.service!.light(S(1))?.online === false, { timeoutMs: 3000, what: 'light 1 offline' });
      fleet.light(S(1)).setFaults({ offline: false });
      await rig.platform.service!.refresh(`id:${S(1)}`).catch(() => undefined);
      await until(() => rig!.platform.lights.has(S(1)), { timeoutMs: 3000, what: 'light 1 rebuilt' });
      expect(rig.log.text('info')).to.contain(`Rebuilt Color 1 from the light (${S(1)}): its cached data was not usable.`);
      expect(isLightContext(cached.context)).to.equal(true);
      expect(await hapRead(on)).to.deep.equal({ value: true });
    });

    it('removes lights not seen for the grace period, counting from their cached sighting', async () => {
      let now = Date.now();
      const gone = cachedAccessory('d073d50000ff', 'Gone', now - 3 * 3_600_000);
      const recent = cachedAccessory('d073d50000fe', 'Recent', now - 3_600_000);
      rig = await platformRig({ discovery: { removeAfterHours: 2 } }, fleet, { cached: [gone, recent], deps: { now: () => now } });
      expect(rig.fake.unregistered.map((a) => a.displayName)).to.deep.equal(['Gone']);
      now += 1.5 * 3_600_000;
      rig.platform.removeStale();
      expect(rig.fake.unregistered.map((a) => a.displayName)).to.deep.equal(['Gone', 'Recent']);
      expect(rig.platform.lights.has(S(1))).to.equal(true);
      expect(rig.log.text('info')).to.contain('Removed Gone');
    });

    it('registers a light removed as stale again once it is heard from', async () => {
      let now = Date.now();
      rig = await platformRig({ discovery: { removeAfterHours: 2 } }, fleet, { deps: { now: () => now } });
      await until(() => rig!.platform.lights.has(S(2)), { timeoutMs: 5000, what: 'light 2' });
      const label = accessoryOf(rig, S(2)).displayName;
      now += 3 * 3_600_000;
      rig.platform.removeStale();
      expect(rig.platform.lights.has(S(2))).to.equal(false);
      expect(rig.log.text('info')).to.contain(`Removed ${label}: not seen for 2 h.`);
      now = Date.now();
      fleet.light(S(2)).setState({ label: 'Back' });
      await rig.platform.service!.refresh(`id:${S(2)}`);
      await until(() => rig!.platform.lights.has(S(2)), { timeoutMs: 3000, what: 'light 2 registered again' });
      expect(rig.fake.registered.some((a) => a.displayName === 'Back')).to.equal(true);
      fleet.light(S(2)).setState({ label });
    });

    it('leaves hidden lights out', async () => {
      rig = await platformRig({ accessories: [{ serial: S(4).toUpperCase(), hidden: true }] }, fleet);
      await until(() => rig!.platform.lights.size === 10, { timeoutMs: 5000, what: '10 lights' });
      expect(rig.platform.lights.has(S(4))).to.equal(false);
    });

    it('follows a label changed elsewhere', async () => {
      rig = await platformRig({}, fleet);
      await until(() => rig!.platform.lights.has(S(9)), { timeoutMs: 5000, what: 'light 9' });
      const before = rig.fake.updates;
      fleet.light(S(9)).setState({ label: 'Porch' });
      await rig.platform.service!.refresh(`id:${S(9)}`);
      await until(() => accessoryOf(rig!, S(9)).displayName === 'Porch', { timeoutMs: 3000, what: 'the new label' });
      expect(characteristic(lightbulbOf(accessoryOf(rig, S(9))), 'Name').value).to.equal('Porch');
      expect(rig.fake.updates).to.be.greaterThan(before);
      fleet.light(S(9)).setState({ label: 'Color 9' });
    });
  });

  describe('HomeKit writes and reads', () => {
    it('sends On, Brightness, Hue and Saturation of one PUT as one change: colour while off, then power', async () => {
      rig = await platformRig({ lights: { transitionS: 0 } }, fleet);
      await until(() => rig!.platform.lights.has(S(7)), { timeoutMs: 5000, what: 'light 7' });
      const light = fleet.light(S(7));
      expect(light.state.power).to.equal('off');
      light.clearRecords();
      const bulb = lightbulbOf(accessoryOf(rig, S(7)));
      const results = await Promise.all([
        hapWrite(characteristic(bulb, 'On'), true),
        hapWrite(characteristic(bulb, 'Brightness'), 30),
        hapWrite(characteristic(bulb, 'Hue'), 200),
        hapWrite(characteristic(bulb, 'Saturation'), 100),
      ]);
      expect(results.map((r) => r.status)).to.deep.equal([0, 0, 0, 0]);
      expect(light.state.power).to.equal('on');
      expect(light.state.color.brightness).to.be.closeTo(0.3, 0.001);
      expect(light.state.color.hue).to.be.closeTo(200, 0.1);
      expect(light.state.color.saturation).to.be.closeTo(1, 0.001);
      const sets = light.received().map((p) => p.name).filter((n) => n !== null && n.startsWith('Set'));
      expect(sets).to.deep.equal(['SetColor', 'SetLightPower']);
    });

    it('pushes changes made elsewhere (another app, a wall switch) to HomeKit when the service sees them', async () => {
      rig = await platformRig({}, fleet);
      await until(() => rig!.platform.lights.has(S(10)), { timeoutMs: 5000, what: 'light 10' });
      const bulb = lightbulbOf(accessoryOf(rig, S(10)));
      const pushed: unknown[] = [];
      characteristic(bulb, 'Brightness').on('change', (change: { newValue: unknown }) => pushed.push(change.newValue));
      fleet.light(S(10)).setState({ power: 'off', color: { hue: 10, saturation: 1, brightness: 0.42, kelvin: 3500 } });
      await rig.platform.service!.refresh(`id:${S(10)}`);
      await until(() => characteristic(bulb, 'On').value === false, { timeoutMs: 3000, what: 'On pushed as false' });
      expect(characteristic(bulb, 'Brightness').value).to.equal(42);
      expect(pushed).to.include(42);
      fleet.light(S(10)).setState({ power: 'on' });
    });

    it('reads from the cache: thousands of reads without a packet to the light', async () => {
      rig = await platformRig({}, fleet);
      await until(() => rig!.platform.lights.size === 11, { timeoutMs: 5000, what: '11 lights' });
      const bulbs = [...rig.platform.lights.values()].map((l) => l.accessory).filter((a) => a.services.some((s) => s.UUID === hap.Service.Lightbulb.UUID)).map((a) => lightbulbOf(a));
      for (const light of fleet.lights) light.clearRecords();
      const started = performance.now();
      let reads = 0;
      for (let round = 0; round < 500; round++) {
        for (const bulb of bulbs) {
          await characteristic(bulb, 'On').handleGetRequest();
          await characteristic(bulb, 'Brightness').handleGetRequest();
          reads += 2;
        }
      }
      const perSecond = reads / ((performance.now() - started) / 1000);
      const gets = fleet.lights.reduce((n, l) => n + l.received().filter((p) => p.name === 'GetColor').length, 0);
      // Background refresh may read a light once in this time; 11 000 reads must not.
      expect(gets).to.be.below(12);
      expect(perSecond).to.be.greaterThan(20_000);
      process.stdout.write(`      (in-process cache reads: ${Math.round(perSecond).toLocaleString('en')} per second)\n`);
    });

    it('answers an unreachable light at once with -70402 while other lights still change', async () => {
      rig = await platformRig({ discovery: { offlineAfterMisses: 1 }, lights: { transitionS: 0 } }, fleet);
      await until(() => rig!.platform.lights.size === 11, { timeoutMs: 5000, what: '11 lights' });
      fleet.light(S(4)).setFaults({ offline: true });
      await rig.platform.service!.refresh(`id:${S(4)}`).catch(() => undefined);
      await until(() => rig!.platform.service!.light(S(4))?.online === false, { timeoutMs: 3000, what: 'light 4 offline' });
      const dark = lightbulbOf(accessoryOf(rig, S(4)));
      const other = lightbulbOf(accessoryOf(rig, S(1)));
      const [write, otherWrite] = await Promise.all([hapWrite(characteristic(dark, 'On'), false), hapWrite(characteristic(other, 'Brightness'), 55)]);
      expect(write.status).to.equal(COMMUNICATION_FAILURE);
      expect(write.ms).to.be.below(50);
      expect(otherWrite.status).to.equal(0);
      expect(fleet.light(S(1)).state.color.brightness).to.be.closeTo(0.55, 0.001);
      expect(await hapRead(characteristic(dark, 'On'))).to.deep.equal({ status: COMMUNICATION_FAILURE });
      expect(rig.log.text('warn')).to.contain('unreachable');
    });

    it('answers a light that stops answering within the response timeout', async () => {
      rig = await platformRig({ lights: { responseTimeoutMs: 300 } }, fleet);
      await until(() => rig!.platform.lights.size === 11, { timeoutMs: 5000, what: '11 lights' });
      fleet.light(S(8)).setFaults({ unresponsive: true });
      const write = await hapWrite(characteristic(lightbulbOf(accessoryOf(rig, S(8))), 'Brightness'), 10);
      expect(write.status).to.equal(COMMUNICATION_FAILURE);
      expect(write.ms).to.be.within(290, 450);
    });

    it('shows an unreachable light as Off when configured so', async () => {
      rig = await platformRig({ discovery: { offlineAfterMisses: 1 }, lights: { unreachableAsOff: true } }, fleet);
      await until(() => rig!.platform.lights.size === 11, { timeoutMs: 5000, what: '11 lights' });
      const on = characteristic(lightbulbOf(accessoryOf(rig, S(9))), 'On');
      expect(await hapRead(on)).to.deep.equal({ value: true });
      fleet.light(S(9)).setFaults({ offline: true });
      await rig.platform.service!.refresh(`id:${S(9)}`).catch(() => undefined);
      await until(() => on.value === false, { timeoutMs: 3000, what: 'On pushed as false' });
      expect(await hapRead(on)).to.deep.equal({ value: false });
    });

    it('starts and stops a firmware effect from its switch', async () => {
      rig = await platformRig({ lights: { effects: ['flame'] } }, fleet);
      await until(() => rig!.platform.lights.has(S(5)), { timeoutMs: 5000, what: 'the candle' });
      const candle = fleet.light(S(5));
      candle.clearRecords();
      const flame = accessoryOf(rig, S(5)).getServiceById(hap.Service.Switch, SUBTYPE.effect('flame'))!.getCharacteristic(hap.Characteristic.On);
      expect(await hapRead(flame)).to.deep.equal({ value: false });
      expect((await hapWrite(flame, true)).status).to.equal(0);
      const started = candle.received('SetTileEffect');
      expect(started).to.have.length(1);
      const effectType = (p: { payload: unknown }) => ENUMS.TileEffectType[(p.payload as { settings: { type: 0 | 1 | 2 | 3 | 4 | 5 } }).settings.type];
      expect(effectType(started[0]!)).to.equal('FLAME');
      await until(() => flame.value === true, { timeoutMs: 2000, what: 'the switch to show the running effect' });
      expect((await hapWrite(flame, false)).status).to.equal(0);
      expect(effectType(candle.received('SetTileEffect').at(-1)!)).to.equal('OFF');
      await until(() => flame.value === false, { timeoutMs: 2000, what: 'the switch to show the effect stopped' });
    });
  });

  describe('theme switches', () => {
    it('paints a theme from its momentary switch: the strip shows the palette over its zones, then the switch is Off', async () => {
      rig = await platformRig({ lights: { themes: ['autumn'] }, accessories: [{ serial: S(1), themes: [] }] }, fleet);
      await until(() => rig!.platform.lights.size === 11, { timeoutMs: 5000, what: '11 lights' });
      // Every light gets the switch unless its own entry says otherwise.
      const themeSwitch = (serial: string) => accessoryOf(rig!, serial).getServiceById(hap.Service.Switch, SUBTYPE.theme('autumn'));
      expect(themeSwitch(S(1))).to.equal(undefined);
      const service = themeSwitch(S(3))!;
      expect(service.displayName).to.equal(`${accessoryOf(rig, S(3)).displayName} Theme Autumn`);
      const on = service.getCharacteristic(hap.Characteristic.On);
      expect(await hapRead(on)).to.deep.equal({ value: false });
      expect((await hapWrite(on, true)).status).to.equal(0);
      expect(fleet.light(S(3)).received('SetExtendedColorZones')).to.have.length(1);
      // Over the platform's transition: the zones end in the palette's colours, zone 0 in its first.
      const hues = (): number[] => fleet.light(S(3)).state.zones!.map((z) => Math.round(z.hue));
      await until(() => hues()[0] === 31 && new Set(hues()).size > 2, { timeoutMs: 4000, what: 'the autumn palette over the strip' });
      await until(() => on.value === false, { timeoutMs: 3000, what: 'the switch back to Off' });
    });
  });

  describe('scenes and the HTTP API', () => {
    it('offers scenes as momentary switches with their own fade', async () => {
      const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'lightwire-hb-')), 'scenes.json');
      const config = { scenes: { file, switches: true, fadeS: 0, fades: [{ scene: 'Evening', fadeS: 0 }] } };
      const first = await platformRig(config, fleet);
      await until(() => first.platform.lights.size === 11, { timeoutMs: 5000, what: '11 lights' });
      fleet.light(S(1)).setState({ power: 'on', color: { hue: 30, saturation: 1, brightness: 0.2, kelvin: 3500 } });
      await first.platform.service!.captureScene('Evening', `id:${S(1)}`);
      await first.close();
      fleet.light(S(1)).setState({ color: { hue: 250, saturation: 1, brightness: 1, kelvin: 3500 } });

      rig = await platformRig(config, fleet);
      const scenes = rig.fake.registered.find((a) => a.displayName === 'Lightwire Scenes');
      expect(scenes).not.to.equal(undefined);
      const evening = scenes!.services.find((s) => s.UUID === hap.Service.Switch.UUID)!;
      expect(evening.displayName).to.equal('Evening');
      expect((await hapWrite(evening.getCharacteristic(hap.Characteristic.On), true)).status).to.equal(0);
      expect(fleet.light(S(1)).state.color.hue).to.be.closeTo(30, 0.1);
      expect(await hapRead(evening.getCharacteristic(hap.Characteristic.On))).to.deep.equal({ value: false });
    });

    it('follows the scene list without a restart: scenes captured here or by another process, and deleted ones', async () => {
      const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'lightwire-hb-')), 'scenes.json');
      rig = await platformRig({ scenes: { file, switches: true, fadeS: 0 } }, fleet);
      await until(() => rig!.platform.lights.size === 11, { timeoutMs: 5000, what: '11 lights' });
      const accessory = (): PlatformAccessoryType | undefined => rig!.fake.registered.find((a) => a.displayName === 'Lightwire Scenes');
      const switches = (): string[] =>
        (accessory()?.services ?? [])
          .filter((s) => s.UUID === hap.Service.Switch.UUID)
          .map((s) => s.displayName)
          .sort();
      await until(() => accessory() !== undefined, { timeoutMs: 5000, what: 'the scenes accessory' });
      expect(switches()).to.deep.equal([]);
      // Captured over the embedded HTTP API (the same service).
      await rig.platform.service!.captureScene('Evening', `id:${S(1)}`);
      expect(switches()).to.deep.equal(['Evening']);
      // Captured by the CLI, which shares the file: picked up by the file watch.
      const cli = await SceneStore.open(file);
      const morning = await cli.capture('Morning', [rig.platform.service!.light(S(2))!]);
      await until(() => switches().length === 2, { timeoutMs: 5000, what: 'the Morning switch' });
      expect(switches()).to.deep.equal(['Evening', 'Morning']);
      const on = accessory()!.services.find((s) => s.displayName === 'Morning')!.getCharacteristic(hap.Characteristic.On);
      expect((await hapWrite(on, true)).status).to.equal(0);
      await cli.remove(morning.uuid);
      await until(() => switches().length === 1, { timeoutMs: 5000, what: 'the Morning switch to go' });
      expect(switches()).to.deep.equal(['Evening']);
      expect(rig.log.text('info')).to.contain('Scenes changed: 1 scene switch(es).');
    });

    it('starts the lights with a scenes.file it cannot open (a folder), saying so as a scenes problem', async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-hb-'));
      rig = await platformRig({ scenes: { file: dir, switches: true } }, fleet);
      await until(() => rig!.platform.lights.size === 11, { timeoutMs: 5000, what: '11 lights' });
      expect(rig.log.text('warn')).to.match(/Scenes \(scenes\.file\): scene file .*: cannot read it: EISDIR.*; the lights work without scenes\./);
      expect(rig.log.text('error')).to.not.contain('Cannot start the LAN client');
    });

    it('starts the HTTP API when the config asks for it, on the same service, and closes it on shutdown', async () => {
      const started: ServerOptions[] = [];
      let closed = 0;
      rig = await platformRig({ http: { enabled: true, port: 3456 } }, fleet, {
        deps: {
          startHttp: async (options) => {
            started.push(options);
            return { url: 'http://127.0.0.1:3456/v1', port: 3456, plainUrl: null, app: undefined as never, close: async () => void closed++ };
          },
        },
      });
      expect(started).to.have.length(1);
      expect(started[0]).to.deep.include({ host: '127.0.0.1', port: 3456, service: rig.platform.service });
      expect(rig.log.text('info')).to.contain('HTTP API listening at http://127.0.0.1:3456/v1');
      await rig.close();
      rig = undefined;
      expect(closed).to.equal(1);
    });

    it('logs an HTTP API that cannot start and keeps the lights', async () => {
      rig = await platformRig({ http: { enabled: true, host: '0.0.0.0', port: 3457 } }, fleet);
      expect(rig.log.text('error')).to.contain('HTTP API not started');
      await until(() => rig!.platform.lights.size === 11, { timeoutMs: 5000, what: '11 lights' });
    });
  });

  describe('network failures', () => {
    it('logs a start that fails (no usable network) and tries again', async () => {
      let attempts = 0;
      rig = await platformRig({}, fleet, {
        launch: false,
        deps: {
          startRetryMs: 200,
          createService: (options) => {
            const service = fleetServiceOptions(fleet)(options);
            const start = service.start.bind(service);
            service.start = async () => {
              attempts++;
              if (attempts === 1) throw new Error('bind EADDRNOTAVAIL 0.0.0.0');
              return start();
            };
            return service;
          },
        },
      });
      await rig.platform.launch();
      expect(rig.log.text('error')).to.contain('Cannot start the LAN client (bind EADDRNOTAVAIL 0.0.0.0); trying again in 0.2 s.');
      await until(() => rig!.platform.lights.size === 11, { timeoutMs: 5000, what: 'the lights after the retry' });
      expect(attempts).to.equal(2);
    });
  });

  describe('shutdown', () => {
    it('stops the service, answers later writes with -70402 and starts nothing more', async () => {
      rig = await platformRig({}, fleet);
      await until(() => rig!.platform.lights.has(S(1)), { timeoutMs: 5000, what: 'light 1' });
      const on = characteristic(lightbulbOf(accessoryOf(rig, S(1))), 'On');
      await rig.close();
      expect(rig.platform.service!.started).to.equal(false);
      expect((await hapWrite(on, true)).status).to.equal(COMMUNICATION_FAILURE);
      await rig.platform.launch();
      expect(rig.platform.service!.started).to.equal(false);
      rig = undefined;
    });

    it('leaves no interval running when shut down while the service is still starting', async () => {
      const live = new Set<unknown>();
      const { setInterval: realSet, clearInterval: realClear } = globalThis;
      globalThis.setInterval = ((...args: Parameters<typeof setInterval>) => {
        const timer = realSet(...args);
        live.add(timer);
        return timer;
      }) as typeof setInterval;
      globalThis.clearInterval = ((timer: Parameters<typeof clearInterval>[0]) => {
        live.delete(timer);
        realClear(timer);
      }) as typeof clearInterval;
      try {
        const shut = await platformRig({}, fleet, { launch: false });
        const launching = shut.platform.launch();
        // shutdown() runs while launch() awaits service.start(); the service stops what the start started.
        await shut.close();
        await launching;
        expect(shut.platform.service!.started).to.equal(false);
        expect(shut.platform.lights.size).to.equal(0);
        expect(live.size).to.equal(0);
      } finally {
        for (const timer of live) realClear(timer as ReturnType<typeof setInterval>);
        globalThis.setInterval = realSet;
        globalThis.clearInterval = realClear;
      }
    });

    it('does not retry a start that fails after shutdown', async () => {
      let attempts = 0;
      let fail!: () => void;
      rig = await platformRig({}, fleet, {
        launch: false,
        deps: {
          startRetryMs: 50,
          createService: (options) => {
            const service = fleetServiceOptions(fleet)(options);
            service.start = () => {
              attempts++;
              return new Promise<void>((_, reject) => (fail = () => reject(new Error('bind EADDRNOTAVAIL 0.0.0.0'))));
            };
            return service;
          },
        },
      });
      const launching = rig.platform.launch();
      await rig.close();
      fail();
      await launching;
      // A negative window: no second attempt. It outlasts startRetryMs (50 ms here) three times.
      await quietFor(150);
      expect(attempts).to.equal(1);
      expect(rig.log.text('error')).not.to.contain('trying again');
      rig = undefined;
    });
  });
});

describe('homebridge platform: LIFX Switch relays', function () {
  this.timeout(20000);
  const SWITCH = 'd073d5005701';
  let fleet: Fleet;
  let rig: PlatformRig | undefined;

  before(async () => {
    fleet = await startFleet({
      lights: [
        { serial: SWITCH, product: 70, label: 'Hall Switch', firmware: { major: 3, minor: 70 } },
        { serial: 'd073d5005702', product: 91, label: 'Lamp', firmware: { major: 3, minor: 70 } },
      ],
    });
  });

  after(async () => {
    await fleet.stop();
  });

  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('offers each relay of a LIFX Switch as a Switch, read from the cache and written to the device', async () => {
    rig = await platformRig({ discovery: { refreshIntervalS: 1 } }, fleet);
    await until(() => (rig!.platform.lights.get(SWITCH)?.relayCount ?? 0) === 4, { timeoutMs: 5000, what: '4 relay switches' });
    const accessory = rig.platform.lights.get(SWITCH)!.accessory;
    expect(lightbulbOfMaybe(accessory)).to.equal(undefined);
    expect(accessory.category).to.equal(hap.Categories.SWITCH);
    expect(accessory.getServiceById(hap.Service.Switch, SUBTYPE.relay(3))!.displayName).to.equal('Hall Switch 4');
    const relay = (i: number) => accessory.getServiceById(hap.Service.Switch, SUBTYPE.relay(i))!.getCharacteristic(hap.Characteristic.On);
    expect(await hapRead(relay(2))).to.deep.equal({ value: false });

    const device = fleet.light(SWITCH);
    device.clearRecords();
    expect((await hapWrite(relay(2), true)).status).to.equal(0);
    expect(device.state.relays).to.deep.equal(['off', 'off', 'on', 'off']);
    expect(await hapRead(relay(2))).to.deep.equal({ value: true });
    // A read is answered from what the platform keeps: no GetRPower for it.
    const gets = device.received('GetRPower').length;
    await hapRead(relay(2));
    expect(device.received('GetRPower').length).to.equal(gets);

    // Switched at the wall: HomeKit hears of it with the next background read.
    device.setState({ relays: ['on', 'off', 'on', 'off'] });
    await until(() => relay(0).value === true, { timeoutMs: 3000, what: 'relay 0 pushed as on' });
  });

  it('answers a relay of an unreachable Switch with -70402', async () => {
    // The relays come with the service's reads (its refresh reads what the first read, 400 ms here, left out).
    rig = await platformRig({ discovery: { offlineAfterMisses: 1, refreshIntervalS: 1 } }, fleet);
    await until(() => (rig!.platform.lights.get(SWITCH)?.relayCount ?? 0) === 4, { timeoutMs: 5000, what: '4 relay switches' });
    fleet.light(SWITCH).setFaults({ offline: true });
    try {
      await rig.platform.service!.relays(SWITCH).catch(() => undefined);
      await until(() => rig!.platform.service!.light(SWITCH)?.online === false, { timeoutMs: 3000, what: 'the Switch offline' });
      const relay = rig.platform.lights.get(SWITCH)!.accessory.getServiceById(hap.Service.Switch, SUBTYPE.relay(0))!.getCharacteristic(hap.Characteristic.On);
      expect(await hapRead(relay)).to.deep.equal({ status: COMMUNICATION_FAILURE });
      const write = await hapWrite(relay, true);
      expect(write.status).to.equal(COMMUNICATION_FAILURE);
      expect(write.ms).to.be.below(50);
    } finally {
      fleet.light(SWITCH).setFaults({ offline: false });
    }
  });
});

function lightbulbOfMaybe(accessory: PlatformAccessoryType): unknown {
  return accessory.services.find((s) => s.UUID === hap.Service.Lightbulb.UUID);
}

describe('homebridge platform: names HomeKit accepts', function () {
  this.timeout(20000);
  const firmware = { major: 3, minor: 70 };
  const N = (n: number): string => `d073d50060${n.toString(16).padStart(2, '0')}`;
  let fleet: Fleet;
  let rig: PlatformRig | undefined;

  before(async () => {
    fleet = await startFleet({
      lights: [
        { serial: N(1), product: 91, label: 'Lamp 💡', firmware },
        { serial: N(2), product: 91, label: 'Desk (left)', firmware },
        { serial: N(3), product: 91, label: '#2 Hall', firmware },
        { serial: N(4), product: 91, label: 'A', firmware },
        { serial: N(5), product: 91, label: '💡💡', firmware },
        { serial: N(6), product: 109, label: 'Cam ★', firmware, infrared: 0.25 },
        { serial: N(7), product: 137, label: 'Candle 🕯', firmware },
        { serial: N(8), product: 70, label: '⚡', firmware },
      ],
    });
  });

  after(async () => {
    await fleet.stop();
  });

  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  const accessory = (n: number): PlatformAccessoryType => rig!.platform.lights.get(N(n))!.accessory;
  const nameOf = (service: { getCharacteristic(c: typeof hap.Characteristic.Name): { value: unknown } }): unknown => service.getCharacteristic(hap.Characteristic.Name).value;

  it('names accessories and services so HAP-NodeJS accepts them, keeping the labels in the log', async () => {
    const warnings = await hapNameWarnings(async () => {
      rig = await platformRig({ lights: { effects: ['flame'] }, discovery: { refreshIntervalS: 1 } }, fleet);
      await until(() => rig!.platform.lights.size === 8 && rig!.platform.lights.get(N(8))!.relayCount === 4, { timeoutMs: 5000, what: '8 accessories and 4 relays' });
    });
    expect(warnings).to.deep.equal([]);
    const names = [1, 2, 3, 4, 5].map((n) => accessory(n).displayName);
    expect(names).to.deep.equal(['Lamp', 'Desk left', '2 Hall', 'Light A', 'LIFX Color 800lm 006005']);
    for (const n of [1, 2, 3, 4, 5]) {
      expect(nameOf(lightbulbOf(accessory(n)))).to.equal(names[n - 1]);
      expect(nameOf(accessory(n).getService(hap.Service.AccessoryInformation)!)).to.equal(names[n - 1]);
    }
    expect(nameOf(lightbulbOf(accessory(6), SUBTYPE.infrared))).to.equal('Cam Night Vision');
    expect(nameOf(accessory(7).getServiceById(hap.Service.Switch, SUBTYPE.effect('flame'))!)).to.equal('Candle Flame');
    expect(accessory(8).displayName).to.equal('LIFX Switch 006008');
    expect(nameOf(accessory(8).getServiceById(hap.Service.Switch, SUBTYPE.relay(3))!)).to.equal('LIFX Switch 006008 4');
    // Every Name the plugin gave, on every service of every accessory.
    for (const light of rig!.platform.lights.values()) {
      for (const service of light.accessory.services) {
        const name = nameOf(service);
        if (name !== null && name !== undefined) expect(HOMEKIT_NAME.test(String(name)), String(name)).to.equal(true);
      }
    }
    expect(rig!.log.text('info')).to.contain(`Added Lamp 💡 (as "Lamp" in HomeKit) (LIFX Color 800lm, ${N(1)}).`).and.to.contain(`Added Desk (left) (as "Desk left" in HomeKit)`);
  });

  it('cleans a label changed elsewhere, and a name restored from an older cache', async () => {
    let old!: PlatformAccessoryType;
    // Cached by a version that passed labels through: HAP-NodeJS warns about the name as the cache is loaded.
    const cacheWarnings = await hapNameWarnings(() => {
      old = new PlatformAccessory('Old 💡', hap.uuid.generate(LIGHT_UUID_SEED + N(9))) as unknown as PlatformAccessoryType;
    });
    expect(cacheWarnings).to.have.length(1);
    old.context = { kind: 'light', serial: N(9), label: 'Old 💡', capabilities: PRODUCTS.get(1, 91).capabilities, lastSeenAt: Date.now() } satisfies LightContext;
    const warnings = await hapNameWarnings(async () => {
      rig = await platformRig({}, fleet, { cached: [old], launch: false });
      expect(old.displayName).to.equal('Old');
      expect(nameOf(lightbulbOf(old))).to.equal('Old');
      await rig.platform.launch();
      await until(() => rig!.platform.lights.has(N(2)), { timeoutMs: 5000, what: 'light 2' });
      fleet.light(N(2)).setState({ label: 'Porch 🌙' });
      await rig.platform.service!.refresh(`id:${N(2)}`);
      await until(() => accessory(2).displayName === 'Porch', { timeoutMs: 3000, what: 'the new label' });
    });
    try {
      expect(warnings).to.deep.equal([]);
      expect(nameOf(lightbulbOf(accessory(2)))).to.equal('Porch');
      expect(rig!.log.text('info')).to.contain(`${N(2)} is now called Porch 🌙 (as "Porch" in HomeKit).`);
    } finally {
      fleet.light(N(2)).setState({ label: 'Desk (left)' });
    }
  });

  it('gives a light named after its product the same name after a restart, from this cache and an older one', async () => {
    rig = await platformRig({}, fleet);
    await until(() => rig!.platform.lights.has(N(5)) && rig!.platform.service!.light(N(5))?.product !== null, { timeoutMs: 5000, what: 'light 5 and its product' });
    const added = accessory(5);
    // Its label ("💡💡") has nothing HomeKit can use: it is named after its product, which its cache entry keeps.
    expect(added.displayName).to.equal('LIFX Color 800lm 006005');
    expect(added.context).to.deep.include({ productName: 'LIFX Color 800lm' });
    await rig.close();
    rig = undefined;
    const caches = {
      'this version': restored(added),
      // Written before the product's name was kept.
      'an older version': restored(added, (context) => delete context.productName),
    };
    for (const [which, cached] of Object.entries(caches)) {
      const names = renames(cached);
      rig = await platformRig({}, fleet, { cached: [cached], launch: false });
      expect(isLightContext(cached.context), which).to.equal(true);
      // Restored before the light is found, then found: no rename at either step (a Name update each, before).
      expect(cached.displayName, which).to.equal('LIFX Color 800lm 006005');
      await rig.platform.launch();
      await until(() => rig!.platform.service!.light(N(5))?.product !== null && (cached.context as LightContext).productName === 'LIFX Color 800lm', { timeoutMs: 5000, what: `light 5 (${which})` });
      // The rename a product read could bring happens as its view is handled; let the loop go round past it.
      await turns();
      expect(accessory(5), which).to.equal(cached);
      expect(names, which).to.deep.equal([]);
      expect(cached.displayName, which).to.equal('LIFX Color 800lm 006005');
      expect(nameOf(lightbulbOf(cached)), which).to.equal('LIFX Color 800lm 006005');
      expect(nameOf(cached.getService(hap.Service.AccessoryInformation)!), which).to.equal('LIFX Color 800lm 006005');
      await rig.close();
      rig = undefined;
    }
  });

  it('names scene switches so HAP-NodeJS accepts them', async () => {
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'lightwire-hb-')), 'scenes.json');
    const config = { scenes: { file, switches: true } };
    const first = await platformRig(config, fleet);
    await until(() => first.platform.lights.has(N(1)), { timeoutMs: 5000, what: 'light 1' });
    await first.platform.service!.captureScene('Movie 🎬', `id:${N(1)}`);
    await first.platform.service!.captureScene('🎬', `id:${N(1)}`);
    await first.close();
    const warnings = await hapNameWarnings(async () => {
      rig = await platformRig(config, fleet);
    });
    expect(warnings).to.deep.equal([]);
    const scenes = rig!.fake.registered.find((a) => a.displayName === 'Lightwire Scenes')!;
    const switchNames = scenes.services.filter((s) => s.UUID === hap.Service.Switch.UUID).map((s) => String(nameOf(s)));
    expect(switchNames).to.have.length(2);
    expect(switchNames).to.include('Movie');
    expect(switchNames.find((n) => n !== 'Movie')).to.match(/^Scene [0-9A-Za-z]{6}$/);
  });
});
