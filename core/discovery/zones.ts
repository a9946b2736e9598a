// Zone colours of a multizone light from the replies of GetColorZones / GetExtendedColorZones.

import { hsbkFromWire, type Hsbk, type KnownPacket } from '../protocol/index.js';

/** Assembles every zone from StateZone / StateMultiZone / StateExtendedColorZones; undefined if any is missing. */
export function zonesFromReplies(replies: readonly KnownPacket[]): Hsbk[] | undefined {
  let count = 0;
  const zones: Hsbk[] = [];
  for (const r of replies) {
    if (r.name === 'StateZone') {
      count = r.payload.count;
      zones[r.payload.index] = hsbkFromWire(r.payload.color);
    } else if (r.name === 'StateMultiZone') {
      count = r.payload.count;
      r.payload.colors.forEach((c, i) => {
        if (r.payload.index + i < r.payload.count) zones[r.payload.index + i] = hsbkFromWire(c);
      });
    } else if (r.name === 'StateExtendedColorZones') {
      count = r.payload.count;
      for (let i = 0; i < r.payload.colorsCount; i++) zones[r.payload.index + i] = hsbkFromWire(r.payload.colors[i]!);
    }
  }
  if (count === 0) return undefined;
  zones.length = count;
  for (let i = 0; i < count; i++) if (zones[i] === undefined) return undefined;
  return zones;
}
