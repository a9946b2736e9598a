// Discovery: time until all N virtual lights are found (and, for Lightwire, found and described: every light's facts
// and state read), UDP receive drops, memory; Lightwire's LightClient against lifx-lan-client 2.1.2, node-lifx-lan
// 0.5.0 and node-lifx 0.8.0, same fleet, same run.
// Usage: npm run bench:discovery [-- --quick | --reps K | --sizes 10,100,500,1000 | --clients ours,llc |
//        --latency-ms 50 | --cap-ms MS | --json FILE]
// npm wraps it in a private network namespace (unshare --net); run directly, it refuses unless only loopback exists.

import { publish } from './lib/figures.js';
import { result, runSuite, suiteOptions } from './lib/harness.js';

async function main(): Promise<void> {
  const options = suiteOptions('discovery');
  const suite = await runSuite(options);
  const title = options.latencyMs > 0 ? `Discovery with ${options.latencyMs} ms latency` : 'Discovery';
  publish(result(title, options, suite));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
