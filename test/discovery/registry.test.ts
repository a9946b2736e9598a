import { expect } from 'chai';
import sinon from 'sinon';
import { LightRegistry, type LightRecord } from '../../core/discovery/registry.js';

describe('LightRegistry', () => {
  let now = 1_000;
  const clock = (): number => now;

  function recorder(registry: LightRegistry): string[] {
    const events: string[] = [];
    registry.on('added', (l: LightRecord) => events.push(`added ${l.serial} ${l.address}:${l.port}`));
    registry.on('changed', (l: LightRecord, what: readonly string[]) => events.push(`changed ${l.serial} ${what.join(',')}`));
    registry.on('offline', (l: LightRecord) => events.push(`offline ${l.serial}`));
    registry.on('online', (l: LightRecord) => events.push(`online ${l.serial}`));
    return events;
  }

  it('adds a light once and records when it was first and last seen', () => {
    const registry = new LightRegistry(3, clock);
    const events = recorder(registry);
    now = 1_000;
    registry.seen('d073d5000001', '127.0.0.2', 56700);
    now = 2_500;
    registry.seen('d073d5000001', '127.0.0.2', 56700);
    expect(events).to.deep.equal(['added d073d5000001 127.0.0.2:56700']);
    expect(registry.get('d073d5000001')).to.include({ firstSeenAt: 1_000, lastSeenAt: 2_500, online: true });
  });

  it('follows an address change by serial and says so', () => {
    const registry = new LightRegistry(3, clock);
    const events = recorder(registry);
    registry.seen('d073d5000001', '127.0.0.2', 56700);
    registry.seen('d073d5000001', '127.0.0.9', 56701);
    expect(events).to.deep.equal(['added d073d5000001 127.0.0.2:56700', 'changed d073d5000001 address']);
    expect(registry.get('d073d5000001')).to.include({ address: '127.0.0.9', port: 56701 });
  });

  it('marks a light offline only after the configured number of consecutive misses', () => {
    const registry = new LightRegistry(3, clock);
    const events = recorder(registry);
    registry.seen('d073d5000001', '127.0.0.2', 56700);
    registry.missed('d073d5000001');
    registry.missed('d073d5000001');
    registry.answered('d073d5000001');
    registry.missed('d073d5000001');
    registry.missed('d073d5000001');
    expect(events).to.have.length(1);
    registry.missed('d073d5000001');
    expect(events.slice(1)).to.deep.equal(['offline d073d5000001']);
    registry.missed('d073d5000001');
    expect(events.slice(1)).to.deep.equal(['offline d073d5000001']);
    registry.answered('d073d5000001');
    expect(events.slice(1)).to.deep.equal(['offline d073d5000001', 'online d073d5000001']);
  });

  it('counts misses from reads only: a discovery reply or any other packet neither clears them nor brings it online', () => {
    const registry = new LightRegistry(2, clock);
    const events = recorder(registry);
    registry.seen('d073d5000001', '127.0.0.2', 56700);
    registry.missed('d073d5000001');
    now = 3_000;
    registry.seen('d073d5000001', '127.0.0.2', 56700);
    registry.heard('d073d5000001', '127.0.0.2');
    registry.missed('d073d5000001');
    expect(events.slice(1)).to.deep.equal(['offline d073d5000001']);
    now = 4_000;
    registry.seen('d073d5000001', '127.0.0.2', 56700);
    expect(registry.get('d073d5000001')).to.include({ online: false, lastSeenAt: 4_000 });
    registry.answered('d073d5000001');
    expect(events.slice(1)).to.deep.equal(['offline d073d5000001', 'online d073d5000001']);
    expect(registry.get('d073d5000001')).to.include({ online: true, misses: 0 });
  });

  it('takes a packet as a sign of life only from the light\'s own address', () => {
    now = 1_000;
    const registry = new LightRegistry(2, clock);
    registry.seen('d073d5000001', '127.0.0.2', 56700);
    now = 5_000;
    registry.heard('d073d5000001', '127.0.0.50');
    expect(registry.get('d073d5000001')).to.include({ lastSeenAt: 1_000 });
    registry.heard('d073d5000001', '127.0.0.2');
    expect(registry.get('d073d5000001')).to.include({ lastSeenAt: 5_000 });
  });

  it('emits changed naming only the facts whose values differ', () => {
    const registry = new LightRegistry(3, clock);
    const events = recorder(registry);
    registry.seen('d073d5000001', '127.0.0.2', 56700);
    registry.update('d073d5000001', { label: 'Desk', power: 'on' });
    registry.update('d073d5000001', { label: 'Desk', power: 'off' });
    registry.update('d073d5000001', { label: 'Desk', power: 'off' });
    expect(events.slice(1)).to.deep.equal(['changed d073d5000001 label,power', 'changed d073d5000001 power']);
  });


  it('compares read values deeply: equal zones, colours and memberships in new objects are no change', () => {
    const registry = new LightRegistry(3, clock);
    const events = recorder(registry);
    const serial = 'd073d5000001';
    const red = (): { hue: number; saturation: number; brightness: number; kelvin: number } => ({ hue: 0, saturation: 1, brightness: 1, kelvin: 3500 });
    const group = (label: string, updatedAtNs: bigint): { id: string; label: string; updatedAtNs: bigint } => ({ id: 'ab'.repeat(16), label, updatedAtNs });
    registry.seen(serial, '127.0.0.2', 56700);
    registry.update(serial, { zones: [red(), red(), red()], color: red(), group: group('Den', 5n) });
    registry.update(serial, { zones: [red(), red(), red()], color: red(), group: group('Den', 5n) });
    expect(events.slice(1)).to.deep.equal([`changed ${serial} zones,color,group`]);
    // One zone differs, one zone more, a bigint differs, a colour lacks a field: each is a change.
    registry.update(serial, { zones: [red(), { ...red(), hue: 120 }, red()] });
    registry.update(serial, { zones: [red(), { ...red(), hue: 120 }, red(), red()] });
    registry.update(serial, { group: group('Den', 6n) });
    const { kelvin: _kelvin, ...noKelvin } = red();
    registry.update(serial, { color: noKelvin as unknown as ReturnType<typeof red> });
    registry.update(serial, { color: { ...red(), extra: 1 } as unknown as ReturnType<typeof red> });
    expect(events.slice(2)).to.deep.equal([`changed ${serial} zones`, `changed ${serial} zones`, `changed ${serial} group`, `changed ${serial} color`, `changed ${serial} color`]);
  });
  it('stamps each fact with the time it was read', () => {
    const registry = new LightRegistry(3, clock);
    registry.seen('d073d5000001', '127.0.0.2', 56700);
    now = 5_000;
    registry.update('d073d5000001', { label: 'Desk' });
    now = 9_000;
    registry.update('d073d5000001', { power: 'on' });
    const facts = registry.get('d073d5000001')!.facts;
    expect(facts.label).to.deep.equal({ value: 'Desk', readAt: 5_000 });
    expect(facts.power).to.deep.equal({ value: 'on', readAt: 9_000 });
  });

  it('names a group after the member with the newest updated_at, so renames converge', () => {
    const registry = new LightRegistry(3, clock);
    const id = 'ab'.repeat(16);
    for (const [serial, label, at] of [
      ['d073d5000001', 'Lounge', 100n],
      ['d073d5000002', 'Living Room', 300n],
      ['d073d5000003', 'Front Room', 200n],
    ] as const) {
      registry.seen(serial, '127.0.0.2', 56700);
      registry.update(serial, { group: { id, label, updatedAtNs: at } });
    }
    expect(registry.groupLabel(id)).to.equal('Living Room');
    // A stale label is corrected when the newer one is read again elsewhere.
    registry.update('d073d5000001', { group: { id, label: 'Snug', updatedAtNs: 400n } });
    expect(registry.groupLabel(id)).to.equal('Snug');
    expect(registry.groupLabel('00'.repeat(16))).to.equal(undefined);
  });

  it('lists lights in serial order and returns frozen snapshots', () => {
    const registry = new LightRegistry(3, clock);
    registry.seen('d073d5000002', '127.0.0.3', 56700);
    registry.seen('d073d5000001', '127.0.0.2', 56700);
    const all = registry.all();
    expect(all.map((l) => l.serial)).to.deep.equal(['d073d5000001', 'd073d5000002']);
    expect(Object.isFrozen(all[0])).to.equal(true);
  });

  it('resolves every group label in one pass, with the same newest-wins rule', () => {
    const registry = new LightRegistry(3, clock);
    const a = 'aa'.repeat(16);
    const b = 'bb'.repeat(16);
    const rows = [
      ['d073d5000001', a, 'Old', 1n],
      ['d073d5000002', a, 'New', 5n],
      ['d073d5000003', b, 'Other', 2n],
    ] as const;
    for (const [serial, id, label, at] of rows) {
      registry.seen(serial, '127.0.0.2', 56700);
      registry.update(serial, { group: { id, label, updatedAtNs: at } });
    }
    const labels = registry.labels('group');
    expect([...labels]).to.deep.equal([
      [a, 'New'],
      [b, 'Other'],
    ]);
    expect(labels.get(a)).to.equal(registry.groupLabel(a));
    expect(registry.labels('location').size).to.equal(0);
  });

  it('peeks at every live record in serial order, and the order follows lights added later', () => {
    const registry = new LightRegistry(3, clock);
    registry.seen('d073d5000003', '127.0.0.4', 56700);
    registry.seen('d073d5000001', '127.0.0.2', 56700);
    expect(registry.peekAll().map((l) => l.serial)).to.deep.equal(['d073d5000001', 'd073d5000003']);
    registry.seen('d073d5000002', '127.0.0.3', 56700);
    registry.update('d073d5000002', { label: 'Live' });
    const all = registry.peekAll();
    expect(all.map((l) => l.serial)).to.deep.equal(['d073d5000001', 'd073d5000002', 'd073d5000003']);
    expect(all[1]!.facts.label?.value).to.equal('Live');
    registry.remove('d073d5000001');
    expect(registry.peekAll().map((l) => l.serial)).to.deep.equal(['d073d5000002', 'd073d5000003']);
  });

  it('keeps what a write set while its transition runs: a mid-fade read does not replace the target', () => {
    const registry = new LightRegistry(3, clock);
    const serial = 'd073d5000001';
    now = 10_000;
    registry.seen(serial, '127.0.0.2', 56700);
    registry.update(serial, { power: 'on', color: { hue: 0, saturation: 0, brightness: 0.5, kelvin: 3500 } });
    registry.wrote(serial, { color: { hue: 0, saturation: 0, brightness: 0.6, kelvin: 3500 } }, { color: 2_000 });
    expect(registry.get(serial)!.facts.color!.value.brightness).to.equal(0.6);
    expect(registry.settlesAt(serial, 'color')).to.equal(12_000);
    now = 11_000;
    // Half-way through: the light shows 0.55, power and label are taken as read.
    registry.update(serial, { power: 'off', label: 'Desk', color: { hue: 0, saturation: 0, brightness: 0.55, kelvin: 3500 } });
    const mid = registry.get(serial)!.facts;
    expect(mid.color!.value.brightness).to.equal(0.6);
    expect(mid.power!.value).to.equal('off');
    expect(mid.label!.value).to.equal('Desk');
    // Once the transition is over, a read is taken again (someone may have changed the light since).
    now = 12_000;
    expect(registry.settlesAt(serial, 'color')).to.equal(undefined);
    registry.update(serial, { color: { hue: 0, saturation: 0, brightness: 0.3, kelvin: 3500 } });
    expect(registry.get(serial)!.facts.color!.value.brightness).to.equal(0.3);
  });

  it('drops a reply to a read sent before a write, even when the write has no transition', () => {
    const registry = new LightRegistry(3, clock);
    const serial = 'd073d5000001';
    registry.seen(serial, '127.0.0.2', 56700);
    const before = registry.mark();
    registry.wrote(serial, { power: 'on' });
    registry.update(serial, { power: 'off' }, before);
    expect(registry.get(serial)!.facts.power!.value).to.equal('on');
    const after = registry.mark();
    registry.update(serial, { power: 'off' }, after);
    expect(registry.get(serial)!.facts.power!.value).to.equal('off');
  });
  it('runs on the wall clock by default: stamps and a write\'s transition follow Date.now (fake timers)', () => {
    const fake = sinon.useFakeTimers({ toFake: ['Date'], now: 1_700_000_000_000 });
    try {
      const registry = new LightRegistry(3);
      const serial = 'd073d5000001';
      registry.seen(serial, '127.0.0.2', 56700);
      fake.tick(250);
      registry.update(serial, { color: { hue: 0, saturation: 0, brightness: 0.5, kelvin: 3500 } });
      expect(registry.get(serial)).to.include({ firstSeenAt: 1_700_000_000_000 });
      expect(registry.get(serial)!.facts.color!.readAt).to.equal(1_700_000_000_250);
      registry.wrote(serial, { color: { hue: 0, saturation: 0, brightness: 0.8, kelvin: 3500 } }, { color: 1_000 });
      expect(registry.settlesAt(serial, 'color')).to.equal(1_700_000_001_250);
      fake.tick(999);
      registry.update(serial, { color: { hue: 0, saturation: 0, brightness: 0.7, kelvin: 3500 } });
      expect(registry.get(serial)!.facts.color!.value.brightness, 'mid-fade read').to.equal(0.8);
      fake.tick(1);
      expect(registry.settlesAt(serial, 'color')).to.equal(undefined);
      registry.update(serial, { color: { hue: 0, saturation: 0, brightness: 0.7, kelvin: 3500 } });
      expect(registry.get(serial)!.facts.color!.value.brightness, 'read once the fade is over').to.equal(0.7);
    } finally {
      fake.restore();
    }
  });
});
