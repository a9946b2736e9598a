// Cached accessories that cannot be served (an unconfigured or broken platform, an unusable cache entry) answer
// "No Response" rather than stale values until they are rebuilt. Names are no state: they keep answering.

import type { Characteristic, HAP, PlatformAccessory } from 'homebridge';

/** The characteristics of an accessory that carry state: all but AccessoryInformation's and the names. */
function stateCharacteristics(accessory: PlatformAccessory, hap: HAP): Characteristic[] {
  const { Characteristic: C, Service } = hap;
  return accessory.services
    .filter((service) => service.UUID !== Service.AccessoryInformation.UUID)
    .flatMap((service) => service.characteristics)
    .filter((c) => c.UUID !== C.Name.UUID && c.UUID !== C.ConfiguredName.UUID);
}

/** Every state characteristic of the accessory answers reads and writes with `failure()` (HAP's "No Response"). */
export function answerUnavailable(accessory: PlatformAccessory, hap: HAP, failure: () => Error): void {
  for (const characteristic of stateCharacteristics(accessory, hap)) {
    characteristic.onGet(() => {
      throw failure();
    });
    if (characteristic.props.perms.includes(hap.Perms.PAIRED_WRITE)) {
      characteristic.onSet(() => {
        throw failure();
      });
    }
  }
}

/**
 * Undoes answerUnavailable before an accessory is rebuilt: characteristics the rebuild does not bind (Adaptive
 * Lighting's transition count, say) must not keep answering "No Response".
 */
export function clearUnavailable(accessory: PlatformAccessory, hap: HAP): void {
  for (const characteristic of stateCharacteristics(accessory, hap)) {
    characteristic.removeOnGet();
    characteristic.removeOnSet();
  }
}
