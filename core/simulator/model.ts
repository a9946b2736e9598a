// The state of one virtual device in wire units, with transitions evaluated from timestamps (fade.ts).
// Handlers (handlers/*.ts) read and change it; VirtualLight owns it and the network side.

import type { Payload } from '../protocol/messages/index.js';
import type { Product } from '../protocol/products.js';
import {
  POWER_OFF_LEVEL, POWER_ON_LEVEL, fractionFromWire, fractionToWire, hsbkFromWire, hsbkToWire, powerFromWire,
  type Hsbk, type PowerState, type WireHsbk,
} from '../protocol/units.js';
import { BLACK, ColorFade, LevelFade } from './fade.js';
import { idFromLabel, mergeHsbk, type GroupInput, type GroupSpec, type LightSpec, type LightStatePatch } from './fleet-file.js';

export type MultiZoneEffect = Payload<'StateMultiZoneEffect'>['settings'];
export type TileEffect = Payload<'StateTileEffect'>['settings'];
export type ButtonValue = Payload<'StateButton'>['buttons'][number];
export type ButtonConfig = Payload<'StateButtonConfig'>;

/** The build timestamp reported in StateHostFirmware (2023-11-14T22:13:20Z). */
export const HOST_FIRMWARE_BUILD_NS = 1_700_000_000_000_000_000n;
/** Default HEV cycle length (2 h), as the LIFX app configures it. */
export const DEFAULT_HEV_DURATION_S = 7200;
export const HEV_RESULT = Object.freeze({ SUCCESS: 0, INTERRUPTED_BY_LAN: 4, NONE: 255 });

export interface TileModel {
  readonly width: number;
  readonly height: number;
  userX: number;
  userY: number;
  readonly accel: { readonly x: number; readonly y: number; readonly z: number };
  /** Frame buffers by fb_index (protocol.yml 0.8+); 0 is what the tile shows. Others are made on demand. */
  readonly buffers: Map<number, ColorFade[]>;
}


function zeroMultiZoneEffect(): MultiZoneEffect {
  return { instanceid: 0, type: 0, speedMs: 0, durationNs: 0n, parameters: [0, 0, 0, 0, 0, 0, 0, 0] };
}

function zeroTileEffect(): TileEffect {
  return {
    instanceid: 0, type: 0, speedMs: 0, durationNs: 0n, parameters: [0, 0, 0, 0, 0, 0, 0, 0], paletteCount: 0, palette: [],
  };
}

export interface GroupView {
  readonly id: string;
  readonly label: string;
  /** ns since the epoch as a decimal string (JSON has no 64-bit integers). */
  readonly updatedAtNs: string;
}

/** A light's state in user units, as the test API and the control endpoint show it. */
export interface LightStateView {
  readonly power: PowerState;
  /** 0-1; between 0 and 1 only during a power transition. */
  readonly powerLevel: number;
  readonly color: Hsbk;
  readonly label: string;
  readonly group: GroupView;
  readonly location: GroupView;
  readonly wifiSignal: number;
  readonly uptimeS: number;
  /** Lights with an ambient light sensor: what it reads (lux). */
  readonly lux?: number;
  readonly infrared?: number;
  readonly zones?: Hsbk[];
  /** Visible colours of each tile, row by row. */
  readonly tiles?: Hsbk[][];
  readonly relays?: PowerState[];
  readonly hev?: { readonly running: boolean; readonly remainingS: number; readonly lastResult: number };
}

export class DeviceModel {
  readonly serial: string;
  readonly product: Product;
  readonly firmware: { readonly major: number; readonly minor: number };
  label: string;
  group: GroupSpec;
  location: GroupSpec;
  /**
   * The 32 label bytes of the last SetLabel, SetGroup and SetLocation exactly as they came, NULs and bytes after
   * them included, which StateLabel, LightState, StateGroup and StateLocation echo (a device stores what it is
   * sent). null while the label comes from the fleet file or the control API.
   */
  labelBytes: Uint8Array | null = null;
  groupLabelBytes: Uint8Array | null = null;
  locationLabelBytes: Uint8Array | null = null;
  power: LevelFade;
  color: ColorFade;
  /** u16 maximum IR level. */
  infrared: number;
  wifiSignal: number;
  /** Ambient light sensor reading (lux); null: no sensor, SensorGetAmbientLight goes unanswered. */
  lux: number | null;
  bootMs: number;
  zones: ColorFade[];
  /** Zone colours sent with apply = NO_APPLY, shown on the next APPLY / APPLY_ONLY. */
  readonly pendingZones = new Map<number, WireHsbk>();
  multiZoneEffect: MultiZoneEffect = zeroMultiZoneEffect();
  readonly tiles: TileModel[];
  tileEffect: TileEffect = zeroTileEffect();
  readonly relays: number[];
  readonly buttons: ButtonValue[];
  buttonConfig: ButtonConfig;
  hevConfig: { indication: boolean; durationS: number } = { indication: true, durationS: DEFAULT_HEV_DURATION_S };
  hevCycle: { startMs: number; durationS: number; lastPower: boolean } | null = null;
  hevLastResult: number = HEV_RESULT.NONE;

  constructor(spec: LightSpec, nowMs: number) {
    this.serial = spec.serial;
    this.product = spec.product;
    this.firmware = spec.firmware;
    this.label = spec.label;
    this.group = spec.group;
    this.location = spec.location;
    this.power = LevelFade.still(spec.power === 'on' ? POWER_ON_LEVEL : POWER_OFF_LEVEL);
    const color = hsbkToWire(spec.color);
    this.color = ColorFade.still(color);
    this.infrared = fractionToWire(spec.infrared);
    this.wifiSignal = spec.wifiSignal;
    this.lux = spec.lux;
    this.bootMs = nowMs;
    this.zones = Array.from({ length: spec.zoneCount }, () => ColorFade.still(color));
    // Each product's own tile (product-specs.ts) or the fleet file's: what StateDeviceChain reports.
    const width = spec.tileWidth;
    const height = spec.tileHeight;
    this.tiles = Array.from({ length: spec.tileCount }, (_, i) => ({
      width,
      height,
      userX: i,
      userY: 0,
      accel: { x: 0, y: 0, z: 0 },
      buffers: new Map([[0, Array.from({ length: width * height }, () => ColorFade.still(color))]]),
    }));
    this.relays = Array.from({ length: spec.relayCount }, () => POWER_OFF_LEVEL);
    this.buttons = Array.from({ length: spec.buttonCount }, () => ({ actionsCount: 0, actions: [] }));
    this.buttonConfig = {
      hapticDurationMs: 50,
      backlightOnColor: { hue: 0, saturation: 0, brightness: 0xffff, kelvin: 3500 },
      backlightOffColor: { hue: 0, saturation: 0, brightness: 0x1999, kelvin: 3500 },
    };
  }

  // ---- colour and power ----

  setColor(color: WireHsbk, nowMs: number, durationMs: number): void {
    this.color = this.color.toward(color, nowMs, durationMs);
    // SetColor on a strip or matrix paints every zone (https://lan.developer.lifx.com/docs/changing-a-device).
    for (let i = 0; i < this.zones.length; i++) this.zones[i] = this.zones[i]!.toward(color, nowMs, durationMs);
    for (const tile of this.tiles) {
      const visible = tile.buffers.get(0)!;
      for (let i = 0; i < visible.length; i++) visible[i] = visible[i]!.toward(color, nowMs, durationMs);
    }
  }

  setPower(level: number, nowMs: number, durationMs: number): void {
    // Firmware only knows 0 and 65535.
    this.power = this.power.toward(level === 0 ? POWER_OFF_LEVEL : POWER_ON_LEVEL, nowMs, durationMs);
  }

  // ---- zones ----

  /**
   * Stages colours from zone `start` and applies them per `apply`: 0 NO_APPLY buffers them, 1 APPLY
   * shows them and everything buffered, 2 APPLY_ONLY ignores them and shows what is buffered. Buffered zones
   * take the duration of the message that applies them.
   */
  stageZones(start: number, colors: readonly WireHsbk[], apply: number, nowMs: number, durationMs: number): void {
    if (apply !== 2) {
      for (let k = 0; k < colors.length && start + k < this.zones.length; k++) this.pendingZones.set(start + k, colors[k]!);
    }
    if (apply === 0) return;
    for (const [i, color] of this.pendingZones) this.zones[i] = this.zones[i]!.toward(color, nowMs, durationMs);
    this.pendingZones.clear();
  }

  // ---- tiles ----

  buffer(tile: TileModel, fbIndex: number): ColorFade[] {
    let buf = tile.buffers.get(fbIndex);
    if (buf === undefined) {
      buf = Array.from({ length: tile.width * tile.height }, () => ColorFade.still(BLACK));
      tile.buffers.set(fbIndex, buf);
    }
    return buf;
  }

  // ---- HEV (LIFX Clean) ----

  /** Ends a cycle whose time is up, recording SUCCESS. */
  settleHev(nowMs: number): void {
    const cycle = this.hevCycle;
    if (cycle !== null && nowMs >= cycle.startMs + cycle.durationS * 1000) {
      this.hevCycle = null;
      this.hevLastResult = HEV_RESULT.SUCCESS;
    }
  }

  hevRemainingS(nowMs: number): number {
    this.settleHev(nowMs);
    const cycle = this.hevCycle;
    return cycle === null ? 0 : Math.ceil((cycle.startMs + cycle.durationS * 1000 - nowMs) / 1000);
  }

  // ---- user-unit view and changes (test API, control endpoint) ----

  view(nowMs: number): LightStateView {
    const level = this.power.at(nowMs);
    const caps = this.product.capabilities;
    const groupView = (g: GroupSpec): GroupView => ({ id: g.id, label: g.label, updatedAtNs: g.updatedAtNs.toString() });
    return {
      power: powerFromWire(level),
      powerLevel: fractionFromWire(level),
      color: hsbkFromWire(this.color.at(nowMs)),
      label: this.label,
      group: groupView(this.group),
      location: groupView(this.location),
      wifiSignal: this.wifiSignal,
      uptimeS: Math.max(0, Math.round((nowMs - this.bootMs) / 1000)),
      ...(this.lux !== null ? { lux: this.lux } : {}),
      ...(caps.infrared ? { infrared: fractionFromWire(this.infrared) } : {}),
      ...(caps.multizone ? { zones: this.zones.map((z) => hsbkFromWire(z.at(nowMs))) } : {}),
      ...(caps.matrix ? { tiles: this.tiles.map((t) => t.buffers.get(0)!.map((c) => hsbkFromWire(c.at(nowMs)))) } : {}),
      ...(caps.relays ? { relays: this.relays.map(powerFromWire) } : {}),
      ...(caps.hev
        ? { hev: { running: this.hevRemainingS(nowMs) > 0, remainingS: this.hevRemainingS(nowMs), lastResult: this.hevLastResult } }
        : {}),
    };
  }

  /** The keys of a patch this product cannot take (colour on a Switch, zones on a bulb, …). */
  unsupportedKeys(patch: LightStatePatch): string[] {
    const caps = this.product.capabilities;
    const refused: string[] = [];
    if (patch.color !== undefined && !caps.isLight) refused.push('color');
    if (patch.infrared !== undefined && !caps.infrared) refused.push('infrared');
    if (patch.zones !== undefined && !caps.multizone) refused.push('zones');
    if (patch.relays !== undefined && !caps.relays) refused.push('relays');
    if (patch.lux !== undefined && this.lux === null) refused.push('lux');
    return refused;
  }

  /** Applies a validated, supported patch at once (no transition). */
  applyPatch(patch: LightStatePatch, nowMs: number, nowNs: bigint): void {
    if (patch.power !== undefined) this.power = LevelFade.still(patch.power === 'on' ? POWER_ON_LEVEL : POWER_OFF_LEVEL);
    if (patch.label !== undefined) {
      this.label = patch.label;
      this.labelBytes = null;
    }
    if (patch.wifiSignal !== undefined) this.wifiSignal = patch.wifiSignal;
    if (patch.lux !== undefined) this.lux = patch.lux;
    if (patch.group !== undefined) {
      this.group = groupFrom('group', patch.group, nowNs);
      this.groupLabelBytes = null;
    }
    if (patch.location !== undefined) {
      this.location = groupFrom('location', patch.location, nowNs);
      this.locationLabelBytes = null;
    }
    if (patch.color !== undefined) {
      this.setColor(hsbkToWire(mergeHsbk(hsbkFromWire(this.color.at(nowMs)), patch.color)), nowMs, 0);
    }
    if (patch.infrared !== undefined) this.infrared = fractionToWire(patch.infrared);
    patch.zones?.forEach((z, i) => {
      const zone = this.zones[i];
      if (zone !== undefined) this.zones[i] = ColorFade.still(hsbkToWire(mergeHsbk(hsbkFromWire(zone.at(nowMs)), z)));
    });
    patch.relays?.forEach((r, i) => {
      if (i < this.relays.length) this.relays[i] = r === 'on' ? POWER_ON_LEVEL : POWER_OFF_LEVEL;
    });
  }
}

function groupFrom(kind: 'group' | 'location', input: GroupInput, nowNs: bigint): GroupSpec {
  return {
    id: input.id ?? idFromLabel(kind, input.label),
    label: input.label,
    updatedAtNs: input.updatedAtNs === undefined ? nowNs : BigInt(input.updatedAtNs),
  };
}
