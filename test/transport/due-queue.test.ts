import { expect } from 'chai';
import sinon from 'sinon';
import { DueQueue, type DueItem } from '../../core/transport/due-queue.js';

interface Item extends DueItem {
  readonly name: string;
}

const item = (name: string): Item => ({ name, dueAtMs: Infinity, dueIndex: -1 });

describe('DueQueue (one timer for every exchange)', () => {
  let clock: sinon.SinonFakeTimers;
  let fired: string[];
  let onDue: (it: Item) => void;
  let queue: DueQueue<Item>;

  beforeEach(() => {
    clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    fired = [];
    onDue = (it) => fired.push(`${it.name}@${performance.now()}`);
    queue = new DueQueue((it) => onDue(it), () => performance.now());
  });

  afterEach(() => clock.restore());

  it('calls each item at its time, earliest first, on a single timer', () => {
    const items = [30, 10, 50, 20, 40, 10].map((ms, i) => {
      const it = item(`i${i}:${ms}`);
      queue.set(it, ms);
      return it;
    });
    expect(clock.countTimers()).to.equal(1);
    clock.tick(10);
    expect(fired).to.deep.equal(['i1:10@10', 'i5:10@10']);
    clock.tick(40);
    expect(fired.slice(2)).to.deep.equal(['i3:20@20', 'i0:30@30', 'i4:40@40', 'i2:50@50']);
    expect(items.every((it) => it.dueIndex === -1)).to.equal(true);
    expect(queue.size).to.equal(0);
    expect(clock.countTimers()).to.equal(0);
  });

  it('moves an item earlier or later when it is set again', () => {
    const a = item('a');
    const b = item('b');
    queue.set(a, 100);
    queue.set(b, 50);
    queue.set(a, 20);
    queue.set(b, 200);
    clock.tick(100);
    expect(fired).to.deep.equal(['a@20']);
    clock.tick(100);
    expect(fired).to.deep.equal(['a@20', 'b@200']);
  });

  it('forgets a deleted item, and clears its timer once nothing is left, so no timer keeps the process alive', () => {
    const a = item('a');
    const b = item('b');
    queue.set(a, 10);
    queue.set(b, 20);
    queue.delete(a);
    expect(a.dueIndex).to.equal(-1);
    clock.tick(15);
    expect(fired).to.deep.equal([]);
    queue.delete(b);
    expect(clock.countTimers()).to.equal(0);
    queue.delete(b);
    expect(queue.size).to.equal(0);
  });

  it('keeps the heap in order through many sets and deletes', () => {
    const items = Array.from({ length: 200 }, (_, i) => item(`n${i}`));
    // A fixed pseudo-random order (LCG), so a failure reproduces.
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 1000;
    for (const it of items) queue.set(it, 1 + next());
    for (let i = 0; i < 200; i += 3) queue.set(items[i]!, 1 + next());
    for (let i = 1; i < 200; i += 5) queue.delete(items[i]!);
    const left = items.filter((it) => it.dueIndex >= 0);
    onDue = (it) => fired.push(String(it.dueAtMs));
    clock.tick(1001);
    expect(fired.map(Number)).to.deep.equal(left.map((it) => it.dueAtMs).sort((x, y) => x - y));
  });

  it('runs an item put back for a time already past in the same round, and one put back later at its time', () => {
    const a = item('a');
    let again = 0;
    onDue = (it) => {
      fired.push(`${it.name}@${performance.now()}`);
      if (again++ === 0) queue.set(it, performance.now());
      else if (again === 2) queue.set(it, performance.now() + 30);
    };
    queue.set(a, 10);
    clock.tick(10);
    expect(fired).to.deep.equal(['a@10', 'a@10']);
    clock.tick(30);
    expect(fired).to.deep.equal(['a@10', 'a@10', 'a@40']);
  });

  it('keeps the timer for the items still queued when a callback throws', () => {
    const a = item('a');
    const b = item('b');
    onDue = (it) => {
      fired.push(it.name);
      if (it.name === 'a') throw new Error('boom');
    };
    queue.set(a, 10);
    queue.set(b, 10);
    expect(() => clock.tick(10)).to.throw('boom');
    expect(fired).to.deep.equal(['a']);
    clock.tick(1);
    expect(fired).to.deep.equal(['a', 'b']);
  });

  it('clear() empties the queue and its timer', () => {
    const a = item('a');
    queue.set(a, 10);
    queue.clear();
    expect(a.dueIndex).to.equal(-1);
    expect(clock.countTimers()).to.equal(0);
    clock.tick(20);
    expect(fired).to.deep.equal([]);
  });
});
