// What Lightwire reads of a light beyond the List Lights record, added to the records the get-info and discover
// nodes send: `ambient_lux` (the ambient light sensor's raw reading, lights that have one: not calibrated, best
// read with the light off) and `buttons` (the decoded button configuration, devices with buttons). The HTTP
// API's /v1 records stay the cloud's shape; these keys are only here, and only on lights that have them.

import type { LightService, V1Light } from '../core/index.js';

export type NodeLightRecord = V1Light & { ambient_lux?: number; buttons?: unknown };

/** The records with each light's sensor reading and button configuration, where it has them. */
export function withReadings(service: Pick<LightService, 'light'>, records: readonly V1Light[]): NodeLightRecord[] {
  return records.map((record) => {
    const view = service.light(record.id);
    if (view === undefined || (view.ambientLux === null && view.buttons === null)) return record;
    return {
      ...record,
      ...(view.ambientLux === null ? {} : { ambient_lux: view.ambientLux }),
      ...(view.buttons === null ? {} : { buttons: view.buttons }),
    };
  });
}
