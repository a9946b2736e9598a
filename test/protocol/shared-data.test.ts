// The suites that read ../shared (protocol.yml, products.json, lan-protocol.md) must not pass silently when it
// is missing: they fail with a message saying what is missing, and skip only when LIGHTWIRE_NO_SHARED=1.

import assert from 'node:assert/strict';
import { requireShared } from './helpers.js';

class Skipped extends Error {}

/** Just enough of a mocha context to see whether requireShared skipped. */
const fakeContext = { skip: (): never => { throw new Skipped(); } } as unknown as Mocha.Context;

function withEnv(value: string | undefined, fn: () => void): void {
  const before = process.env.LIGHTWIRE_NO_SHARED;
  if (value === undefined) delete process.env.LIGHTWIRE_NO_SHARED;
  else process.env.LIGHTWIRE_NO_SHARED = value;
  try {
    fn();
  } finally {
    if (before === undefined) delete process.env.LIGHTWIRE_NO_SHARED;
    else process.env.LIGHTWIRE_NO_SHARED = before;
  }
}

describe('shared data for the cross-checks', () => {
  it('fails with a message naming the missing file when ../shared lacks it', () => {
    withEnv(undefined, () => {
      assert.throws(() => requireShared(fakeContext, 'data/no-such-file.yml'), (err: unknown) => {
        assert.ok(!(err instanceof Skipped), 'not skipped');
        assert.match(String(err), /shared data not found: .*data\/no-such-file\.yml.*LIGHTWIRE_NO_SHARED=1/);
        return true;
      });
    });
  });

  it('skips instead only when LIGHTWIRE_NO_SHARED=1', () => {
    withEnv('1', () => assert.throws(() => requireShared(fakeContext, 'data/no-such-file.yml'), Skipped));
    withEnv('yes', () => assert.throws(() => requireShared(fakeContext, 'data/no-such-file.yml'), /shared data not found/));
  });

  it('finds protocol.yml, products.json and lan-protocol.md beside the repository', () => {
    withEnv(undefined, () => requireShared(fakeContext, 'data/protocol.yml', 'data/products.json', 'docs/lan-protocol.md'));
  });
});
