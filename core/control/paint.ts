// Paint Pixels: a matrix light (or a chain of tiles) painted from a grid of colours or a rectangle of one colour
// (https://lan.developer.lifx.com/docs/tile-control). The canvas is the device's own geometry (StateDeviceChain: each
// tile's width and height), its tiles side by side in chain order. Every tile the paint touches is written whole, so
// what the paint leaves out keeps the colour the light showed (its pixels are read first, Get64, unless the paint
// covers the whole canvas in whole colours):
// - a tile of at most 64 pixels: one Set64 into the visible frame buffer (0), over the duration;
// - a larger tile (the 16 x 8 LIFX Ceiling 13x26", 128 pixels): one Set64 per band of whole rows into frame buffer 1
//   (not shown), then one CopyFrameBuffer 1 -> 0 over the duration, so the frame appears at once rather than band by
//   band. This is lifx-async's frame buffer strategy (src/lifx/devices/matrix.py `set_matrix_colors`, commit 42c9ad2),
//   with the transition carried by CopyFrameBuffer's own duration field.
// Pure: no I/O, no clock, no randomness.

import { LightwireError } from '../errors.js';
import type { TileFact } from '../discovery/registry.js';
import { rowsPerMessage, COLORS_PER_MESSAGE } from '../discovery/pixels.js';
import { hsbkFromWire, hsbkToWire, type Capabilities, type Hsbk, type WireHsbk } from '../protocol/index.js';
import { durationToWire, message, plan, requestedColor, resolveColor, setLightPower } from './planner.js';
import type { CheckedValues } from './requests.js';
import type { LightView, PartialHsbk, Plan, PlannedMessage } from './types.js';

/** Frame buffer 0 is what a tile shows; 1 is where a frame of more than 64 pixels is drawn first. */
const VISIBLE_FB = 0;
const BACK_FB = 1;
/** What a pixel outside the area shows when its colour is unknown (fast mode, a failed read): off. */
const UNKNOWN_PIXEL: Hsbk = Object.freeze({ hue: 0, saturation: 0, brightness: 0, kelvin: 3500 });
const BLACK_WIRE: WireHsbk = Object.freeze({ hue: 0, saturation: 0, brightness: 0, kelvin: 3500 });

/** A light's canvas: its tiles side by side, left to right in chain order. */
export interface Canvas {
  readonly width: number;
  readonly height: number;
  /** Each tile's left column on the canvas, and its size. */
  readonly tiles: readonly { readonly left: number; readonly width: number; readonly height: number }[];
}

export function canvasOf(chain: readonly TileFact[]): Canvas {
  let left = 0;
  const tiles = chain.map((t) => {
    const tile = { left, width: t.width, height: t.height };
    left += t.width;
    return tile;
  });
  return { width: left, height: Math.max(0, ...chain.map((t) => t.height)), tiles };
}

/** What a paint asks for: the colour (partial) of each pixel of a rectangle of the canvas. */
export interface PaintArea {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  /** The colour wanted at (column, row) of the area. */
  colorAt(column: number, row: number): PartialHsbk;
  /** Every colour of the area names all four components (the pixels it covers need no read). */
  readonly whole: boolean;
}

/** The area of a checked Paint Pixels request on a canvas (PIXELS_OUT_OF_CANVAS when it does not fit). */
export function paintArea(request: CheckedValues<'paint'>, canvas: Canvas, label: string): PaintArea {
  const { x, y } = request;
  const grid = request.pixels;
  const width = grid !== undefined ? grid[0]!.length : (request.width ?? canvas.width - x);
  const height = grid !== undefined ? grid.length : (request.height ?? canvas.height - y);
  if (width < 1 || height < 1 || x + width > canvas.width || y + height > canvas.height) {
    throw new LightwireError('PIXELS_OUT_OF_CANVAS', { label, area: `${width} x ${height} from column ${x}, row ${y}`, canvas: `${canvas.width} x ${canvas.height}` });
  }
  const color = request.color ?? {};
  const isWhole = (c: PartialHsbk): boolean => c.hue !== undefined && c.saturation !== undefined && c.brightness !== undefined && c.kelvin !== undefined;
  return {
    x,
    y,
    width,
    height,
    colorAt: grid !== undefined ? (column, row) => grid[row]![column]! : () => color,
    whole: grid !== undefined ? grid.every((r) => r.every(isWhole)) : isWhole(color),
  };
}

/**
 * Whether Paint Pixels must read a light before planning: its chain is unknown, or the paint leaves part of the canvas
 * as it is, or gives part of a colour (each pixel keeps what the paint leaves out).
 */
export function paintNeedsPixels(request: CheckedValues<'paint'>, light: LightView): boolean {
  if (!light.capabilities.matrix) return false;
  const tiles = light.matrix?.tiles ?? [];
  if (tiles.length === 0) return true;
  const canvas = canvasOf(tiles);
  let area: PaintArea;
  try {
    area = paintArea(request, canvas, light.label);
  } catch {
    // It is refused when planned; nothing to read for it.
    return false;
  }
  return !area.whole || area.x !== 0 || area.y !== 0 || area.width !== canvas.width || area.height !== canvas.height;
}

/**
 * The frame of each tile after the paint (null for a tile the paint does not touch): a pixel in the area is the
 * wanted colour over what it showed, one outside keeps what it showed.
 */
export function paintedTiles(area: PaintArea, light: LightView, canvas: Canvas): (Hsbk[] | null)[] {
  const caps = light.capabilities;
  const resolved = new Map<PartialHsbk, Hsbk>();
  return canvas.tiles.map((tile, t) => {
    if (area.x >= tile.left + tile.width || area.x + area.width <= tile.left || area.y >= tile.height) return null;
    const shown = light.pixels?.[t];
    const out = new Array<Hsbk>(tile.width * tile.height);
    for (let row = 0; row < tile.height; row++) {
      for (let col = 0; col < tile.width; col++) {
        const i = row * tile.width + col;
        const before = shown?.[i] ?? light.color ?? UNKNOWN_PIXEL;
        const cx = tile.left + col;
        const inside = cx >= area.x && cx < area.x + area.width && row >= area.y && row < area.y + area.height;
        if (!inside) {
          out[i] = before;
          continue;
        }
        const wanted = area.colorAt(cx - area.x, row - area.y);
        // A whole colour resolves the same for every pixel: once per colour object of the request.
        let color = area.whole ? resolved.get(wanted) : undefined;
        if (color === undefined) {
          color = resolveColor(requestedColor(wanted, undefined, caps), before, caps) ?? before;
          if (area.whole) resolved.set(wanted, color);
        }
        out[i] = color;
      }
    }
    return out;
  });
}

/** The messages that show `frames` on the tiles of `canvas` over `durationMs` (Set64, and CopyFrameBuffer past 64 pixels). */
export function frameMessages(frames: readonly (readonly Hsbk[] | null)[], canvas: Canvas, durationMs: number): { draw: PlannedMessage[]; show: PlannedMessage[] } {
  const draw: PlannedMessage[] = [];
  const show: PlannedMessage[] = [];
  frames.forEach((frame, tileIndex) => {
    if (frame === null) return;
    const { width, height } = canvas.tiles[tileIndex]!;
    const wire = frame.map(hsbkToWire);
    if (width * height <= COLORS_PER_MESSAGE) {
      draw.push(set64(tileIndex, VISIBLE_FB, 0, width, wire, durationMs));
      return;
    }
    const rows = rowsPerMessage(width);
    for (let y = 0; y < height; y += rows) draw.push(set64(tileIndex, BACK_FB, y, width, wire.slice(y * width, (y + rows) * width), 0));
    show.push(
      message('CopyFrameBuffer', { tileIndex, length: 1, srcFbIndex: BACK_FB, dstFbIndex: VISIBLE_FB, srcX: 0, srcY: 0, dstX: 0, dstY: 0, width, height, durationMs }),
    );
  });
  return { draw, show };
}

function set64(tileIndex: number, fbIndex: number, y: number, width: number, colors: WireHsbk[], durationMs: number): PlannedMessage {
  const padded = colors.length >= COLORS_PER_MESSAGE ? colors.slice(0, COLORS_PER_MESSAGE) : [...colors, ...new Array<WireHsbk>(COLORS_PER_MESSAGE - colors.length).fill(BLACK_WIRE)];
  return message('Set64', { tileIndex, length: 1, rect: { fbIndex, x: 0, y, width }, durationMs, colors: padded });
}

/**
 * The steps that show `frames` with the power the request asks: the frame drawn (and, past 64 pixels, copied into
 * view once every band is acknowledged); a light known to be off is painted at once while dark and then powered on
 * over the duration (the old picture never shows), as Set State does.
 */
export function framePlan(frames: readonly (readonly Hsbk[] | null)[], canvas: Canvas, light: LightView, durationS: number, powerOn: boolean): Plan {
  const durationMs = durationToWire(durationS);
  const wake = powerOn && light.power !== 'on';
  const dark = wake && light.power === 'off';
  const { draw, show } = frameMessages(frames, canvas, dark ? 0 : durationMs);
  return plan([draw, show, wake ? [setLightPower('on', dark ? durationMs : 0)] : []]);
}

/** Paint Pixels for one light: empty for a light that is no matrix or whose chain is not known. */
export function planPaint(request: CheckedValues<'paint'>, light: LightView, defaultDurationS: number): Plan {
  const tiles = light.matrix?.tiles ?? [];
  if (!light.capabilities.matrix || light.capabilities.kelvinRange === null || tiles.length === 0) return plan([]);
  const canvas = canvasOf(tiles);
  const area = paintArea(request, canvas, light.label);
  return framePlan(paintedTiles(area, light, canvas), canvas, light, request.durationS ?? defaultDurationS, request.powerOn);
}

// ---- what a plan makes a matrix light show (the executor's prediction) ----

/**
 * The pixels after Set64 and CopyFrameBuffer messages: Set64 into buffer 0 paints the visible pixels, into another
 * buffer a back frame that a CopyFrameBuffer into buffer 0 then shows; a SetColor paints every pixel. Null when the
 * chain or the pixels before are not known.
 */
export class PixelPrediction {
  private readonly back = new Map<string, WireHsbk[]>();
  private pixels: Hsbk[][] | null;
  touched = false;
  // Neighbouring pixels of one colour share one (read-only) colour object, as a read's do (pixels.ts): heap per light.
  private lastWire: WireHsbk | undefined;
  private lastColor: Hsbk | undefined;

  constructor(
    private readonly chain: readonly TileFact[] | null,
    before: readonly (readonly Hsbk[])[] | null,
  ) {
    this.pixels = chain !== null && before !== null && before.length === chain.length ? before.map((t) => [...t]) : null;
  }

  get result(): readonly (readonly Hsbk[])[] | null {
    return this.touched ? this.pixels : null;
  }

  /** A colour for the whole light. */
  all(color: Hsbk): void {
    if (this.pixels === null) return;
    this.pixels = this.pixels.map((t) => t.map(() => color));
    this.touched = true;
  }

  set64(p: { tileIndex: number; length: number; rect: { fbIndex: number; x: number; y: number; width: number }; colors: readonly WireHsbk[] }): void {
    if (this.chain === null || p.rect.width === 0) return;
    for (let t = p.tileIndex; t < p.tileIndex + p.length && t < this.chain.length; t++) {
      const tile: TileFact = this.chain[t]!;
      const visible = p.rect.fbIndex === VISIBLE_FB;
      if (visible && this.pixels === null) continue;
      const target = visible ? undefined : this.backOf(t, p.rect.fbIndex, tile);
      for (let k = 0; k < p.colors.length; k++) {
        const col = p.rect.x + (k % p.rect.width);
        const row = p.rect.y + Math.floor(k / p.rect.width);
        if (col >= tile.width || row >= tile.height) continue;
        const i = row * tile.width + col;
        if (target !== undefined) target[i] = p.colors[k]!;
        else this.pixels![t]![i] = this.color(p.colors[k]!);
      }
      if (visible) this.touched = true;
    }
  }

  copy(p: { tileIndex: number; length: number; srcFbIndex: number; dstFbIndex: number; srcX: number; srcY: number; dstX: number; dstY: number; width: number; height: number }): void {
    if (this.chain === null || this.pixels === null || p.dstFbIndex !== VISIBLE_FB) return;
    for (let t = p.tileIndex; t < p.tileIndex + p.length && t < this.chain.length; t++) {
      const tile: TileFact = this.chain[t]!;
      const src = this.back.get(`${t}:${p.srcFbIndex}`);
      if (src === undefined) continue;
      const width = Math.min(p.width, tile.width - p.srcX, tile.width - p.dstX);
      const height = Math.min(p.height, tile.height - p.srcY, tile.height - p.dstY);
      for (let dy = 0; dy < height; dy++) {
        for (let dx = 0; dx < width; dx++) {
          const wire = src[(p.srcY + dy) * tile.width + p.srcX + dx];
          if (wire !== undefined) this.pixels[t]![(p.dstY + dy) * tile.width + p.dstX + dx] = this.color(wire);
        }
      }
      this.touched = true;
    }
  }

  private color(wire: WireHsbk): Hsbk {
    const last = this.lastWire;
    if (last === undefined || last.hue !== wire.hue || last.saturation !== wire.saturation || last.brightness !== wire.brightness || last.kelvin !== wire.kelvin) {
      this.lastWire = wire;
      this.lastColor = hsbkFromWire(wire);
    }
    return this.lastColor!;
  }

  private backOf(t: number, fb: number, tile: TileFact): WireHsbk[] {
    const key = `${t}:${fb}`;
    let buf = this.back.get(key);
    if (buf === undefined) this.back.set(key, (buf = new Array<WireHsbk>(tile.width * tile.height)));
    return buf;
  }
}

/** Whether a light can be painted at all: a matrix light with colour. */
export function paintable(caps: Capabilities): boolean {
  return caps.matrix && caps.kelvinRange !== null;
}
