import { expect } from 'chai';
import sinon from 'sinon';
import { isLightwireError } from '../../core/errors.js';
import { encode, type KnownPacket } from '../../core/protocol/index.js';
import { transportOptions } from '../../core/transport/options.js';
import { Requester } from '../../core/transport/requester.js';
import { MemoryEndpoint } from '../helpers/memory-endpoint.js';

const LIGHT = { serial: 'd073d5000001', address: '127.0.0.2', port: 56700 };
const FROM = { address: LIGHT.address, port: LIGHT.port };
const RED = { hue: 0, saturation: 65535, brightness: 65535, kelvin: 3500 };
const lightState = { color: RED, power: 65535, label: 'Kitchen' };

describe('Requester', () => {
  let clock: sinon.SinonFakeTimers;
  let endpoint: MemoryEndpoint;
  let requester: Requester;

  beforeEach(() => {
    clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
    endpoint = new MemoryEndpoint();
    requester = new Requester(endpoint, transportOptions({ requestTimeoutMs: 5000 }));
  });

  afterEach(() => {
    requester.close();
    clock.restore();
  });

  it('uses a random non-zero source and puts it in every request', async () => {
    expect(requester.source).to.be.greaterThan(0).and.lessThan(2 ** 32);
    const p = requester.get(LIGHT, 'GetColor', {});
    await clock.tickAsync(0);
    expect(endpoint.sent[0]!.packet.header.source).to.equal(requester.source);
    expect(endpoint.sent[0]!.packet.header.target).to.equal(LIGHT.serial);
    endpoint.reply(endpoint.sent[0]!.packet, LIGHT.serial, 'LightState', lightState, FROM);
    expect((await p).name).to.equal('LightState');
  });

  it('times every request in flight on one timer, and leaves none once they have settled', async () => {
    const lights = Array.from({ length: 20 }, (_, i) => ({ ...LIGHT, serial: `d073d50001${String(i).padStart(2, '0')}` }));
    const reads = lights.map((light) => requester.get(light, 'GetColor', {}));
    await clock.tickAsync(0);
    expect(endpoint.sent).to.have.length(20);
    expect(clock.countTimers()).to.equal(1);
    for (const s of endpoint.sent) endpoint.reply(s.packet, s.packet.header.target, 'LightState', lightState, FROM);
    expect((await Promise.all(reads)).every((r) => r.name === 'LightState')).to.equal(true);
    expect(clock.countTimers()).to.equal(0);
  });

  it('sends a request asked `once` a single time and gives up at its deadline (a capability probe)', async () => {
    const p = requester.get(LIGHT, 'GetHevCycle', {}, { timeoutMs: 1000, once: true });
    const outcome = p.then(() => 'resolved', (err: unknown) => err);
    await clock.tickAsync(1000);
    expect(isLightwireError(await outcome, 'REQUEST_TIMED_OUT')).to.equal(true);
    expect(endpoint.sent.map((s) => s.atMs)).to.deep.equal([0]);
    expect(requester.stats.retransmits).to.equal(0);
  });

  it('retransmits on an escalating schedule starting at 200 ms and gives up at the deadline', async () => {
    const p = requester.get(LIGHT, 'GetColor', {}, { timeoutMs: 3000 });
    const outcome = p.then(() => 'resolved', (err: unknown) => err);
    await clock.tickAsync(3000);
    const err = await outcome;
    expect(isLightwireError(err, 'REQUEST_TIMED_OUT')).to.equal(true);
    const times = endpoint.sent.map((s) => s.atMs);
    // 0, +200, +300, +400, +600, +800 (then +1000 would be 3300 > deadline).
    expect(times).to.deep.equal([0, 200, 500, 900, 1500, 2300]);
    expect(new Set(endpoint.sent.map((s) => s.packet.header.sequence)).size).to.equal(1);
    await clock.tickAsync(5000);
    expect(endpoint.sent).to.have.length(6);
    expect(clock.countTimers()).to.equal(0);
  });

  it('retransmits the very bytes it sent first, though a request in flight keeps no datagram', async () => {
    const p = requester.get(LIGHT, 'GetColorZones', { startIndex: 2, endIndex: 9 }, { timeoutMs: 1000 });
    const outcome = p.then(() => 'resolved', (err: unknown) => err);
    await clock.tickAsync(1000);
    expect(isLightwireError(await outcome, 'REQUEST_TIMED_OUT')).to.equal(true);
    expect(endpoint.sent.length).to.be.greaterThan(2);
    for (const s of endpoint.sent) expect(s.bytes.equals(endpoint.sent[0]!.bytes)).to.equal(true);
    expect(endpoint.sent[0]!.packet.payload).to.deep.equal({ startIndex: 2, endIndex: 9 });
  });

  it('getEach: asks several Gets at once and resolves once with each reply or error, in the order asked', async () => {
    const each = requester.getEach(LIGHT, ['GetLabel', 'GetPower', 'GetVersion', 'GetInfrared'], { timeoutMs: 1000 });
    let settled = false;
    void each.then(() => (settled = true));
    await clock.tickAsync(0);
    expect(endpoint.sent.map((s) => s.packet.name)).to.deep.equal(['GetLabel', 'GetPower', 'GetVersion', 'GetInfrared']);
    const asked = (name: string) => endpoint.sent.find((s) => s.packet.name === name)!.packet;
    // Answered out of order; GetVersion is left unanswered, GetInfrared is not supported.
    endpoint.reply(asked('GetPower'), LIGHT.serial, 'StatePower', { level: 65535 }, FROM);
    endpoint.reply(asked('GetInfrared'), LIGHT.serial, 'StateUnhandled', { unhandledType: 120 }, FROM);
    endpoint.reply(asked('GetLabel'), LIGHT.serial, 'StateLabel', { label: 'Porch' }, FROM);
    await clock.tickAsync(500);
    expect(settled).to.equal(false);
    await clock.tickAsync(500);
    const [label, power, version, infrared] = await each;
    expect(label).to.include({ name: 'StateLabel' });
    expect(label instanceof Error || label!.name !== 'StateLabel' ? undefined : label!.payload.label).to.equal('Porch');
    expect(power instanceof Error ? power : power!.name).to.equal('StatePower');
    expect(isLightwireError(version, 'REQUEST_TIMED_OUT')).to.equal(true);
    expect(isLightwireError(infrared, 'UNHANDLED_BY_DEVICE')).to.equal(true);
    expect(requester.lightStats(LIGHT.serial)).to.include({ requests: 4, answered: 3, timeouts: 1 });
    expect(clock.countTimers()).to.equal(0);
  });

  it('getEach: waits for the light\'s unacknowledged Set, answers an empty list at once, and says CLIENT_STOPPED once closed', async () => {
    expect(await requester.getEach(LIGHT, [])).to.deep.equal([]);
    const set = requester.set(LIGHT, 'SetColor', { color: RED, durationMs: 0 });
    const each = requester.getEach(LIGHT, ['GetColor', 'GetLabel']);
    await clock.tickAsync(100);
    expect(endpoint.sent.map((s) => s.packet.name)).to.deep.equal(['SetColor']);
    endpoint.reply(endpoint.sent[0]!.packet, LIGHT.serial, 'Acknowledgement', {}, FROM);
    await set;
    await clock.tickAsync(0);
    expect(endpoint.sent.map((s) => s.packet.name)).to.deep.equal(['SetColor', 'GetColor', 'GetLabel']);
    endpoint.reply(endpoint.sentOf('GetColor')[0]!.packet, LIGHT.serial, 'LightState', lightState, FROM);
    requester.close();
    const [color, label] = await each;
    expect(color instanceof Error ? color : color!.name).to.equal('LightState');
    expect(isLightwireError(label, 'REQUEST_CANCELLED')).to.equal(true);
    const after = await requester.getEach(LIGHT, ['GetPower']);
    expect(isLightwireError(after[0], 'CLIENT_STOPPED')).to.equal(true);
  });

  it('stops retransmitting once the reply arrives', async () => {
    const p = requester.get(LIGHT, 'GetColor', {});
    await clock.tickAsync(250);
    expect(endpoint.sent).to.have.length(2);
    endpoint.reply(endpoint.sent[1]!.packet, LIGHT.serial, 'LightState', lightState, FROM);
    const reply = await p;
    expect(reply.name === 'LightState' && reply.payload.label).to.equal('Kitchen');
    await clock.tickAsync(5000);
    expect(endpoint.sent).to.have.length(2);
  });

  it('resolves a Set on its acknowledgement and asks for ack only', async () => {
    const p = requester.set(LIGHT, 'SetColor', { color: RED, durationMs: 0 });
    await clock.tickAsync(0);
    const sent = endpoint.sent[0]!.packet;
    expect(sent.header.ackRequired).to.equal(true);
    expect(sent.header.resRequired).to.equal(false);
    endpoint.reply(sent, LIGHT.serial, 'Acknowledgement', {}, FROM);
    const result = await p;
    expect(result).to.include({ acked: true, superseded: false, attempts: 1 });
  });

  it('waits for both the ack and the state reply when both are asked for', async () => {
    const p = requester.set(LIGHT, 'SetColor', { color: RED, durationMs: 0 }, { withReply: true });
    let settled = false;
    void p.then(() => (settled = true));
    await clock.tickAsync(0);
    const sent = endpoint.sent[0]!.packet;
    expect(sent.header.resRequired).to.equal(true);
    endpoint.reply(sent, LIGHT.serial, 'Acknowledgement', {}, FROM);
    await clock.tickAsync(0);
    expect(settled).to.equal(false);
    endpoint.reply(sent, LIGHT.serial, 'LightState', lightState, FROM);
    const result = await p;
    expect(result.acked).to.equal(true);
    expect(result.reply?.name).to.equal('LightState');
  });

  it('matches replies on the target: a reply from another serial with the same sequence is ignored', async () => {
    const p = requester.get(LIGHT, 'GetColor', {}, { timeoutMs: 1000 });
    const outcome = p.then(() => 'resolved', (err: unknown) => err);
    await clock.tickAsync(0);
    endpoint.reply(endpoint.sent[0]!.packet, 'd073d5999999', 'LightState', lightState, { address: '127.0.0.9', port: 56700 });
    await clock.tickAsync(1000);
    expect(isLightwireError(await outcome, 'REQUEST_TIMED_OUT')).to.equal(true);
    expect(requester.stats.unmatched).to.equal(1);
  });

  it('takes a reply only from the address the request went to: another host cannot answer for the light', async () => {
    const p = requester.get(LIGHT, 'GetColor', {}, { timeoutMs: 1000 });
    let settled: unknown;
    void p.then((r) => (settled = r), (err: unknown) => (settled = err));
    await clock.tickAsync(0);
    const sent = endpoint.sent[0]!.packet;
    // Right source, sequence and target, from 127.0.0.50: a forgery, counted and ignored.
    endpoint.reply(sent, LIGHT.serial, 'LightState', { ...lightState, label: 'HACKED' }, { address: '127.0.0.50', port: 56700 });
    endpoint.reply(sent, LIGHT.serial, 'Acknowledgement', {}, { address: '127.0.0.50', port: 56700 });
    await clock.tickAsync(0);
    expect(settled).to.equal(undefined);
    expect(requester.stats.unmatched).to.equal(2);
    endpoint.reply(sent, LIGHT.serial, 'LightState', lightState, FROM);
    const reply = await p;
    expect(reply.name === 'LightState' && reply.payload.label).to.equal('Kitchen');
  });

  it("counts another client's datagrams as foreign and never matches them to a request", async () => {
    const p = requester.get(LIGHT, 'GetColor', {}, { timeoutMs: 1000 });
    let settled: unknown;
    void p.then((r) => (settled = r), (err: unknown) => (settled = err));
    await clock.tickAsync(0);
    const sent = endpoint.sent[0]!.packet;
    // Same sequence and target, from the light's own address, but another client's source.
    const other = encode({ name: 'LightState', header: { source: (requester.source ^ 1) >>> 0 || 2, sequence: sent.header.sequence, target: LIGHT.serial }, payload: lightState });
    endpoint.deliverRaw(other, FROM);
    await clock.tickAsync(0);
    expect(settled).to.equal(undefined);
    expect(requester.stats).to.include({ foreign: 1, received: 0, unmatched: 0 });
    endpoint.reply(sent, LIGHT.serial, 'LightState', lightState, FROM);
    expect((await p).name).to.equal('LightState');
    expect(requester.stats).to.include({ foreign: 1, received: 1 });
  });

  it('drops late duplicates silently and counts them', async () => {
    const p = requester.get(LIGHT, 'GetColor', {});
    await clock.tickAsync(0);
    const sent = endpoint.sent[0]!.packet;
    endpoint.reply(sent, LIGHT.serial, 'LightState', lightState, FROM);
    await p;
    endpoint.reply(sent, LIGHT.serial, 'LightState', lightState, FROM);
    expect(requester.stats.unmatched).to.equal(1);
  });

  it('ignores malformed datagrams without disturbing a request in flight', async () => {
    const p = requester.get(LIGHT, 'GetColor', {});
    await clock.tickAsync(0);
    endpoint.deliverRaw(Buffer.from('2400', 'hex'), FROM);
    const good = encode({ name: 'LightState', header: { source: requester.source, sequence: 0, target: LIGHT.serial }, payload: lightState });
    endpoint.deliverRaw(good.subarray(0, 50), FROM);
    endpoint.deliverRaw(Buffer.concat([good, Buffer.from([1])]), FROM);
    expect(requester.stats.malformed).to.equal(3);
    endpoint.reply(endpoint.sent[0]!.packet, LIGHT.serial, 'LightState', lightState, FROM);
    expect((await p).name).to.equal('LightState');
  });

  it('ignores packets with another source', async () => {
    const p = requester.get(LIGHT, 'GetColor', {}, { timeoutMs: 500 });
    const outcome = p.then(() => 'resolved', (err: unknown) => err);
    await clock.tickAsync(0);
    const seq = endpoint.sent[0]!.packet.header.sequence;
    const foreign = encode({ name: 'LightState', header: { source: (requester.source % 1000) + 1, sequence: seq, target: LIGHT.serial }, payload: lightState });
    endpoint.deliverRaw(foreign, FROM);
    await clock.tickAsync(500);
    expect(isLightwireError(await outcome, 'REQUEST_TIMED_OUT')).to.equal(true);
  });

  it('collects every StateMultiZone chunk of GetColorZones before resolving', async () => {
    const p = requester.getAll(LIGHT, 'GetColorZones', { startIndex: 0, endIndex: 255 });
    await clock.tickAsync(0);
    const req = endpoint.sent[0]!.packet;
    const colors = Array.from({ length: 8 }, () => RED);
    let done = false;
    void p.then(() => (done = true));
    endpoint.reply(req, LIGHT.serial, 'StateMultiZone', { count: 20, index: 0, colors }, FROM);
    endpoint.reply(req, LIGHT.serial, 'StateMultiZone', { count: 20, index: 8, colors }, FROM);
    await clock.tickAsync(0);
    expect(done).to.equal(false);
    endpoint.reply(req, LIGHT.serial, 'StateMultiZone', { count: 20, index: 8, colors }, FROM);
    endpoint.reply(req, LIGHT.serial, 'StateMultiZone', { count: 20, index: 16, colors }, FROM);
    const replies = await p;
    expect(replies.map((r: KnownPacket) => (r.name === 'StateMultiZone' ? r.payload.index : -1))).to.deep.equal([0, 8, 16]);
    expect(requester.stats.duplicates).to.equal(1);
  });

  it('takes only a reply its message table declares: a StatePower for a GetColor is unmatched', async () => {
    const p = requester.get(LIGHT, 'GetColor', {});
    await clock.tickAsync(0);
    const req = endpoint.sent[0]!.packet;
    endpoint.reply(req, LIGHT.serial, 'StatePower', { level: 65535 }, FROM);
    expect(requester.stats.unmatched).to.equal(1);
    endpoint.reply(req, LIGHT.serial, 'LightState', lightState, FROM);
    const reply = await p;
    // Typed by the request: LightState's payload, no check of reply.name needed.
    expect(reply.payload.label).to.equal('Kitchen');
  });

  it('ends a Get64 at `length` replies, or by the gap after the last when fewer come (the table\'s multi rule)', async () => {
    const rect = { fbIndex: 0, x: 0, y: 0, width: 8 };
    const colors = Array.from({ length: 64 }, () => RED);
    const full = requester.getAll(LIGHT, 'Get64', { tileIndex: 0, length: 2, rect });
    await clock.tickAsync(0);
    const req = endpoint.sent[0]!.packet;
    endpoint.reply(req, LIGHT.serial, 'State64', { tileIndex: 0, rect, colors }, FROM);
    endpoint.reply(req, LIGHT.serial, 'State64', { tileIndex: 1, rect, colors }, FROM);
    expect((await full).map((r) => r.payload.tileIndex)).to.deep.equal([0, 1]);
    const short = requester.getAll(LIGHT, 'Get64', { tileIndex: 0, length: 5, rect });
    let done = false;
    void short.then(() => (done = true));
    await clock.tickAsync(0);
    endpoint.reply(endpoint.sent[1]!.packet, LIGHT.serial, 'State64', { tileIndex: 0, rect, colors }, FROM);
    await clock.tickAsync(150);
    expect(done).to.equal(false);
    await clock.tickAsync(400);
    expect(done).to.equal(true);
    expect(await short).to.have.length(1);
  });

  it('rejects with UNHANDLED_BY_DEVICE when the device answers StateUnhandled', async () => {
    const p = requester.get(LIGHT, 'GetColor', {});
    const outcome = p.then(() => 'resolved', (err: unknown) => err);
    await clock.tickAsync(0);
    endpoint.reply(endpoint.sent[0]!.packet, LIGHT.serial, 'StateUnhandled', { unhandledType: 101 }, FROM);
    expect(isLightwireError(await outcome, 'UNHANDLED_BY_DEVICE')).to.equal(true);
  });

  it('never sends more than 20 messages to one light in any second, even for a burst of 100 Sets', async () => {
    endpoint.respond = (packet, to) => {
      if (packet.header.ackRequired) setTimeout(() => endpoint.reply(packet, LIGHT.serial, 'Acknowledgement', {}, to), 5);
    };
    const results = Array.from({ length: 100 }, (_, i) =>
      requester.set(LIGHT, 'SetColor', { color: { ...RED, hue: i * 100 }, durationMs: 0 }, { coalesceKey: false, timeoutMs: 20_000 }),
    );
    await clock.tickAsync(10_000);
    const settled = await Promise.all(results);
    expect(settled.every((r) => r.acked)).to.equal(true);
    const times = endpoint.sent.map((s) => s.atMs);
    expect(times).to.have.length(100);
    let worst = 0;
    for (let i = 0; i < times.length; i++) {
      const inWindow = times.filter((t) => t >= times[i]! && t < times[i]! + 1000).length;
      worst = Math.max(worst, inWindow);
    }
    expect(worst).to.be.at.most(20);
  });

  it('replaces a Set superseded before it was sent: latest wins', async () => {
    endpoint.respond = (packet, to) => {
      if (packet.header.ackRequired) setTimeout(() => endpoint.reply(packet, LIGHT.serial, 'Acknowledgement', {}, to), 5);
    };
    const results = Array.from({ length: 100 }, (_, i) =>
      requester.set(LIGHT, 'SetColor', { color: { ...RED, hue: i * 100 }, durationMs: 0 }),
    );
    await clock.tickAsync(5000);
    const settled = await Promise.all(results);
    const sentHues = endpoint.sentOf('SetColor').map((s) => (s.packet.name === 'SetColor' ? s.packet.payload.color.hue : -1));
    // The first went straight out; every other one but the last was replaced before its turn.
    expect(sentHues).to.deep.equal([0, 9900]);
    expect(settled.filter((r) => r.superseded)).to.have.length(98);
    expect(settled[99]).to.include({ acked: true, superseded: false });
  });

  it('holds a read until the Set before it has been acknowledged', async () => {
    const set = requester.set(LIGHT, 'SetColor', { color: RED, durationMs: 0 });
    const get = requester.get(LIGHT, 'GetColor', {});
    await clock.tickAsync(100);
    expect(endpoint.sentOf('GetColor')).to.have.length(0);
    endpoint.reply(endpoint.sent[0]!.packet, LIGHT.serial, 'Acknowledgement', {}, FROM);
    await set;
    await clock.tickAsync(0);
    expect(endpoint.sentOf('GetColor')).to.have.length(1);
    endpoint.reply(endpoint.sentOf('GetColor')[0]!.packet, LIGHT.serial, 'LightState', lightState, FROM);
    expect((await get).name).to.equal('LightState');
  });

  it('counts the wait for a Set in a read\'s timeout: it ends at its deadline, sent with what is left or not at all', async () => {
    // The Set has 3 s; the reads 1 s and 2 s, from when they are asked. The light never acknowledges.
    const set = requester.set(LIGHT, 'SetColor', { color: RED, durationMs: 0 }, { timeoutMs: 3000 });
    const get = requester.get(LIGHT, 'GetColor', {}, { timeoutMs: 1000 });
    const each = requester.getEach(LIGHT, ['GetLabel', 'GetPower'], { timeoutMs: 2000 });
    let getError: unknown;
    get.catch((err: unknown) => (getError = err));
    await clock.tickAsync(999);
    expect(getError).to.equal(undefined);
    await clock.tickAsync(1);
    expect(isLightwireError(getError, 'REQUEST_TIMED_OUT')).to.equal(true);
    expect(getError).to.have.nested.property('params.timeoutMs', 1000);
    await clock.tickAsync(1000);
    const results = await each;
    expect(results.map((r) => isLightwireError(r, 'REQUEST_TIMED_OUT'))).to.deep.equal([true, true]);
    // Neither read was ever sent: the Set was still unacknowledged at their deadlines, and is until its own.
    expect(endpoint.sent.map((s) => s.packet.name).filter((n) => n !== 'SetColor')).to.deep.equal([]);
    expect(requester.stats.timeouts).to.equal(3);
    const setOutcome = set.catch((err: unknown) => err);
    await clock.tickAsync(1000);
    expect(isLightwireError(await setOutcome, 'REQUEST_TIMED_OUT')).to.equal(true);

    // A read whose wait ends in time is sent with what is left of its timeout, and times out at its own deadline.
    endpoint.sent.length = 0;
    const set2 = requester.set(LIGHT, 'SetPower', { level: 65535 }, { timeoutMs: 5000 });
    const late = requester.get(LIGHT, 'GetColor', {}, { timeoutMs: 1500 });
    let lateError: unknown;
    late.catch((err: unknown) => (lateError = err));
    await clock.tickAsync(1000);
    endpoint.reply(endpoint.sentOf('SetPower')[0]!.packet, LIGHT.serial, 'Acknowledgement', {}, FROM);
    await set2;
    await clock.tickAsync(0);
    expect(endpoint.sentOf('GetColor')).to.have.length(1);
    await clock.tickAsync(499);
    expect(lateError).to.equal(undefined);
    await clock.tickAsync(1);
    expect(isLightwireError(lateError, 'REQUEST_TIMED_OUT')).to.equal(true);
  });

  it('wraps the sequence number after 255', async () => {
    for (let i = 0; i < 258; i++) void requester.fire(LIGHT, 'GetPower', {}, { coalesceKey: false });
    await clock.tickAsync(30_000);
    const seqs = endpoint.sent.map((s) => s.packet.header.sequence);
    expect(seqs.slice(254, 258)).to.deep.equal([254, 255, 0, 1]);
  });

  it('coalesces fast messages waiting for their turn: latest wins, every caller resolves once it went out', async () => {
    const fires = Array.from({ length: 100 }, (_, i) =>
      requester.fire(LIGHT, 'SetColor', { color: { ...RED, hue: i * 100 }, durationMs: 0 }),
    );
    await clock.tickAsync(5000);
    await Promise.all(fires);
    const hues = endpoint.sentOf('SetColor').map((s) => (s.packet.name === 'SetColor' ? s.packet.payload.color.hue : -1));
    // A light quiet for a second takes its quiet burst (10) at once; the 90 behind them collapse into the newest, which
    // goes out next, (10 - 3 + 1) emission intervals of 65.625 ms later.
    expect(hues).to.deep.equal([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 9900]);
    expect(endpoint.sent.map((s) => s.atMs)).to.deep.equal([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 525]);
  });

  it('answers post() at once and sends the newest payload when the light is free', async () => {
    for (let i = 0; i < 10; i++) expect(requester.post(LIGHT, 'SetPower', { level: 0 }, { coalesceKey: false })).to.equal('sent');
    // The burst is spent: these wait, each replacing the last under its key (SetColor, SetPower), in first-queued order.
    const outcomes = new Set<string>();
    for (let i = 1; i <= 50; i++) {
      outcomes.add(`color ${requester.post(LIGHT, 'SetColor', { color: { ...RED, brightness: i }, durationMs: 0 })}`);
      outcomes.add(`power ${requester.post(LIGHT, 'SetPower', { level: i % 2 === 0 ? 0 : 65535 })}`);
    }
    expect([...outcomes]).to.deep.equal(['color queued', 'power queued', 'color replaced', 'power replaced']);
    expect(endpoint.sent).to.have.length(10);
    await clock.tickAsync(1000);
    const after = endpoint.sent.slice(10).map((s) => s.packet);
    expect(after.map((p) => p.name)).to.deep.equal(['SetColor', 'SetPower']);
    expect(after[0]!.name === 'SetColor' && after[0]!.payload.color.brightness).to.equal(50);
    expect(after[1]!.name === 'SetPower' && after[1]!.payload.level).to.equal(0);
    // Encoded when sent: sequence numbers follow the order on the wire.
    expect(endpoint.sent.map((s) => s.packet.header.sequence)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(endpoint.sent.every((s) => !s.packet.header.ackRequired && !s.packet.header.resRequired)).to.equal(true);
  });

  it('sends a batch of one payload to many lights byte for byte as encode() makes each, in order, one sequence per light', () => {
    const lights = Array.from({ length: 5 }, (_, i) => ({ ...LIGHT, serial: `d073d50002${String(i).padStart(2, '0')}`, address: `127.0.0.${i + 2}` }));
    const color = { color: { ...RED, hue: 4242 }, durationMs: 0 };
    const power = { level: 65535, durationMs: 0 };
    requester.batch(() => {
      for (const light of lights) {
        expect(requester.postWith(light, 'SetColor', color, 'SetColor', undefined)).to.equal('sent');
        expect(requester.postWith(light, 'SetLightPower', power, 'SetLightPower', undefined)).to.equal('sent');
      }
      // Nothing goes out before the batch ends.
      expect(endpoint.sent).to.have.length(0);
    });
    const expected = lights.flatMap((light) => [
      encode({ name: 'SetColor', header: { source: requester.source, sequence: 0, target: light.serial }, payload: color }),
      encode({ name: 'SetLightPower', header: { source: requester.source, sequence: 1, target: light.serial }, payload: power }),
    ]);
    expect(endpoint.sent.map((s) => s.bytes.toString('hex'))).to.deep.equal(expected.map((b) => b.toString('hex')));
    expect(endpoint.sent.map((s) => s.to.address)).to.deep.equal(lights.flatMap((l) => [l.address, l.address]));
  });

  it('rejects fast messages still waiting when closed; post() refuses once closed', async () => {
    const fires = Array.from({ length: 30 }, () => requester.fire(LIGHT, 'GetPower', {}, { coalesceKey: false }).then(() => 'sent', (e: unknown) => e));
    await clock.tickAsync(0);
    requester.close();
    const outcomes = await Promise.all(fires);
    expect(outcomes.filter((o) => o === 'sent')).to.have.length(10);
    expect(outcomes.filter((o) => isLightwireError(o, 'CLIENT_STOPPED'))).to.have.length(20);
    expect(requester.post(LIGHT, 'SetPower', { level: 0 })).to.equal('closed');
    expect(clock.countTimers()).to.equal(0);
  });

  it('still delivers a reply when a packet listener throws, and surfaces the error to the socket', async () => {
    requester.onPacket(() => {
      throw new Error('listener bug');
    });
    const p = requester.get(LIGHT, 'GetColor', {});
    await clock.tickAsync(0);
    expect(() => endpoint.reply(endpoint.sent[0]!.packet, LIGHT.serial, 'LightState', lightState, FROM)).to.throw('listener bug');
    expect((await p).name).to.equal('LightState');
  });

  it('rejects a payload that does not fit before sending anything', async () => {
    const err = await requester
      .set(LIGHT, 'SetColor', { color: { ...RED, hue: -1 }, durationMs: 0 })
      .then(() => undefined, (e: unknown) => e);
    expect(isLightwireError(err, 'VALUE_OUT_OF_RANGE')).to.equal(true);
    expect(endpoint.sent).to.have.length(0);
  });

  it('cancels every request and leaves no timer behind when closed', async () => {
    const pending = [requester.get(LIGHT, 'GetColor', {}), requester.set(LIGHT, 'SetPower', { level: 65535 })].map((p) =>
      p.then(() => 'resolved', (err: unknown) => err),
    );
    await clock.tickAsync(10);
    requester.close();
    const outcomes = await Promise.all(pending);
    expect(outcomes.every((e) => isLightwireError(e, 'REQUEST_CANCELLED'))).to.equal(true);
    expect(clock.countTimers()).to.equal(0);
  });
});
