// The requester's per-light figures behind the doctor: round trips by Karn's rule, lost transmissions and
// retransmissions, timeouts; broadcasts, probes and superseded Sets do not count.

import { expect } from 'chai';
import sinon from 'sinon';
import { transportOptions } from '../../core/transport/options.js';
import { Requester } from '../../core/transport/requester.js';
import { MemoryEndpoint } from '../helpers/memory-endpoint.js';

const LIGHT = { serial: 'd073d5000001', address: '127.0.0.2', port: 56700 };
const FROM = { address: LIGHT.address, port: LIGHT.port };

describe('Requester per-light statistics', () => {
  let clock: sinon.SinonFakeTimers;
  let endpoint: MemoryEndpoint;
  let requester: Requester;

  beforeEach(() => {
    clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
    endpoint = new MemoryEndpoint();
    requester = new Requester(endpoint, transportOptions({ requestTimeoutMs: 1000 }));
  });

  afterEach(() => {
    requester.close();
    clock.restore();
  });

  it('takes a round-trip sample from an exchange answered at its first transmission', async () => {
    expect(requester.lightStats(LIGHT.serial)).to.equal(undefined);
    const p = requester.get(LIGHT, 'GetPower', {});
    await clock.tickAsync(0);
    await clock.tickAsync(37);
    endpoint.reply(endpoint.sent[0]!.packet, LIGHT.serial, 'StatePower', { level: 65535 }, FROM);
    await p;
    expect(requester.lightStats(LIGHT.serial)).to.deep.equal({
      requests: 1, answered: 1, timeouts: 0, attempts: 1, lostAttempts: 0, retransmits: 0, rttSamples: 1, recentRttMs: [37],
    });
  });

  it('counts the transmissions a retransmitted exchange lost, and takes no sample from it (Karn)', async () => {
    const p = requester.get(LIGHT, 'GetPower', {});
    await clock.tickAsync(0);
    await clock.tickAsync(200); // first retransmission
    await clock.tickAsync(300); // second
    expect(endpoint.sent.length).to.equal(3);
    endpoint.reply(endpoint.sent[2]!.packet, LIGHT.serial, 'StatePower', { level: 0 }, FROM);
    await p;
    const s = requester.lightStats(LIGHT.serial)!;
    expect(s).to.include({ requests: 1, answered: 1, attempts: 3, lostAttempts: 2, retransmits: 2, rttSamples: 0 });
    expect(s.recentRttMs).to.deep.equal([]);
  });

  it('counts a timeout as every transmission lost', async () => {
    const p = requester.get(LIGHT, 'GetPower', {}).catch((err: Error) => err);
    await clock.tickAsync(1000);
    expect(await p).to.be.instanceOf(Error);
    const s = requester.lightStats(LIGHT.serial)!;
    expect(s.timeouts).to.equal(1);
    expect(s.attempts).to.equal(endpoint.sent.length);
    expect(s.lostAttempts).to.equal(endpoint.sent.length);
    expect(s.answered).to.equal(0);
  });

  it('does not count probes of unknown addresses, nor Sets replaced before they were acknowledged', async () => {
    const probe = requester.probe('127.0.0.9', 56700, { timeoutMs: 300 });
    await clock.tickAsync(300);
    expect(await probe).to.deep.equal([]);
    const first = requester.set(LIGHT, 'SetPower', { level: 0 });
    await clock.tickAsync(0);
    const second = requester.set(LIGHT, 'SetPower', { level: 65535 });
    const third = requester.set(LIGHT, 'SetPower', { level: 0 });
    await clock.tickAsync(0);
    endpoint.reply(endpoint.sent[endpoint.sent.length - 1]!.packet, LIGHT.serial, 'Acknowledgement', {}, FROM);
    await clock.tickAsync(0);
    endpoint.reply(endpoint.sent[endpoint.sent.length - 1]!.packet, LIGHT.serial, 'Acknowledgement', {}, FROM);
    expect((await second).superseded).to.equal(true);
    await Promise.all([first, third]);
    const s = requester.lightStats(LIGHT.serial)!;
    expect(s.requests).to.equal(2); // the first and the third; the second never went out
    expect(requester.lightStats('000000000000')).to.equal(undefined);
  });

  it('keeps the most recent 128 samples, oldest first', async () => {
    for (let i = 0; i < 130; i++) {
      const p = requester.get(LIGHT, 'GetPower', {});
      await clock.tickAsync(0);
      await clock.tickAsync(i % 10);
      endpoint.reply(endpoint.sent[endpoint.sent.length - 1]!.packet, LIGHT.serial, 'StatePower', { level: 0 }, FROM);
      await p;
      await clock.tickAsync(100); // stay under the pacing limit
    }
    const s = requester.lightStats(LIGHT.serial)!;
    expect(s.rttSamples).to.equal(130);
    expect(s.recentRttMs.length).to.equal(128);
    expect(s.recentRttMs.slice(0, 3)).to.deep.equal([2, 3, 4]);
    expect(s.recentRttMs.at(-1)).to.equal(9);
  });
});
