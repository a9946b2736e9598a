// The soak benchmark's server child: LightService + the HTTP API (startServer, as `lightwire serve` runs them, logs
// off), samples of its memory and handles every few seconds, heap snapshots on request. With `inProcessFleet` the
// virtual lights run in this process too, as `lightwire serve --virtual N` does.
// Config: JSON in argv[2] (SoakServerConfig).

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { LightClient, LightService } from '../../core/index.js';
import { startServer } from '../../core/http/index.js';
import { defaultFleet, Fleet } from '../../core/simulator/index.js';
import { guardLoopbackSends } from './net-guard.js';
import { profileAllocations } from './soak-alloc.js';
import type { SoakChildReply, SoakChildRequest, SoakServerConfig } from './soak-messages.js';
import { startSampling } from './soak-sampler.js';

guardLoopbackSends();

function reply(message: SoakChildReply): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2]!) as SoakServerConfig;
  let fleet: Fleet | null = null;
  let fleetPort = config.fleetPort;
  if (config.inProcessFleet) {
    const faults = { lossInProbability: config.lossIn, lossOutProbability: config.lossOut };
    fleet = new Fleet(defaultFleet(config.lights, { faults }), { port: 0, ...(config.recordLimit === null ? {} : { recordLimit: config.recordLimit }) });
    await fleet.start();
    fleetPort = fleet.port;
  }
  // The client is the soak's own, for its transport counters; handed in unstarted, the service starts and stops it.
  const client = new LightClient({ discovery: { broadcastAddresses: ['127.255.255.255'], port: fleetPort } });
  const service = await LightService.start({
    client,
    expectLights: config.lights,
    readyTimeoutMs: 30_000,
    scenes: config.scenesFile,
  });
  await service.ready;
  const views = service.views();
  // One scene per group (what a household would have): activating one writes its group's lights.
  const groups = [...new Set(views.map((v) => v.group?.name).filter((g): g is string => g !== undefined))];
  const scene = await service.captureScene('Soak evening', `group:${groups[0]}`);
  const server = await startServer({ service, port: 0, logLevel: 'silent' });
  let stopSampling = (): void => {};
  const snapshots: NodeJS.Timeout[] = [];
  const stop = (): void => {
    stopSampling();
    for (const t of snapshots) clearTimeout(t);
    void server
      .close()
      .then(() => service.stop())
      .then(() => fleet?.stop())
      .then(() => process.exit(0));
  };
  process.on('message', (m: SoakChildRequest) => {
    if (m.type === 'go') {
      stopSampling = startSampling('server', config.sampleMs, () => {
        const stats = client.requester.stats;
        return {
          lights: service.views().length,
          online: service.views().filter((v) => v.online).length,
          lanSent: stats.sent,
          lanRetransmits: stats.retransmits,
          lanTimeouts: stats.timeouts,
          ...(fleet === null ? {} : { fleetRecords: fleet.lights.reduce((n, l) => n + l.received().length, 0) }),
        };
      });
      if (config.allocProfileS > 0) {
        void profileAllocations(config.allocProfileS).then(
          (r) => reply({ type: 'allocations', seconds: config.allocProfileS, ...r }),
          (err: unknown) => reply({ type: 'failed', reason: `allocation profile: ${String(err)}` }),
        );
      }
      for (const atS of config.snapshotAtS) {
        snapshots.push(
          setTimeout(() => {
            mkdirSync(config.snapshotDir, { recursive: true });
            const file = writeHeapSnapshot(path.join(config.snapshotDir, `server-${atS}s.heapsnapshot`));
            reply({ type: 'snapshot', file });
          }, atS * 1000),
        );
      }
    } else if (m.type === 'stop') stop();
  });
  process.on('disconnect', stop);
  reply({
    type: 'ready',
    url: server.url,
    sceneId: scene.uuid,
    serials: views.map((v) => v.serial),
    groups,
  });
}

main().catch((err: unknown) => {
  reply({ type: 'failed', reason: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  process.exit(1);
});
