// Read state: time to read GetColor -> LightState from all N virtual lights, with every reply checked against the
// light it was asked of (serial, label, power, colour); Lightwire's LightClient against lifx-lan-client 2.1.2, same
// fleet, same run (issue 3). Usage: npm run bench:read-state [-- --quick | --reps K | --sizes 10,100]
// Each worker first discovers the fleet with its library's defaults, waits 1.5 s for what discovery sets off to
// finish, then reads. npm wraps it in a private network namespace (unshare --net).

import { report, runSuite, suiteOptions } from './lib/harness.js';

async function main(): Promise<void> {
  const options = suiteOptions('read-state');
  const suite = await runSuite(options);
  const { text, verdicts } = report('Read state', options, suite);
  console.log(text);
  const failed = verdicts.filter((v) => v.verdict === 'FAIL');
  console.log('');
  console.log(failed.length === 0 ? 'All targets met.' : `Targets missed: ${failed.map((v) => `N=${v.n} ${v.metric}`).join('; ')}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
