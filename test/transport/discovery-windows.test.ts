// Discovery windows: a StateService counts as the answer to a GetService of ours only within
// DISCOVERY_REPLY_WINDOW_MS of it, by sequence, from the address probed or to a broadcast.

import { expect } from 'chai';
import sinon from 'sinon';
import { BROADCAST_WINDOW, DISCOVERY_REPLY_WINDOW_MS, DiscoveryWindows } from '../../core/transport/discovery-windows.js';

const A = { address: '127.0.0.2', port: 56700 };

describe('DiscoveryWindows', () => {
  let clock: sinon.SinonFakeTimers;

  beforeEach(() => {
    clock = sinon.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
  });

  afterEach(() => clock.restore());

  it('takes a probe answer from the address probed, with its sequence, while its window is open', () => {
    const windows = new DiscoveryWindows();
    windows.note('127.0.0.2:56700', 5);
    expect(windows.replyTo(5, A)).to.equal('probe');
    expect(windows.replyTo(6, A)).to.equal(undefined);
    expect(windows.replyTo(5, { address: '127.0.0.3', port: 56700 })).to.equal(undefined);
    clock.tick(DISCOVERY_REPLY_WINDOW_MS);
    expect(windows.replyTo(5, A)).to.equal('probe');
    clock.tick(1);
    expect(windows.replyTo(5, A)).to.equal(undefined);
  });

  it('takes a broadcast answer from any address, by sequence; a probe of the same sequence wins', () => {
    const windows = new DiscoveryWindows();
    windows.note(BROADCAST_WINDOW, 9);
    expect(windows.replyTo(9, { address: '127.0.0.77', port: 56700 })).to.equal('broadcast');
    windows.note('127.0.0.2:56700', 9);
    expect(windows.replyTo(9, A)).to.equal('probe');
    clock.tick(DISCOVERY_REPLY_WINDOW_MS + 1);
    expect(windows.replyTo(9, A)).to.equal(undefined);
  });

  it('drops destinations whose windows have all lapsed once 2048 are remembered (a /22 sweep leaves nothing behind)', () => {
    const windows = new DiscoveryWindows();
    for (let i = 0; i < 2048; i++) windows.note(`127.0.${i >> 8}.${i & 0xff}:56700`, 0);
    expect(windows.size).to.equal(2048);
    windows.note('127.0.9.9:56700', 0);
    expect(windows.size).to.equal(2049);
    clock.tick(DISCOVERY_REPLY_WINDOW_MS + 1);
    windows.note('127.0.9.10:56700', 1);
    expect(windows.size).to.equal(1);
    expect(windows.replyTo(1, { address: '127.0.9.10', port: 56700 })).to.equal('probe');
  });

  it('forgets every window when cleared', () => {
    const windows = new DiscoveryWindows();
    windows.note(BROADCAST_WINDOW, 1);
    windows.clear();
    expect(windows.replyTo(1, A)).to.equal(undefined);
  });
});
