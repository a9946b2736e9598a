// One light as a HomeKit accessory: AccessoryInformation, the Lightbulb, the night-vision Lightbulb and effect
// Switches, built from the light's capabilities by walking the tables in characteristics.ts and effects.ts.
// Reads answer from the service's cache (never a LAN round trip); writes go through the Writer; changes the
// service sees are pushed to HomeKit.

import type { Characteristic, CharacteristicValue, HAP, Logging, PlatformAccessory, Service } from 'homebridge';
import { RELAYS_MAX, type Capabilities, type LightResult, type LightService, type LightView } from '../core/index.js';
import { LIGHTBULB, LIGHT_SENSOR, NIGHT_VISION, type Mapping } from './characteristics.js';
import type { EffectKind, LightSettings, LightwireConfig } from './config.js';
import { effectIsOn, effectsFor, THEME_SWITCH_RESET_MS, themesFor, type EffectSpec, type EffectStarter, type ThemeSpec } from './effects.js';
import { isHomeKitName, lightName, usableLabel } from './names.js';
import { PartBulbs } from './parts.js';
import { SUBTYPE } from './settings.js';
import type { Writer } from './writer.js';

/** What an accessory keeps in Homebridge's cache, so a restored light has its services before it is found. */
export interface LightContext {
  readonly kind: 'light';
  readonly serial: string;
  readonly label: string;
  readonly capabilities: Capabilities | null;
  /** Epoch ms the light was last heard from, as last saved. */
  readonly lastSeenAt: number | null;
  /** Relays of a LIFX Switch, as last seen (0 for lights). */
  readonly relayCount?: number;
  /**
   * The product's name, as last seen: a light whose label has nothing HomeKit can use is named after it ("LIFX
   * Color 00a1b2"), and a restored accessory must get the same name before its light is found. Caches written
   * before this field was kept lack it.
   */
  readonly productName?: string;
}

/** The boolean flags of Capabilities; the check below makes the compiler list any flag added to the type here. */
const CAPABILITY_FLAGS = [
  'color',
  'variableColorTemp',
  'infrared',
  'multizone',
  'extendedMultizone',
  'matrix',
  'chain',
  'hev',
  'relays',
  'buttons',
  'unhandled',
  'isLight',
] as const satisfies readonly (keyof Capabilities)[];
type UncheckedCapability = Exclude<keyof Capabilities, (typeof CAPABILITY_FLAGS)[number] | 'kelvinRange'>;
export const CAPABILITY_FLAGS_COMPLETE: [UncheckedCapability] extends [never] ? true : never = true;

const SERIAL = /^[0-9a-f]{12}$/;

function capabilitiesProblem(caps: unknown): string | undefined {
  if (typeof caps !== 'object' || caps === null || Array.isArray(caps)) return 'capabilities are not an object';
  const c = caps as Record<string, unknown>;
  const missing = CAPABILITY_FLAGS.filter((flag) => typeof c[flag] !== 'boolean');
  if (missing.length > 0) return `capabilities lack ${missing.join(', ')}`;
  const range = c.kelvinRange;
  if (range === null) return undefined;
  const r = range as Partial<Record<'minK' | 'maxK', unknown>> | undefined;
  const ok =
    typeof r === 'object' &&
    typeof r.minK === 'number' &&
    typeof r.maxK === 'number' &&
    Number.isFinite(r.minK) &&
    Number.isFinite(r.maxK) &&
    r.minK > 0 &&
    r.minK <= r.maxK;
  return ok ? undefined : 'capabilities.kelvinRange is not a kelvin range';
}

/**
 * Why a cached context cannot be used to restore a light, or undefined when it can. The context comes from
 * Homebridge's cache file: an older version of the plugin or a hand edit may have left any shape in it, and
 * restoring from a partial one would throw in configureAccessory (which Homebridge calls unguarded).
 */
export function lightContextProblem(context: unknown): string | undefined {
  if (typeof context !== 'object' || context === null || Array.isArray(context)) {
    return `its context is ${context === null ? 'null' : Array.isArray(context) ? 'a list' : typeof context}, not an object`;
  }
  const c = context as Record<string, unknown>;
  if (c.kind !== 'light') return `its context.kind is ${typeof c.kind === 'string' ? JSON.stringify(c.kind) : c.kind === undefined ? 'missing' : typeof c.kind}, not "light"`;
  if (typeof c.serial !== 'string' || !SERIAL.test(c.serial)) return 'its context.serial is not 12 lowercase hex digits';
  if (typeof c.label !== 'string') return 'its context.label is not text';
  if (c.capabilities === undefined) return 'its context.capabilities are missing';
  if (c.capabilities !== null) {
    const problem = capabilitiesProblem(c.capabilities);
    if (problem !== undefined) return `its context.${problem}`;
  }
  if (c.lastSeenAt !== null && !(typeof c.lastSeenAt === 'number' && Number.isFinite(c.lastSeenAt))) return 'its context.lastSeenAt is not a time';
  // A LIFX Switch has at most RELAYS_MAX relays (the core's, core/protocol/limits.ts): a cached count beyond it is a
  // broken cache, not a device (it would build that many switches).
  if (c.relayCount !== undefined && !(Number.isInteger(c.relayCount) && (c.relayCount as number) >= 0 && (c.relayCount as number) <= RELAYS_MAX)) {
    return `its context.relayCount is not a whole number from 0 to ${RELAYS_MAX}`;
  }
  if (c.productName !== undefined && typeof c.productName !== 'string') return 'its context.productName is not text';
  return undefined;
}

/** Whether a context is a complete LightContext (every field of the right type), safe to restore from. */
export function isLightContext(context: unknown): context is LightContext {
  return lightContextProblem(context) === undefined;
}

/** Whether a context needs no saving over `before`: what a restored accessory is built from is unchanged. */
export function sameContext(before: LightContext, next: LightContext): boolean {
  return (
    before.label === next.label &&
    before.productName === next.productName &&
    JSON.stringify(before.capabilities) === JSON.stringify(next.capabilities) &&
    (before.relayCount ?? 0) === (next.relayCount ?? 0) &&
    before.lastSeenAt !== null
  );
}

/** What a restored accessory needs of a light; the product's name as last known while the light's is not known. */
export function contextOf(view: LightView, relayCount?: number, productName?: string): LightContext {
  const product = view.product?.name ?? productName;
  return {
    kind: 'light',
    serial: view.serial,
    label: view.label,
    capabilities: view.capabilities,
    lastSeenAt: view.lastSeenAt,
    ...(relayCount !== undefined && relayCount > 0 ? { relayCount } : {}),
    ...(product !== undefined ? { productName: product } : {}),
  };
}

/** Whether HomeKit gets anything for this device: a light, or a LIFX Switch (its relays). */
export function offered(caps: Capabilities): boolean {
  return caps.isLight || caps.relays;
}

/** How many relay switches a LIFX Switch's view calls for (relays are numbered from 0); undefined before they are read. */
export function relayCountOf(view: LightView | undefined): number | undefined {
  const relays = view?.relays;
  return relays === null || relays === undefined ? undefined : relays.reduce((n, r) => Math.max(n, r.index + 1), 0);
}

/** Whether relay `index` is on, as the service last read or wrote it: a relay that did not answer shows off. */
function relayOn(view: LightView | undefined, index: number): boolean | undefined {
  const relays = view?.relays;
  if (relays === null || relays === undefined) return undefined;
  return relays.find((r) => r.index === index)?.on ?? false;
}

export interface LightDeps {
  readonly hap: HAP;
  readonly log: Logging;
  /** The service: its views carry the running effect and a LIFX Switch's relays, kept current by its refresh. */
  readonly lights: EffectStarter & Pick<LightService, 'light' | 'setRelayPower' | 'parts'>;
  readonly writer: Writer;
  readonly config: LightwireConfig;
  readonly settings: LightSettings;
  /** Bounds a service call by the response timeout; rejects with the HAP failure when it fails or is late. */
  readonly bounded: (serial: string, work: () => Promise<LightResult[]>) => Promise<void>;
  readonly failure: () => Error;
}

type ServiceType = HAP['Service']['Lightbulb'] | HAP['Service']['Switch'];

interface Bound {
  readonly mapping: Mapping;
  readonly characteristic: Characteristic;
}

export class LightAccessory {
  readonly serial: string;
  private bound: Bound[] = [];
  private effectSwitches: { spec: EffectSpec; characteristic: Characteristic }[] = [];
  private relaySwitches: Characteristic[] = [];
  private themeSwitches: ThemeSpec[] = [];
  private readonly themeResets = new Set<ReturnType<typeof setTimeout>>();
  private adaptive: InstanceType<HAP['AdaptiveLightingController']> | undefined;
  private lastSky: EffectKind | undefined;
  /** A Lightbulb per part of the light (parts.ts). */
  private readonly parts: PartBulbs;

  constructor(
    private readonly deps: LightDeps,
    readonly accessory: PlatformAccessory,
  ) {
    if (!isLightContext(accessory.context)) throw new TypeError(`accessory ${accessory.displayName} has no light context`);
    this.serial = accessory.context.serial;
    const { hap, lights, writer, config, failure } = deps;
    this.parts = new PartBulbs({ hap, lights, writer, enabled: config.lights.parts, unreachableAsOff: config.lights.unreachableAsOff, failure }, accessory, this.serial);
  }

  get context(): LightContext {
    return this.accessory.context as LightContext;
  }

  /** Builds (or rebuilds) the services for what the light can do: from the view, or else from the cached context. */
  setup(view: LightView | undefined): void {
    const caps = view?.capabilities ?? this.context.capabilities;
    const name = this.nameFor(view);
    this.information(view);
    if (caps === null) return;
    const { Service } = this.deps.hap;
    const bound: Bound[] = [];

    const bulb = caps.isLight ? this.service(Service.Lightbulb, name, undefined) : undefined;
    if (bulb) bound.push(...this.bindTable(bulb, LIGHTBULB, caps));
    else this.drop(Service.Lightbulb, undefined);

    const nightVision = caps.infrared && this.deps.config.lights.nightVision ? this.service(Service.Lightbulb, `${name} Night Vision`, SUBTYPE.infrared) : undefined;
    if (nightVision) bound.push(...this.bindTable(nightVision, NIGHT_VISION, caps));
    else this.drop(Service.Lightbulb, SUBTYPE.infrared);
    this.bound = bound;
    this.parts.setup(view, caps, name);
    this.setupLightSensor(view, caps, name);

    this.setupEffects(caps, name, view?.firmware?.major);
    this.setupThemes(caps, name);
    this.setupRelays(caps, name, relayCountOf(view) ?? this.context.relayCount ?? 0);
    if (bulb) this.setupAdaptiveLighting(bulb, caps);
  }

  /** Pushes what changed to HomeKit. */
  update(view: LightView, fields: readonly string[]): void {
    const all = fields.includes('online') || fields.includes('offline');
    for (const { mapping, characteristic } of this.bound) {
      if (!all && !mapping.fields.some((f) => fields.includes(f))) continue;
      if (!view.online) {
        // An unreachable light: Off when asked to show it so, else the next read answers "No Response".
        if (this.deps.config.lights.unreachableAsOff && mapping.characteristic === 'On') characteristic.updateValue(false);
        continue;
      }
      characteristic.updateValue(mapping.read(view));
    }
    this.parts.update(view, all ? [...fields, 'online'] : fields);
    if (all || fields.includes('effect') || fields.includes('power')) this.updateEffects(view);
    if (all || fields.includes('relays')) this.updateRelays(view);
    // The first reading of a sensor: its service is added then (the registry does not say which lights have one).
    if (fields.includes('ambientLux') && !this.bound.some((b) => b.mapping.characteristic === 'CurrentAmbientLightLevel')) {
      this.setupLightSensor(view, view.capabilities, this.nameFor(view));
    }
    if (fields.includes('product') || fields.includes('firmware')) this.information(view);
  }

  /**
   * The name HomeKit gets for this light: its label (from the view, else as cached) made valid for HomeKit, or its
   * product (from the view, else as cached) and serial when nothing of the label is usable. Every service name is
   * derived from it.
   */
  nameFor(view: LightView | undefined): string {
    const label = view?.label || this.context.label;
    const caps = view?.capabilities ?? this.context.capabilities;
    const product = view?.product?.name ?? this.context.productName;
    // No product known (a cache an older version wrote, and the light not read yet): the name the accessory was
    // given for this same label stands. "LIFX 00a1b2" now would be renamed back to "LIFX Color 00a1b2" as soon as
    // the product is read, two renames on every restart.
    if (product === undefined && label === this.context.label && !usableLabel(label) && isHomeKitName(this.accessory.displayName)) {
      return this.accessory.displayName;
    }
    return lightName(label, this.serial, product, caps?.isLight !== false);
  }

  /**
   * A new label from the light (or, without a view, the cached one): the accessory and its services follow it.
   * Also renames a restored accessory whose cached name HomeKit would refuse. Returns whether anything changed.
   */
  rename(view: LightView | undefined): boolean {
    // An empty label (not read yet) keeps the name the accessory has, unless HomeKit would refuse that name.
    if ((view?.label || this.context.label) === '' && isHomeKitName(this.accessory.displayName)) return false;
    const name = this.nameFor(view);
    if (name === this.accessory.displayName) return false;
    this.accessory.updateDisplayName(name);
    const { Characteristic } = this.deps.hap;
    this.accessory.getService(this.deps.hap.Service.AccessoryInformation)?.updateCharacteristic(Characteristic.Name, name);
    for (const service of this.accessory.services) {
      if (service.UUID === this.deps.hap.Service.AccessoryInformation.UUID) continue;
      service.updateCharacteristic(Characteristic.Name, this.serviceName(service, name));
    }
    return true;
  }

  /** Stops what this accessory started (Adaptive Lighting's schedule). */
  dispose(): void {
    if (this.adaptive !== undefined) this.accessory.removeController(this.adaptive);
    this.adaptive = undefined;
    for (const timer of this.themeResets) clearTimeout(timer);
    this.themeResets.clear();
  }

  // ---- services ----

  private serviceName(service: Service, name: string): string {
    if (service.subtype === SUBTYPE.infrared) return `${name} Night Vision`;
    if (service.subtype === SUBTYPE.ambientLight) return `${name} Light Level`;
    const part = PartBulbs.serviceName(service, name);
    if (part !== undefined) return part;
    const effect = this.effectSwitches.find((e) => service.subtype === SUBTYPE.effect(e.spec.kind));
    const theme = this.themeSwitches.find((t) => service.subtype === SUBTYPE.theme(t.theme));
    const relay = /^relay-(\d+)$/.exec(service.subtype ?? '');
    return effect ? `${name} ${effect.spec.title}` : theme ? `${name} ${theme.title}` : relay ? `${name} ${Number(relay[1]) + 1}` : name;
  }

  private information(view: LightView | undefined): void {
    const { Characteristic, Service } = this.deps.hap;
    const info = this.accessory.getService(Service.AccessoryInformation) ?? this.accessory.addService(Service.AccessoryInformation);
    info.setCharacteristic(Characteristic.SerialNumber, this.serial);
    const product = view?.product;
    info.setCharacteristic(Characteristic.Manufacturer, product?.vendorName ?? 'LIFX');
    if (product) info.setCharacteristic(Characteristic.Model, product.name);
    if (product?.firmware) info.setCharacteristic(Characteristic.FirmwareRevision, `${product.firmware.major}.${product.firmware.minor}`);
  }

  /**
   * The LightSensor of a light whose ambient light sensor answered, with the `ambientLight` option (off by default):
   * added once a reading is known, kept for a restored accessory until its light is read, dropped when the option is
   * off.
   */
  private setupLightSensor(view: LightView | undefined, caps: Capabilities, name: string): void {
    const { Service } = this.deps.hap;
    const existing = this.accessory.services.find((s) => s.UUID === Service.LightSensor.UUID && s.subtype === SUBTYPE.ambientLight);
    if (!this.deps.config.lights.ambientLight || !caps.isLight) {
      if (existing) this.accessory.removeService(existing);
      return;
    }
    if ((view?.ambientLux ?? null) === null && existing === undefined) return;
    const sensor = this.service(Service.LightSensor, `${name} Light Level`, SUBTYPE.ambientLight);
    this.bound = [...this.bound.filter((b) => b.mapping.characteristic !== 'CurrentAmbientLightLevel'), ...this.bindTable(sensor, LIGHT_SENSOR, caps)];
    if (view !== undefined && view.ambientLux !== null) this.bound.at(-1)!.characteristic.updateValue(LIGHT_SENSOR[0]!.read(view));
  }

  /** The service of this type and subtype (undefined = the one without a subtype), added when missing. */
  private service(type: ServiceType, name: string, subtype: string | undefined): Service {
    const existing = this.accessory.services.find((s) => s.UUID === type.UUID && s.subtype === subtype);
    if (existing) return existing;
    const added = subtype === undefined ? this.accessory.addService(type, name) : this.accessory.addService(type, name, subtype);
    added.setCharacteristic(this.deps.hap.Characteristic.Name, name);
    return added;
  }

  private drop(type: ServiceType, subtype: string | undefined): void {
    const existing = this.accessory.services.find((s) => s.UUID === type.UUID && s.subtype === subtype);
    if (existing) this.accessory.removeService(existing);
  }

  private bindTable(service: Service, table: readonly Mapping[], caps: Capabilities): Bound[] {
    const bound: Bound[] = [];
    for (const mapping of table) {
      const type = this.deps.hap.Characteristic[mapping.characteristic];
      if (!mapping.applies(caps)) {
        // A cached accessory of a light that lost a capability (or a product now known better).
        if (service.testCharacteristic(type)) service.removeCharacteristic(service.getCharacteristic(type));
        continue;
      }
      const characteristic = service.getCharacteristic(type);
      const props = mapping.props?.(caps);
      if (props) characteristic.setProps(props);
      characteristic.onGet(() => this.read(mapping, characteristic));
      characteristic.onSet((value) => this.deps.writer.write(this.serial, mapping.write(value, caps)));
      bound.push({ mapping, characteristic });
    }
    return bound;
  }

  /** A read from the cache. An unreachable or unknown light is "No Response", or Off when configured so. */
  private read(mapping: Mapping, characteristic: Characteristic): CharacteristicValue {
    const view = this.deps.lights.light(this.serial);
    if (view !== undefined && view.online) return mapping.read(view);
    if (this.deps.config.lights.unreachableAsOff) {
      if (mapping.characteristic === 'On') return false;
      return view !== undefined ? mapping.read(view) : (characteristic.value ?? 0);
    }
    throw this.deps.failure();
  }

  private setupEffects(caps: Capabilities, name: string, firmwareMajor: number | undefined): void {
    const { Service } = this.deps.hap;
    const wanted = effectsFor(this.deps.settings.effects, caps, firmwareMajor);
    const keep = new Set(wanted.map((e) => SUBTYPE.effect(e.kind)));
    for (const service of [...this.accessory.services]) {
      if (service.UUID === Service.Switch.UUID && service.subtype?.startsWith('effect-') && !keep.has(service.subtype)) this.accessory.removeService(service);
    }
    this.effectSwitches = wanted.map((spec) => {
      const service = this.service(Service.Switch, `${name} ${spec.title}`, SUBTYPE.effect(spec.kind));
      const characteristic = service.getCharacteristic(this.deps.hap.Characteristic.On);
      characteristic.onGet(() => {
        const view = this.deps.lights.light(this.serial);
        if (view === undefined || !view.online) {
          if (this.deps.config.lights.unreachableAsOff) return false;
          throw this.deps.failure();
        }
        return effectIsOn(spec, view.effect, this.lastSky);
      });
      characteristic.onSet(async (value) => {
        const on = value === true || value === 1;
        const selector = `id:${this.serial}`;
        if (on) {
          await this.deps.bounded(this.serial, () => spec.start(this.deps.lights, selector));
          if (spec.firmware === 'SKY') this.lastSky = spec.kind;
        } else {
          await this.deps.bounded(this.serial, () => this.deps.lights.perform('effectsOff', selector, {}));
        }
        // Only one effect runs at a time: the others show Off now.
        for (const other of this.effectSwitches) if (other.spec !== spec) other.characteristic.updateValue(false);
      });
      return { spec, characteristic };
    });
  }

  /** The theme switches chosen for this light (lights only): momentary, as scene switches are. */
  private setupThemes(caps: Capabilities, name: string): void {
    const { Service, Characteristic } = this.deps.hap;
    const wanted = caps.isLight ? themesFor(this.deps.settings.themes) : [];
    const keep = new Set(wanted.map((t) => SUBTYPE.theme(t.theme)));
    for (const service of [...this.accessory.services]) {
      if (service.UUID === Service.Switch.UUID && service.subtype?.startsWith('theme-') && !keep.has(service.subtype)) this.accessory.removeService(service);
    }
    this.themeSwitches = wanted;
    for (const spec of wanted) {
      const on = this.service(Service.Switch, `${name} ${spec.title}`, SUBTYPE.theme(spec.theme)).getCharacteristic(Characteristic.On);
      on.onGet(() => false);
      on.onSet(async (value) => {
        if (value !== true && value !== 1) return;
        await this.deps.bounded(this.serial, () => spec.start(this.deps.lights, `id:${this.serial}`));
        const timer = setTimeout(() => {
          this.themeResets.delete(timer);
          on.updateValue(false);
        }, THEME_SWITCH_RESET_MS);
        this.themeResets.add(timer);
      });
    }
  }

  private updateEffects(view: LightView): void {
    for (const { spec, characteristic } of this.effectSwitches) characteristic.updateValue(effectIsOn(spec, view.effect, this.lastSky));
  }

  /** One Switch per relay of a LIFX Switch. */
  private setupRelays(caps: Capabilities, name: string, count: number): void {
    const { Service, Characteristic } = this.deps.hap;
    const wanted = caps.relays ? count : 0;
    for (const service of [...this.accessory.services]) {
      const m = /^relay-(\d+)$/.exec(service.subtype ?? '');
      if (service.UUID === Service.Switch.UUID && m && Number(m[1]) >= wanted) this.accessory.removeService(service);
    }
    this.relaySwitches = Array.from({ length: wanted }, (_, index) => {
      const on = this.service(Service.Switch, `${name} ${index + 1}`, SUBTYPE.relay(index)).getCharacteristic(Characteristic.On);
      on.onGet(() => {
        const view = this.deps.lights.light(this.serial);
        const state = relayOn(view, index);
        if (view === undefined || !view.online || state === undefined) {
          if (this.deps.config.lights.unreachableAsOff) return false;
          throw this.deps.failure();
        }
        return state;
      });
      on.onSet((value) => {
        const wantOn = value === true || value === 1;
        // A confirmed switch shows in the service's view at once (and a background read confirms it).
        return this.deps.bounded(this.serial, async () => [await this.deps.lights.setRelayPower(this.serial, index, wantOn)]);
      });
      return on;
    });
  }

  /** Pushes the relay states the service last read or wrote. */
  updateRelays(view: LightView): void {
    if (view.relays === null || !view.online) return;
    this.relaySwitches.forEach((on, i) => {
      const state = relayOn(view, i);
      if (state !== undefined) on.updateValue(state);
    });
  }

  /** How many relay switches the accessory has now. */
  get relayCount(): number {
    return this.relaySwitches.length;
  }

  /** Adaptive Lighting in HAP's automatic mode: its ColorTemperature writes come through the Writer like any other. */
  private setupAdaptiveLighting(bulb: Service, caps: Capabilities): void {
    if (this.adaptive !== undefined || !this.deps.config.lights.adaptiveLighting || !caps.variableColorTemp || caps.kelvinRange === null) return;
    const { hap } = this.deps;
    this.adaptive = new hap.AdaptiveLightingController(bulb, { controllerMode: hap.AdaptiveLightingControllerMode.AUTOMATIC });
    this.accessory.configureController(this.adaptive);
  }
}
