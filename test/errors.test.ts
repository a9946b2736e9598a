// The error table (core/errors.ts) against the sources and the docs, as fastify's test/internals/errors.test.js does
// for its own: every code is raised somewhere, answers an HTTP error status, and is documented in docs/ERRORS.md with
// that status; the page lists no code the table lacks.

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ERRORS, LightwireError, type ErrorCode } from '../core/errors.js';

const ROOT = path.resolve(__dirname, '..');
const CODES = Object.keys(ERRORS) as ErrorCode[];

function sourcesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

/** The shipped sources (not tests, benches or scripts), each file's text. */
const SOURCES = ['core', 'nodes', 'homebridge-plugin'].flatMap(sourcesUnder).map((file) => readFileSync(file, 'utf8'));

/** docs/ERRORS.md's rows: `| \`CODE\` | status | message |`. */
const DOCUMENTED = new Map(
  [...readFileSync(path.join(ROOT, 'docs/ERRORS.md'), 'utf8').matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]),
);

describe('error table (core/errors.ts)', () => {
  it('has codes, each named in SCREAMING_SNAKE_CASE', () => {
    expect(CODES.length).to.be.above(40);
    for (const code of CODES) expect(code, code).to.match(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
  });

  for (const code of CODES) {
    describe(code, () => {
      it('is raised somewhere in the sources (new LightwireError)', () => {
        const raised = new RegExp(`LightwireError(<[^>]*>)?\\(\\s*'${code}'`);
        expect(SOURCES.some((text) => raised.test(text)), `no new LightwireError('${code}', ...) in core, nodes or homebridge-plugin`).to.equal(true);
      });

      it('answers an HTTP error status (4xx or 5xx), which the error carries', () => {
        const status = ERRORS[code].httpStatus;
        expect(status, code).to.be.within(400, 599);
        const params = new Proxy({}, { get: (_target, name) => (typeof name === 'string' ? `<${name}>` : undefined) });
        const err = new LightwireError(code, params as never);
        expect(err.httpStatus).to.equal(status);
        expect(err.code).to.equal(code);
        expect(err.message, 'a message').to.not.equal('');
      });

      it('is documented in docs/ERRORS.md with the same HTTP status', () => {
        expect(DOCUMENTED.has(code), `docs/ERRORS.md has no row for ${code}`).to.equal(true);
        expect(DOCUMENTED.get(code), `docs/ERRORS.md gives ${code} another status`).to.equal(ERRORS[code].httpStatus);
      });
    });
  }

  it('docs/ERRORS.md lists no code the table lacks, and each once', () => {
    const rows = [...readFileSync(path.join(ROOT, 'docs/ERRORS.md'), 'utf8').matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]!);
    expect(rows.filter((code) => !(code in ERRORS))).to.deep.equal([]);
    expect(rows.length).to.equal(new Set(rows).size);
    expect(rows.length).to.equal(CODES.length);
  });
});
