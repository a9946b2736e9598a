// Zone writes in the fault matrix: a write that paints part of a strip takes several messages in one step (legacy
// SetColorZones per run of zones, SetExtendedColorZones per 82 zones), the last with APPLY and the others NO_APPLY
// (NO_APPLY zones are buffered until an APPLY shows them). An `ok` must mean every zone of the
// range shows the colour, checked against the fleet's own zones (VirtualLight.state.zones).

import { expect } from 'chai';
import { LightService } from '../../core/control/service.js';
import { Fleet } from '../../core/simulator/fleet.js';
import { seededRandom, SEED } from './rig.js';

const LEGACY = 'd073d5e00001'; // LIFX Z, firmware 2.70 (extended multizone needs 2.77): SetColorZones only, 16 zones
const EXTENDED = 'd073d5e00002'; // 255 zones: four SetExtendedColorZones per write
const DEADLINE_MS = 2000;

interface Zone {
  readonly hue: number;
  readonly saturation: number;
  readonly brightness: number;
  readonly kelvin: number;
}

const near = (a: number, b: number, step: number): boolean => Math.abs(a - b) <= step;

describe(`fault matrix: zone writes (seed ${SEED})`, function () {
  this.timeout(40_000);
  let fleet: Fleet;
  let service: LightService;
  const random = seededRandom(SEED + 1);

  before(async () => {
    fleet = new Fleet(
      {
        lights: [
          { serial: LEGACY, product: 32, firmware: { major: 2, minor: 70 }, zoneCount: 16, label: 'Legacy strip' },
          { serial: EXTENDED, product: 117, zoneCount: 255, label: 'Long strip' },
        ],
      },
      { port: 0, random, recordLimit: 200 },
    );
    await fleet.start();
    // Every zone its own hue, so a change of saturation alone is a run per zone (legacy) and zones stay tellable.
    fleet.light(LEGACY).setState({ zones: Array.from({ length: 16 }, (_, i) => ({ hue: i * 20, saturation: 1, brightness: 1, kelvin: 3500 })) });
    fleet.light(EXTENDED).setState({ zones: Array.from({ length: 255 }, (_, i) => ({ hue: i, saturation: 1, brightness: 1, kelvin: 3500 })) });
    service = await LightService.start({
      discovery: { broadcastAddresses: ['127.255.255.255'], port: fleet.port, burstScheduleMs: [0, 200, 600], refreshIntervalMs: 0, heartbeatMs: 1000 },
      deadlineMs: DEADLINE_MS,
      expectLights: 2,
    });
    await service.ready;
    expect(service.views().map((v) => v.zones?.length)).to.deep.equal([16, 255]);
  });
  after(async () => {
    await service?.stop();
    await fleet?.stop();
  });
  afterEach(() => {
    for (const l of fleet.lights) l.setFaults({ lossInProbability: 0, lossOutProbability: 0, reorderProbability: 0 });
  });

  /** Writes `saturation` to zones start-end of a strip; on ok, every zone there shows it, every hue as it was. */
  async function write(serial: string, start: number, end: number, saturation: number): Promise<string> {
    const light = fleet.light(serial);
    const before = light.state.zones! as readonly Zone[];
    const started = performance.now();
    const [result] = await service.setState(`id:${serial}|${start}-${end}`, { color: `saturation:${saturation}`, durationS: 0 });
    const elapsedMs = performance.now() - started;
    const zones = light.state.zones! as readonly Zone[];
    expect(elapsedMs).to.be.below(DEADLINE_MS + 750);
    if (result!.status === 'ok') {
      const wrong = zones
        .map((z, i) => ({ i, z }))
        // Only the range is checked: zones of an earlier write that timed out, buffered by its NO_APPLY messages, are shown
        // by this write's APPLY, as on a real strip.
        .filter(({ i, z }) => i >= start && i <= end && !near(z.saturation, saturation, 1 / 65535))
        .map(({ i, z }) => `${i}:${z.saturation.toFixed(3)}`);
      expect(wrong, `${serial} ${start}-${end} saturation ${saturation} answered ok; zones not as asked: ${wrong.slice(0, 12).join(' ')}`).to.deep.equal([]);
      // Hues (never written) stay each zone's own.
      expect(zones.every((z, i) => near(z.hue, before[i]!.hue, 360 / 65536))).to.equal(true);
    }
    return result!.status;
  }

  it('without faults, 255 zones (four SetExtendedColorZones in one step): every zone of the range changes', async () => {
    expect(await write(EXTENDED, 0, 254, 0.5)).to.equal('ok');
    expect(await write(EXTENDED, 10, 200, 0.25)).to.equal('ok');
  });

  it('without faults, a legacy strip (a SetColorZones per zone, every zone its own hue): every zone of the range changes', async () => {
    fleet.light(LEGACY).clearRecords();
    expect(await write(LEGACY, 2, 13, 0.5)).to.equal('ok');
    expect(fleet.light(LEGACY).received('SetColorZones')).to.have.length(12);
  });

  it('30 % loss each way and reordered replies: no ok for a strip whose zones are not all as asked', async () => {
    for (const l of fleet.lights) l.setFaults({ lossInProbability: 0.3, lossOutProbability: 0.3, reorderProbability: 0.3, reorderDelayMs: 120 });
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) {
      const saturation = Math.round(random() * 1000) / 1000;
      const [a, b] = await Promise.all([write(EXTENDED, 5 + i, 250 - i, saturation), write(LEGACY, 1 + i, 14 - i, saturation)]);
      statuses.push(a, b);
    }
    expect(statuses).to.have.length(6);
  });
});
