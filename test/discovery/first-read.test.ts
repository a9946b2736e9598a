// A light's first read: a state read that goes unanswered while the light answers for its facts is asked again
// before the first read is over, so a light is not left unlisted by one lost reply. A hand-played light on an
// in-memory endpoint drops exactly the replies a test names.

import { expect } from 'chai';
import sinon from 'sinon';
import { LightClient } from '../../core/discovery/client.js';
import type { LightRecord } from '../../core/discovery/registry.js';
import type { KnownPacket } from '../../core/protocol/index.js';
import { MemoryEndpoint } from '../helpers/memory-endpoint.js';
import { quietFor, until } from '../helpers/wait.js';

const SERIAL = 'd073d5000001';
const AT = { address: '127.0.0.2', port: 56700 };

/** A colour bulb that answers discovery and its facts, and ignores the first `dropColor` GetColor requests. */
function playLight(endpoint: MemoryEndpoint, dropColor: number, answerFacts = true): { colorAsked: () => number } {
  let colorAsked = 0;
  endpoint.respond = (packet: KnownPacket) => {
    const later = (fn: () => void): void => void setTimeout(fn, 1);
    switch (packet.name) {
      case 'GetService':
        later(() => endpoint.reply(packet, SERIAL, 'StateService', { service: 1, port: AT.port }, AT));
        break;
      case 'GetVersion':
        if (answerFacts) later(() => endpoint.reply(packet, SERIAL, 'StateVersion', { vendor: 1, product: 91 }, AT));
        break;
      case 'GetColor':
        colorAsked++;
        if (colorAsked > dropColor) {
          const state = { color: { hue: 0, saturation: 0, brightness: 65535, kelvin: 3500 }, power: 65535, label: 'Desk' };
          later(() => endpoint.reply(packet, SERIAL, 'LightState', state, AT));
        }
        break;
      default:
        break;
    }
  };
  return { colorAsked: () => colorAsked };
}

describe('LightClient first read', function () {
  this.timeout(10_000);
  let client: LightClient;
  afterEach(() => client.stop());

  /** Starts a client on the endpoint and waits until the light was found and its first read is over. */
  async function firstRead(endpoint: MemoryEndpoint): Promise<LightRecord | undefined> {
    client = new LightClient({
      transport: { requestTimeoutMs: 1000 },
      discovery: { broadcastAddresses: ['127.255.255.255'], burstScheduleMs: [0], refreshIntervalMs: 0, readTimeoutMs: 150, offlineAfterMisses: 3 },
    });
    const found = new Promise<void>((resolve) => client.once('added', () => resolve()));
    await client.start(endpoint);
    await found;
    await until(() => client.describing === 0, { what: 'no light still being described' });
    return client.registry.get(SERIAL);
  }

  it('reads the state again when the first state read is lost but the light answered for its facts', async () => {
    const endpoint = new MemoryEndpoint();
    const light = playLight(endpoint, 1);
    const record = (await firstRead(endpoint))!;
    expect(light.colorAsked()).to.be.at.least(2);
    expect(record.facts.power?.value).to.equal('on');
    expect(record.facts.label?.value).to.equal('Desk');
    expect(record.online).to.equal(true);
  });

  it('gives up after offlineAfterMisses state reads in all', async () => {
    const endpoint = new MemoryEndpoint();
    const light = playLight(endpoint, Infinity);
    // Every state read, counted where it starts (the private read that refreshState and the first read share).
    const reads = sinon.spy(LightClient.prototype as unknown as { readState: (serial: string, timeoutMs: number) => Promise<void> }, 'readState');
    try {
      const record = await firstRead(endpoint);
      // Not read: never listed (the record is kept without a state, or forgotten until discovery finds it again).
      expect(record?.facts.power).to.equal(undefined);
      expect(reads.callCount).to.equal(3);
      const asked = light.colorAsked();
      // A negative window: no read comes later. It outlasts two readTimeoutMs (150 ms here) with margin.
      await quietFor(400);
      expect(light.colorAsked()).to.equal(asked);
      expect(reads.callCount).to.equal(3);
    } finally {
      reads.restore();
    }
  });

  it('does not ask again a light that answered nothing at all beyond discovery', async () => {
    const endpoint = new MemoryEndpoint();
    const light = playLight(endpoint, Infinity, false);
    const started = performance.now();
    await firstRead(endpoint);
    // One read's worth of time, not three.
    expect(performance.now() - started).to.be.below(400);
    expect(light.colorAsked()).to.be.at.most(2);
  });

  it('frees the slot and reports the error when a first read fails unexpectedly, and holds nothing back', async () => {
    const endpoint = new MemoryEndpoint();
    playLight(endpoint, 0);
    // The facts read of the first light throws something that is no coded error (a bug, say).
    const proto = LightClient.prototype as unknown as { readInfo: (serial: string, timeoutMs: number) => Promise<void> };
    const original = proto.readInfo;
    const readInfo = sinon.stub(proto, 'readInfo').callsFake(function (this: unknown, serial: string, timeoutMs: number) {
      return readInfo.callCount === 1 ? Promise.reject(new TypeError('boom')) : original.call(this, serial, timeoutMs);
    });
    const errors: Error[] = [];
    const described: string[] = [];
    try {
      client = new LightClient({
        transport: { requestTimeoutMs: 1000 },
        discovery: { broadcastAddresses: ['127.255.255.255'], burstScheduleMs: [0], refreshIntervalMs: 0, readTimeoutMs: 150 },
      });
      client.on('error', (err) => errors.push(err));
      client.on('described', (record) => described.push(record.serial));
      const found = new Promise<void>((resolve) => client.once('added', () => resolve()));
      await client.start(endpoint);
      await found;
      await until(() => client.describing === 0, { what: 'no light still being described' });
      expect(errors.map((e) => e.message)).to.deep.equal(['boom']);
      expect(described).to.deep.equal([]);
      expect((client as unknown as { firstReadsActive: number }).firstReadsActive).to.equal(0);
      // The light is read again like any other (here by a refresh of its facts): the failure held nothing back.
      await client.refreshInfo(SERIAL);
      expect(client.registry.get(SERIAL)?.facts.product?.value.productId).to.equal(91);
    } finally {
      readInfo.restore();
    }
  });
});
