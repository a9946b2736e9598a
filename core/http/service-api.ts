// What the HTTP face needs from the light service: a type-only view of LightService, so the plugin depends on
// the methods it calls (and tests or embedders may hand it anything with the same shape). The request types
// are the service's own, in user units (`durationS`, `periodS`, `fromColor`, `powerOn`, ...); the plugin maps
// the HTTP names (`duration`, `period`, `from_color`, `power_on`, ...) onto them. The service's light events, when
// it has them, keep the List Lights cache honest (list-cache.ts).

import type { LightService } from '../index.js';

export type LightApi = Pick<
  LightService,
  | 'list'
  | 'setState'
  | 'setStates'
  | 'stateDelta'
  | 'toggle'
  | 'breathe'
  | 'pulse'
  | 'move'
  | 'morph'
  | 'flame'
  | 'clouds'
  | 'sunrise'
  | 'sunset'
  | 'effectsOff'
  | 'clean'
  | 'cycle'
  | 'listScenes'
  | 'activateScene'
  | 'validateColor'
>;
