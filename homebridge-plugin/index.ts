// The package entry (`homebridge-lightwire`): the whole library API, plus the default export Homebridge calls.
// Homebridge imports this file and calls the default export with its API; `import { LightService } from
// 'homebridge-lightwire'` gets the library. Homebridge itself is only a type here: everything at runtime comes
// from the `api` object it passes (api.hap), so the package never loads a second copy of Homebridge or HAP-NodeJS.

import type { API } from 'homebridge';
import { LightwirePlatform } from './platform.js';
import { PLATFORM_NAME } from './settings.js';

export * from '../core/index.js';

/** Registers the `Lightwire` dynamic platform. */
export default function initializeHomebridge(api: API): void {
  api.registerPlatform(PLATFORM_NAME, LightwirePlatform);
}
