// What the HTTP face needs from the light service: a type-only view of LightService, so the plugin depends on
// the methods it calls (and tests or embedders may hand it anything with the same shape). Every write goes through
// `check` (the operation catalogue's parameters, read in the HTTP API's names) and `perform`. `client` is read for
// its registry's events only, which keep the List Lights cache honest (list-cache.ts).

import type { LightService } from '../index.js';

export type LightApi = Pick<LightService, 'client' | 'list' | 'check' | 'perform' | 'setStates' | 'listScenes' | 'activateScene' | 'validateColor'>;
