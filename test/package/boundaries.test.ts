// The faces use the library the way a user of the package does: through its public entries only. A face that
// reaches below them (core/control/service.js, core/discovery/..., dist/...) fails here, naming the import; so does
// one that reaches around the light service to its LAN client or the client's registry. And the package root exports
// only what a face, a CLI command, an example or a README uses: a name nothing outside the tests needs is no API.

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

/** The faces of the light service: they use its public members, never its client or the client's registry. */
const SERVICE_FACES: readonly string[] = ['nodes', 'homebridge-plugin', 'core/cli', 'core/http'];

/**
 * Where a root export counts as used: imported from a public entry by a face (the benchmarks use the package as a
 * user does) or an example, or named in code in a README (a code block or `code`: the library section documents
 * the types of its signatures so).
 */
const USERS: readonly string[] = [...FACES.map((f) => f.dir), 'examples'];
const READMES: readonly string[] = ['README.md', 'nodes/README.md', 'homebridge-plugin/README.md', 'core/http/README.md'];

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

/** Source without its comments (a comment may name what the code must not touch, to say why). */
export function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** What in a face's source touches the LAN client or its registry: `.client`, `.registry`, `LightClient`. */
export function clientTouches(text: string): string[] {
  return [...withoutComments(text).matchAll(/\.client\b|\.registry\b|\bLightClient\b/g)].map((m) => m[0]);
}

/** The names a module exports (following `export * from`), by its source text; `read` gives a file's text. */
export function exportedNames(file: string, read: (file: string) => string): string[] {
  const text = withoutComments(read(file));
  const names: string[] = [];
  for (const m of text.matchAll(/\bexport\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of m[1]!.split(',')) {
      const name = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/).at(-1)!.trim();
      if (name !== '' && name !== 'default') names.push(name);
    }
  }
  for (const m of text.matchAll(/\bexport\s+\*\s+from\s+['"]([^'"]+)['"]/g)) names.push(...exportedNames(target(file, m[1]!), read));
  for (const m of text.matchAll(/\bexport\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:const|let|var|function\*?|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g)) {
    names.push(m[1]!);
  }
  return [...new Set(names)];
}

/** The names a file imports from the package root (`homebridge-lightwire`, core/index.ts, homebridge-plugin/index.ts). */
export function rootImports(file: string, text: string): string[] {
  const names: string[] = [];
  for (const m of withoutComments(text).matchAll(/\bimport\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]|\b(?:const|let)\s+\{([^}]*)\}\s*=\s*(?:await\s+import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const list = m[1] ?? m[3]!;
    const spec = m[2] ?? m[4]!;
    const root = spec === 'homebridge-lightwire' || (spec.startsWith('.') && ['core/index.ts', 'homebridge-plugin/index.ts'].includes(target(file, spec)));
    if (!root) continue;
    for (const part of list.split(',')) {
      const name = part.trim().replace(/^type\s+/, '').split(/\s+as\s+|\s*:\s*/)[0]!.trim();
      if (name !== '') names.push(name);
    }
  }
  return names;
}

/** The text of code blocks and `code` spans of a Markdown file. */
function markdownCode(text: string): string {
  return [...text.matchAll(/```[\s\S]*?```|`[^`\n]+`/g)].map((m) => m[0]).join('\n');
}

function readRepo(file: string): string {
  return readFileSync(path.join(ROOT, file), 'utf8');
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

  for (const dir of SERVICE_FACES) {
    it(`${dir}/ reaches the lights through the light service's public members only: no client, no registry`, () => {
      const bad = sourceFiles(dir).flatMap((file) => clientTouches(readRepo(file)).map((touch) => `${file}: ${touch}`));
      expect(bad).to.deep.equal([]);
    });
  }

  it('finds what touches the client or the registry, in code and not in comments', () => {
    const text = [
      'const a = service.client.lights();',
      'for (const r of client.registry.peekAll()) use(r);',
      "import { LightClient } from '../index.js';",
      '// service.client is private: the registry is the service\'s',
      '/* a LightClient of its own */',
      "const url = 'http://example/';",
    ].join('\n');
    expect(clientTouches(text)).to.deep.equal(['.client', '.registry', 'LightClient']);
  });

  it('exports from the package root only names that a face, a CLI command, an example or a README uses', () => {
    const exported = exportedNames('homebridge-plugin/index.ts', readRepo);
    // The library entry, followed through `export *`: a sanity bound, not a count to keep.
    expect(exported).to.include.members(['LightService', 'LightwireError', 'allOk', 'LightView']);
    const used = new Set(USERS.flatMap((dir) => sourceFiles(dir).flatMap((file) => rootImports(file, readRepo(file)))));
    const documented = READMES.map((file) => markdownCode(readRepo(file))).join('\n');
    const unused = exported.filter((name) => !used.has(name) && !new RegExp(`\\b${name.replace(/\$/g, '\\$')}\\b`).test(documented));
    expect(unused, 'exported from the package root, used by no face, command or example and not in a README').to.deep.equal([]);
  });

  it('reads the export and import forms it checks', () => {
    const files: Record<string, string> = {
      'core/a.ts': [
        "export * from './b.js';",
        "export { x, type Y, z as w } from './c.js';",
        'export const K = 1;',
        'export function f(): void {}',
        'export interface I {}',
        'export type T = string;',
        'export class C {}',
        '// export const NotThis = 2;',
      ].join('\n'),
      'core/b.ts': 'export function fromStar(): void {}\nconst hidden = 1;',
    };
    expect(exportedNames('core/a.ts', (f) => files[f]!)).to.have.members(['x', 'Y', 'w', 'fromStar', 'K', 'f', 'I', 'T', 'C']);
    const source = [
      "import { A, type B, C as D } from '../core/index.js';",
      "import { E } from '../core/control/service.js';",
      "import type { F } from 'homebridge-lightwire';",
      "const { G, H: renamed } = require('homebridge-lightwire');",
      "const { J } = await import('../core/index.js');",
    ].join('\n');
    expect(rootImports('nodes/x.ts', source)).to.have.members(['A', 'B', 'C', 'F', 'G', 'H', 'J']);
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
