// The faces use the library the way a user of the package does: through its public entries only. A face that
// reaches below them (core/control/service.js, core/discovery/..., dist/...) fails here, naming the import.

import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const CORE = path.join(ROOT, 'core');

/**
 * The package's public entries (package.json `exports`), as source files. The root entry is
 * homebridge-plugin/index.ts: core/index.ts re-exported, plus the default export Homebridge calls.
 */
const PUBLIC_ENTRIES = new Set(['core/index.ts', 'core/http/index.ts', 'core/simulator/index.ts', 'core/protocol/index.ts']);
const PACKAGE_ENTRIES: Readonly<Record<string, string>> = {
  '.': 'homebridge-plugin/index',
  './http': 'core/http/index',
  './simulator': 'core/simulator/index',
  './protocol': 'core/protocol/index',
};

/** Each face and the folder it may import freely from (its own). */
const FACES: readonly { readonly dir: string; readonly own: string }[] = [
  { dir: 'nodes', own: 'nodes' },
  { dir: 'homebridge-plugin', own: 'homebridge-plugin' },
  { dir: 'core/cli', own: 'core/cli' },
  { dir: 'core/http', own: 'core/http' },
  { dir: 'bench', own: 'bench' },
];

function sourceFiles(dir: string): string[] {
  const abs = path.join(ROOT, dir);
  let entries: string[];
  try {
    entries = readdirSync(abs);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const full = path.join(abs, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path.join(dir, name));
    return /\.(ts|js|mjs|cjs)$/.test(name) && !name.endsWith('.d.ts') ? [path.join(dir, name)] : [];
  });
}

/** Every module specifier in a file: static imports and re-exports, dynamic import(), require(). */
export function specifiers(text: string): string[] {
  const out: string[] = [];
  const patterns = [/\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g, /\bimport\s*['"]([^'"]+)['"]/g, /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g];
  for (const re of patterns) for (const m of text.matchAll(re)) out.push(m[1]!);
  return out;
}

/** What a relative specifier names, as a repository path with the .ts source extension. */
function target(fromFile: string, spec: string): string {
  const resolved = path.relative(ROOT, path.resolve(ROOT, path.dirname(fromFile), spec));
  return resolved.replace(/\.js$/, '.ts');
}

function violations(face: { dir: string; own: string }): string[] {
  const bad: string[] = [];
  for (const file of sourceFiles(face.dir)) {
    for (const spec of specifiers(readFileSync(path.join(ROOT, file), 'utf8'))) {
      if (/^homebridge-lightwire\/(?!http$|simulator$|protocol$|package\.json$)/.test(spec)) bad.push(`${file}: ${spec}`);
      if (/(^|\/)dist\//.test(spec)) bad.push(`${file}: ${spec}`);
      if (!spec.startsWith('.')) continue;
      const t = target(file, spec);
      if (!t.startsWith('core/') && !path.resolve(ROOT, t).startsWith(CORE)) continue;
      if (t.startsWith(`${face.own}/`) || PUBLIC_ENTRIES.has(t)) continue;
      bad.push(`${file}: ${spec}`);
    }
  }
  return bad;
}

describe('package boundaries', () => {
  for (const face of FACES) {
    it(`${face.dir}/ imports the core only through the public entries`, () => {
      expect(violations(face)).to.deep.equal([]);
    });
  }

  it('finds the imports it checks (static, re-export, dynamic, require)', () => {
    const text = [
      "import { a } from '../core/control/service.js';",
      "export * from '../core/index.js';",
      "const m = await import('../core/discovery/client.js');",
      "const r = require('../core/http/server.js');",
      "import '../core/simulator/index.js';",
    ].join('\n');
    expect(specifiers(text)).to.have.members([
      '../core/control/service.js',
      '../core/index.js',
      '../core/discovery/client.js',
      '../core/http/server.js',
      '../core/simulator/index.js',
    ]);
  });

  it('the root entry is the library and the Homebridge initializer', () => {
    const text = readFileSync(path.join(ROOT, 'homebridge-plugin/index.ts'), 'utf8');
    expect(text).to.match(/^export \* from '\.\.\/core\/index\.js';$/m);
    expect(text).to.match(/^export default function /m);
  });

  it('each public entry exists and the package exports exactly those', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    expect(Object.keys(pkg.exports).sort()).to.deep.equal(['.', './http', './package.json', './protocol', './simulator']);
    for (const [key, source] of Object.entries(PACKAGE_ENTRIES)) {
      // The root's types are the library's alone: a TypeScript user without Homebridge installed must type-check.
      const types = key === '.' ? 'core/index' : source;
      expect(pkg.exports[key], key).to.deep.equal({ types: `./dist/${types}.d.ts`, default: `./dist/${source}.js` });
      expect(statSync(path.join(ROOT, `${source}.ts`)).isFile(), source).to.equal(true);
    }
    for (const entry of PUBLIC_ENTRIES) expect(statSync(path.join(ROOT, entry)).isFile(), entry).to.equal(true);
  });
});
