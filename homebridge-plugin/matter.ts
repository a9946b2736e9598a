// The Matter face (option `matter: true`): every light the service finds is also a Matter device on Homebridge 2's
// Matter bridge, for Google Home, Alexa, SmartThings and Apple Home over Matter. It sits beside the HomeKit (HAP)
// face and shares its Writer, so a Matter command and a HomeKit write to one light are merged the same way (colour
// first, then power) and answered the same way (confirmed, or failed within the response timeout).
//
// Homebridge's Matter calls are fire-and-forget (a registration or update it cannot apply is only logged at debug
// level), so after registering a light the face waits until Homebridge knows it (getAccessoryState answers) before
// it pushes the light's state and reachability again.
//
// A light whose ambient light sensor answered also gets a Light Sensor (with `lights.ambientLight`, as in HomeKit),
// an accessory of its own rather than a part of the light's: the sensor is known only after the light's first
// background read, and Homebridge rebuilds an accessory whose parts change (a new endpoint: controllers would drop
// the light's room and automations); a composed light would also gain a FixedLabel and a PowerSource.
//
// With `lights.parts` (as in HomeKit), each part of a light (a Ceiling's downlight and uplight, a Mirror's front and
// rear, a strip's named segments: core/control/parts.ts) is a light device of its own too, for the same reasons: of
// the light's device type, named "<name> <Part>", showing the part as service.parts() does, and writing through the
// Writer under `serial|part` as the HAP part Lightbulbs do, so the core keeps the fixture on while any part is lit.

import type { API, Logging, MatterAccessory, MatterAPI } from 'homebridge';
import type { LightResult, LightService, LightView } from '../core/index.js';
import { offered, relayCountOf } from './accessory.js';
import { lightSettings, type LightwireConfig } from './config.js';
import {
  isMatterLightContext,
  lightSensorLabel,
  lightSensorStateOf,
  matterAccessory,
  matterLabel,
  matterLightSensor,
  stateOf,
  suffixedLabel,
  type MatterLightContext,
  type MatterTarget,
} from './matter-devices.js';
import { matterKindOf, type MatterKind } from './matter-mapping.js';
import { lightName } from './names.js';
import { asPart, partTitle, PART_FIELDS } from './parts.js';
import { MATTER_UUID_SEED, PLATFORM_NAME, PLUGIN_NAME } from './settings.js';
import type { Writer } from './writer.js';
import { Timers } from './timers.js';

/** A registration Homebridge refused because its Matter server was still starting is tried again this much later. */
export const MATTER_RETRY_MS = 1_000;
/** How long after registering the face waits at most for Homebridge to know the accessory. */
export const MATTER_KNOWN_WAIT_MS = 15_000;
/**
 * Homebridge writes a registration to its Matter cache 2 s after the last one (debounced) and refuses, with a
 * warning, to update a cache entry it has not written yet: cache updates of a new accessory wait this long.
 */
export const MATTER_CACHE_SETTLE_MS = 10_000;

export interface MatterFaceDeps {
  readonly api: API;
  readonly matter: MatterAPI;
  readonly log: Logging;
  readonly config: LightwireConfig;
  readonly writer: Writer;
  /** The platform's: runs a service call for one light within the response timeout, rejecting when not confirmed. */
  readonly bounded: (key: string, work: () => Promise<LightResult[]>) => Promise<void>;
  readonly now: () => number;
}

/** The device a light's ambient light sensor is (Matter Device Library Specification 1.4, §7.2 Light Sensor). */
const LIGHT_SENSOR = 'lightSensor';
type DeviceKind = MatterKind | typeof LIGHT_SENSOR;

/** What one accessory of a light is: the light, one relay of a Switch, one part of the light, or its Light Sensor. */
interface Slot {
  readonly kind: DeviceKind;
  readonly relay?: number | undefined;
  readonly part?: string | undefined;
}

interface Entry extends Slot {
  readonly serial: string;
  accessory: MatterAccessory<MatterLightContext>;
  /** Homebridge has confirmed it knows the accessory: updates reach it. */
  known: boolean;
  /** When registration resolved (epoch ms), for MATTER_CACHE_SETTLE_MS. */
  registeredAt: number;
}

/**
 * Whether Matter can be used on this bridge: undefined when it can, otherwise the one line to log. Homebridge before
 * 2.0 has no `api.matter`; a bridge without a `matter` block in config.json has it undefined (isMatterEnabled false).
 */
export function matterProblem(api: API): string | undefined {
  const partial = api as Partial<API>;
  if (typeof partial.isMatterAvailable !== 'function' || !partial.isMatterAvailable()) {
    return `Matter: not started: Homebridge ${String(partial.serverVersion ?? '(unknown version)')} has no Matter API (Homebridge 2 or later is needed). The lights stay in HomeKit.`;
  }
  if (api.matter === undefined || typeof partial.isMatterEnabled !== 'function' || !partial.isMatterEnabled()) {
    return 'Matter: not started: Matter is off on this bridge (add "matter": {} to the "bridge" block of config.json, or to "_bridge" for a child bridge). The lights stay in HomeKit.';
  }
  return undefined;
}

export class MatterFace {
  /** Accessories Homebridge restored from its Matter cache and no light has claimed yet, by UUID. */
  private readonly restored = new Map<string, MatterAccessory>();
  /** Registered accessories by UUID. */
  private readonly entries = new Map<string, Entry>();
  private readonly timers = new Timers();
  private pending = new Map<string, Entry>();
  private flushing = false;
  private service: LightService | undefined;
  private launchedAt = 0;
  private stopped = false;
  private readonly matter: MatterAPI;

  constructor(private readonly deps: MatterFaceDeps) {
    this.matter = deps.matter;
  }

  /** A light's Matter accessory restored from Homebridge's cache (configureMatterAccessory). */
  configure(accessory: MatterAccessory): void {
    this.restored.set(accessory.UUID, accessory);
  }

  /** Follows the service from now on; registers the lights it already knows. Safe to call again. */
  start(service: LightService): void {
    if (this.service !== undefined || this.stopped) return;
    this.service = service;
    this.launchedAt = this.deps.now();
    service.on('added', (view) => this.ensure(view));
    service.on('changed', (view, fields) => this.changed(view, fields));
    service.on('offline', (view) => this.push(view, ['offline']));
    service.on('online', (view) => this.changed(view, ['online']));
    for (const view of service.views()) if (view.power !== null) this.ensure(view);
  }

  stop(): void {
    this.stopped = true;
    this.timers.clear();
  }

  private changed(view: LightView, fields: readonly string[]): void {
    const sensor = this.sensorUuid(view.serial);
    const uuids = this.uuidsOf(view.serial);
    const lights = uuids.filter((uuid) => uuid !== sensor);
    const kind = matterKindOf(view.capabilities);
    const count = relayCountOf(view);
    const partsNow = lights.filter((uuid) => this.entryOf(uuid)?.part !== undefined).sort();
    const partsWanted = this.partNames(view).map((part) => this.partUuid(view.serial, part)).sort();
    const stale =
      lights.some((uuid) => this.entryOf(uuid)?.kind !== kind) ||
      (kind === 'plug' && count !== undefined && lights.length !== count) ||
      partsNow.join() !== partsWanted.join();
    if (lights.length === 0 || stale) {
      if (view.online) this.ensure(view);
      return;
    }
    // The sensor's first reading: the light gets its Light Sensor (ensure decides whether it is wanted).
    if (fields.includes('ambientLux') && !uuids.includes(sensor) && this.deps.config.lights.ambientLight) this.ensure(view);
    if (fields.includes('label') || fields.includes('product')) this.rename(view);
    this.push(view, fields);
  }

  /**
   * Registers a light (each relay of a LIFX Switch on its own), its parts and its Light Sensor, or re-registers one
   * whose device type changed.
   */
  private ensure(view: LightView): void {
    if (this.stopped) return;
    const kind = matterKindOf(view.capabilities);
    const wanted = new Map<string, Slot>();
    const hidden = lightSettings(this.deps.config, view.serial).hidden;
    if (kind !== undefined && offered(view.capabilities) && !hidden) {
      if (kind !== 'plug') wanted.set(this.uuid(view.serial), { kind });
      // A Switch's relays are known once read; until then it has no Matter device.
      else for (let i = 0; i < (relayCountOf(view) ?? 0); i++) wanted.set(this.uuid(view.serial, i), { kind, relay: i });
      if (kind !== 'plug') for (const part of this.partNames(view)) wanted.set(this.partUuid(view.serial, part), { kind, part });
    }
    const sensor = this.sensorUuid(view.serial);
    const sensorAllowed = kind !== undefined && kind !== 'plug' && !hidden && this.deps.config.lights.ambientLight;
    // Once the sensor answered; one restored from the cache is kept until the light's first reading, so a restart
    // does not take it from the controller (and its room) for a moment.
    if (sensorAllowed && (view.ambientLux !== null || this.uuidsOf(view.serial).includes(sensor))) wanted.set(sensor, { kind: LIGHT_SENSOR });
    for (const uuid of this.uuidsOf(view.serial)) {
      // A restored accessory is claimed by registering it again (Homebridge attaches the handlers, or rebuilds it
      // when the device type changed); one registered in this run is removed first.
      const entry = this.entryOf(uuid);
      const slot = wanted.get(uuid);
      if (slot === undefined) this.unregister(uuid, this.whyNot(view, uuid, kind, hidden));
      else if (entry !== undefined && entry.kind !== slot.kind) this.unregister(uuid, 'its device type changed');
    }
    for (const [uuid, slot] of wanted) {
      if (this.entries.has(uuid) || this.pending.has(uuid)) continue;
      const name = this.labelOf(view, slot);
      const { relay, part } = slot;
      const accessory =
        slot.kind === LIGHT_SENSOR
          ? matterLightSensor(this.matter, { uuid, name, view })
          : matterAccessory(this.matter, {
              uuid,
              name,
              view: this.shown(view, part),
              kind: slot.kind,
              ...(relay === undefined ? {} : { relay }),
              ...(part === undefined ? {} : { part }),
              target: this.target(view.serial, part),
            });
      this.pending.set(uuid, { serial: view.serial, relay, part, kind: slot.kind, accessory, known: false, registeredAt: 0 });
    }
    this.flushSoon(0);
  }

  /** Why a light's accessory is no longer wanted (for the log line of its removal). */
  private whyNot(view: LightView, uuid: string, kind: MatterKind | undefined, hidden: boolean): string {
    if (hidden) return 'hidden in the config';
    const light = kind !== undefined && kind !== 'plug';
    if (uuid === this.sensorUuid(view.serial) && light && !this.deps.config.lights.ambientLight) return 'lights.ambientLight is off';
    if (this.partOf(uuid) !== undefined && light) return this.deps.config.lights.parts ? 'no longer a part of the light' : 'lights.parts is off';
    return 'nothing Matter can control';
  }

  /** A part's handlers see the light as the part shows (asPart) and write under `serial|part`, as HomeKit's do. */
  private target(serial: string, part?: string): MatterTarget {
    const fail = (err: unknown): never => {
      this.deps.log.debug(`${this.service?.light(serial)?.label || serial}: Matter command not confirmed (${err instanceof Error ? err.message : String(err)})`);
      // Matter's FAILURE status: what HomeKit's "No Response" is to a HAP write.
      throw new this.matter.status.Failure(`${serial} did not confirm the change (unreachable or too slow)`);
    };
    return {
      view: () => {
        const view = this.service?.light(serial);
        return view === undefined ? undefined : this.shown(view, part);
      },
      send: (patch, durationS) => this.deps.writer.write(part === undefined ? serial : `${serial}|${part}`, patch, durationS).catch(fail),
      relay: (index, on) => this.deps.bounded(serial, async () => [await this.service!.setRelayPower(serial, index, on)]).catch(fail),
      now: this.deps.now,
    };
  }

  // ---- registration ----

  private flushSoon(ms: number): void {
    if (this.flushing || this.pending.size === 0) return;
    this.flushing = true;
    this.timers.after(ms, () => void this.flush());
  }

  /** Registers what is pending in one call; Homebridge refuses while its Matter server starts: tried again then. */
  private async flush(): Promise<void> {
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await this.matter.registerPlatformAccessories(PLUGIN_NAME, PLATFORM_NAME, batch.map((e) => e.accessory));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.flushing = false;
      // Homebridge refuses while its Matter server starts ("still starting"): those are tried again. Any other refusal
      // would be refused again: said once, and the batch dropped (the lights stay in HomeKit).
      if (!/still starting|before Homebridge has finished launching/.test(message)) {
        this.deps.log.error(`Matter: Homebridge refused ${batch.length} device(s): ${message}. They stay in HomeKit only.`);
        this.flushSoon(0);
        return;
      }
      for (const entry of batch) if (!this.pending.has(entry.accessory.UUID)) this.pending.set(entry.accessory.UUID, entry);
      this.deps.log.debug(`Matter: registration not taken yet (${message}); trying again in ${MATTER_RETRY_MS} ms.`);
      this.flushSoon(MATTER_RETRY_MS);
      return;
    }
    this.flushing = false;
    for (const entry of batch) {
      entry.registeredAt = this.deps.now();
      this.restored.delete(entry.accessory.UUID);
      this.entries.set(entry.accessory.UUID, entry);
      this.deps.log.info(`Matter: added ${entry.accessory.displayName} as ${entry.kind === 'plug' ? 'an On/Off Plug-in Unit' : KIND_NAMES[entry.kind]} (${entry.serial}).`);
      void this.whenKnown(entry);
    }
    this.flushSoon(0);
  }

  /** Waits until Homebridge answers for the accessory, then pushes the light's state (an early update can be dropped). */
  private async whenKnown(entry: Entry): Promise<void> {
    const started = this.deps.now();
    while (!this.stopped && this.entries.get(entry.accessory.UUID) === entry) {
      const cluster = entry.kind === LIGHT_SENSOR ? 'illuminanceMeasurement' : 'onOff';
      const state = await this.matter.getAccessoryState(entry.accessory.UUID, cluster).catch(() => undefined);
      if (state !== undefined) {
        entry.known = true;
        const view = this.service?.light(entry.serial);
        if (view !== undefined) this.push(view, ['all']);
        return;
      }
      if (this.deps.now() - started > MATTER_KNOWN_WAIT_MS) {
        this.deps.log.warn(`Matter: Homebridge has not taken ${entry.accessory.displayName} (${entry.serial}); its state is not shown over Matter until the next start.`);
        return;
      }
      await new Promise<void>((resolve) => this.timers.after(100, resolve));
    }
  }

  private unregister(uuid: string, why: string): void {
    const entry = this.entries.get(uuid);
    const accessory = entry?.accessory ?? this.restored.get(uuid);
    this.entries.delete(uuid);
    this.restored.delete(uuid);
    this.pending.delete(uuid);
    if (accessory === undefined) return;
    this.matter.unregisterPlatformAccessories(PLUGIN_NAME, PLATFORM_NAME, [accessory]).catch((err: unknown) => this.deps.log.debug(`Matter: cannot remove ${accessory.displayName}: ${(err as Error).message}`));
    this.deps.log.info(`Matter: removed ${accessory.displayName}: ${why}.`);
  }

  // ---- state ----

  /** Pushes what changed of a light to every accessory it has: reachability, on/off, level and colour, the name. */
  private push(view: LightView, fields: readonly string[]): void {
    const all = fields.includes('all') || fields.includes('online');
    for (const uuid of this.uuidsOf(view.serial)) {
      const entry = this.entries.get(uuid);
      if (entry === undefined || !entry.known) continue;
      if (all || fields.includes('offline')) this.update(uuid, 'bridgedDeviceBasicInformation', { reachable: view.online });
      if (!view.online) continue;
      if (entry.kind === LIGHT_SENSOR) {
        // No reading yet (a sensor restored from the cache): the cached one stays until there is.
        if ((all || fields.includes('ambientLux')) && view.ambientLux !== null) this.update(uuid, 'illuminanceMeasurement', lightSensorStateOf(view).illuminanceMeasurement);
        continue;
      }
      const state = stateOf(this.shown(view, entry.part), entry.kind, this.matter, entry.relay);
      // A part's power and colour follow its zones (pixels of a matrix light) as well as the light's.
      const partMoved = entry.part !== undefined && fields.some((f) => PART_FIELDS.includes(f));
      if (all || partMoved || fields.includes('power') || fields.includes('relays')) this.update(uuid, 'onOff', state.onOff);
      if (all || partMoved || fields.includes('color')) {
        if (state.levelControl !== undefined) this.update(uuid, 'levelControl', state.levelControl);
        if (state.colorControl !== undefined) this.update(uuid, 'colorControl', state.colorControl);
      }
    }
  }

  private update(uuid: string, cluster: string, attributes: Record<string, unknown> | undefined): void {
    if (attributes === undefined) return;
    this.matter.updateAccessoryState(uuid, cluster, attributes).catch((err: unknown) => this.deps.log.debug(`Matter: update of ${cluster} not taken: ${(err as Error).message}`));
  }

  /** Names follow labels: the bridged device's NodeLabel now, the cached name for the next start. */
  private rename(view: LightView): void {
    for (const uuid of this.uuidsOf(view.serial)) {
      const waiting = this.pending.get(uuid);
      if (waiting !== undefined) {
        // Not registered yet: it is registered under the new name.
        waiting.accessory = { ...waiting.accessory, displayName: this.labelOf(view, waiting) };
        continue;
      }
      const entry = this.entries.get(uuid);
      if (entry === undefined) continue;
      const name = this.labelOf(view, entry);
      if (name === entry.accessory.displayName) continue;
      entry.accessory = { ...entry.accessory, displayName: name };
      if (entry.known) this.update(uuid, 'bridgedDeviceBasicInformation', { nodeLabel: name });
      this.save(entry);
      this.deps.log.info(`Matter: ${view.serial} is now called ${name}.`);
    }
  }

  /**
   * Removes accessories of lights not heard from for the grace period (removeAfterHours, as for HomeKit); restored
   * ones count from their cached sighting. A light removed so is registered again when it is heard from.
   */
  removeStale(graceMs: number): void {
    if (this.stopped || graceMs <= 0) return;
    const now = this.deps.now();
    const refreshed: MatterAccessory[] = [];
    const all: [string, MatterAccessory][] = [...this.restored.entries(), ...[...this.entries.entries()].map(([uuid, e]): [string, MatterAccessory] => [uuid, e.accessory])];
    for (const [uuid, accessory] of all) {
      const context = isMatterLightContext(accessory.context) ? accessory.context : undefined;
      const view = context === undefined ? undefined : this.service?.light(context.serial);
      const lastSeenAt = view?.lastSeenAt ?? context?.lastSeenAt ?? this.launchedAt;
      if (now - lastSeenAt > graceMs) this.unregister(uuid, `not seen for ${Math.floor((now - lastSeenAt) / 3_600_000)} h`);
      // Restored from the cache, its light not found (yet): Homebridge shows it reachable until told otherwise.
      else if (this.restored.has(uuid) && (view === undefined || !view.online)) this.update(uuid, 'bridgedDeviceBasicInformation', { reachable: false });
      else if (view !== undefined && context !== undefined && context.lastSeenAt !== view.lastSeenAt) {
        const entry = this.entries.get(uuid);
        if (entry !== undefined && now - entry.registeredAt < MATTER_CACHE_SETTLE_MS) continue;
        accessory.context = { ...context, lastSeenAt: view.lastSeenAt };
        if (entry !== undefined) refreshed.push(accessory);
      }
    }
    if (refreshed.length > 0) this.matter.updatePlatformAccessories(refreshed).catch(() => undefined);
  }

  /** Saves an accessory's name and context to Homebridge's Matter cache, once Homebridge has written its entry. */
  private save(entry: Entry): void {
    const uuid = entry.accessory.UUID;
    this.timers.after(Math.max(0, entry.registeredAt + MATTER_CACHE_SETTLE_MS - this.deps.now()), () => {
      if (this.entries.get(uuid) === entry) this.matter.updatePlatformAccessories([entry.accessory]).catch(() => undefined);
    });
  }

  // ---- helpers ----

  private uuid(serial: string, relay?: number): string {
    return this.matter.uuid.generate(`${MATTER_UUID_SEED}${serial}${relay === undefined ? '' : `:relay-${relay}`}`);
  }

  private partUuid(serial: string, part: string): string {
    return this.matter.uuid.generate(`${MATTER_UUID_SEED}${serial}:part-${part}`);
  }

  /** The part an accessory registered, pending or restored is, if any. */
  private partOf(uuid: string): string | undefined {
    const context = this.restored.get(uuid)?.context;
    return this.entryOf(uuid)?.part ?? (isMatterLightContext(context) ? context.part : undefined);
  }

  /** The parts of a light that are Matter devices: all of its parts with `lights.parts` (as in HomeKit), of lights only. */
  private partNames(view: LightView): string[] {
    if (!this.deps.config.lights.parts || !view.capabilities.isLight || this.service === undefined) return [];
    return this.service.parts(view.serial).map((p) => p.name);
  }

  /** The light as an accessory shows it: the light's view, or one part's (power and colour) for a part. */
  private shown(view: LightView, part: string | undefined): LightView {
    return part === undefined ? view : asPart(view, this.service?.parts(view.serial).find((p) => p.name === part));
  }

  /** The Light Sensor of a light's ambient light sensor. */
  private sensorUuid(serial: string): string {
    return this.matter.uuid.generate(`${MATTER_UUID_SEED}${serial}:ambient-light`);
  }

  private entryOf(uuid: string): Entry | undefined {
    return this.entries.get(uuid) ?? this.pending.get(uuid);
  }

  /** UUIDs registered, pending or restored for a light. */
  private uuidsOf(serial: string): string[] {
    const out = new Set<string>();
    for (const [uuid, e] of [...this.entries, ...this.pending]) if (e.serial === serial) out.add(uuid);
    for (const [uuid, a] of this.restored) if (isMatterLightContext(a.context) && a.context.serial === serial) out.add(uuid);
    return [...out];
  }

  /**
   * The Matter name of an accessory of a light: the light's, "<name> 2" for a relay, "<name> Uplight" for a part (as
   * in HomeKit), "<name> Light Level" for its sensor.
   */
  private labelOf(view: LightView, slot: Slot): string {
    const name = lightName(view.label, view.serial, view.product?.name, view.capabilities.isLight);
    if (slot.kind === LIGHT_SENSOR) return lightSensorLabel(name);
    if (slot.part !== undefined) return suffixedLabel(name, ` ${partTitle(slot.part)}`);
    return matterLabel(slot.relay === undefined ? name : `${name} ${slot.relay + 1}`);
  }

}

const KIND_NAMES: Readonly<Record<Exclude<DeviceKind, 'plug'>, string>> = {
  extendedColor: 'an Extended Color Light',
  colorTemperature: 'a Color Temperature Light',
  dimmable: 'a Dimmable Light',
  lightSensor: 'a Light Sensor',
};

/**
 * Lightwire's accessories restored from a Matter cache while the `matter` option is off: removed, so controllers do
 * not keep devices nothing answers for.
 */
export function removeMatterLeftovers(matter: MatterAPI, log: Logging, accessories: readonly MatterAccessory[]): void {
  if (accessories.length === 0) return;
  matter.unregisterPlatformAccessories(PLUGIN_NAME, PLATFORM_NAME, [...accessories]).catch((err: unknown) => log.debug(`Matter: cannot remove cached accessories: ${(err as Error).message}`));
  log.info(`Matter: removed ${accessories.length} cached Matter accessor${accessories.length === 1 ? 'y' : 'ies'}: the "matter" option is off.`);
}
