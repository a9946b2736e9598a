// MultiZone namespace (501-512): strips. LIFX LAN docs: https://lan.developer.lifx.com/docs/multizone-light-control.

import type { WireHsbk } from '../../protocol/units.js';
import type { DeviceModel } from '../model.js';
import { before, reply, type HandlerContext, type HandlerTable, type Reply } from './types.js';

const ZONES_PER_STATE_MULTIZONE = 8;
const ZONES_PER_EXTENDED = 82;

function colorsOf(model: DeviceModel, nowMs: number, from: number, to: number): WireHsbk[] {
  const out: WireHsbk[] = [];
  for (let i = from; i < to && i < model.zones.length; i++) out.push(model.zones[i]!.at(nowMs));
  return out;
}

/**
 * GetColorZones(start, end): the range is clipped to the zones that exist; one StateZone when it holds a single
 * zone, otherwise StateMultiZone messages starting at `start`, stepping by 8 while <= the clipped end, each
 * carrying the 8 zones from its index (zones past the last one are zero). Nothing when start is past the last zone
 * (photons' simulator does the same).
 */
export function zoneStates(model: DeviceModel, nowMs: number, start: number, end: number): Reply[] {
  const count = model.zones.length;
  const last = Math.min(end, count - 1);
  if (start > last) return [];
  if (start === last) return [reply('StateZone', { count, index: start, color: model.zones[start]!.at(nowMs) })];
  const out: Reply[] = [];
  for (let index = start; index <= last; index += ZONES_PER_STATE_MULTIZONE) {
    out.push(reply('StateMultiZone', { count, index, colors: colorsOf(model, nowMs, index, index + ZONES_PER_STATE_MULTIZONE) }));
  }
  return out;
}

/** ceil(zones / 82) StateExtendedColorZones at index 0, 82, 164 … (photons 0.46.7 expects one more at exact multiples of 82). */
export function extendedZoneStates(model: DeviceModel, nowMs: number): Reply[] {
  const count = model.zones.length;
  const out: Reply[] = [];
  for (let index = 0; index < count; index += ZONES_PER_EXTENDED) {
    const colors = colorsOf(model, nowMs, index, index + ZONES_PER_EXTENDED);
    out.push(reply('StateExtendedColorZones', { count, index, colorsCount: colors.length, colors }));
  }
  return out;
}

const multiZoneEffect = ({ model }: HandlerContext): Reply =>
  reply('StateMultiZoneEffect', { settings: { ...model.multiZoneEffect, parameters: [...model.multiZoneEffect.parameters] } });

export const MULTIZONE_HANDLERS: HandlerTable = {
  GetColorZones: { family: 'multizone', run: (ctx, p) => zoneStates(ctx.model, ctx.nowMs, p.startIndex, p.endIndex) },
  // Replies with the zone states of the range, as they were before (photons' mimic).
  SetColorZones: {
    family: 'multizone',
    run: (ctx, p) =>
      before(
        ctx,
        () => zoneStates(ctx.model, ctx.nowMs, p.startIndex, p.endIndex),
        () => {
          const n = Math.max(0, Math.min(p.endIndex, ctx.model.zones.length - 1) - p.startIndex + 1);
          ctx.model.stageZones(p.startIndex, Array.from({ length: n }, () => p.color), p.apply, ctx.nowMs, p.durationMs);
        },
      ),
  },
  GetMultiZoneEffect: { family: 'multizone', run: (ctx) => [multiZoneEffect(ctx)] },
  SetMultiZoneEffect: {
    family: 'multizone',
    run: (ctx, p) => before(ctx, () => [multiZoneEffect(ctx)], () => { ctx.model.multiZoneEffect = p.settings; }),
  },
  GetExtendedColorZones: { family: 'extendedMultizone', run: (ctx) => extendedZoneStates(ctx.model, ctx.nowMs) },
  SetExtendedColorZones: {
    family: 'extendedMultizone',
    run: (ctx, p) =>
      before(
        ctx,
        () => extendedZoneStates(ctx.model, ctx.nowMs),
        () => ctx.model.stageZones(p.index, p.colors.slice(0, Math.min(p.colorsCount, p.colors.length)), p.apply, ctx.nowMs, p.durationMs),
      ),
  },
};
