// One light (or one relay of a LIFX Switch) as a Matter accessory of Homebridge 2: its device type, its clusters'
// state from the service's cached LightView, and the handlers Homebridge routes Matter commands to. Units change in
// matter-mapping.ts; the handlers only say what each command asks of the light.
//
// Homebridge 2.4 routes a command to a plugin handler by name and answers FAILURE for a command whose handler is
// missing, so every command its behaviours route for these clusters has one: moveToLevel beside
// moveToLevelWithOnOff; moveToHueLogic and moveToSaturationLogic (matter.js calls both after
// moveToHueAndSaturationLogic); stopAllColorMovement, which matter.js calls on every switch between colour and
// colour temperature, and without which Homebridge stops itself on an unhandled rejection. ColorControl's features
// follow the handlers given (HueSaturation, Xy, ColorTemperature), not the device type.

import type { MatterAccessory, MatterAPI } from 'homebridge';
import { PART_NAME_PATTERN, type KelvinRange, type LightView } from '../core/index.js';
import type { Patch } from './characteristics.js';
import {
  HUE_SAT_MAX,
  ILLUMINANCE_MAX,
  ILLUMINANCE_MIN,
  LEVEL_MAX,
  LEVEL_MIN,
  brightnessToLevel,
  degreesToHue,
  fractionToSaturation,
  hueSaturationToXy,
  hueToDegrees,
  kelvinToMireds,
  levelToBrightness,
  luxToIlluminance,
  miredsLimits,
  miredsToKelvin,
  saturationToFraction,
  transitionToSeconds,
  xyToHueSaturation,
  type MatterKind,
} from './matter-mapping.js';

/** What a Matter accessory keeps in Homebridge's Matter cache. */
export interface MatterLightContext {
  readonly kind: 'matter-light';
  readonly serial: string;
  /** The relay of a LIFX Switch this accessory is (absent for lights). */
  readonly relay?: number;
  /** Set on the Light Sensor of a light's ambient light sensor (its own accessory beside the light's). */
  readonly sensor?: 'ambientLight';
  /** The part of the light this accessory is (a Ceiling's uplight, a strip's segment: core/control/parts.ts). */
  readonly part?: string;
  /** Epoch ms the light was last heard from, as last saved. */
  readonly lastSeenAt: number | null;
}

const PART_NAME = new RegExp(PART_NAME_PATTERN);

export function isMatterLightContext(context: unknown): context is MatterLightContext {
  if (typeof context !== 'object' || context === null) return false;
  const c = context as Record<string, unknown>;
  return (
    c.kind === 'matter-light' &&
    typeof c.serial === 'string' &&
    /^[0-9a-f]{12}$/.test(c.serial) &&
    (c.relay === undefined || (Number.isInteger(c.relay) && (c.relay as number) >= 0)) &&
    (c.sensor === undefined || c.sensor === 'ambientLight') &&
    (c.part === undefined || (typeof c.part === 'string' && PART_NAME.test(c.part))) &&
    (c.lastSeenAt === null || typeof c.lastSeenAt === 'number')
  );
}

/** What the handlers of one accessory act on (the Matter face gives one per accessory). */
export interface MatterTarget {
  /** The light as the service last saw it. */
  readonly view: () => LightView | undefined;
  /** Sends a change through the Writer (merged with HomeKit's, colour before power); rejects when not confirmed. */
  readonly send: (patch: Patch, durationS: number | undefined) => Promise<void>;
  /** Switches a relay of a LIFX Switch; rejects when not confirmed. */
  readonly relay: (index: number, on: boolean) => Promise<void>;
  readonly now: () => number;
}

/** Cluster attributes by cluster name, as registration and updateAccessoryState take them. */
export type ClusterState = Record<string, Record<string, unknown>>;

/** Matter's string attributes (NodeLabel, ProductName, …) hold at most 32 characters. */
export const MATTER_LABEL_MAX = 32;

export function matterLabel(name: string): string {
  return [...name].slice(0, MATTER_LABEL_MAX).join('').trim();
}

/** "<name><suffix>" within 32 characters: the name is shortened, the suffix (what the device is of the light) kept. */
export function suffixedLabel(name: string, suffix: string): string {
  // A suffix of 32 characters or more (a long segment name) is itself cut to fit.
  return matterLabel(`${matterLabel([...name].slice(0, Math.max(0, MATTER_LABEL_MAX - [...suffix].length)).join(''))}${suffix}`);
}

/** A light's Light Sensor is named as in HomeKit, "<name> Light Level". */
export function lightSensorLabel(name: string): string {
  return suffixedLabel(name, ' Light Level');
}

const FALLBACK_RANGE: KelvinRange = { minK: 2500, maxK: 9000 };
/** A repeat of the hue or saturation just asked for (matter.js's follow-up calls) sends nothing within this time. */
const REPEAT_MS = 2_000;

/** The clusters' attributes for a light's cached state (power, level, colour; a relay's on/off). */
export function stateOf(view: LightView, kind: MatterKind, matter: Pick<MatterAPI, 'types'>, relay?: number): ClusterState {
  if (kind === 'plug') return { onOff: { onOff: view.relays?.find((r) => r.index === (relay ?? 0))?.on ?? false } };
  const state: ClusterState = { onOff: { onOff: view.power === 'on' } };
  if (view.color === null) return state;
  state.levelControl = { currentLevel: brightnessToLevel(view.color.brightness) };
  const range = view.capabilities.kelvinRange ?? FALLBACK_RANGE;
  const ColorMode = matter.types.ColorControl.ColorMode;
  if (kind === 'colorTemperature') {
    state.colorControl = { colorMode: ColorMode.ColorTemperatureMireds, colorTemperatureMireds: kelvinToMireds(view.color.kelvin, range) };
  } else if (kind === 'extendedColor') {
    const { hue, saturation, kelvin } = view.color;
    const xy = hueSaturationToXy(hue, saturation);
    // A LIFX light at saturation 0 shows its kelvin: that is Matter's colour-temperature mode.
    state.colorControl =
      saturation === 0 && view.capabilities.kelvinRange !== null
        ? { colorMode: ColorMode.ColorTemperatureMireds, colorTemperatureMireds: kelvinToMireds(kelvin, range), currentX: xy.x, currentY: xy.y }
        : { colorMode: ColorMode.CurrentHueAndCurrentSaturation, currentHue: degreesToHue(hue), currentSaturation: fractionToSaturation(saturation), currentX: xy.x, currentY: xy.y };
  }
  return state;
}

/** The initial clusters of a registration: the state plus the light's fixed ranges. */
function clustersOf(view: LightView, kind: MatterKind, matter: Pick<MatterAPI, 'types'>, relay?: number): ClusterState {
  const state = stateOf(view, kind, matter, relay);
  if (kind === 'plug') return state;
  const clusters: ClusterState = {
    onOff: state.onOff!,
    levelControl: { currentLevel: LEVEL_MAX, ...state.levelControl, minLevel: LEVEL_MIN, maxLevel: LEVEL_MAX },
  };
  if (kind === 'dimmable') return clusters;
  const range = view.capabilities.kelvinRange;
  const ColorMode = matter.types.ColorControl.ColorMode;
  const limits = range === null ? undefined : miredsLimits(range);
  const temperature =
    limits === undefined
      ? {}
      : {
          colorTemperatureMireds: Math.round((limits.minMireds + limits.maxMireds) / 2),
          colorTempPhysicalMinMireds: limits.minMireds,
          colorTempPhysicalMaxMireds: limits.maxMireds,
          coupleColorTempToLevelMinMireds: limits.minMireds,
        };
  const colour = kind === 'extendedColor' ? { colorMode: ColorMode.CurrentHueAndCurrentSaturation, currentHue: 0, currentSaturation: 0, currentX: 20525, currentY: 21561 } : { colorMode: ColorMode.ColorTemperatureMireds };
  clusters.colorControl = { ...colour, ...temperature, ...state.colorControl };
  return clusters;
}

/** The handlers of a light of this kind (see the header for why each is there). */
function handlersOf(kind: MatterKind, target: MatterTarget, relay: number | undefined, hasTemperature: boolean): MatterAccessory['handlers'] {
  const isOn = (): boolean => {
    const view = target.view();
    return kind === 'plug' ? (view?.relays?.find((r) => r.index === (relay ?? 0))?.on ?? false) : view?.power === 'on';
  };
  const power = (on: boolean): Promise<void> => (kind === 'plug' ? target.relay(relay ?? 0, on) : target.send({ power: on ? 'on' : 'off' }, undefined));
  const onOff = {
    on: () => power(true),
    off: () => power(false),
    toggle: () => power(!isOn()),
  };
  if (kind === 'plug') return { onOff };
  const level = (): number => {
    const color = target.view()?.color;
    return color === null || color === undefined ? LEVEL_MAX : brightnessToLevel(color.brightness);
  };
  const levelControl = {
    moveToLevel: (r: { level: number; transitionTime: number | null }) => target.send({ brightness: levelToBrightness(r.level) }, transitionToSeconds(r.transitionTime)),
    // With On/Off, the lowest level is Off (Level Control §1.6.7.2); anything above it turns the light on.
    moveToLevelWithOnOff: (r: { level: number; transitionTime: number | null }) =>
      target.send(r.level <= LEVEL_MIN ? { power: 'off' } : { brightness: levelToBrightness(r.level), power: 'on' }, transitionToSeconds(r.transitionTime)),
    // Move runs to the end of the range at `rate` levels a second; a LIFX light fades there on its own.
    move: (r: { moveMode: number; rate: number | null }) => {
      const to = r.moveMode === 0 ? LEVEL_MAX : LEVEL_MIN;
      const durationS = r.rate === null || r.rate <= 0 ? undefined : Math.abs(to - level()) / r.rate;
      return target.send({ brightness: levelToBrightness(to) }, durationS);
    },
    step: (r: { stepMode: number; stepSize: number; transitionTime: number | null }) => {
      const to = Math.min(LEVEL_MAX, Math.max(LEVEL_MIN, level() + (r.stepMode === 0 ? r.stepSize : -r.stepSize)));
      return target.send({ brightness: levelToBrightness(to) }, transitionToSeconds(r.transitionTime));
    },
    // A fade the light runs itself cannot be stopped halfway over the LAN protocol; the level reported follows the light.
    stop: () => undefined,
  };
  if (kind === 'dimmable') return { onOff, levelControl };

  let recent: { hue?: number; saturation?: number; at: number } = { at: -Infinity };
  const repeat = (field: 'hue' | 'saturation', value: number): boolean => recent[field] === value && target.now() - recent.at < REPEAT_MS;
  const temperature = {
    moveToColorTemperatureLogic: (r: { colorTemperatureMireds: number; transitionTime: number }) => {
      const range = target.view()?.capabilities.kelvinRange ?? FALLBACK_RANGE;
      // A colour temperature is white light: the saturation goes to 0 with it (as HomeKit's ColorTemperature does).
      return target.send({ kelvin: miredsToKelvin(r.colorTemperatureMireds, range), saturation: 0 }, transitionToSeconds(r.transitionTime));
    },
    stopAllColorMovement: () => undefined,
  };
  if (kind === 'colorTemperature') return { onOff, levelControl, colorControl: temperature };
  const colorControl = {
    ...(hasTemperature ? temperature : { stopAllColorMovement: temperature.stopAllColorMovement }),
    moveToHueAndSaturationLogic: (r: { hue: number; saturation: number; transitionTime: number }) => {
      recent = { hue: r.hue, saturation: r.saturation, at: target.now() };
      return target.send({ hue: hueToDegrees(r.hue), saturation: saturationToFraction(r.saturation) }, transitionToSeconds(r.transitionTime));
    },
    moveToHueLogic: (r: { targetHue: number; transitionTime: number; isEnhancedHue: boolean }) => {
      const hue = r.isEnhancedHue ? Math.round((r.targetHue / 65536) * HUE_SAT_MAX) : r.targetHue;
      if (repeat('hue', hue)) return undefined;
      recent = { hue, at: target.now() };
      return target.send({ hue: r.isEnhancedHue ? (r.targetHue / 65536) * 360 : hueToDegrees(r.targetHue) }, transitionToSeconds(r.transitionTime));
    },
    moveToSaturationLogic: (r: { targetSaturation: number; transitionTime: number }) => {
      if (repeat('saturation', r.targetSaturation)) return undefined;
      recent = { saturation: r.targetSaturation, at: target.now() };
      return target.send({ saturation: saturationToFraction(r.targetSaturation) }, transitionToSeconds(r.transitionTime));
    },
    moveToColorLogic: (r: { targetX: number; targetY: number; transitionTime: number }) => {
      const { hue, saturation } = xyToHueSaturation(r.targetX, r.targetY);
      return target.send({ hue, saturation }, transitionToSeconds(r.transitionTime));
    },
  };
  return { onOff, levelControl, colorControl };
}

export interface MatterDeviceInput {
  readonly uuid: string;
  readonly name: string;
  readonly view: LightView;
  readonly kind: MatterKind;
  readonly relay?: number;
  /** A part of the light (its view is the part's: asPart in parts.ts). */
  readonly part?: string;
  readonly target: MatterTarget;
}

/** The Matter accessory Homebridge registers for a light, a relay or a part of a light. */
export function matterAccessory(matter: Pick<MatterAPI, 'types' | 'deviceTypes'>, input: MatterDeviceInput): MatterAccessory<MatterLightContext> {
  const { view, kind, relay, part } = input;
  const deviceType = {
    extendedColor: matter.deviceTypes.ExtendedColorLight,
    colorTemperature: matter.deviceTypes.ColorTemperatureLight,
    dimmable: matter.deviceTypes.DimmableLight,
    plug: matter.deviceTypes.OnOffOutlet,
  }[kind];
  const context: MatterLightContext = { kind: 'matter-light', serial: view.serial, ...(relay === undefined ? {} : { relay }), ...(part === undefined ? {} : { part }), lastSeenAt: view.lastSeenAt };
  return {
    UUID: input.uuid,
    displayName: matterLabel(input.name),
    deviceType,
    // SerialNumber holds 32 characters: a long segment name is cut (the UUID, from the whole name, stays the id).
    serialNumber: relay !== undefined ? `${view.serial}-${relay + 1}` : part !== undefined ? matterLabel(`${view.serial}-${part}`) : view.serial,
    manufacturer: 'LIFX',
    model: matterLabel(view.product?.name ?? 'LIFX light'),
    context,
    clusters: clustersOf(view, kind, matter, relay) as MatterAccessory['clusters'],
    handlers: handlersOf(kind, input.target, relay, view.capabilities.kelvinRange !== null),
  };
}

/** The Light Sensor's cluster state for a light's reading (0, too low to be measured, while there is none). */
export function lightSensorStateOf(view: LightView): ClusterState {
  return { illuminanceMeasurement: { measuredValue: luxToIlluminance(view.ambientLux) } };
}

/**
 * The Light Sensor of a light's ambient light sensor, an accessory of its own (see matter.ts for why not a part of
 * the light's). The LIFX sensor's range is not published: the cluster's whole range is declared.
 */
export function matterLightSensor(matter: Pick<MatterAPI, 'deviceTypes'>, input: Omit<MatterDeviceInput, 'kind' | 'relay' | 'part' | 'target'>): MatterAccessory<MatterLightContext> {
  const { view } = input;
  const context: MatterLightContext = { kind: 'matter-light', serial: view.serial, sensor: 'ambientLight', lastSeenAt: view.lastSeenAt };
  return {
    UUID: input.uuid,
    displayName: input.name,
    deviceType: matter.deviceTypes.LightSensor,
    serialNumber: `${view.serial}-lux`,
    manufacturer: 'LIFX',
    model: matterLabel(view.product?.name ?? 'LIFX light'),
    context,
    clusters: { illuminanceMeasurement: { ...lightSensorStateOf(view).illuminanceMeasurement, minMeasuredValue: ILLUMINANCE_MIN, maxMeasuredValue: ILLUMINANCE_MAX } } as MatterAccessory['clusters'],
  };
}
