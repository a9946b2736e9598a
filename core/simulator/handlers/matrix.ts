// Tile / matrix namespace (701-720). Sub-units are addressed by tile_index inside the payload, never by target.

import type { WireHsbk } from '../../protocol/units.js';
import { BLACK } from '../fade.js';
import type { DeviceModel, TileModel } from '../model.js';
import { HOST_FIRMWARE_BUILD_NS } from '../model.js';
import { before, reply, type HandlerContext, type HandlerTable, type Reply } from './types.js';

const COLORS_PER_STATE64 = 64;

interface Rect {
  readonly fbIndex: number;
  readonly x: number;
  readonly y: number;
  readonly width: number;
}

/** Tiles tileIndex … tileIndex+length-1 that exist. */
function tilesIn(model: DeviceModel, tileIndex: number, length: number): [number, TileModel][] {
  const out: [number, TileModel][] = [];
  for (let i = tileIndex; i < tileIndex + length && i < model.tiles.length; i++) out.push([i, model.tiles[i]!]);
  return out;
}

/** The 64 colours of a rect, row by row from (x, y) with `width` per row; slots outside the tile are zero. */
function readRect(model: DeviceModel, tile: TileModel, rect: Rect, nowMs: number): WireHsbk[] {
  // Get64 reads the visible buffer whatever fb_index says (as the third-party lifx-emulator does; LIFX is silent).
  const buf = tile.buffers.get(0)!;
  const width = rect.width === 0 ? tile.width : rect.width;
  const out: WireHsbk[] = [];
  for (let k = 0; k < COLORS_PER_STATE64; k++) {
    const col = rect.x + (k % width);
    const row = rect.y + Math.floor(k / width);
    out.push(col < tile.width && row < tile.height ? buf[row * tile.width + col]!.at(nowMs) : { ...BLACK });
  }
  return out;
}

const state64s = (ctx: HandlerContext, tileIndex: number, length: number, rect: Rect): Reply[] =>
  tilesIn(ctx.model, tileIndex, length).map(([i, tile]) =>
    reply('State64', { tileIndex: i, rect: { ...rect }, colors: readRect(ctx.model, tile, rect, ctx.nowMs) }),
  );

const deviceChain = ({ model }: HandlerContext): Reply =>
  reply('StateDeviceChain', {
    startIndex: 0,
    tileDevices: model.tiles.map((t) => ({
      accelMeas: { ...t.accel },
      userX: t.userX,
      userY: t.userY,
      width: t.width,
      height: t.height,
      deviceVersion: { vendor: model.product.vendorId, product: model.product.productId },
      firmware: { buildNs: HOST_FIRMWARE_BUILD_NS, versionMinor: model.firmware.minor, versionMajor: model.firmware.major },
    })),
    tileDevicesCount: model.tiles.length,
  });

/** StateTileEffect shows no palette while no effect runs (as photons' simulator does). */
const tileEffect = ({ model }: HandlerContext): Reply => {
  const e = model.tileEffect;
  const running = e.type !== 0;
  return reply('StateTileEffect', {
    settings: {
      ...e,
      parameters: [...e.parameters],
      paletteCount: running ? e.paletteCount : 0,
      palette: running ? e.palette.slice(0, e.paletteCount) : [],
    },
  });
};

/** Writes into buffer fb_index; only buffer 0 is visible, so only it fades over `durationMs`. */
function writeRect(model: DeviceModel, tile: TileModel, rect: Rect, colors: readonly WireHsbk[], nowMs: number, durationMs: number): void {
  if (rect.width === 0) return;
  const buf = model.buffer(tile, rect.fbIndex);
  const fade = rect.fbIndex === 0 ? durationMs : 0;
  for (let k = 0; k < colors.length; k++) {
    const col = rect.x + (k % rect.width);
    const row = rect.y + Math.floor(k / rect.width);
    if (col >= tile.width || row >= tile.height) continue;
    const i = row * tile.width + col;
    buf[i] = buf[i]!.toward(colors[k]!, nowMs, fade);
  }
}

export const MATRIX_HANDLERS: HandlerTable = {
  GetDeviceChain: { family: 'matrix', run: (ctx) => [deviceChain(ctx)] },
  SetUserPosition: {
    family: 'matrix',
    run: (ctx, p) => {
      const tile = ctx.model.tiles[p.tileIndex];
      if (tile !== undefined) {
        tile.userX = p.userX;
        tile.userY = p.userY;
      }
      return [];
    },
  },
  Get64: { family: 'matrix', run: (ctx, p) => state64s(ctx, p.tileIndex, p.length, p.rect) },
  // res_required: one State64 per tile, before the change (photons' mimic).
  Set64: {
    family: 'matrix',
    run: (ctx, p) =>
      before(ctx, () => state64s(ctx, p.tileIndex, p.length, p.rect), () => {
        for (const [, tile] of tilesIn(ctx.model, p.tileIndex, p.length)) {
          writeRect(ctx.model, tile, p.rect, p.colors, ctx.nowMs, p.durationMs);
        }
      }),
  },
  // Copies a width x height region between frame buffers; copying into buffer 0 fades over duration.
  CopyFrameBuffer: {
    family: 'matrix',
    run: (ctx, p) => {
      const { model, nowMs } = ctx;
      for (const [, tile] of tilesIn(model, p.tileIndex, p.length)) {
        const src = model.buffer(tile, p.srcFbIndex);
        const snapshot = src.map((c) => c.at(nowMs));
        const dst = model.buffer(tile, p.dstFbIndex);
        const fade = p.dstFbIndex === 0 ? p.durationMs : 0;
        // The region is clipped to the tile at both ends first: a 255 x 255 copy costs a tile's zones, not 65 025.
        const width = Math.min(p.width, tile.width - p.srcX, tile.width - p.dstX);
        const height = Math.min(p.height, tile.height - p.srcY, tile.height - p.dstY);
        for (let dy = 0; dy < height; dy++) {
          for (let dx = 0; dx < width; dx++) {
            const sx = p.srcX + dx, sy = p.srcY + dy, tx = p.dstX + dx, ty = p.dstY + dy;
            const i = ty * tile.width + tx;
            dst[i] = dst[i]!.toward(snapshot[sy * tile.width + sx]!, nowMs, fade);
          }
        }
      }
      return [];
    },
  },
  GetTileEffect: { family: 'matrix', run: (ctx) => [tileEffect(ctx)] },
  SetTileEffect: {
    family: 'matrix',
    run: (ctx, p) => before(ctx, () => [tileEffect(ctx)], () => { ctx.model.tileEffect = p.settings; }),
  },
};
