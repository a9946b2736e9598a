// Reply rules compiled from the message tables: which replies match, duplicates by identity, and when replies of a
// request answered by several messages are complete.

import { expect } from 'chai';
import { encode, decode, type KnownPacket, type MessageName, type Payload } from '../../core/protocol/index.js';
import { replyRule, wants, zonesCovered } from '../../core/transport/reply-rules.js';

const RED = { hue: 0, saturation: 65535, brightness: 65535, kelvin: 3500 };

function packet<N extends MessageName>(name: N, payload: Payload<N>): KnownPacket {
  const result = decode(encode({ name, header: { source: 1, sequence: 0, target: 'd073d5000001' }, payload }));
  if (!result.ok || result.packet.name === null) throw new Error('bad packet');
  return result.packet;
}

const multi = (index: number, count: number): KnownPacket => packet('StateMultiZone', { count, index, colors: Array.from({ length: 8 }, () => RED) });
const extended = (index: number, count: number, colorsCount: number): KnownPacket =>
  packet('StateExtendedColorZones', { count, index, colorsCount, colors: Array.from({ length: 82 }, () => RED) });

describe('reply rules (from the message tables)', () => {
  it('matches a single-reply Get by its declared reply, an ack and a refusal, and nothing else', () => {
    const rule = replyRule('GetColor');
    expect([...rule.names]).to.deep.equal(['LightState']);
    expect(rule.type).to.equal(101);
    expect(rule.gap).to.equal(false);
    expect(rule.complete).to.equal(undefined);
    expect(wants(rule, packet('LightState', { color: RED, power: 0, label: 'a' }))).to.equal(true);
    expect(wants(rule, packet('Acknowledgement', {}))).to.equal(true);
    expect(wants(rule, packet('StateUnhandled', { unhandledType: 101 }))).to.equal(true);
    expect(wants(rule, packet('StatePower', { level: 0 }))).to.equal(false);
  });

  it('gives a message without reply a rule that only an ack or refusal matches', () => {
    const rule = replyRule('SetReboot');
    expect(rule.names.size).to.equal(0);
    expect(wants(rule, packet('Acknowledgement', {}))).to.equal(true);
    expect(wants(rule, packet('LightState', { color: RED, power: 0, label: 'a' }))).to.equal(false);
  });

  it('is compiled once per message', () => {
    expect(replyRule('GetColorZones')).to.equal(replyRule('GetColorZones'));
  });

  it('GetColorZones: complete once the zones asked (as far as the light has zones) are covered', () => {
    const rule = replyRule('GetColorZones');
    expect(rule.gap).to.equal(false);
    const request = { startIndex: 0, endIndex: 255 };
    expect(rule.complete!(request, [multi(0, 20)])).to.equal(false);
    expect(rule.complete!(request, [multi(0, 20), multi(8, 20)])).to.equal(false);
    expect(rule.complete!(request, [multi(16, 20), multi(0, 20), multi(8, 20)])).to.equal(true);
    expect(rule.complete!({ startIndex: 8, endIndex: 15 }, [multi(8, 20)])).to.equal(true);
    expect(rule.complete!({ startIndex: 3, endIndex: 3 }, [packet('StateZone', { count: 20, index: 3, color: RED })])).to.equal(true);
  });

  it('GetColorZones: a chunk seen again (same message, same index) is a duplicate; another index is not', () => {
    const key = replyRule('GetColorZones').key!;
    expect(key(multi(0, 20))).to.equal(key(multi(0, 20)));
    expect(key(multi(0, 20))).to.not.equal(key(multi(8, 20)));
    expect(key(multi(0, 20))).to.not.equal(key(packet('StateZone', { count: 20, index: 0, color: RED })));
  });

  it('GetExtendedColorZones: complete when every zone of the light is in, by colorsCount', () => {
    const rule = replyRule('GetExtendedColorZones');
    expect(rule.complete!({}, [extended(0, 120, 82)])).to.equal(false);
    expect(rule.complete!({}, [extended(82, 120, 38), extended(0, 120, 82)])).to.equal(true);
    expect(rule.complete!({}, [extended(0, 82, 82)])).to.equal(true);
  });

  it('Get64: complete at `length` replies, and ends by the gap when fewer come', () => {
    const rule = replyRule('Get64');
    expect(rule.gap).to.equal(true);
    const state64 = (tileIndex: number): KnownPacket => packet('State64', { tileIndex, rect: { fbIndex: 0, x: 0, y: 0, width: 8 }, colors: Array.from({ length: 64 }, () => RED) });
    expect(rule.complete!({ tileIndex: 0, length: 2 }, [state64(0)])).to.equal(false);
    expect(rule.complete!({ tileIndex: 0, length: 2 }, [state64(0), state64(1)])).to.equal(true);
    expect(rule.key!(state64(0))).to.not.equal(rule.key!(state64(1)));
  });

  it('GetService: replies of an unknown count, ended by the gap only, one per service and port', () => {
    const rule = replyRule('GetService');
    expect(rule.gap).to.equal(true);
    expect(rule.complete).to.equal(undefined);
    const a = packet('StateService', { service: 1, port: 56700 });
    expect(rule.key!(a)).to.equal(rule.key!(packet('StateService', { service: 1, port: 56700 })));
    expect(rule.key!(a)).to.not.equal(rule.key!(packet('StateService', { service: 1, port: 56701 })));
  });

  it('zonesCovered: nothing is not covered; a light with no zone, or none in the range asked, is', () => {
    expect(zonesCovered(0, 7, [])).to.equal(false);
    expect(zonesCovered(0, 7, [multi(0, 0)])).to.equal(true);
    expect(zonesCovered(40, 47, [multi(0, 20)])).to.equal(true);
  });
});
