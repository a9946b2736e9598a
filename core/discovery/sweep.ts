// The subnet sweep: every host of the configured subnets probed by unicast GetService, for lights that broadcast
// discovery cannot reach (VLANs, routed networks; https://lan.developer.lifx.com/docs/communicating-with-device).

import type { Requester } from '../transport/requester.js';
import { subnetHosts } from './options.js';

/** How many sweep probes are in flight at once, so a /22 sweep does not burst 1022 packets. */
const SWEEP_CONCURRENCY = 32;
const SWEEP_PROBE_TIMEOUT_MS = 600;

/** Probes every host of `subnets` (CIDR) on `port` while `running()`: how many answered. */
export async function sweepSubnets(requester: Requester, subnets: readonly string[], port: number, running: () => boolean): Promise<number> {
  const hosts = subnets.flatMap(subnetHosts);
  let found = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (running() && next < hosts.length) {
      const address = hosts[next++]!;
      const replies = await requester.probe(address, port, { timeoutMs: SWEEP_PROBE_TIMEOUT_MS }).catch(() => []);
      if (replies.length > 0) found++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(SWEEP_CONCURRENCY, hosts.length) }, worker));
  return found;
}
