// The parts of a light as their own Lightbulbs on its accessory (On, Brightness, Hue, Saturation, Colour
// Temperature): the downlight and uplight of a LIFX Ceiling, the front and rear of a Mirror, a strip's named segments
// (core/control/parts.ts). On by default (`lights.parts`): the users ask for exactly this (an uplight warm and
// dim while the downlight is off), and a fixture with parts still has its own Lightbulb for the whole light.
// A part reads as its zones show (on while the light is on and the part is lit; the colour of its brightest zone) and
// writes through the Writer under the key `serial|part`, so the core keeps the light's power consistent: the fixture
// is on while any part is lit (core/control/part-plan.ts).

import type { Characteristic, HAP, PlatformAccessory, Service } from 'homebridge';
import type { Capabilities, LightService, LightView, PartView } from '../core/index.js';
import { LIGHTBULB, type Mapping } from './characteristics.js';
import { SUBTYPE } from './settings.js';
import type { Writer } from './writer.js';

export interface PartDeps {
  readonly hap: HAP;
  readonly lights: Pick<LightService, 'light' | 'parts'>;
  readonly writer: Writer;
  readonly enabled: boolean;
  readonly unreachableAsOff: boolean;
  readonly failure: () => Error;
}

/** The fields of a `changed` event that can move a part's state (HomeKit's characteristics, Matter's clusters). */
export const PART_FIELDS: readonly string[] = ['power', 'color', 'zones', 'pixels', 'tiles', 'online', 'offline'];

/** "uplight" -> "Uplight", "shelf_2" -> "Shelf 2": a part's name in HomeKit after its light's. */
export function partTitle(name: string): string {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The light as one part of it shows: its power and colour (for the Lightbulb table's reads and Matter's clusters). */
export function asPart(view: LightView, part: PartView | undefined): LightView {
  return part === undefined ? view : { ...view, power: part.power, color: part.color };
}

export class PartBulbs {
  private bound: { part: string; mapping: Mapping; characteristic: Characteristic }[] = [];

  constructor(
    private readonly deps: PartDeps,
    private readonly accessory: PlatformAccessory,
    private readonly serial: string,
  ) {}

  /** The part names of this accessory's Lightbulbs now. */
  get names(): string[] {
    return [...new Set(this.bound.map((b) => b.part))];
  }

  /** Builds a Lightbulb per part of the light (or, before the light is read, keeps the cached ones), drops the others. */
  setup(view: LightView | undefined, caps: Capabilities, lightName: string): void {
    const { Service } = this.deps.hap;
    const existing = this.accessory.services.filter((s) => s.UUID === Service.Lightbulb.UUID && s.subtype?.startsWith(SUBTYPE.part('')));
    const wanted = !this.deps.enabled || !caps.isLight ? [] : view === undefined ? existing.map((s) => s.subtype!.slice(SUBTYPE.part('').length)) : this.deps.lights.parts(this.serial).map((p) => p.name);
    for (const service of existing) if (!wanted.includes(service.subtype!.slice(SUBTYPE.part('').length))) this.accessory.removeService(service);
    this.bound = wanted.flatMap((part) => this.bind(this.service(part, lightName), part, caps));
  }

  /** Pushes what changed to HomeKit. */
  update(view: LightView, fields: readonly string[]): void {
    if (!fields.some((f) => PART_FIELDS.includes(f))) return;
    const parts = this.deps.lights.parts(this.serial);
    for (const { part, mapping, characteristic } of this.bound) {
      if (!view.online) {
        if (this.deps.unreachableAsOff && mapping.characteristic === 'On') characteristic.updateValue(false);
        continue;
      }
      characteristic.updateValue(mapping.read(asPart(view, parts.find((p) => p.name === part))));
    }
  }

  /** A part's service name after the light's. */
  static serviceName(service: Service, lightName: string): string | undefined {
    const prefix = SUBTYPE.part('');
    return service.subtype?.startsWith(prefix) ? `${lightName} ${partTitle(service.subtype.slice(prefix.length))}` : undefined;
  }

  private service(part: string, lightName: string): Service {
    const { Service, Characteristic } = this.deps.hap;
    const subtype = SUBTYPE.part(part);
    const existing = this.accessory.services.find((s) => s.UUID === Service.Lightbulb.UUID && s.subtype === subtype);
    if (existing) return existing;
    const name = `${lightName} ${partTitle(part)}`;
    const added = this.accessory.addService(Service.Lightbulb, name, subtype);
    added.setCharacteristic(Characteristic.Name, name);
    return added;
  }

  private bind(service: Service, part: string, caps: Capabilities): { part: string; mapping: Mapping; characteristic: Characteristic }[] {
    return LIGHTBULB.flatMap((mapping) => {
      const type = this.deps.hap.Characteristic[mapping.characteristic];
      if (!mapping.applies(caps)) {
        if (service.testCharacteristic(type)) service.removeCharacteristic(service.getCharacteristic(type));
        return [];
      }
      const characteristic = service.getCharacteristic(type);
      const props = mapping.props?.(caps);
      if (props) characteristic.setProps(props);
      characteristic.onGet(() => {
        const view = this.deps.lights.light(this.serial);
        if (view !== undefined && view.online) return mapping.read(asPart(view, this.deps.lights.parts(this.serial).find((p) => p.name === part)));
        if (this.deps.unreachableAsOff && mapping.characteristic === 'On') return false;
        throw this.deps.failure();
      });
      characteristic.onSet((value) => this.deps.writer.write(`${this.serial}|${part}`, mapping.write(value, caps)));
      return [{ part, mapping, characteristic }];
    });
  }
}
