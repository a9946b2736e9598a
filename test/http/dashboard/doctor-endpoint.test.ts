// /api/doctor: the doctor's report over a running service, for the page's health panel and for scripts (a read
// token, or on an open server a request that is not from a browser). Virtual lights on loopback.

import { expect } from 'chai';
import { readlinkSync } from 'node:fs';
import type { DoctorReport } from '../../../core/index.js';
import { apiRig, contractFleet, DESK, type ApiRig } from '../helpers.js';

describe('dashboard: /api/doctor', function () {
  this.timeout(30_000);

  describe('with tokens', () => {
    let rig: ApiRig;
    before(async () => {
      rig = await apiRig(contractFleet(), { tokens: ['CTRL', 'READER:read'], dashboard: { liveRefresh: false } });
    });
    after(async () => rig.close());

    it('answers a read token with the report: interfaces, port, every light with its figures', async () => {
      const res = await rig.call({ method: 'GET', url: '/api/doctor', headers: { authorization: 'Bearer READER' } });
      expect(res.statusCode, res.body).to.equal(200);
      const report = res.json() as DoctorReport;
      expect(report.lights.map((l) => l.serial).sort()).to.deep.equal(contractFleet().lights.map((l) => l.serial).sort());
      expect(report.interfaces.some((i) => i.address === '127.0.0.1')).to.equal(true);
      // The port the lights are asked on (the fleet's, here): whether another program holds it.
      expect(report.port?.port).to.equal(rig.fleet.port);
      const desk = report.lights.find((l) => l.serial === DESK)!;
      expect(desk).to.include({ healthy: true, online: true, label: 'Desk', product: 'LIFX Color 800lm' });
      // Figures since the service started: the rig's first reads.
      expect(desk.requests).to.be.above(0);
      expect(desk.lossRate).to.equal(0);
      expect(report.probeCount).to.equal(0);
      expect(report.healthy).to.equal(true);
    });

    it('measures afresh with probeCount, bounded', async () => {
      const res = await rig.call({ method: 'GET', url: '/api/doctor?probeCount=5', headers: { authorization: 'Bearer READER' } });
      expect(res.statusCode).to.equal(200);
      const report = res.json() as DoctorReport;
      expect(report.probeCount).to.equal(5);
      for (const l of report.lights) {
        expect(l.requests, l.serial).to.be.at.least(5);
        expect(l.rttMedianMs, l.serial).to.be.a('number');
      }
      const tooMany = await rig.call({ method: 'GET', url: '/api/doctor?probeCount=51', headers: { authorization: 'Bearer READER' } });
      expect(tooMany.statusCode).to.equal(422);
      expect(tooMany.json().code).to.equal('PARAMETER_INVALID');
    });

    it('runs one measurement at a time: requests made during one get its report', async () => {
      const echoes = (): number => rig.fleet.lights.reduce((sum, l) => sum + l.receivedCount('EchoRequest'), 0);
      const before = echoes();
      const ask = (n: number) => rig.call({ method: 'GET', url: `/api/doctor?probeCount=${n}`, headers: { authorization: 'Bearer READER' } });
      const answers = await Promise.all([ask(5), ask(5), ask(3), ask(5)]);
      expect(answers.map((r) => r.statusCode)).to.deep.equal([200, 200, 200, 200]);
      const reports = answers.map((r) => r.json() as DoctorReport);
      expect(new Set(reports.map((r) => r.generatedAt)).size).to.equal(1);
      expect(reports.map((r) => r.probeCount)).to.deep.equal([5, 5, 5, 5]);
      // One measurement's echoes: 5 a light, not 18.
      expect(echoes() - before).to.equal(5 * rig.fleet.lights.length);
      // The next one measures afresh.
      expect(((await ask(3)).json() as DoctorReport).probeCount).to.equal(3);
      expect(echoes() - before).to.equal(8 * rig.fleet.lights.length);
    });

    it('names the holder of the lights\' port by process name only: a read token learns no command line (and no token on it)', async () => {
      // The fleet's port is held by this very process, whose command line the old report served in full (a server run
      // as `lightwire serve --virtual N --token SECRET` handed its control token to every read token).
      const res = await rig.call({ method: 'GET', url: '/api/doctor', headers: { authorization: 'Bearer READER' } });
      expect(res.statusCode).to.equal(200);
      const report = res.json() as DoctorReport;
      expect(report.port).to.include({ port: rig.fleet.port, bindable: false, heldByThisProcess: true });
      expect(report.port!.holders).to.deep.equal([{ pid: Number(readlinkSync('/proc/self')), command: 'this process' }]);
      expect(report.port!.detail).to.include('this process itself');
      for (const arg of process.argv.slice(1)) expect(res.body, arg).to.not.include(arg);
    });

    it('does not call a light lossy for the reads it missed while it was offline, once it is back', async () => {
      const desk = rig.fleet.light(DESK);
      const report = async (): Promise<DoctorReport> => (await rig.call({ method: 'GET', url: '/api/doctor', headers: { authorization: 'Bearer READER' } })).json() as DoctorReport;
      desk.setFaults({ offline: true });
      try {
        // Reads that go unanswered until the client calls it offline (three misses in a row).
        for (let i = 0; i < 10 && rig.client.registry.peek(DESK)?.online !== false; i++) await rig.client.refreshState(DESK, 400);
        expect(rig.client.registry.peek(DESK)?.online).to.equal(false);
        const down = (await report()).lights.find((l) => l.serial === DESK)!;
        expect(down).to.include({ healthy: false, kind: 'offline', online: false });
      } finally {
        desk.setFaults({ offline: false });
      }
      await rig.client.refreshState(DESK, 2000);
      expect(rig.client.registry.peek(DESK)?.online).to.equal(true);
      await rig.client.refreshState(DESK, 2000);
      const back = (await report()).lights.find((l) => l.serial === DESK)!;
      expect(back, JSON.stringify(back)).to.include({ healthy: true, kind: null, online: true });
      expect(back.lossRate).to.equal(0);
    });

    it('refuses no token, a wrong one, and a browser request from another origin', async () => {
      expect((await rig.call({ method: 'GET', url: '/api/doctor' })).statusCode).to.equal(401);
      expect((await rig.call({ method: 'GET', url: '/api/doctor', headers: { authorization: 'Bearer WRONG' } })).statusCode).to.equal(401);
      expect((await rig.call({ method: 'GET', url: '/api/doctor', headers: { origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' } })).statusCode).to.equal(401);
    });
  });

  describe('open server', () => {
    let rig: ApiRig;
    before(async () => {
      rig = await apiRig(contractFleet(), { dashboard: { liveRefresh: false } });
    });
    after(async () => rig.close());

    it('answers a script (no Origin, no Sec-Fetch-Site), as /v1 does', async () => {
      const res = await rig.call({ method: 'GET', url: '/api/doctor' });
      expect(res.statusCode).to.equal(200);
      expect((res.json() as DoctorReport).lights.length).to.equal(contractFleet().lights.length);
    });

    it('answers the page with its session and CSRF token, and nothing from a browser without them', async () => {
      const page = await rig.call({ method: 'GET', url: '/', headers: { 'sec-fetch-site': 'none' } });
      const cookie = String(page.headers['set-cookie']).split(';')[0]!;
      const csrf = /name="lightwire-csrf" content="([^"]+)"/.exec(page.body)![1]!;
      const ok = await rig.call({ method: 'GET', url: '/api/doctor', headers: { cookie, 'x-lightwire-csrf': csrf, 'sec-fetch-site': 'same-origin' } });
      expect(ok.statusCode).to.equal(200);
      const noToken = await rig.call({ method: 'GET', url: '/api/doctor', headers: { cookie, 'sec-fetch-site': 'same-origin' } });
      expect(noToken.statusCode).to.equal(403);
      const browser = await rig.call({ method: 'GET', url: '/api/doctor', headers: { 'sec-fetch-site': 'cross-site' } });
      expect(browser.statusCode).to.equal(401);
    });
  });
});
