// The tiles and pixels of a matrix light (https://lan.developer.lifx.com/docs/tile-control): its chain from
// StateDeviceChain (each tile's own width and height, never a product table's), and each tile's pixels from Get64.
// A State64 carries 64 colours, rows of the rect's width from (x, y): a tile of more than 64 pixels (the 16 x 8 LIFX
// Ceiling 13x26", 128) is read in bands of whole rows, each one Get64 for every tile of the chain at once.

import { hsbkFromWire, type Hsbk, type WireHsbk } from '../protocol/index.js';
import type { ReplyOf } from '../transport/requester.js';
import type { TileFact } from './registry.js';

/** Colours in one Set64 or State64. */
export const COLORS_PER_MESSAGE = 64;

/** The tiles a StateDeviceChain reports (the first tileDevicesCount of its 16 slots). */
export function chainFromReply(reply: ReplyOf<'GetDeviceChain'>): TileFact[] {
  const p = reply.payload;
  const count = Math.min(p.tileDevicesCount, p.tileDevices.length);
  return p.tileDevices.slice(0, count).map((t) => Object.freeze({ width: t.width, height: t.height }));
}

/** Whole rows of a tile that fit one message: the band height of a read or write. */
export function rowsPerMessage(width: number): number {
  return Math.max(1, Math.floor(COLORS_PER_MESSAGE / Math.max(1, width)));
}

/** The Get64 requests that read every pixel of a chain: one per band of rows, `length` the chain's tile count. */
export function pixelReads(chain: readonly TileFact[]): { tileIndex: number; length: number; rect: { fbIndex: number; x: number; y: number; width: number } }[] {
  // Every tile of a chain is read by the same requests when they share a width (always so far): otherwise one tile at a time.
  const width = chain[0]?.width ?? 0;
  if (chain.every((t) => t.width === width)) {
    const height = Math.max(0, ...chain.map((t) => t.height));
    return bands(0, chain.length, width, height);
  }
  return chain.flatMap((t, i) => bands(i, 1, t.width, t.height));
}

function bands(tileIndex: number, length: number, width: number, height: number): ReturnType<typeof pixelReads> {
  const out: ReturnType<typeof pixelReads> = [];
  const rows = rowsPerMessage(width);
  for (let y = 0; y < height; y += rows) out.push({ tileIndex, length, rect: { fbIndex: 0, x: 0, y, width } });
  return out;
}

/**
 * Every tile's pixels from the State64 replies, row by row; undefined when any pixel is missing. A pixel showing the
 * colour of the pixel converted just before it shares its (read-only) object, as zones do: a matrix in one colour
 * holds one colour object, not 64 (or 128) per tile.
 */
export function pixelsFromReplies(chain: readonly TileFact[], replies: readonly ReplyOf<'Get64'>[]): Hsbk[][] | undefined {
  const tiles: Hsbk[][] = chain.map((t) => new Array<Hsbk>(t.width * t.height));
  let lastWire: WireHsbk | undefined;
  let last: Hsbk | undefined;
  for (const r of replies) {
    const { tileIndex, rect, colors } = r.payload;
    const tile = chain[tileIndex];
    const out = tiles[tileIndex];
    if (tile === undefined || out === undefined || rect.width === 0) continue;
    for (let k = 0; k < colors.length; k++) {
      const col = rect.x + (k % rect.width);
      const row = rect.y + Math.floor(k / rect.width);
      if (col >= tile.width || row >= tile.height) continue;
      const wire = colors[k]!;
      if (last === undefined || wire.hue !== lastWire!.hue || wire.saturation !== lastWire!.saturation || wire.brightness !== lastWire!.brightness || wire.kelvin !== lastWire!.kelvin) {
        last = hsbkFromWire(wire);
        lastWire = wire;
      }
      out[row * tile.width + col] = last;
    }
  }
  for (const t of tiles) for (let i = 0; i < t.length; i++) if (t[i] === undefined) return undefined;
  return tiles;
}

/**
 * The tiles, a tile showing what the tile before it shows (the same colour objects, pixel by pixel) given that tile's
 * array: a chain in one colour (a whole light set to a colour, the usual case) holds one array of pixels, not one per
 * tile (a 5-tile chain: 2 KiB less). A fact's pixels are never changed in place, so tiles may share.
 */
export function shareEqualTiles(tiles: Hsbk[][]): Hsbk[][] {
  for (let t = 1; t < tiles.length; t++) {
    const before = tiles[t - 1]!;
    const tile = tiles[t]!;
    if (before.length !== tile.length) continue;
    let same = true;
    for (let i = 0; same && i < tile.length; i++) same = tile[i] === before[i];
    if (same) tiles[t] = before;
  }
  return tiles;
}
