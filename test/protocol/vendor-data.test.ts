// The repository stands alone: the vendor data the cross-checks read is in test/fixtures/vendor, exactly the
// upstream files its README names, and no test reads anything beside the repository (such as a `shared/` folder
// next to it) or can be skipped by an environment variable.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { VENDOR_DIR, vendorFile } from './helpers.js';

const TEST_DIR = path.resolve(__dirname, '..');
const REPO_ROOT = path.resolve(TEST_DIR, '..');

/** What `git hash-object` prints for a file. */
const gitBlobId = (bytes: Buffer): string =>
  createHash('sha1').update(Buffer.concat([Buffer.from(`blob ${bytes.length}\0`), bytes])).digest('hex');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

describe('vendor data for the cross-checks', () => {
  it('holds protocol.yml and products.json as the upstream blobs its README records', () => {
    const readme = readFileSync(path.join(VENDOR_DIR, 'README.md'), 'utf8');
    for (const file of ['protocol.yml', 'products.json']) {
      const row = new RegExp(`^\\| \`${file.replace('.', '\\.')}\` \\|.*\\| ([0-9a-f]{40}) \\|$`, 'm').exec(readme);
      assert.ok(row !== null, `README.md records the blob id of ${file}`);
      assert.equal(gitBlobId(readFileSync(vendorFile(file))), row[1], `${file} is the recorded upstream version`);
    }
  });

  it('is read by no test from outside the repository, and no test is skipped by an environment variable', () => {
    const outside = ['../' + 'shared', 'shared/' + 'data', 'shared/' + 'docs', 'LIGHTWIRE_' + 'NO_SHARED'];
    const offenders: string[] = [];
    const sources = [...filesUnder(TEST_DIR), ...filesUnder(path.join(REPO_ROOT, 'scripts'))].filter((f) => /\.[cm]?[jt]s$/.test(f));
    assert.ok(sources.length > 20, 'test sources found');
    for (const file of sources) {
      const text = readFileSync(file, 'utf8');
      for (const needle of outside) if (text.includes(needle)) offenders.push(`${path.relative(REPO_ROOT, file)}: ${needle}`);
    }
    assert.deepEqual(offenders, []);
  });
});
