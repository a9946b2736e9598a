// MultiZone namespace, types 501-512 (https://lan.developer.lifx.com/docs/multizone-light-control).

import { message, type MultiReply } from './message.js';
import { ENUMS, Hsbk, MultiZoneEffectSettings, array, enumOf, field, u16, u32, u8 } from './structs.js';

const apply = enumOf(u8, ENUMS.MultiZoneApplicationRequest);

/** Zone replies until the zones asked for (startIndex to endIndex, as far as the light has zones) are all in. */
const ZONES_ASKED: MultiReply = { until: 'zones', identity: ['index'], fromField: 'startIndex', toField: 'endIndex' };
/** Extended replies (82 zones each) until every zone the light has is in. */
const ALL_ZONES: MultiReply = { until: 'zones', identity: ['index'] };

export const MULTIZONE = {
  SetColorZones: message(
    501,
    [
      field('startIndex', u8),
      field('endIndex', u8),
      field('color', Hsbk),
      field('durationMs', u32, 'ms'),
      field('apply', apply),
    ],
    { reply: ['StateZone', 'StateMultiZone'], multi: ZONES_ASKED },
  ),
  // One StateZone when start = end, otherwise StateMultiZone messages of 8 zones.
  GetColorZones: message(502, [field('startIndex', u8), field('endIndex', u8)], {
    reply: ['StateZone', 'StateMultiZone'],
    multi: ZONES_ASKED,
  }),
  StateZone: message(503, [field('count', u8), field('index', u8), field('color', Hsbk)]),
  StateMultiZone: message(506, [field('count', u8), field('index', u8), field('colors', array(Hsbk, 8))]),
  GetMultiZoneEffect: message(507, [], { reply: 'StateMultiZoneEffect' }),
  SetMultiZoneEffect: message(508, [field('settings', MultiZoneEffectSettings)], { reply: 'StateMultiZoneEffect' }),
  StateMultiZoneEffect: message(509, [field('settings', MultiZoneEffectSettings)]),
  SetExtendedColorZones: message(
    510,
    [
      field('durationMs', u32, 'ms'),
      field('apply', apply),
      field('index', u16),
      field('colorsCount', u8),
      field('colors', array(Hsbk, 82)),
    ],
    { reply: 'StateExtendedColorZones', multi: ALL_ZONES },
  ),
  // ceil(zones / 82) replies (photons 0.46.7 expects one more at exact multiples of 82).
  GetExtendedColorZones: message(511, [], { reply: 'StateExtendedColorZones', multi: ALL_ZONES }),
  StateExtendedColorZones: message(512, [
    field('count', u16),
    field('index', u16),
    field('colorsCount', u8),
    field('colors', array(Hsbk, 82)),
  ]),
} as const;
