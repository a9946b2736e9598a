import { LightClient } from '../../core/discovery/client.js';
import { LightService, type LightServiceOptions } from '../../core/control/service.js';
import { Fleet, type FleetOptions } from '../../core/simulator/fleet.js';
import type { FleetInput } from '../../core/simulator/fleet-file.js';

export interface ServiceRig {
  readonly fleet: Fleet;
  readonly client: LightClient;
  readonly service: LightService;
  close(): Promise<void>;
}

/** Virtual lights on a free port, a client that found them all and read their info, and a service over it. */
export async function serviceRig(
  input: FleetInput,
  options: LightServiceOptions = {},
  fleetOptions: FleetOptions = {},
  discovery: { readonly readTimeoutMs?: number } = {},
): Promise<ServiceRig> {
  const fleet = new Fleet(input, { ...fleetOptions, port: 0 });
  await fleet.start();
  const client = new LightClient({
    transport: { requestTimeoutMs: 3000 },
    discovery: { broadcastAddresses: ['127.255.255.255'], port: fleet.port, burstScheduleMs: [0, 200, 600], refreshIntervalMs: 0, ...discovery },
  });
  // Built before the client reads anything, so the service hears every light described (and announces their
  // changes) as a started service does, whatever order the first reads end in.
  const service = new LightService(client, options);
  await client.start();
  await client.waitForLights(input.lights.length, 3000);
  await Promise.all(client.lights().map((l) => Promise.all([client.refreshInfo(l.serial), client.refreshState(l.serial)])));
  fleet.clearRecords();
  return {
    fleet,
    client,
    service,
    close: async () => {
      await client.stop();
      await fleet.stop();
    },
  };
}
