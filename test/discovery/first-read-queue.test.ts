// The first-read queue on its own, on a fake clock: how many new lights are read at once, when a light counts as
// described, and what a read that fails unexpectedly costs.

import { expect } from 'chai';
import sinon from 'sinon';
import { FirstReadQueue, FIRST_READ_CONCURRENCY, FIRST_READ_MAX, type FirstReadHost } from '../../core/discovery/first-read-queue.js';
import { LightRegistry, type LightRecord } from '../../core/discovery/registry.js';
import { capabilitiesFromFeatures, PRODUCTS } from '../../core/protocol/index.js';

const serialOf = (i: number): string => `d073d5${String(i).padStart(6, '0')}`;

interface FakeHost extends FirstReadHost {
  started: boolean;
  lost: number;
  /** Serials whose state read was asked, in order (repeats included). */
  stateReads: string[];
  infoReads: string[];
  partsReads: string[];
  describedSerials: string[];
  errors: Error[];
}

/**
 * A client as the queue sees it, on a real registry: a state read takes `roundTripMs` and saves power (unless
 * `silent` says the light does not answer it), a facts read saves the product's name as the label.
 */
function fakeHost(registry: LightRegistry, roundTripMs: number, silent: (serial: string, nth: number) => boolean = () => false): FakeHost {
  const host: FakeHost = {
    started: true,
    lost: 0,
    registry,
    offlineAfterMisses: 3,
    stateReads: [],
    infoReads: [],
    partsReads: [],
    describedSerials: [],
    errors: [],
    lostAttempts: () => host.lost,
    readState(serial) {
      host.stateReads.push(serial);
      const nth = host.stateReads.filter((s) => s === serial).length;
      return new Promise((resolve) =>
        setTimeout(() => {
          if (!silent(serial, nth)) registry.update(serial, { power: 'on' });
          resolve();
        }, roundTripMs),
      );
    },
    readInfo(serial) {
      host.infoReads.push(serial);
      return new Promise((resolve) =>
        setTimeout(() => {
          registry.update(serial, { label: 'Read' });
          resolve();
        }, roundTripMs),
      );
    },
    readMissingParts(serial) {
      host.partsReads.push(serial);
      return Promise.resolve();
    },
    described: (record: LightRecord) => host.describedSerials.push(record.serial),
    failed: (err) => host.errors.push(err),
  };
  return host;
}

describe('FirstReadQueue (fake timers)', () => {
  let clock: sinon.SinonFakeTimers;
  let registry: LightRegistry;
  beforeEach(() => {
    clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    registry = new LightRegistry(3);
  });
  afterEach(() => clock.restore());

  function found(queue: FirstReadQueue, count: number): void {
    for (let i = 1; i <= count; i++) {
      registry.seen(serialOf(i), '127.0.0.2', 56700);
      queue.add(serialOf(i));
    }
  }

  it(`reads ${FIRST_READ_CONCURRENCY} new lights at once at first, each light's state before its facts, and the next as one ends`, async () => {
    const host = fakeHost(registry, 50);
    const queue = new FirstReadQueue(host);
    found(queue, 20);
    expect(host.stateReads).to.deep.equal([1, 2, 3, 4].map(serialOf));
    expect(host.infoReads).to.deep.equal([1, 2, 3, 4].map(serialOf));
    expect(queue.active).to.equal(FIRST_READ_CONCURRENCY);
    expect(queue.describing).to.equal(20);
    await clock.tickAsync(50);
    // Four ended: as many more began at once (the window grows on later rounds), never more than the ceiling.
    expect(host.describedSerials).to.deep.equal([1, 2, 3, 4].map(serialOf));
    expect(host.stateReads.slice(0, 8)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8].map(serialOf));
    expect(queue.active).to.be.at.most(FIRST_READ_MAX);
    await clock.tickAsync(500);
    expect(host.describedSerials).to.have.members(Array.from({ length: 20 }, (_, i) => serialOf(i + 1)));
    expect([queue.active, queue.describing]).to.deep.equal([0, 0]);
  });

  it('halves nothing below the first window: with every read losing a packet it keeps reading four at once', async () => {
    const host = fakeHost(registry, 50);
    const queue = new FirstReadQueue(host);
    // Every state read loses a transmission (lostAttempts grows while each is in flight).
    const read = host.readState;
    host.readState = (serial) => {
      host.lost++;
      return read(serial);
    };
    found(queue, 12);
    for (let round = 0; round < 3; round++) {
      expect(queue.active).to.equal(FIRST_READ_CONCURRENCY);
      await clock.tickAsync(50);
    }
    expect(host.describedSerials).to.have.length(12);
  });

  it('asks the state again, up to offlineAfterMisses reads in all, of a light that answered for its facts only', async () => {
    // Light 1 answers its second state read; light 2 never answers one.
    const host = fakeHost(registry, 50, (serial, nth) => serial === serialOf(2) || nth < 2);
    const queue = new FirstReadQueue(host);
    found(queue, 2);
    await clock.tickAsync(1_000);
    expect(host.stateReads.filter((s) => s === serialOf(1))).to.have.length(2);
    expect(host.stateReads.filter((s) => s === serialOf(2))).to.have.length(3);
    expect(registry.peek(serialOf(1))!.facts.power?.value).to.equal('on');
    // Its first read is over either way: described with what was read.
    expect(host.describedSerials).to.have.members([serialOf(1), serialOf(2)]);
    expect(queue.describing).to.equal(0);
  });

  it('reads the missing parts of a multizone light once its product is known, before it is described', async () => {
    const host = fakeHost(registry, 50);
    const read = host.readInfo;
    host.readInfo = (serial) =>
      read(serial).then(() => registry.update(serial, { product: { ...PRODUCTS.get(1, 9001), capabilities: capabilitiesFromFeatures({ multizone: true }) } }));
    const queue = new FirstReadQueue(host);
    found(queue, 1);
    await clock.tickAsync(100);
    expect(host.partsReads).to.deep.equal([serialOf(1)]);
    expect(host.describedSerials).to.deep.equal([serialOf(1)]);
  });

  it('frees the slot and reports a read that fails unexpectedly, without describing that light, and holds nothing back', async () => {
    const host = fakeHost(registry, 50);
    const read = host.readInfo;
    host.readInfo = (serial) => (serial === serialOf(1) ? new Promise((_, reject) => setTimeout(() => reject(new TypeError('boom')), 50)) : read(serial));
    const queue = new FirstReadQueue(host);
    found(queue, 6);
    await clock.tickAsync(500);
    expect(host.errors.map((e) => e.message)).to.deep.equal(['boom']);
    expect(host.describedSerials).to.have.members([2, 3, 4, 5, 6].map(serialOf));
    expect([queue.active, queue.describing]).to.deep.equal([0, 0]);
  });

  it('reads nothing more once the client stopped, and clear() drops the lights waiting their turn', async () => {
    const host = fakeHost(registry, 50);
    const queue = new FirstReadQueue(host);
    found(queue, 10);
    host.started = false;
    queue.clear();
    expect(queue.describing).to.equal(4);
    await clock.tickAsync(500);
    expect(host.stateReads).to.have.length(4);
    expect(host.describedSerials).to.deep.equal([]);
    expect([queue.active, queue.describing]).to.deep.equal([0, 0]);
  });
});
