// Discovery: time until all N virtual lights are found, UDP receive drops, peak RSS; Lightwire's LightClient against
// lifx-lan-client 2.1.2, same fleet, same run (issue 3). Usage: npm run bench:discovery [-- --quick | --reps K | --sizes 10,100]
// npm wraps it in a private network namespace (unshare --net); run directly, it refuses unless only loopback exists.

import { report, runSuite, suiteOptions } from './lib/harness.js';

async function main(): Promise<void> {
  const options = suiteOptions('discovery');
  const suite = await runSuite(options);
  const { text, verdicts } = report('Discovery', options, suite);
  console.log(text);
  const failed = verdicts.filter((v) => v.verdict === 'FAIL');
  console.log('');
  console.log(failed.length === 0 ? 'All targets met.' : `Targets missed: ${failed.map((v) => `N=${v.n} ${v.metric}`).join('; ')}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
