// Exchanges and their sequence lanes: sequence numbers per destination, a plan per message and kind shared by every
// exchange, and replies matched on (sequence, target) from the address the request went to.

import { expect } from 'chai';
import { decode, encode, type KnownPacket, type MessageName, type Payload } from '../../core/protocol/index.js';
import { Exchange, ExchangeTable, planFor, type ExchangeHost } from '../../core/transport/exchange.js';

const LIGHT = { serial: 'd073d5000001', address: '127.0.0.2', port: 56700 };
const HOST: ExchangeHost = { attempt: () => undefined };
const RED = { hue: 0, saturation: 65535, brightness: 65535, kelvin: 3500 };

function reply<N extends MessageName>(name: N, payload: Payload<N>, sequence: number, target = LIGHT.serial): KnownPacket {
  const result = decode(encode({ name, header: { source: 7, sequence, target }, payload }));
  if (!result.ok || result.packet.name === null) throw new Error('bad packet');
  return result.packet;
}

describe('ExchangeTable and exchange plans', () => {
  let table: ExchangeTable;
  const exchange = (name: MessageName, device = LIGHT, laneKey = device.serial): Exchange => {
    const lane = table.laneOf(laneKey);
    return new Exchange(HOST, planFor(name, 'get'), device, {}, lane, table.nextSequence(lane), undefined, 1000, 1000, undefined);
  };

  beforeEach(() => {
    table = new ExchangeTable();
  });

  it('numbers each destination on its own, 0 to 255 and round again', () => {
    const a = table.laneOf('a');
    const b = table.laneOf('b');
    expect(table.laneOf('a')).to.equal(a);
    expect([table.nextSequence(a), table.nextSequence(a), table.nextSequence(b)]).to.deep.equal([0, 1, 0]);
    for (let i = 2; i < 256; i++) table.nextSequence(a);
    expect(table.nextSequence(a)).to.equal(0);
  });

  it('shares one frozen plan per message and kind', () => {
    const plan = planFor('GetColor', 'get');
    expect(planFor('GetColor', 'get')).to.equal(plan);
    expect(Object.isFrozen(plan)).to.equal(true);
    expect(plan).to.include({ name: 'GetColor', wantAck: false, wantReply: true, answer: 'first', once: false });
    expect(planFor('GetColor', 'getOnce')).to.include({ answer: 'first', once: true });
    expect(planFor('SetColor', 'set')).to.include({ wantAck: true, wantReply: false, answer: 'set' });
    expect(planFor('SetColor', 'setWithReply')).to.include({ wantAck: true, wantReply: true, answer: 'set' });
    expect(planFor('GetColorZones', 'getAll').answer).to.equal('all');
  });

  it('matches a reply by sequence and target, only from the address the request went to, only a reply it wants', () => {
    const ex = exchange('GetColor');
    expect(table.add(ex)).to.equal(undefined);
    const state = reply('LightState', { color: RED, power: 0, label: 'a' }, ex.sequence);
    expect(table.match(state, { address: '127.0.0.9', port: 56700 })).to.equal(undefined);
    expect(table.match(reply('StatePower', { level: 0 }, ex.sequence), LIGHT)).to.equal(undefined);
    expect(table.match(reply('LightState', { color: RED, power: 0, label: 'a' }, ex.sequence + 1), LIGHT)).to.equal(undefined);
    expect(table.match(state, LIGHT)).to.equal(ex);
    table.remove(ex);
    expect(table.match(state, LIGHT)).to.equal(undefined);
  });

  it('matches a tagged request (a probe) by the address it went to, whatever target the reply carries', () => {
    const device = { serial: '000000000000', address: '127.0.0.3', port: 56700 };
    const ex = exchange('GetService', device, '127.0.0.3:56700');
    table.add(ex);
    expect(table.match(reply('StateService', { service: 1, port: 56700 }, ex.sequence, 'd073d5000003'), { address: '127.0.0.3', port: 56700 })).to.equal(ex);
    expect(table.match(reply('StateService', { service: 1, port: 56700 }, ex.sequence, 'd073d5000003'), { address: '127.0.0.3', port: 56701 })).to.equal(undefined);
  });

  it('hands back the exchange a new one displaces (the same sequence 256 requests later), and lists those in flight', () => {
    const first = exchange('GetColor');
    table.add(first);
    for (let i = 1; i < 256; i++) table.nextSequence(first.lane);
    const again = exchange('GetColor');
    expect(again.sequence).to.equal(first.sequence);
    expect(table.add(again)).to.equal(first);
    expect(table.all()).to.deep.equal([again]);
    table.remove(first);
    expect(table.all()).to.deep.equal([again]);
  });
});
