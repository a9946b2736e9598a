// A separate virtual fleet for the end-to-end tests: N default lights on 127.0.0.2... (discovery port picked by the
// system) and the loopback control endpoint. Prints one JSON line {port, controlUrl} once listening; stops on
// SIGTERM or when its parent's stdin closes.

import { Fleet, defaultFleet, startControlServer } from '../../../core/simulator/index.js';

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? '5');
  const fleet = new Fleet(defaultFleet(count), { port: 0 });
  await fleet.start();
  const control = await startControlServer(fleet, { host: '127.0.0.1', port: 0 });
  process.stdout.write(`${JSON.stringify({ port: fleet.port, controlUrl: control.url })}\n`);
  const stop = async (): Promise<void> => {
    await control.close();
    await fleet.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.stdin.on('end', () => void stop());
  process.stdin.resume();
}

main().catch((err: unknown) => {
  process.stderr.write(`fleet-child: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
