// The fault matrix (issue 12 §4): writes through LightService against virtual fleets with faults on, every result
// checked against the fleet's own state (VirtualLight.state). For every write: one result per light, all of them back
// within the deadline, and `ok` only for a light that shows the requested state when the result comes back.
//
// Covered, each axis on its own over 8 colour bulbs (2 s deadline) and then in combination:
//   loss each way 0 / 10 / 30 / 50 % (in = out), 30 % in only, 30 % out only; latency 0 / 50 / 300 ms;
//   duplicated replies; malformed replies ('also' on every light, 'instead' on one); reordered replies;
//   a light going unresponsive and one going offline in the middle of a run (and coming back);
//   a light changing address (the service follows it); overlapping writes to one light;
//   combinations: 30 % + 50 ms + duplicates + reordering, 10 % + 300 ms + malformed, 50 % + everything;
//   and at 30 % loss each way, with one light unresponsive, every healthy light ends in the requested state
//   (a write that timed out is written again, as a client would, at most 6 times).
// Not run: the full cartesian product (4 x 4 x 3 x ... scenarios of up to 2.5 s each); the seeded randomness of the
// fleet (LIGHTWIRE_FAULT_SEED) makes a failing run repeatable as far as packet timing allows.

import { expect } from 'chai';
import type { LightResult } from '../../core/control/types.js';
import { hsbkFromWire, type Payload } from '../../core/protocol/index.js';
import { emptyTally, faultRig, SEED, shows, type FaultRig, type Tally, type Target } from './rig.js';
import { until } from '../helpers/wait.js';

const LIGHTS = 8;
const DEADLINE_MS = 2000;

function line(name: string, t: Tally): string {
  return `      ${name}: ok ${t.ok}, timed_out ${t.timedOut}, offline ${t.offline}, changed but timed out ${t.changedButTimedOut}, slowest ${t.worstMs} ms`;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe(`fault matrix (seed ${SEED})`, function () {
  this.timeout(40_000);
  let rig: FaultRig;
  const report: string[] = [];

  before(async () => {
    rig = await faultRig({ lights: LIGHTS, deadlineMs: DEADLINE_MS });
  });
  // Back to a clean network and every light online (a light that missed three writes is offline until the discovery
  // heartbeat finds it again), with the fleet's counters at zero.
  afterEach(async () => {
    rig.clearFaults();
    rig.fleet.clearRecords();
    await until(() => rig.service.views().every((v) => v.online), { timeoutMs: 6000, what: 'every light online again' });
  });
  after(async () => {
    await rig?.close();
    if (process.env.LIGHTWIRE_FAULT_REPORT === '1') console.log(report.join('\n'));
  });

  async function rounds(name: string, n: number, power: readonly ('on' | 'off')[] = ['on', 'off']): Promise<Tally> {
    const tally = emptyTally();
    for (let i = 0; i < n; i++) await rig.write('all', rig.target(power[i % power.length]), rig.serials, tally);
    report.push(line(name, tally));
    return tally;
  }

  describe('loss', () => {
    it('0 %: every light ok, at once', async () => {
      const t = await rounds('loss 0', 3);
      expect(t.ok).to.equal(3 * LIGHTS);
      expect(t.worstMs).to.be.below(1000);
    });

    for (const loss of [0.1, 0.3, 0.5]) {
      it(`${loss * 100} % each way: no false ok, every result within the deadline`, async () => {
        rig.faults({ lossInProbability: loss, lossOutProbability: loss });
        const n = loss === 0.1 ? 3 : 2;
        const t = await rounds(`loss ${loss * 100} % each way`, n);
        expect(t.ok + t.timedOut + t.offline).to.equal(n * LIGHTS);
        // 10 %: a write (a read, then one or two Sets at 81 % per attempt) fails in 2 s with p ~ 7e-4; 3 of 24: ~1e-6.
        if (loss === 0.1) expect(t.ok).to.be.at.least(n * LIGHTS - 2);
        // The fault really acted. A write from fresh state is two Sets and their acks, so at 10 % a run of 3 x 8 writes
        // loses nothing one way with p ~ 0.9^48 ~ 0.6 %: more rounds are written until a datagram was lost each way.
        const lights = rig.fleet.lights;
        const lostIn = (): number => lights.reduce((n, l) => n + l.stats.lost, 0);
        const lostOut = (): number => lights.reduce((n, l) => n + l.stats.lostReplies, 0);
        for (let extra = 0; extra < 10 && (lostIn() === 0 || lostOut() === 0); extra++) await rounds(`loss ${loss * 100} % each way, more`, 1);
        expect(lostIn(), 'datagrams lost on the way in').to.be.above(0);
        expect(lostOut(), 'replies lost on the way out').to.be.above(0);
      });
    }

    it('30 % in only and 30 % out only: no false ok', async () => {
      rig.faults({ lossInProbability: 0.3 });
      await rounds('loss 30 % in only', 1);
      rig.clearFaults();
      rig.faults({ lossOutProbability: 0.3 });
      await rounds('loss 30 % out only', 1);
    });
  });

  describe('latency', () => {
    for (const latencyMs of [50, 300]) {
      it(`${latencyMs} ms on every reply: every light ok (retransmits and their duplicate acks included)`, async () => {
        rig.faults({ latencyMs });
        const t = await rounds(`latency ${latencyMs} ms`, 2);
        expect(t.ok).to.equal(2 * LIGHTS);
        // Every write waits for at least one delayed reply (two when it reads first; a fresh state is not read again).
        expect(t.worstMs).to.be.at.least(latencyMs);
      });
    }
  });

  describe('duplicated, malformed and reordered replies', () => {
    it('duplicates: every light ok', async () => {
      rig.faults({ duplicateReplies: true });
      expect((await rounds('duplicated replies', 2)).ok).to.equal(2 * LIGHTS);
    });

    it('a malformed datagram before every reply: every light ok', async () => {
      rig.faults({ malformedReplies: 'also' });
      expect((await rounds('malformed also', 2)).ok).to.equal(2 * LIGHTS);
    });

    it('only malformed replies from one light: that light times out, the others are ok', async () => {
      const bad = rig.serials[3]!;
      rig.faults({ malformedReplies: 'instead' }, [bad]);
      const statuses = await rig.write('all', rig.target(), rig.serials);
      expect(statuses.get(bad)).to.equal('timed_out');
      expect([...statuses].filter(([s]) => s !== bad).every(([, status]) => status === 'ok')).to.equal(true);
    });

    it('half the replies held back 150 ms: every light ok', async () => {
      rig.faults({ reorderProbability: 0.5, reorderDelayMs: 150 });
      expect((await rounds('reordered 50 %', 2)).ok).to.equal(2 * LIGHTS);
      expect(rig.fleet.lights.reduce((n, l) => n + l.stats.reordered, 0)).to.be.above(0);
    });
  });

  describe('in the middle of a run', () => {
    it('a light going unresponsive and one going offline: never ok, the offline one reported offline, both back later', async () => {
      const hung = rig.serials[1]!;
      const gone = rig.serials[2]!;
      const healthy = rig.serials.filter((s) => s !== hung && s !== gone);
      // 60 ms per reply: a write takes ~120 ms (read, then Set), and the faults start 40 ms into the second one.
      rig.faults({ latencyMs: 60 });
      const tally = emptyTally();
      const byLight = new Map<string, LightResult['status'][]>(rig.serials.map((s) => [s, []]));
      for (let i = 0; i < 6; i++) {
        const flip =
          i === 1
            ? setTimeout(() => {
                rig.fleet.light(hung).setFaults({ unresponsive: true });
                rig.fleet.light(gone).setFaults({ offline: true });
              }, 40)
            : undefined;
        const statuses = await rig.write('all', rig.target(i % 2 === 0 ? 'on' : 'off'), rig.serials, tally);
        clearTimeout(flip);
        for (const [s, status] of statuses) byLight.get(s)!.push(status);
      }
      report.push(line('unresponsive + offline mid-run', tally));
      for (const s of healthy) expect(byLight.get(s), s).to.deep.equal(Array(6).fill('ok'));
      expect(byLight.get(hung)!.slice(2)).to.not.include('ok');
      expect(byLight.get(gone)!.slice(2)).to.not.include('ok');
      // Three missed writes (offlineAfterMisses) and the service knows: the last write answers offline at once.
      expect(byLight.get(gone)!.at(-1)).to.equal('offline');
      rig.clearFaults();
      // Back on the network: the heartbeat (1 s) finds them again and a read brings them online.
      await until(() => rig.service.light(gone)?.online === true && rig.service.light(hung)?.online !== false, { timeoutMs: 6000, what: 'back online' });
      const back = await rig.write('all', rig.target(), rig.serials);
      expect([...back.values()].every((s) => s === 'ok'), JSON.stringify([...back])).to.equal(true);
    });

    it('a light changing address: writes time out at the old one, then the service follows it', async () => {
      const moving = rig.serials[5]!;
      await rig.write('all', rig.target(), rig.serials);
      const addressOf = (serial: string) => rig.service.diagnostics().devices.find((d) => d.serial === serial);
      const before = addressOf(moving)!;
      await rig.fleet.moveLight(moving, '127.0.0.200');
      const statuses: LightResult['status'][] = [];
      // The user writes again (every 200 ms) until the moved light takes one.
      await until(
        async () => {
          const got = await rig.write('all', rig.target(), rig.serials);
          statuses.push(got.get(moving)!);
          for (const [s, status] of got) if (s !== moving) expect(status, s).to.equal('ok');
          return got.get(moving) === 'ok';
        },
        { timeoutMs: 10_000, everyMs: 200, what: () => `a write the moved light takes; statuses: ${statuses.join(', ')}` },
      );
      expect(before.address).to.not.equal('127.0.0.200');
      expect(statuses.at(-1), `statuses after the move: ${statuses.join(', ')}`).to.equal('ok');
      expect(addressOf(moving)).to.include({ address: '127.0.0.200' });
      expect(rig.fleet.sentToVacated).to.be.above(0);
      report.push(`      address change: ${statuses.join(', ')}`);
    });
  });

  describe('overlapping writes to one light', () => {
    it('an ok means the light took that write\'s colour (a SetColor carrying it arrived), whatever came after', async () => {
      rig.faults({ latencyMs: 30, lossInProbability: 0.1, lossOutProbability: 0.1 });
      const serial = rig.serials[0]!;
      const light = rig.fleet.light(serial);
      light.clearRecords();
      const targets: Target[] = [];
      const failures: string[] = [];
      const statuses: string[] = [];
      const writes = Array.from({ length: 6 }, async (_, i) => {
        // Not a wait for anything: the scenario starts the six writes 15 ms apart, so they overlap in flight.
        await sleep(i * 15);
        const want = rig.target();
        targets.push(want);
        const index = targets.length - 1;
        const results = await rig.service.setState(`id:${serial}`, { power: want.power, color: { ...want.color }, durationS: 0 });
        statuses[index] = results[0]!.status;
        if (results[0]!.status !== 'ok') return;
        // Ok: the light received (and so acted on) a SetColor with this write's colour before the answer.
        const took = light.received('SetColor').some((p) => shows({ power: want.power, color: hsbkFromWire((p.payload as Payload<'SetColor'>).color) }, want));
        if (!took) failures.push(`write ${index} (hue ${want.color.hue}) answered ok; the light never received its colour`);
      });
      await Promise.all(writes);
      report.push(`      overlapping writes: ${statuses.join(', ')}`);
      expect(failures, failures.join('\n')).to.deep.equal([]);
      // The light shows the colour of the last SetColor it received.
      const last = light.received('SetColor').at(-1)!;
      expect(shows(light.state, { power: light.state.power, color: hsbkFromWire((last.payload as Payload<'SetColor'>).color) })).to.equal(true);
    });
  });

  describe('combinations', () => {
    it('30 % loss each way + 50 ms latency + duplicates + 30 % reordered', async () => {
      rig.faults({ lossInProbability: 0.3, lossOutProbability: 0.3, latencyMs: 50, duplicateReplies: true, reorderProbability: 0.3 });
      await rounds('30 % + 50 ms + duplicates + reordering', 2);
    });

    it('10 % loss each way + 300 ms latency + malformed datagrams', async () => {
      rig.faults({ lossInProbability: 0.1, lossOutProbability: 0.1, latencyMs: 300, malformedReplies: 'also' });
      await rounds('10 % + 300 ms + malformed', 2);
    });

    it('50 % loss each way + duplicates + malformed + reordered', async () => {
      rig.faults({ lossInProbability: 0.5, lossOutProbability: 0.5, duplicateReplies: true, malformedReplies: 'also', reorderProbability: 0.3 });
      await rounds('50 % + duplicates + malformed + reordering', 1);
    });
  });

  describe('30 % loss each way, one light unresponsive', () => {
    it('every healthy light ends in the requested state (timed-out writes written again), the hung one never ok', async () => {
      const hung = rig.serials[7]!;
      rig.faults({ lossInProbability: 0.3, lossOutProbability: 0.3 });
      rig.faults({ unresponsive: true }, [hung]);
      const want = rig.target();
      const tally = emptyTally();
      let pending = rig.serials.filter((s) => s !== hung);
      const first = await rig.write('all', want, rig.serials, tally);
      expect(first.get(hung)).to.not.equal('ok');
      pending = pending.filter((s) => first.get(s) !== 'ok');
      let tries = 1;
      // P(a write fails in 2 s at 30 % each way) is ~0.12 (49 % per attempt): six tries leave one of 7 lights behind with p ~ 2e-5.
      while (pending.length > 0 && tries < 6) {
        // A light that missed offlineAfterMisses reads in a row is offline (writes to it answer `offline` at once)
        // until the discovery heartbeat hears it again: the user's retry comes once it is back.
        // One still offline after 6 s costs a try (its write answers `offline`), as the retry loop allows: not a failure here.
        await until(() => rig.service.views().every((v) => v.serial === hung || !pending.includes(v.serial) || v.online), { timeoutMs: 6000 }).catch(() => undefined);
        const again = await rig.write(pending.map((s) => `id:${s}`).join(','), want, pending, tally);
        pending = pending.filter((s) => again.get(s) !== 'ok');
        tries++;
      }
      report.push(`${line('30 % each way until done', tally)}, ${tries} tries`);
      expect(pending, `still not ok after ${tries} tries`).to.deep.equal([]);
      for (const s of rig.serials) {
        if (s !== hung) expect(shows(rig.fleet.light(s).state, want), s).to.equal(true);
      }
      expect(shows(rig.fleet.light(hung).state, want), 'the hung light changed nothing').to.equal(false);
    });
  });
});
