// The network doctor against virtual fleets with faults, all on loopback: a light at 30 % loss, an unresponsive
// light, a static host with nothing behind it, a wrong port, a light only reachable by unicast (another "VLAN":
// a second fleet on a port the broadcast does not reach), exit codes of `lightwire doctor`, and its run time on
// 100 lights.

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, readlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COMMANDS } from '../../core/cli/commands.js';
import { runDoctor, type DoctorReport, type LightHealth } from '../../core/index.js';
import { checkPort } from '../../core/doctor/network.js';
import { defaultFleet, Fleet, type DefaultFleet } from '../../core/simulator/index.js';
import { captureIO } from '../helpers/cli-io.js';

const BROADCAST = '127.255.255.255';
// The fleets' shared listeners bind the broadcast address, not 0.0.0.0: on 0.0.0.0 any 127.x.y.z at the fleet's
// port would reach it, and an empty "static host" would answer for the whole fleet.

/** A small deterministic generator (mulberry32) for the fleet's loss draws. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function light(report: DoctorReport, serial: string): LightHealth {
  const found = report.lights.find((l) => l.serial === serial);
  if (found === undefined) throw new Error(`${serial} is not in the report: ${report.lights.map((l) => l.serial).join(', ')}`);
  return found;
}

describe('network doctor against faulty fleets', function () {
  this.timeout(60_000);

  describe('a fleet with a lossy light and an unresponsive one', () => {
    let fleet: Fleet;
    let input: DefaultFleet;
    let report: DoctorReport;
    let runMs: number;
    const LOSSY = 'd073d5000002';
    const MUTE = 'd073d5000003';

    before(async () => {
      input = defaultFleet(5);
      (input.lights[1] as { faults?: object }).faults = { lossProbability: 0.3 };
      (input.lights[2] as { faults?: object }).faults = { unresponsive: true };
      fleet = new Fleet(input, { port: 0, random: seeded(7), listenAddress: BROADCAST });
      await fleet.start();
      const started = Date.now();
      report = await runDoctor({
        broadcastAddresses: [BROADCAST],
        port: fleet.port,
        staticHosts: ['127.0.0.99', '127.0.0.2:9'],
        expectCount: 5,
        waitMs: 5000,
        probeCount: 100,
        checkPort: false,
      });
      runMs = Date.now() - started;
    });
    after(async () => fleet.stop());

    it('measures the lossy light within a few points of its 30 % loss, and of what the light really dropped', () => {
      const l = light(report, LOSSY);
      const v = fleet.light(LOSSY);
      const dropped = v.stats.lost / (v.stats.lost + v.receivedTotal);
      console.log(`      measured loss ${(l.lossRate! * 100).toFixed(1)} % (the light dropped ${(dropped * 100).toFixed(1)} % of all it was sent); ${l.retransmits} retransmissions; doctor ran ${runMs} ms`);
      expect(l.lossRate).to.be.closeTo(0.3, 0.06);
      expect(l.lossRate).to.be.closeTo(dropped, 0.05);
      expect(l.retransmits).to.be.above(20);
      expect(l.healthy).to.equal(false);
      expect(l.kind).to.equal('lossy');
      expect(l.cause).to.match(/loses \d+ % of transmissions/);
    });

    it('gives healthy lights round trips (median, p99), no loss, signal band, firmware, uptime, last seen', () => {
      const l = light(report, 'd073d5000001');
      expect(l.healthy).to.equal(true);
      expect(l.lossRate).to.equal(0);
      expect(l.retransmits).to.equal(0);
      expect(l.rttMedianMs).to.be.a('number').and.be.at.least(0).and.below(50);
      expect(l.rttP99Ms).to.be.at.least(l.rttMedianMs!);
      expect(l.signal).to.be.oneOf(['good', 'alright', 'somewhat bad', 'very bad', 'none']);
      expect(l.firmware).to.equal('3.70');
      expect(l.uptimeS).to.be.a('number');
      expect(l.lastSeenAt).to.be.closeTo(Date.now(), 60_000);
      expect(l.address).to.equal(`127.0.0.2:${fleet.port}`);
      expect(l.addressChanges).to.equal(0);
    });

    it('names the unresponsive light: answers discovery but not requests', () => {
      const l = light(report, MUTE);
      expect(l.healthy).to.equal(false);
      expect(l.kind).to.equal('unresponsive');
      expect(l.cause).to.include('answers discovery (GetService) but not requests');
      expect(report.problems.some((p) => p.subject.startsWith(MUTE) && p.kind === 'unresponsive')).to.equal(true);
    });

    it('names the static host with nothing behind it, and the one configured on the wrong port', () => {
      const empty = report.staticHosts.find((h) => h.host === `127.0.0.99:${fleet.port}`)!;
      expect(empty).to.include({ answered: false, kind: 'no_reply' });
      expect(empty.cause).to.include('no reply on unicast');
      const wrong = report.staticHosts.find((h) => h.host === '127.0.0.2:9')!;
      expect(wrong).to.include({ answered: false, kind: 'wrong_port' });
      expect(wrong.cause).to.include(`answers on port ${fleet.port}`);
      expect(report.problems.map((p) => p.subject)).to.include.members([`static host 127.0.0.99:${fleet.port}`, 'static host 127.0.0.2:9']);
    });

    it('reports the interfaces, which one discovery uses, and is unhealthy overall', () => {
      const lo = report.interfaces.find((i) => i.address === '127.0.0.1')!;
      expect(lo).to.include({ broadcast: BROADCAST, prefixBits: 8, usedForDiscovery: true });
      expect(report.healthy).to.equal(false);
      // Lossy, unresponsive, two static hosts, and 4 of the 5 expected lights answering.
      expect(report.summary).to.match(/^3 of 5 lights healthy, 0 of 2 static hosts answering; 5 problems$/);
      expect(report.problems.find((p) => p.kind === 'too_few')?.cause).to.equal('4 of 5 expected lights answered');
    });
  });

  describe('a light on another "VLAN" (only unicast reaches it)', () => {
    let home: Fleet;
    let vlan: Fleet;
    before(async () => {
      home = new Fleet(defaultFleet(2), { port: 0, listenAddress: BROADCAST });
      const other = defaultFleet(3);
      vlan = new Fleet({ lights: [{ ...other.lights[2]!, serial: 'd073d5000099', label: 'Garage' }] }, { port: 0, baseAddress: '127.0.1.2', listenAddress: BROADCAST });
      await Promise.all([home.start(), vlan.start()]);
    });
    after(async () => Promise.all([home.stop(), vlan.stop()]));

    it('an expected light that answers unicast at its address but not the broadcast is named as such', async () => {
      const report = await runDoctor({ broadcastAddresses: [BROADCAST], port: home.port, expect: [`d073d5000099@127.0.1.2:${vlan.port}`], waitMs: 1500, probeCount: 5, checkPort: false });
      const l = light(report, 'd073d5000099');
      expect(l.healthy).to.equal(false);
      expect(l.kind).to.equal('unicast_only');
      expect(l.cause).to.include('replies to unicast').and.include('not to broadcast');
      expect(report.healthy).to.equal(false);
    });

    it('as a static host it is healthy, and the report says it only answers unicast', async () => {
      const report = await runDoctor({ broadcastAddresses: [BROADCAST], port: home.port, staticHosts: [`127.0.1.2:${vlan.port}`], expectCount: 3, waitMs: 3000, probeCount: 5, checkPort: false });
      const l = light(report, 'd073d5000099');
      expect(l.healthy).to.equal(true);
      expect(l.kind).to.equal('unicast_only');
      expect(report.staticHosts[0]).to.include({ answered: true });
      expect(report.healthy).to.equal(true);
    });

    it('an expected light gone from everywhere is missing; one expected at an old address is seen at its new one', async () => {
      const report = await runDoctor({
        broadcastAddresses: [BROADCAST],
        port: home.port,
        expect: ['d073d50000aa@127.0.0.77', `d073d5000001@127.0.0.50`],
        waitMs: 1500,
        probeCount: 5,
        checkPort: false,
      });
      const gone = light(report, 'd073d50000aa');
      expect(gone).to.include({ healthy: false, kind: 'missing', online: false });
      expect(gone.cause).to.include(`no reply on unicast at 127.0.0.77:${home.port} nor to broadcast`);
      const moved = light(report, 'd073d5000001');
      expect(moved).to.include({ healthy: true, kind: 'moved' });
      expect(moved.cause).to.include(`answers at 127.0.0.2:${home.port}, not at 127.0.0.50:${home.port}`);
    });
  });

  describe('lightwire doctor', () => {
    let fleet: Fleet;
    before(async () => {
      const input = defaultFleet(3);
      (input.lights[2] as { faults?: object }).faults = { unresponsive: true };
      fleet = new Fleet(input, { port: 0, listenAddress: BROADCAST });
      await fleet.start();
    });
    after(async () => fleet.stop());

    const doctor = (args: string[]) => {
      const command = COMMANDS.find((c) => c.name === 'doctor');
      if (command === undefined) throw new Error('lightwire doctor is not a registered command');
      const io = captureIO();
      return command.run([...args, '--broadcast', BROADCAST, '--lan-port', String(fleet.port), '--probes', '5'], io).then((code) => ({ code, io }));
    };

    it('exits 0 when every expected light is healthy, and prints the table', async () => {
      const { code, io } = await doctor(['--serial', 'd073d5000001', '--serial', 'd073d5000002', '--wait-ms', '3000']);
      expect(code, io.out()).to.equal(0);
      // The unresponsive third light is reported, but was not asked about.
      expect(io.out()).to.include('d073d5000003').and.include('unresponsive');
      expect(io.out()).to.include('Network').and.include('RTT MED/P99').and.include('d073d5000001').and.include('Healthy: ');
    });

    it('exits 1 when a light is unhealthy, naming the cause; --json gives the report', async () => {
      const { code, io } = await doctor(['--expect', '3', '--json']);
      expect(code, io.err()).to.equal(1);
      const report = JSON.parse(io.out()) as DoctorReport;
      expect(report.healthy).to.equal(false);
      expect(light(report, 'd073d5000003').kind).to.equal('unresponsive');
    });

    it('exits 1 when a static host is silent, and 2 for a bad flag', async () => {
      const silent = await doctor(['--light', '127.0.0.99', '--expect', '2']);
      expect(silent.code).to.equal(1);
      expect(silent.io.out()).to.include('static host 127.0.0.99').and.include('no reply on unicast');
      const bad = await doctor(['--serial', 'nope']);
      expect(bad.code).to.equal(2);
      expect(bad.io.err()).to.include('--serial');
    });
  });

  it('runs on 100 lights in a few seconds, all healthy', async () => {
    const fleet = new Fleet(defaultFleet(100), { port: 0, listenAddress: BROADCAST });
    await fleet.start();
    try {
      const started = Date.now();
      const report = await runDoctor({ broadcastAddresses: [BROADCAST], port: fleet.port, expectCount: 100, waitMs: 10_000, probeCount: 20 });
      const ms = Date.now() - started;
      console.log(`      doctor on 100 lights: ${ms} ms (${report.summary})`);
      expect(report.lights.length).to.equal(100);
      expect(report.lights.filter((l) => !l.healthy).map((l) => `${l.serial}: ${l.cause}`)).to.deep.equal([]);
      expect(report.healthy).to.equal(true);
      expect(ms).to.be.below(15_000);
    } finally {
      await fleet.stop();
    }
  });

  describe('UDP port 56700', () => {
    it('is free, or held by a process the doctor names', async () => {
      const free = await checkPort(56700);
      expect(free).to.include({ port: 56700, bindable: true });
      const holder = createSocket({ type: 'udp4' });
      await new Promise<void>((resolve) => holder.bind({ port: 56700, address: '0.0.0.0', exclusive: true }, resolve));
      try {
        const taken = await checkPort(56700);
        expect(taken.bindable).to.equal(false);
        const self = Number(readlinkSync('/proc/self'));
        expect(taken.holders.map((h) => h.pid)).to.include(self);
        expect(taken.detail).to.include(`pid ${self}`);
      } finally {
        await new Promise<void>((resolve) => holder.close(() => resolve()));
      }
    });

    it('names another program holding it with its secrets masked, or (over HTTP) by its name alone', async () => {
      // Another program holds a UDP port, with a token on its command line (as `lightwire serve --token T` has).
      const script = path.join(mkdtempSync(path.join(os.tmpdir(), 'lw-holder-')), 'h.js');
      writeFileSync(script, "const s = require('node:dgram').createSocket('udp4'); s.bind({ port: 0, address: '0.0.0.0', exclusive: true }, () => console.log(s.address().port));");
      const child = spawn(process.execPath, [script, '--token', 'SECRET-ONE', '--password=SECRET-TWO', 'http://user:SECRET-THREE@host/'], { argv0: 'node', stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        const port = await new Promise<number>((resolve, reject) => {
          child.stdout.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim())));
          child.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
        });
        const masked = await checkPort(port);
        expect(masked).to.include({ bindable: false, heldByThisProcess: false });
        const line = masked.holders.find((h) => h.pid !== Number(readlinkSync('/proc/self')))?.command ?? '';
        expect(line).to.include('--token ***').and.include('--password=***').and.include('http://user:***@host/');
        expect(JSON.stringify(masked)).to.not.include('SECRET');
        const named = await checkPort(port, { commands: 'name' });
        expect(named.holders.map((h) => h.command)).to.deep.equal(['node']);
        expect(named.detail).to.include('(node)').and.not.include('SECRET');
      } finally {
        child.kill();
      }
    });
  });
});
