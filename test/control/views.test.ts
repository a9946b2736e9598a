// Views share what lights share: the group and location a view shows, its firmware and its matrix are one frozen
// object for every light showing the same, and a light's uuid is the UUIDv5 of its serial.

import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { FirmwareInfo, GroupMembership, LightFacts, LightRecord, TileFact } from '../../core/discovery/registry.js';
import { lightView, uuidFromSerial, type GroupNames } from '../../core/control/views.js';

const GROUP: GroupMembership = Object.freeze({ id: 'a'.repeat(32), label: 'Study', updatedAtNs: 1n });
const HOME: GroupMembership = Object.freeze({ id: 'b'.repeat(32), label: 'Home', updatedAtNs: 1n });
const FIRMWARE: FirmwareInfo = Object.freeze({ major: 3, minor: 70, buildNs: 5n });
const TILES: readonly TileFact[] = Object.freeze([Object.freeze({ width: 8, height: 8 }), Object.freeze({ width: 8, height: 8 })]);

function record(serial: string, facts: LightFacts): LightRecord {
  return { serial, address: '127.0.0.2', port: 56700, firstSeenAt: 0, lastSeenAt: 0, online: true, misses: 0, revision: 1, facts };
}

const fact = <T>(value: T): { value: T; readAt: number } => ({ value, readAt: 1 });

describe('light views', () => {
  const names: GroupNames = { group: new Map([[GROUP.id, 'Study']]), location: new Map([[HOME.id, 'Home']]) };
  const facts: LightFacts = { label: fact('A'), power: fact('on'), group: fact(GROUP), location: fact(HOME), firmware: fact(FIRMWARE), tiles: fact(TILES) };

  it('shows the group, location, firmware and matrix many lights share as one frozen object each', () => {
    const a = lightView(record('d073d5000001', facts), names);
    const b = lightView(record('d073d5000002', { ...facts, label: fact('B') }), names);
    expect(a.group).to.deep.equal({ id: GROUP.id, name: 'Study' });
    expect(a.location).to.deep.equal({ id: HOME.id, name: 'Home' });
    expect(a.firmware).to.deep.equal({ major: 3, minor: 70 });
    expect(a.matrix).to.deep.equal({ tiles: TILES, zoneCount: 128 });
    for (const part of ['group', 'location', 'firmware', 'matrix'] as const) {
      expect(b[part]).to.equal(a[part]);
      expect(Object.isFrozen(a[part])).to.equal(true);
    }
  });

  it('shows a group under its newly resolved name once it is renamed', () => {
    const before = lightView(record('d073d5000001', facts), names);
    const renamed: GroupNames = { group: new Map([[GROUP.id, 'Den']]), location: names.location };
    const after = lightView(record('d073d5000001', facts), renamed);
    expect(after.group).to.deep.equal({ id: GROUP.id, name: 'Den' });
    expect(before.group).to.deep.equal({ id: GROUP.id, name: 'Study' });
  });

  it('gives a light the UUIDv5 of its serial as its uuid', () => {
    const serial = 'd073d5001337';
    const hash = createHash('sha1').update(Buffer.from('6c1f0e3a4b2d4e8f9a7c5d3e2f1a0b9c', 'hex')).update(serial).digest();
    hash[6] = (hash[6]! & 0x0f) | 0x50;
    hash[8] = (hash[8]! & 0x3f) | 0x80;
    const hex = hash.subarray(0, 16).toString('hex');
    const expected = [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
    expect(uuidFromSerial(serial)).to.equal(expected).and.match(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidFromSerial(serial.toUpperCase())).to.equal(expected);
  });
});
