// The doctor's judging, without a network: each cause from the observations that lead to it, the figures, the
// interface table, the /proc/net/udp parser and the text report.

import { expect } from 'chai';
import { buildReport, formatReport, judgeHost, judgeLight, median, percentile, type LightObservation } from '../../core/doctor/index.js';
import { hostInterfaces, maskSecrets, udpSocketInodes } from '../../core/doctor/network.js';

const A = { address: '10.0.0.5', port: 56700 };
const B = { address: '10.0.0.9', port: 56700 };

function obs(patch: Partial<LightObservation>): LightObservation {
  return {
    serial: 'd073d5000001', label: 'Desk', known: A, expectedAt: null, online: true,
    requests: 10, answered: 10, attempts: 10, lostAttempts: 0, retransmits: 0, timeouts: 0, rttMs: [3, 4, 5],
    broadcastAt: [A], unicastAnswered: true, signal: 'good', rssi: -50, product: 'LIFX Color', firmware: '3.70',
    uptimeS: 3600, lastSeenAt: 1_000, previousAddresses: [],
    ...patch,
  };
}

describe('doctor: judging observations', () => {
  it('a light answering everything is healthy', () => {
    expect(judgeLight(obs({}))).to.deep.equal({ healthy: true, kind: null, cause: null });
  });

  it('silent to requests but answering discovery: unresponsive', () => {
    const v = judgeLight(obs({ answered: 0, lostAttempts: 10, timeouts: 10, broadcastAt: [A], unicastAnswered: true }));
    expect(v).to.include({ healthy: false, kind: 'unresponsive' });
  });

  it('silent, and answering discovery at another address: moved', () => {
    const v = judgeLight(obs({ answered: 0, lostAttempts: 10, broadcastAt: [B], unicastAnswered: false }));
    expect(v).to.include({ healthy: false, kind: 'moved' });
    expect(v.cause).to.include('10.0.0.9:56700');
  });

  it('silent everywhere: offline, saying where it stopped answering', () => {
    const v = judgeLight(obs({ answered: 0, lostAttempts: 10, broadcastAt: [], unicastAnswered: false }));
    expect(v).to.include({ healthy: false, kind: 'offline' });
    expect(v.cause).to.include('10.0.0.5:56700').and.include('nor to broadcast');
  });

  it('offline in the client\'s eyes is not healthy, whatever it answered before (figures since the service started)', () => {
    // Answered 95 of 100 requests over the day, then its reads went unanswered: the client marked it offline.
    const v = judgeLight(obs({ online: false, attempts: 100, answered: 95, lostAttempts: 5, broadcastAt: [], unicastAnswered: null }));
    expect(v).to.include({ healthy: false, kind: 'offline' });
    const lossy = judgeLight(obs({ online: false, attempts: 40, answered: 30, lostAttempts: 10, broadcastAt: [], unicastAnswered: null }));
    expect(lossy.kind, 'a dead light is not called lossy').to.equal('offline');
  });

  it('never heard: missing, or unicast only when its address answers', () => {
    expect(judgeLight(obs({ known: null, online: false, requests: 0, answered: 0, attempts: 0, broadcastAt: [], unicastAnswered: null }))).to.include({ kind: 'missing' });
    const vlan = judgeLight(obs({ known: null, expectedAt: A, online: false, requests: 0, answered: 0, attempts: 0, broadcastAt: [], unicastAnswered: true }));
    expect(vlan).to.include({ healthy: false, kind: 'unicast_only' });
    const moved = judgeLight(obs({ known: null, expectedAt: A, online: false, requests: 0, answered: 0, attempts: 0, broadcastAt: [B], unicastAnswered: false }));
    expect(moved).to.include({ healthy: false, kind: 'moved' });
  });

  it('loss at or above 20 % is unhealthy, naming the signal', () => {
    expect(judgeLight(obs({ attempts: 100, lostAttempts: 19 })).healthy).to.equal(true);
    const v = judgeLight(obs({ attempts: 100, lostAttempts: 30, signal: 'somewhat bad', rssi: -75 }));
    expect(v).to.include({ healthy: false, kind: 'lossy' });
    expect(v.cause).to.include('30 %').and.include('somewhat bad, -75');
  });

  it('a static host: answers, wrong port, moved away, or nothing', () => {
    expect(judgeHost({ host: A, serials: ['d073d5000001'], otherPorts: [], movedAway: [] })).to.include({ answered: true, kind: null });
    expect(judgeHost({ host: A, serials: [], otherPorts: [{ port: 56701, serials: ['d073d5000001'] }], movedAway: [] }).kind).to.equal('wrong_port');
    expect(judgeHost({ host: A, serials: [], otherPorts: [], movedAway: [{ serial: 'd073d5000001', now: B }] }).cause).to.include('now answers at 10.0.0.9:56700');
    expect(judgeHost({ host: A, serials: [], otherPorts: [{ port: 1, serials: [] }], movedAway: [] }).kind).to.equal('no_reply');
  });

  it('figures: median and nearest-rank p99', () => {
    expect(median([])).to.equal(null);
    expect(median([5, 1, 3])).to.equal(3);
    expect(median([1, 2, 3, 4])).to.equal(2.5);
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 99)).to.equal(99);
    expect(percentile([7], 99)).to.equal(7);
  });

  it('reads the interface table and /proc/net/udp', () => {
    const table = hostInterfaces(
      {
        lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal: true, cidr: '127.0.0.1/8' }],
        eth0: [{ address: '192.168.1.20', netmask: '255.255.255.0', family: 'IPv4', mac: '02:00:00:00:00:01', internal: false, cidr: '192.168.1.20/24' }],
      },
      ['192.168.1.255'],
    );
    expect(table).to.deep.equal([
      { name: 'lo', address: '127.0.0.1', prefixBits: 8, broadcast: '127.255.255.255', internal: true, usedForDiscovery: false },
      { name: 'eth0', address: '192.168.1.20', prefixBits: 24, broadcast: '192.168.1.255', internal: false, usedForDiscovery: true },
    ]);
    const listing = [
      '   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops',
      '  132: 00000000:DD7C 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 41234 2 0000000000000000 0',
      '  133: 0100007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 555 2 0000000000000000 0',
    ].join('\n');
    expect(udpSocketInodes(listing, 56700)).to.deep.equal(['41234']);
    expect(udpSocketInodes(listing, 53)).to.deep.equal(['555']);
  });

  it('the report: verdict over the expected lights only, and a text form with every column', () => {
    const report = buildReport({
      startedAtMs: 0,
      endedAtMs: 1500,
      interfaces: [],
      discovery: { broadcastAddresses: ['192.168.1.255'], port: 56700, staticHosts: ['10.0.0.7:56700'] },
      port: { port: 56700, bindable: true, holders: [], detail: 'free: this machine can bind it' },
      probeCount: 20,
      lights: [obs({}), obs({ serial: 'd073d5000002', label: 'Porch', answered: 0, lostAttempts: 10, broadcastAt: [], unicastAnswered: false })],
      hosts: [{ host: { address: '10.0.0.7', port: 56700 }, serials: ['d073d5000001'], otherPorts: [], movedAway: [] }],
      expectCount: null,
      expectedSerials: new Set(['d073d5000001']),
    });
    expect(report.healthy).to.equal(true);
    expect(report.problems.map((p) => p.kind)).to.deep.equal(['offline']);
    expect(report.summary).to.equal('1 of 1 expected light healthy (1 other found), 1 of 1 static host answering; 1 problem');
    const text = formatReport(report, 1000 + 5000);
    for (const part of ['UDP 56700: free', 'RTT MED/P99', '4/5 ms', '0 %', 'good (-50)', '3.70', '1 h', '5 s ago', 'Problems', 'd073d5000002 "Porch": stopped answering', 'Healthy: ']) {
      expect(text).to.include(part);
    }
  });

  const reportOf = (patch: Partial<Parameters<typeof buildReport>[0]>): ReturnType<typeof buildReport> =>
    buildReport({
      startedAtMs: 0,
      endedAtMs: 1500,
      interfaces: [],
      discovery: { broadcastAddresses: ['192.168.1.255'], port: 56700, staticHosts: [] },
      port: null,
      probeCount: 20,
      lights: [],
      hosts: [],
      expectCount: null,
      expectedSerials: null,
      ...patch,
    });

  it('no light at all is not healthy: none_found, saying where it looked', () => {
    const report = reportOf({});
    expect(report.healthy).to.equal(false);
    expect(report.problems).to.have.length(1);
    expect(report.problems[0]).to.include({ subject: 'discovery', kind: 'none_found' });
    expect(report.problems[0]!.cause).to.include('192.168.1.255').and.include('port 56700');
    expect(formatReport(report)).to.match(/Unhealthy: 0 of 0 lights healthy; 1 problem/);
  });

  it('nothing answered while lights were expected by count: says where it looked as well, and how to learn which is missing', () => {
    const report = reportOf({ expectCount: 3 });
    expect(report.problems.map((p) => p.kind)).to.deep.equal(['too_few', 'none_found']);
    expect(report.problems[1]!.cause).to.include('192.168.1.255').and.include('firewall');
    expect(formatReport(report)).to.include('name it: --serial SERIAL[@IP]');
    // A light that answered (here by unicast only) is something: not none_found.
    const some = reportOf({ expectedSerials: new Set(['d073d5000001']), lights: [obs({ known: null, expectedAt: A, unicastAnswered: true, broadcastAt: [] })] });
    expect(some.problems.map((p) => p.kind)).to.deep.equal(['unicast_only']);
  });

  it('no route for discovery says what to give', () => {
    const report = reportOf({ discovery: { broadcastAddresses: [], port: 56700, staticHosts: [] } });
    expect(report.problems.map((p) => p.kind)).to.deep.equal(['no_discovery_route']);
    expect(report.problems[0]!.cause).to.include('--broadcast ADDR').and.include('--light IP');
  });

  it('masks secret-looking arguments of a command line', () => {
    expect(maskSecrets(['node', 'main.js', 'serve', '--token', 'T1', '--api-key=K', '--port', '3000', 'LIGHTWIRE_TOKENS=a b', 'https://u:p@h/x', '--light', '10.0.0.5'])).to.deep.equal([
      'node', 'main.js', 'serve', '--token', '***', '--api-key=***', '--port', '3000', 'LIGHTWIRE_TOKENS=***', 'https://u:***@h/x', '--light', '10.0.0.5',
    ]);
  });

  it('prints labels and causes escaped: a label cannot drive the terminal or forge a line', () => {
    const label = '\u001b[2J\u001b]0;t\u0007ok\r\nFAKE LINE healthy';
    const report = reportOf({ lights: [obs({ label }), obs({ serial: 'd073d5000002', label, answered: 0, lostAttempts: 10, broadcastAt: [], unicastAnswered: false })] });
    const text = formatReport(report);
    expect(text).to.not.match(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(text.split('\n').filter((l) => l.startsWith('FAKE'))).to.deep.equal([]);
    expect(text).to.include('\\x1b[2J\\x1b]0;t\\x07ok\\r\\nFAKE LINE healthy');
    // The JSON keeps the label as the light gave it.
    expect(report.lights[0]!.label).to.equal(label);
  });

  it('says why a healthy light is noted: answering at another address than expected', () => {
    const text = formatReport(reportOf({ lights: [obs({ expectedAt: B })], expectedSerials: new Set(['d073d5000001']) }));
    expect(text).to.match(/Notes\n {2}d073d5000001 "Desk": seen on another address: answers at 10\.0\.0\.5:56700, not at 10\.0\.0\.9:56700/);
  });
});
