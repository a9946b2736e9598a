// What the dashboard page gets for one light: the service's LightView (with the facts the page shows besides
// state: signal, firmware, effect, ambient light) as a small JSON record. Colours stay in user units (degrees, 0-1, kelvin).

import type { Hsbk, LightView, Scene } from '../../index.js';

/** A colour as the page takes it: [hue deg, saturation 0-1, brightness 0-1, kelvin]. */
export type PageColor = readonly [number, number, number, number];

export interface PageLight {
  readonly serial: string;
  readonly label: string;
  readonly online: boolean;
  readonly power: 'on' | 'off' | null;
  /** [hue deg, saturation 0-1, brightness 0-1, kelvin], or null before the first read. */
  readonly color: PageColor | null;
  /** What a strip shows, zone by zone (0 nearest the controller), when read: the page draws it as a band. */
  readonly zones: readonly PageColor[] | null;
  /** What a matrix light shows, tile by tile, each row by row from the top left, when read: drawn as a grid. */
  readonly tiles: readonly { readonly width: number; readonly height: number; readonly colors: readonly PageColor[] }[] | null;
  readonly group: { readonly id: string; readonly name: string } | null;
  readonly location: { readonly id: string; readonly name: string } | null;
  readonly product: string | null;
  readonly caps: {
    readonly color: boolean;
    readonly light: boolean;
    readonly kelvinMin: number | null;
    readonly kelvinMax: number | null;
    readonly infrared: boolean;
    readonly multizone: boolean;
    readonly matrix: boolean;
    readonly hev: boolean;
  };
  /** Signal quality by the protocol's rule ('good', 'alright', ...), and the RSSI it came from. */
  readonly signal: string | null;
  readonly rssi: number | null;
  readonly firmware: string | null;
  readonly effect: string | null;
  /** The ambient light sensor's raw reading (lux, 0.1 steps), lights that have one; null otherwise. */
  readonly lux: number | null;
  /** Epoch ms of the last packet from the light. */
  readonly lastSeenAt: number;
  /** The names of its parts (core/control/parts.ts): its panel sets one of them as `id:SERIAL|PART`. */
  readonly parts: readonly string[];
}

export interface PageScene {
  readonly id: string;
  readonly name: string;
}

const round = (value: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};

/** One colour as the page takes it; a picture repeats its colours, so each colour object is converted once. */
function pageColors(colors: readonly Hsbk[]): PageColor[] {
  const seen = new Map<Hsbk, PageColor>();
  return colors.map((c) => {
    let out = seen.get(c);
    if (out === undefined) seen.set(c, (out = [round(c.hue, 1), round(c.saturation, 3), round(c.brightness, 3), c.kelvin]));
    return out;
  });
}

/** A matrix light's tiles with their pixels, when both its tiles and its pixels are known and agree. */
function pageTiles(view: LightView): PageLight['tiles'] {
  const tiles = view.matrix?.tiles;
  const pixels = view.pixels;
  if (tiles === undefined || pixels === null || tiles.length !== pixels.length) return null;
  return tiles.map((t, i) => ({ width: t.width, height: t.height, colors: pageColors(pixels[i]!) }));
}

export function pageLight(view: LightView, parts: readonly string[] = []): PageLight {
  const caps = view.capabilities;
  const c = view.color;
  const wifi = view.wifi;
  const fw = view.firmware;
  return {
    serial: view.serial,
    label: view.label,
    online: view.online,
    power: view.power,
    color: c === null ? null : [round(c.hue, 1), round(c.saturation, 3), round(c.brightness, 3), c.kelvin],
    zones: caps.multizone && view.zones !== null ? pageColors(view.zones) : null,
    tiles: caps.matrix ? pageTiles(view) : null,
    group: view.group,
    location: view.location,
    product: view.product?.name ?? null,
    caps: {
      color: caps.color,
      light: caps.isLight,
      kelvinMin: caps.kelvinRange?.minK ?? null,
      kelvinMax: caps.kelvinRange?.maxK ?? null,
      infrared: caps.infrared,
      multizone: caps.multizone,
      matrix: caps.matrix,
      hev: caps.hev,
    },
    signal: wifi ? wifi.quality : null,
    rssi: wifi ? wifi.rssi : null,
    firmware: fw ? `${fw.major}.${fw.minor}` : null,
    effect: view.effect,
    lux: view.ambientLux === null ? null : round(view.ambientLux, 1),
    lastSeenAt: view.lastSeenAt,
    parts,
  };
}

export function pageScenes(scenes: readonly Scene[]): PageScene[] {
  return scenes.map((s) => ({ id: s.uuid, name: s.name }));
}
