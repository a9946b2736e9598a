// Confirmed relay writes of a LIFX Switch that overlap: each answers ok only once its own relay switched (checked on
// the fleet's relays, VirtualLight.state.relays), also with replies lost and held back.

import { expect } from 'chai';
import { LightService } from '../../core/control/service.js';
import { Fleet } from '../../core/simulator/fleet.js';
import { seededRandom, SEED } from './rig.js';

const SWITCH = 'd073d5e10001';

describe(`fault matrix: overlapping relay writes (seed ${SEED})`, function () {
  this.timeout(20_000);
  let fleet: Fleet;
  let service: LightService;

  before(async () => {
    fleet = new Fleet({ lights: [{ serial: SWITCH, product: 70, label: 'Hall switch' }] }, { port: 0, random: seededRandom(SEED + 2) });
    await fleet.start();
    service = await LightService.start({
      discovery: { broadcastAddresses: ['127.255.255.255'], port: fleet.port, burstScheduleMs: [0, 200, 600], refreshIntervalMs: 0 },
      deadlineMs: 2500,
      expectLights: 1,
    });
    await service.ready;
  });
  after(async () => {
    await service?.stop();
    await fleet?.stop();
  });

  for (const faults of [{}, { lossInProbability: 0.2, lossOutProbability: 0.2, reorderProbability: 0.3 }]) {
    it(`switches relays 0-3 at once, each ok only once it is on (${JSON.stringify(faults)})`, async () => {
      const light = fleet.light(SWITCH);
      light.setState({ relays: ['off', 'off', 'off', 'off'] });
      light.setFaults(faults);
      const results = await Promise.all(
        [0, 1, 2, 3].map(async (relay) => {
          const result = await service.setRelayPower(SWITCH, relay, true);
          return { relay, status: result.status, on: light.state.relays![relay] === 'on' };
        }),
      );
      for (const r of results) if (r.status === 'ok') expect(r.on, `relay ${r.relay} answered ok but is off`).to.equal(true);
      if (Object.keys(faults).length === 0) expect(results.map((r) => r.status)).to.deep.equal(['ok', 'ok', 'ok', 'ok']);
      light.setFaults({ lossInProbability: 0, lossOutProbability: 0, reorderProbability: 0 });
    });
  }
});
