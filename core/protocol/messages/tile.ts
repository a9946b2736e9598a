// Tile / matrix namespace, types 701-720 (LIFX LAN docs:
// https://lan.developer.lifx.com/docs/tile-control).

import { message } from './message.js';
import { Hsbk, TileBufferRect, TileDevice, TileEffectSettings, array, f32, field, reserved, u32, u8 } from './structs.js';

export const TILE = {
  GetDeviceChain: message(701, [], { reply: 'StateDeviceChain' }),
  StateDeviceChain: message(702, [
    field('startIndex', u8),
    field('tileDevices', array(TileDevice, 16)),
    field('tileDevicesCount', u8),
  ]),
  SetUserPosition: message(703, [
    field('tileIndex', u8),
    reserved(1),
    reserved(1),
    field('userX', f32),
    field('userY', f32),
  ]),
  // Up to `length` State64 replies, one per tile from tileIndex.
  Get64: message(707, [field('tileIndex', u8), field('length', u8), field('rect', TileBufferRect)], {
    reply: 'State64',
    multi: { until: 'count', identity: ['tileIndex'], countField: 'length' },
  }),
  State64: message(711, [field('tileIndex', u8), field('rect', TileBufferRect), field('colors', array(Hsbk, 64))]),
  Set64: message(715, [
    field('tileIndex', u8),
    field('length', u8),
    field('rect', TileBufferRect),
    field('durationMs', u32, 'ms'),
    field('colors', array(Hsbk, 64)),
  ], { reply: 'State64', multi: { until: 'count', identity: ['tileIndex'], countField: 'length' } }),
  CopyFrameBuffer: message(716, [
    field('tileIndex', u8),
    field('length', u8),
    field('srcFbIndex', u8),
    field('dstFbIndex', u8),
    field('srcX', u8),
    field('srcY', u8),
    field('dstX', u8),
    field('dstY', u8),
    field('width', u8),
    field('height', u8),
    field('durationMs', u32, 'ms'),
    reserved(1),
  ]),
  GetTileEffect: message(718, [reserved(1), reserved(1)], { reply: 'StateTileEffect' }),
  // Two reserved bytes before the settings here, one in StateTileEffect.
  SetTileEffect: message(719, [reserved(1), reserved(1), field('settings', TileEffectSettings)], {
    reply: 'StateTileEffect',
  }),
  StateTileEffect: message(720, [reserved(1), field('settings', TileEffectSettings)]),
} as const;
