// Confirmed Sets in order: latest wins per light and key, and a read waits for the Sets before it, inside its own
// deadline (fake clock).

import { expect } from 'chai';
import sinon from 'sinon';
import { isLightwireError, type LightwireError } from '../../core/errors.js';
import { Exchange, ExchangeTable, planFor, type ExchangeHost } from '../../core/transport/exchange.js';
import { SetOrder } from '../../core/transport/set-order.js';

const LIGHT = { serial: 'd073d5000001', address: '127.0.0.2', port: 56700 };
const HOST: ExchangeHost = { attempt: () => undefined };

describe('SetOrder', () => {
  let clock: sinon.SinonFakeTimers;
  let table: ExchangeTable;
  let sent: Exchange[];
  let superseded: Exchange[];
  let order: SetOrder;
  const set = (coalesceId: string | undefined = `${LIGHT.serial}/SetColor`): Exchange => {
    const lane = table.laneOf(LIGHT.serial);
    return new Exchange(HOST, planFor('SetColor', 'set'), LIGHT, {}, lane, table.nextSequence(lane), undefined, 1000, 1000, coalesceId);
  };

  beforeEach(() => {
    clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'queueMicrotask', 'performance'] });
    table = new ExchangeTable();
    sent = [];
    superseded = [];
    order = new SetOrder({ transmit: (ex) => sent.push(ex), supersede: (ex) => superseded.push(ex) }, () => performance.now());
  });

  afterEach(() => clock.restore());

  it('keeps one Set on the wire per key; the newest waiting one replaces an older one and goes when the first is acked', () => {
    const [a, b, c] = [set(), set(), set()];
    order.enter(a, a.coalesceId!);
    order.enter(b, b.coalesceId!);
    order.enter(c, c.coalesceId!);
    expect(sent).to.deep.equal([a]);
    expect(superseded).to.deep.equal([b]);
    order.release(b);
    order.release(a);
    expect(sent).to.deep.equal([a, c]);
    order.release(c);
    order.enter(a, a.coalesceId!);
    expect(sent).to.deep.equal([a, c, a]);
  });

  it('sends Sets of other keys at once', () => {
    const a = set(`${LIGHT.serial}/SetColor`);
    const b = set(`${LIGHT.serial}/SetPower`);
    order.enter(a, a.coalesceId!);
    order.enter(b, b.coalesceId!);
    expect(sent).to.deep.equal([a, b]);
  });

  it('starts a read at once, with all its time, when no Set is pending', () => {
    const started: number[] = [];
    order.whenSettled(LIGHT.serial, 1000, (leftMs) => started.push(leftMs), () => expect.fail('expired'), 'GetColor');
    expect(started).to.deep.equal([1000]);
  });

  it('starts a read once the Sets pending when it was asked have settled, with what is left of its time', async () => {
    const [a, b] = [set(), set(undefined)];
    order.begun(a);
    order.begun(b);
    expect(order.pending(LIGHT.serial)).to.equal(2);
    const started: number[] = [];
    order.whenSettled(LIGHT.serial, 1000, (leftMs) => started.push(leftMs), () => expect.fail('expired'), 'GetColor');
    await clock.tickAsync(300);
    order.settled(a);
    await clock.tickAsync(0);
    expect(started).to.deep.equal([]);
    await clock.tickAsync(100);
    order.settled(b);
    await clock.tickAsync(0);
    expect(started).to.deep.equal([600]);
    expect(order.pending(LIGHT.serial)).to.equal(0);
    expect(clock.countTimers()).to.equal(0);
  });

  it('times a read out at its deadline when the Sets before it are still pending, and never starts it', async () => {
    const a = set();
    order.begun(a);
    const expired: LightwireError[] = [];
    let started = false;
    order.whenSettled(LIGHT.serial, 500, () => (started = true), (err) => expired.push(err), 'GetColor');
    await clock.tickAsync(500);
    expect(expired).to.have.length(1);
    expect(isLightwireError(expired[0], 'REQUEST_TIMED_OUT')).to.equal(true);
    order.settled(a);
    await clock.tickAsync(0);
    expect(started).to.equal(false);
  });
});
