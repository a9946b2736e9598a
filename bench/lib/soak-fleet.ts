// The soak benchmark's fleet child: N default virtual lights with loss each way, on loopback, in a process of its own.
// argv: <lights> <lossIn> <lossOut> <sampleMs>. Broadcast listener on a free port, lights at 127.0.0.2, 127.0.0.3, …

import { defaultFleet, Fleet } from '../../core/simulator/index.js';
import { guardLoopbackSends } from './net-guard.js';
import type { SoakChildReply, SoakChildRequest } from './soak-messages.js';
import { startSampling } from './soak-sampler.js';

guardLoopbackSends();

function reply(message: SoakChildReply): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const [lights, lossIn, lossOut, sampleMs] = process.argv.slice(2).map(Number) as [number, number, number, number];
  // The fleet keeps few packets per light: its own memory is not what the soak measures.
  const fleet = new Fleet(defaultFleet(lights, { faults: { lossInProbability: lossIn, lossOutProbability: lossOut } }), { port: 0, recordLimit: 64 });
  await fleet.start();
  let stopSampling = (): void => {};
  const stop = (): void => {
    stopSampling();
    void fleet.stop().then(() => process.exit(0));
  };
  process.on('message', (m: SoakChildRequest) => {
    if (m.type === 'go') {
      stopSampling = startSampling('fleet', sampleMs, () => ({
        lostIn: fleet.lights.reduce((n, l) => n + l.stats.lost, 0),
        lostOut: fleet.lights.reduce((n, l) => n + l.stats.lostReplies, 0),
        received: fleet.lights.reduce((n, l) => n + l.receivedTotal, 0),
      }));
    } else if (m.type === 'stop') stop();
  });
  process.on('disconnect', stop);
  reply({ type: 'ready', port: fleet.port });
}

main().catch((err: unknown) => {
  reply({ type: 'failed', reason: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exit(1);
});
