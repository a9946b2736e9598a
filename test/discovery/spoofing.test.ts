// Discovery on a hostile LAN (issue: spoofing and phantom lights). A hand-played light on an in-memory endpoint,
// and a "spoofer" that sends StateService datagrams of its choosing from another address.

import { expect } from 'chai';
import { LightClient } from '../../core/discovery/client.js';
import { encode, type KnownPacket } from '../../core/protocol/index.js';
import { MemoryEndpoint } from '../helpers/memory-endpoint.js';
import { until } from '../helpers/wait.js';

const SERIAL = 'd073d5000001';
const LIGHT = { address: '127.0.0.2', port: 56700 };
const SPOOFER = { address: '127.0.0.66', port: 56700 };

interface Play {
  /** Answer probes at the spoofer's address with this serial (a light that really moved there). */
  movedTo?: { address: string; port: number };
  /** Kelvin the light reports. */
  kelvin?: number;
}

/** A colour bulb at LIGHT that answers discovery and reads. */
function playLight(endpoint: MemoryEndpoint, play: Play = {}): void {
  endpoint.respond = (packet: KnownPacket, to) => {
    const later = (fn: () => void): void => void setTimeout(fn, 1);
    const here = play.movedTo ?? LIGHT;
    if (packet.name === 'GetService') {
      // A broadcast, or a probe of the address the light is at, is answered from that address.
      if (to.address === here.address || to.address.endsWith('.255')) later(() => endpoint.reply(packet, SERIAL, 'StateService', { service: 1, port: here.port }, here));
      return;
    }
    if (packet.header.target !== SERIAL || to.address !== here.address) return;
    if (packet.name === 'GetVersion') later(() => endpoint.reply(packet, SERIAL, 'StateVersion', { vendor: 1, product: 91 }, here));
    if (packet.name === 'GetColor') {
      const state = { color: { hue: 0, saturation: 0, brightness: 65535, kelvin: play.kelvin ?? 3500 }, power: 65535, label: 'Desk' };
      later(() => endpoint.reply(packet, SERIAL, 'LightState', state, here));
    }
    if (packet.name === 'SetPower' || packet.name === 'SetLightPower') later(() => endpoint.reply(packet, SERIAL, 'Acknowledgement', {}, here));
  };
}

/** A StateService datagram as a spoofer forges it: any target, source, sequence and port. */
function stateService(target: string, source: number, sequence: number, port = 56700): Buffer {
  return encode({ name: 'StateService', header: { source, sequence, target }, payload: { service: 1, port } });
}

async function started(endpoint: MemoryEndpoint, maxLights?: number): Promise<LightClient> {
  const client = new LightClient({
    transport: { requestTimeoutMs: 1000 },
    discovery: {
      broadcastAddresses: ['127.255.255.255'],
      burstScheduleMs: [0],
      refreshIntervalMs: 0,
      readTimeoutMs: 400,
      offlineAfterMisses: 1,
      ...(maxLights !== undefined ? { maxLights } : {}),
    },
  });
  client.on('error', () => undefined);
  await client.start(endpoint);
  return client;
}

/** The header of our last GetService broadcast: what a spoofer on the LAN can sniff. */
function lastBroadcast(endpoint: MemoryEndpoint): KnownPacket {
  const sent = endpoint.sentOf('GetService').filter((s) => s.to.address === '127.255.255.255');
  return sent[sent.length - 1]!.packet;
}

describe('discovery on a hostile LAN', function () {
  this.timeout(10_000);
  let client: LightClient | undefined;
  afterEach(async () => {
    await client?.stop();
    client = undefined;
  });

  it('takes no light from a StateService whose target is 000000000000', async () => {
    const endpoint = new MemoryEndpoint();
    client = await started(endpoint);
    await until(() => endpoint.sentOf('GetService').length > 0);
    const asked = lastBroadcast(endpoint).header;
    endpoint.deliverRaw(stateService('000000000000', asked.source, asked.sequence), SPOOFER);
    // deliverRaw hands the datagram to the client synchronously: the same answer from a real serial is taken at once.
    expect(client.registry.size).to.equal(0);
    endpoint.deliverRaw(stateService('d073d5aa0002', asked.source, asked.sequence), SPOOFER);
    expect(client.registry.has('d073d5aa0002')).to.equal(true);
  });

  it('takes no light from a StateService naming a port no UDP socket can have (0, 70000, 2^32 - 1)', async () => {
    const endpoint = new MemoryEndpoint();
    client = await started(endpoint);
    await until(() => endpoint.sentOf('GetService').length > 0);
    const asked = lastBroadcast(endpoint).header;
    // deliverRaw is synchronous (the valid port below is taken at once), so nothing is left to wait for.
    for (const port of [0, 70000, 4294967295]) endpoint.deliverRaw(stateService('d073d5aa0001', asked.source, asked.sequence, port), SPOOFER);
    expect(client.registry.has('d073d5aa0001')).to.equal(false);
    endpoint.deliverRaw(stateService('d073d5aa0001', asked.source, asked.sequence, 65535), SPOOFER);
    expect(client.registry.has('d073d5aa0001')).to.equal(true);
  });

  it('takes no light from an unsolicited StateService (no GetService of ours has that sequence)', async () => {
    const endpoint = new MemoryEndpoint();
    client = await started(endpoint);
    await until(() => endpoint.sentOf('GetService').length > 0);
    const asked = lastBroadcast(endpoint).header;
    // deliverRaw is synchronous (the answer below is taken at once), so nothing is left to wait for.
    endpoint.deliverRaw(stateService('d073d5abcdef', asked.source, (asked.sequence + 7) & 0xff), SPOOFER);
    expect(client.registry.has('d073d5abcdef')).to.equal(false);
    // The same datagram with the sequence of our broadcast is an answer, and counts.
    endpoint.deliverRaw(stateService('d073d5abcdef', asked.source, asked.sequence), SPOOFER);
    expect(client.registry.has('d073d5abcdef')).to.equal(true);
  });

  it('does not move a known light on a spoofed StateService from another address: its writes still reach it', async () => {
    const endpoint = new MemoryEndpoint();
    playLight(endpoint);
    client = await started(endpoint);
    await until(() => client!.registry.peek(SERIAL)?.facts.power !== undefined);
    const moves: string[] = [];
    client.on('changed', (r, fields) => fields.includes('address') && moves.push(r.address));
    // The spoofer copies our broadcast's source and sequence.
    const asked = lastBroadcast(endpoint).header;
    endpoint.deliverRaw(stateService(SERIAL, asked.source, asked.sequence), SPOOFER);
    // A probe of the spoofer's address is sent, and nobody answers it with the serial.
    const timeoutsBefore = client.requester.stats.timeouts;
    await until(() => endpoint.sentOf('GetService').some((s) => s.to.address === SPOOFER.address));
    expect(endpoint.sentOf('GetService').some((s) => s.to.address === SPOOFER.address)).to.equal(true);
    // The probe gives up after readTimeoutMs (400 here): only then has the move been refused.
    await until(() => client!.requester.stats.timeouts > timeoutsBefore, { what: 'the unanswered probe of the spoofer to time out' });
    expect(client.addressOf(SERIAL)).to.deep.equal({ serial: SERIAL, ...LIGHT });
    expect(moves).to.deep.equal([]);
    await client.requester.set(client.addressOf(SERIAL)!, 'SetPower', { level: 0 }, { timeoutMs: 300 });
    const setPower = endpoint.sentOf('SetPower');
    expect(setPower[setPower.length - 1]!.to.address).to.equal(LIGHT.address);
  });

  it('moves a light that really answers at its new address, and says so with a changed event naming address', async () => {
    const endpoint = new MemoryEndpoint();
    const play: Play = {};
    playLight(endpoint, play);
    client = await started(endpoint);
    await until(() => client!.registry.peek(SERIAL)?.facts.power !== undefined);
    const moves: string[] = [];
    client.on('changed', (r, fields) => fields.includes('address') && moves.push(r.address));
    play.movedTo = { address: '127.0.0.9', port: 56700 };
    client.discoverNow();
    await until(() => moves.length > 0);
    expect(moves).to.deep.equal(['127.0.0.9']);
    expect(client.addressOf(SERIAL)?.address).to.equal('127.0.0.9');
  });

  it('bounds the registry against a flood of invented serials, says so once, and forgets those that never answer a read', async () => {
    const endpoint = new MemoryEndpoint();
    playLight(endpoint);
    client = await started(endpoint, 20);
    const errors: string[] = [];
    client.on('error', (e) => errors.push((e as { code?: string }).code ?? e.message));
    await until(() => client!.registry.peek(SERIAL)?.facts.power !== undefined);
    const asked = lastBroadcast(endpoint).header;
    for (let i = 0; i < 2000; i++) {
      endpoint.deliverRaw(stateService(`d073d6${i.toString(16).padStart(6, '0')}`, asked.source, asked.sequence), { address: `127.0.${1 + (i >> 8)}.${i & 0xff}`, port: 56700 });
    }
    expect(client.registry.size).to.equal(20);
    expect(errors.filter((c) => c === 'REGISTRY_FULL')).to.have.length(1);
    // Every phantom's first read goes unanswered: after offlineAfterMisses (1) it is gone; the real light stays.
    await until(() => client!.registry.size === 1, { timeoutMs: 8000 });
    expect(client.lights().map((l) => l.serial)).to.deep.equal([SERIAL]);
  });

  it('clamps a reported kelvin into the product range where the reply becomes a fact', async () => {
    const endpoint = new MemoryEndpoint();
    playLight(endpoint, { kelvin: 58188 });
    client = await started(endpoint);
    await until(() => client!.registry.peek(SERIAL)?.facts.color !== undefined && client!.registry.peek(SERIAL)?.facts.product !== undefined);
    await client.refreshState(SERIAL);
    // Product 91 (LIFX Color) shows 1500-9000 K.
    expect(client.registry.peek(SERIAL)!.facts.color!.value.kelvin).to.equal(9000);
  });
});
