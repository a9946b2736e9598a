// The readers on their own, against a hand-played device: a capability one lost probe missed is found again by a
// later probe of the model and kept, and a relay that missed one read keeps its last known state in the registry.

import { expect } from 'chai';
import { CapabilityProber, PROBE_ROUNDS } from '../../core/discovery/capability-prober.js';
import { LightRegistry } from '../../core/discovery/registry.js';
import { StateReader } from '../../core/discovery/state-reader.js';
import { LightwireError } from '../../core/errors.js';
import { PRODUCTS } from '../../core/protocol/index.js';
import type { Requester } from '../../core/transport/requester.js';

const SERIAL = 'd073d5000001';
const DEVICE = { serial: SERIAL, address: '127.0.0.2', port: 56700 };

/** A requester whose get() answers with `answer(name, payload)`, or times out when it returns undefined. */
function playedRequester(answer: (name: string, payload: Record<string, unknown>) => Record<string, unknown> | undefined): { requester: Requester; asked: string[] } {
  const asked: string[] = [];
  const get = (_device: unknown, name: string, payload: Record<string, unknown>): Promise<unknown> => {
    asked.push(name);
    const reply = answer(name, payload);
    return reply === undefined
      ? Promise.reject(new LightwireError('REQUEST_TIMED_OUT', { serial: SERIAL, message: name, timeoutMs: 10 }))
      : Promise.resolve({ name, payload: reply });
  };
  return { requester: { get } as unknown as Requester, asked };
}

describe('CapabilityProber', () => {
  it(`probes a model again on later reads of its facts, up to ${PROBE_ROUNDS} answered probes, and keeps every capability any answered`, async () => {
    const product = PRODUCTS.get(1, 9001, null);
    expect(product.known).to.equal(false);
    let probe = 0;
    // A strip with HEV and infrared; the first probe's GetInfrared reply is lost, the third's GetHevCycle reply.
    const { requester, asked } = playedRequester((name) => {
      if (name === 'GetColor') probe++;
      if (name === 'GetColor') return { color: { hue: 0, saturation: 0, brightness: 0, kelvin: 3500 }, power: 0, label: '' };
      if (name === 'GetInfrared') return probe === 1 ? undefined : { brightness: 0 };
      if (name === 'GetHevCycle') return probe === 3 ? undefined : { durationS: 0, remainingS: 0, lastPower: 0 };
      if (name === 'GetExtendedColorZones') return { zonesCount: 8, zoneIndex: 0, colors: [] };
      if (name === 'GetDeviceChain') return { tileDevicesCount: 0 };
      return undefined;
    });
    const prober = new CapabilityProber({ requester }, new Set(), (err) => {
      throw err;
    });
    const first = await prober.probe(SERIAL, DEVICE, product, 3000);
    expect(first.capabilities).to.include({ multizone: true, extendedMultizone: true, hev: true, infrared: false });
    const second = await prober.probe(SERIAL, DEVICE, product, 3000);
    expect(second.capabilities).to.include({ hev: true, infrared: true });
    const third = await prober.probe(SERIAL, DEVICE, product, 3000);
    // HEV went unanswered this time: still kept, and the product is the one lights of the model already share.
    expect(third).to.equal(second);
    const colorsAsked = asked.filter((n) => n === 'GetColor').length;
    expect(colorsAsked).to.equal(PROBE_ROUNDS);
    expect(await prober.probe(SERIAL, DEVICE, product, 3000)).to.equal(second);
    expect(asked.filter((n) => n === 'GetColor')).to.have.length(PROBE_ROUNDS);
  });

  it('takes no answer to GetColor as no answer: the product as it is, and asked again next time', async () => {
    const product = PRODUCTS.get(1, 9002, null);
    let silent = true;
    const { requester } = playedRequester((name) => (name === 'GetColor' && !silent ? { color: { hue: 0, saturation: 0, brightness: 0, kelvin: 3500 }, power: 0, label: '' } : undefined));
    const prober = new CapabilityProber({ requester }, new Set(), () => undefined);
    expect(await prober.probe(SERIAL, DEVICE, product, 3000)).to.equal(product);
    silent = false;
    const probed = await prober.probe(SERIAL, DEVICE, product, 3000);
    expect(probed).to.not.equal(product);
    expect(probed.capabilities).to.include({ isLight: true, multizone: false, hev: false });
  });
});

describe('StateReader relays', () => {
  it('keeps the last known state of a relay that did not answer this read, and returns only the relays that did', async () => {
    const registry = new LightRegistry(3);
    registry.seen(SERIAL, DEVICE.address, DEVICE.port);
    let lose: number | undefined;
    let level = 65535;
    const { requester } = playedRequester((name, payload) =>
      name === 'GetRPower' && payload.relayIndex !== lose ? { relayIndex: payload.relayIndex, level } : undefined,
    );
    const reader = new StateReader({ registry, requester, addressOf: () => DEVICE });
    expect(await reader.readRelays(SERIAL, 100)).to.have.length(4);
    lose = 2;
    level = 0;
    const answered = await reader.readRelays(SERIAL, 100);
    expect(answered.map((r) => r.index)).to.deep.equal([0, 1, 3]);
    expect(registry.get(SERIAL)!.facts.relays!.value).to.deep.equal([
      { index: 0, on: false },
      { index: 1, on: false },
      { index: 2, on: true },
      { index: 3, on: false },
    ]);
    // None answering is a timeout, and changes nothing.
    lose = undefined;
    const none = playedRequester(() => undefined);
    const silentReader = new StateReader({ registry, requester: none.requester, addressOf: () => DEVICE });
    const err = await silentReader.readRelays(SERIAL, 100).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(LightwireError).with.property('code', 'REQUEST_TIMED_OUT');
    expect(registry.get(SERIAL)!.facts.relays!.value).to.have.length(4);
  });

  it('does not wait out the timeout for relays a device does not have (a Dimmer Switch answers 2 of the 4 asked)', async () => {
    const registry = new LightRegistry(3);
    registry.seen(SERIAL, DEVICE.address, DEVICE.port);
    const asked: number[] = [];
    // Relays 0 and 1 answer; 2 and 3 never do, and their asks would only time out after a minute.
    const get = (_device: unknown, _name: string, payload: { relayIndex: number }): Promise<unknown> => {
      asked.push(payload.relayIndex);
      return payload.relayIndex < 2 ? Promise.resolve({ name: 'StateRPower', payload: { relayIndex: payload.relayIndex, level: 65535 } }) : new Promise(() => {});
    };
    const reader = new StateReader({ registry, requester: { get } as unknown as Requester, addressOf: () => DEVICE });
    // Resolving at all proves it: waiting for relays 2 and 3 would outlast the test's own timeout.
    const answered = await reader.readRelays(SERIAL, 60_000);
    expect(asked).to.deep.equal([0, 1, 2, 3]);
    expect(answered.map((r) => r.index)).to.deep.equal([0, 1]);
    expect(registry.get(SERIAL)!.facts.relays!.value).to.deep.equal([
      { index: 0, on: true },
      { index: 1, on: true },
    ]);
  });
});
