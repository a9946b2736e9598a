import { expect } from 'chai';
import sinon from 'sinon';
import { LightClient } from '../../core/discovery/client.js';
import { encode } from '../../core/protocol/index.js';
import { MemoryEndpoint } from '../helpers/memory-endpoint.js';

/** Lights that answer every read (state and facts) 1 ms later, except GetColor while `silent()` says so. */
function answerReads(endpoint: MemoryEndpoint, silent: () => boolean = () => false): void {
  endpoint.respond = (packet, to) => {
    const serial = packet.header.target;
    const answer = (): void => {
      switch (packet.name) {
        case 'GetColor':
          if (silent()) return undefined;
          return endpoint.reply(packet, serial, 'LightState', { color: { hue: 0, saturation: 0, brightness: 65535, kelvin: 3500 }, power: 65535, label: 'x' }, to);
        case 'GetVersion':
          return endpoint.reply(packet, serial, 'StateVersion', { vendor: 1, product: 27 }, to);
        case 'GetHostFirmware':
          return endpoint.reply(packet, serial, 'StateHostFirmware', { buildNs: 0n, versionMinor: 80, versionMajor: 3 }, to);
        case 'GetGroup':
          return endpoint.reply(packet, serial, 'StateGroup', { group: 'ab'.repeat(16), label: 'Room', updatedAtNs: 1n }, to);
        case 'GetLocation':
          return endpoint.reply(packet, serial, 'StateLocation', { location: 'cd'.repeat(16), label: 'Home', updatedAtNs: 1n }, to);
        case 'GetWifiInfo':
          return endpoint.reply(packet, serial, 'StateWifiInfo', { signal: 1e-5 }, to);
        case 'GetInfo':
          return endpoint.reply(packet, serial, 'StateInfo', { timeNs: 0n, uptimeNs: 1n, downtimeNs: 0n }, to);
        default:
          return undefined;
      }
    };
    setTimeout(answer, 1);
  };
}

/** Announces lights d073d5000001.. at 127.0.1.N, as answers to the client's first broadcast. */
function announce(endpoint: MemoryEndpoint, count: number): string[] {
  const { source, sequence } = endpoint.sentOf('GetService')[0]!.packet.header;
  return Array.from({ length: count }, (_, k) => {
    const serial = `d073d5${(k + 1).toString(16).padStart(6, '0')}`;
    endpoint.deliverRaw(encode({ name: 'StateService', header: { source, sequence, target: serial }, payload: { service: 1, port: 56700 } }), {
      address: `127.0.1.${k + 1}`,
      port: 56700,
    });
    return serial;
  });
}

describe('LightClient broadcast schedule (fake timers)', () => {
  let clock: sinon.SinonFakeTimers;
  beforeEach(() => {
    clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
  });
  afterEach(() => clock.restore());

  it('broadcasts a burst at start, then a slow heartbeat, to every configured address', async () => {
    const client = new LightClient({
      discovery: {
        broadcastAddresses: ['127.255.255.255', '127.0.255.255'],
        burstScheduleMs: [0, 600, 1800, 3600],
        heartbeatMs: 10_000,
        refreshIntervalMs: 0,
      },
    });
    const endpoint = new MemoryEndpoint();
    await client.start(endpoint);
    await clock.tickAsync(25_000);
    const broadcasts = endpoint.sentOf('GetService');
    const to127 = broadcasts.filter((b) => b.to.address === '127.255.255.255');
    expect(to127.map((b) => b.atMs)).to.deep.equal([0, 600, 1800, 3600, 13_600, 23_600]);
    expect(broadcasts.filter((b) => b.to.address === '127.0.255.255')).to.have.length(6);
    expect(to127.every((b) => b.packet.header.tagged && b.to.port === 56700)).to.equal(true);
    await client.stop();
    expect(clock.countTimers()).to.equal(0);
    expect(endpoint.closed).to.equal(true);
  });

  it('keeps only UDP services with a port, and uses the port the light reports', async () => {
    const client = new LightClient({ discovery: { broadcastAddresses: ['127.255.255.255'], refreshIntervalMs: 0 } });
    const endpoint = new MemoryEndpoint();
    await client.start(endpoint);
    await clock.tickAsync(1);
    const { source, sequence } = endpoint.sentOf('GetService')[0]!.packet.header;
    const reply = (serial: string, service: number, port: number): Buffer =>
      encode({ name: 'StateService', header: { source, sequence, target: serial }, payload: { service, port } });
    endpoint.deliverRaw(reply('d073d5000001', 5, 56700), { address: '127.0.0.2', port: 56700 });
    endpoint.deliverRaw(reply('d073d5000001', 1, 0), { address: '127.0.0.2', port: 56700 });
    expect(client.lights()).to.have.length(0);
    endpoint.deliverRaw(reply('d073d5000001', 1, 56701), { address: '127.0.0.2', port: 56700 });
    expect(client.lights().map((l) => [l.serial, l.address, l.port])).to.deep.equal([['d073d5000001', '127.0.0.2', 56701]]);
    await client.stop();
  });

  it('spreads background reads over the fleet instead of reading every light at once', async () => {
    const client = new LightClient({ discovery: { broadcastAddresses: ['127.255.255.255'], refreshIntervalMs: 10_000, burstScheduleMs: [0] } });
    const endpoint = new MemoryEndpoint();
    // Every light answers every read (its state and its facts), so only first transmissions are counted, and every
    // first read is over within milliseconds: a light whose facts went unanswered would hold its first-read slot
    // until they time out, and the lights behind it would be first read (not refreshed) in batches seconds later.
    answerReads(endpoint);
    await client.start(endpoint);
    await clock.tickAsync(1);
    const { source, sequence } = endpoint.sentOf('GetService')[0]!.packet.header;
    for (let i = 1; i <= 40; i++) {
      const serial = `d073d5${i.toString(16).padStart(6, '0')}`;
      endpoint.deliverRaw(encode({ name: 'StateService', header: { source, sequence, target: serial }, payload: { service: 1, port: 56700 } }), {
        address: `127.0.1.${i}`,
        port: 56700,
      });
    }
    await clock.tickAsync(30_000);
    // Every first read was over at once; the reads from 10 s on are background refreshes.
    expect(endpoint.sentOf('GetColor').filter((s) => s.atMs < 10_000).every((s) => s.atMs < 100)).to.equal(true);
    const reads = endpoint.sentOf('GetColor').filter((s) => s.atMs >= 10_000).map((s) => s.atMs);
    // Every light is read again in the 10-20 s window, but not all in the same instant.
    expect(reads.length).to.be.at.least(40);
    const perSecond = new Map<number, number>();
    for (const t of reads) perSecond.set(Math.floor(t / 1000), (perSecond.get(Math.floor(t / 1000)) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).to.be.below(20);
    await client.stop();
    expect(clock.countTimers()).to.equal(0);
  });
  it('refreshes each light on its interval, and takes one offline after offlineAfterMisses unanswered reads and back at the next answer', async () => {
    const REFRESH_MS = 10_000;
    const READ_TIMEOUT_MS = 1000;
    const client = new LightClient({
      discovery: { broadcastAddresses: ['127.255.255.255'], burstScheduleMs: [0], refreshIntervalMs: REFRESH_MS, readTimeoutMs: READ_TIMEOUT_MS, offlineAfterMisses: 2 },
    });
    const endpoint = new MemoryEndpoint();
    let silent = false;
    answerReads(endpoint, () => silent);
    const events: [string, number][] = [];
    client.on('offline', () => events.push(['offline', Date.now()]));
    client.on('online', () => events.push(['online', Date.now()]));
    await client.start(endpoint);
    await clock.tickAsync(1);
    const [serial] = announce(endpoint, 1);
    await clock.tickAsync(REFRESH_MS * 3);
    // Read first at once, then about once per interval (jitter spreads the reads; none comes twice as fast).
    const reads = [...new Set(endpoint.sentOf('GetColor').map((s) => s.atMs))];
    expect(reads[0]).to.be.below(100);
    expect(reads.length).to.be.within(3, 4);
    for (let i = 1; i < reads.length; i++) expect(reads[i]! - reads[i - 1]!, `gap ${i}`).to.be.within(REFRESH_MS / 2, REFRESH_MS * 2);
    expect(client.registry.get(serial!)!.online).to.equal(true);

    silent = true;
    const quietFrom = Date.now();
    await clock.tickAsync(REFRESH_MS * 5);
    const offline = events.find(([e]) => e === 'offline');
    expect(offline, 'an offline event').to.not.equal(undefined);
    // Two reads (each its own request, retransmitted within it) went unanswered before the light was called offline.
    const missed = new Set(endpoint.sentOf('GetColor').filter((s) => s.atMs >= quietFrom && s.atMs <= offline![1]).map((s) => s.packet.header.sequence));
    expect(missed.size).to.equal(2);
    expect(client.registry.get(serial!)!.online).to.equal(false);

    silent = false;
    const backFrom = Date.now();
    await clock.tickAsync(REFRESH_MS * 3);
    const online = events.find(([e, at]) => e === 'online' && at >= backFrom);
    expect(online, 'an online event').to.not.equal(undefined);
    expect(online![1] - backFrom).to.be.below(REFRESH_MS * 2 + READ_TIMEOUT_MS);
    expect(client.registry.get(serial!)!.online).to.equal(true);
    await client.stop();
    expect(clock.countTimers()).to.equal(0);
  });
});
