// The virtual fleet in its own process, so its event loop never competes with the client under test.
// argv: <lights> [latencyMs]. Lights at 127.0.0.2, 127.0.0.3, … port 56700, shared broadcast listener on 127.255.255.255:56700
// (not 0.0.0.0: node-lifx sends from the port it sends to, so it binds 127.0.0.1:56700).

import { defaultFleet, Fleet } from '../../core/simulator/index.js';
import type { FleetReply, FleetRequest } from './messages.js';
import { guardLoopbackSends } from './net-guard.js';
import { FleetWatcher } from './set-state-watch.js';

guardLoopbackSends();

function reply(message: FleetReply): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const n = Number(process.argv[2]);
  const fleet = new Fleet(defaultFleet(n), { port: 56700, mode: 'ip', listenAddress: '127.255.255.255' });
  await fleet.start();
  // The latency fault: every reply (StateService, acks, states) leaves this long after the request arrived.
  const latencyMs = Number(process.argv[3] ?? 0);
  if (latencyMs > 0) for (const light of fleet.lights) light.setFaults({ latencyMs });
  const watcher = new FleetWatcher(fleet);
  process.on('message', (raw: FleetRequest) => {
    switch (raw.type) {
      // set-state benchmark (set-state-watch.ts)
      case 'reset':
        watcher.reset(raw.power, raw.color);
        return reply({ type: 'reset-done' });
      case 'watch':
        watcher.start(raw.target, raw.serials);
        return reply({ type: 'watching' });
      case 'watch-result':
        void watcher.result(raw.graceMs, raw.doneAtEpochMs).then(
          (result) => reply({ type: 'watch-result', ...result }),
          (err: unknown) => reply({ type: 'failed', reason: err instanceof Error ? err.message : String(err) }),
        );
        return;
      case 'clear':
        fleet.clearRecords();
        return reply({ type: 'cleared' });
      case 'stats': {
        const setByName: Record<string, number> = {};
        for (const light of fleet.lights) {
          for (const [name, count] of Object.entries(light.receivedByName())) if (name.startsWith('Set')) setByName[name] = (setByName[name] ?? 0) + count;
        }
        return reply({
          type: 'stats',
          maxMessagesPerSecond: fleet.maxMessagesPerSecond(),
          errors: fleet.errors.length,
          sendErrors: fleet.lights.reduce((sum, l) => sum + l.stats.sendErrors, 0),
          setMessages: Object.values(setByName).reduce((a, b) => a + b, 0),
          setByName,
        });
      }
      case 'stop':
        void fleet.stop().then(() => process.exit(0));
        return;
    }
  });
  process.on('disconnect', () => void fleet.stop().then(() => process.exit(0)));
  reply({
    type: 'ready',
    lights: fleet.lights.map((l) => {
      const s = l.state;
      return { serial: l.serial, address: l.address, label: s.label, power: s.power, color: s.color, productId: l.product.productId, group: s.group.label, location: s.location.label };
    }),
  });
}

main().catch((err: unknown) => {
  reply({ type: 'failed', reason: err instanceof Error ? err.message : String(err) });
  process.exit(1);
});
