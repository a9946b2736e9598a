// Zone colours of a multizone light from the replies of GetColorZones / GetExtendedColorZones.

import { hsbkFromWire, type Hsbk, type KnownPacket, type WireHsbk } from '../protocol/index.js';

/**
 * Assembles every zone from StateZone / StateMultiZone / StateExtendedColorZones; undefined if any is missing.
 *
 * A zone showing the same colour as the zone converted just before it gets the same (read-only) object, as the
 * executor's prediction of a whole-light colour does: a strip in one colour, the usual case, keeps one object and
 * not one per zone (an object and three numbers, about 90 bytes, for each of up to 82 zones).
 */
export function zonesFromReplies(replies: readonly KnownPacket[]): Hsbk[] | undefined {
  let count = 0;
  const zones: Hsbk[] = [];
  let lastWire: WireHsbk | undefined;
  let last: Hsbk | undefined;
  const convert = (wire: WireHsbk): Hsbk => {
    if (
      last === undefined ||
      wire.hue !== lastWire!.hue ||
      wire.saturation !== lastWire!.saturation ||
      wire.brightness !== lastWire!.brightness ||
      wire.kelvin !== lastWire!.kelvin
    ) {
      last = hsbkFromWire(wire);
      lastWire = wire;
    }
    return last;
  };
  for (const r of replies) {
    if (r.name === 'StateZone') {
      count = r.payload.count;
      zones[r.payload.index] = convert(r.payload.color);
    } else if (r.name === 'StateMultiZone') {
      count = r.payload.count;
      r.payload.colors.forEach((c, i) => {
        if (r.payload.index + i < r.payload.count) zones[r.payload.index + i] = convert(c);
      });
    } else if (r.name === 'StateExtendedColorZones') {
      count = r.payload.count;
      for (let i = 0; i < r.payload.colorsCount; i++) zones[r.payload.index + i] = convert(r.payload.colors[i]!);
    }
  }
  if (count === 0) return undefined;
  zones.length = count;
  for (let i = 0; i < count; i++) if (zones[i] === undefined) return undefined;
  return zones;
}
