// What the HTTP face needs from the light service: a type-only view of LightService, so the plugin depends on
// the methods it calls (and tests or embedders may hand it anything with the same shape). Every write goes through
// `check` (the operation catalogue's parameters, read in the HTTP API's names) and `perform`. The service's light
// events, when it has them, keep the List Lights cache honest (list-cache.ts).

import type { LightService } from '../index.js';

export type LightApi = Pick<LightService, 'list' | 'check' | 'perform' | 'rename' | 'setStates' | 'listScenes' | 'activateScene' | 'validateColor'>;
