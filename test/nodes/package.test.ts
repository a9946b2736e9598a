// What the Node-RED flow library's scorecard (node-red-dev validate 0.1.6) checks of the nodes and dependencies,
// checked here offline (its own run needs the online catalogue): the node-red section of package.json, one editor
// file per node with its definition written inline (registerType with a literal type, defaults, icon, colour,
// category, inputs, outputs: N-checks), examples that use every flow node (N02), at most six dependencies (D01)
// and none of its known-incompatible packages in the production tree (D02). Plus what the editor needs at run
// time: the icon file, every data-i18n key in the catalogue, help in the Inputs / Outputs / Details form.

import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { REPO_ROOT } from '../helpers/packed.js';

interface Manifest {
  keywords?: string[];
  dependencies?: Record<string, string>;
  'node-red'?: { version?: string; nodes?: Record<string, string> };
  files?: string[];
  scripts?: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as Manifest;
const nodes = manifest['node-red']?.nodes ?? {};
const TYPES = ['lightwire-config', 'lightwire-set-state', 'lightwire-get-info', 'lightwire-discover'];
/** node-red-dev 0.1.6 src/badpackages.json: packages that break Node-RED, with the versions that do. */
const BAD_PACKAGES: Record<string, (version: string) => boolean> = { 'agent-base': (v) => Number(v.split('.')[0]) < 6 };

interface Definition {
  category?: unknown;
  color?: unknown;
  icon?: unknown;
  inputs?: unknown;
  outputs?: unknown;
  defaults?: Record<string, unknown>;
  credentials?: Record<string, unknown>;
}

/** Runs an editor file's <script type="text/javascript"> blocks against a stub RED and returns what they register. */
function definitions(html: string): Map<string, Definition> {
  const found = new Map<string, Definition>();
  const stub = () => stub;
  const sandbox = {
    RED: {
      nodes: { registerType: (type: string, def: Definition) => found.set(type, def) },
      validators: { number: () => () => true, regex: () => () => true },
      _: (key: string) => key,
    },
    $: stub,
    window: {},
  };
  for (const m of html.matchAll(/<script[^>]*type=["']text\/javascript["'][^>]*>([\s\S]*?)<\/script>/gi)) vm.runInNewContext(m[1]!, sandbox);
  return found;
}

function source(type: string): string {
  return readFileSync(path.join(REPO_ROOT, 'nodes', `${type}.html`), 'utf8');
}

function catalogue(type: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(REPO_ROOT, 'nodes', 'locales', 'en-US', `${type}.json`), 'utf8')) as Record<string, unknown>;
}

function lookup(tree: Record<string, unknown>, key: string): unknown {
  return key.split('.').reduce<unknown>((at, part) => (typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[part] : undefined), tree);
}

describe('Node-RED package: the scorecard checks, offline', () => {
  it('declares the node-red keyword, a Node-RED version and the four nodes in dist/nodes', () => {
    expect(manifest.keywords).to.include('node-red');
    expect(manifest['node-red']?.version).to.equal('>=4.0.0');
    expect(Object.keys(nodes).sort()).to.deep.equal([...TYPES].sort());
    for (const [type, file] of Object.entries(nodes)) {
      expect(file, type).to.equal(`dist/nodes/${type}.js`);
      expect(existsSync(path.join(REPO_ROOT, 'nodes', `${type}.ts`)), `nodes/${type}.ts`).to.equal(true);
    }
    const installed = JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules', 'node-red', 'package.json'), 'utf8')) as { version: string };
    expect(Number(installed.version.split('.')[0])).to.be.at.least(4);
  });

  it('copies the editor files, catalogues and icons beside the compiled nodes when building and packing', () => {
    for (const script of ['build', 'prepack']) expect(manifest.scripts?.[script], script).to.contain('node scripts/copy-node-assets.mjs');
    expect(manifest.files).to.include('dist');
  });

  for (const type of TYPES) {
    describe(type, () => {
      const html = source(type);
      const defs = definitions(html);
      const def = defs.get(type);

      it('registers exactly its type, with the definition written inline (N-checks read it from the source)', () => {
        expect([...defs.keys()]).to.deep.equal([type]);
        const at = html.indexOf(`registerType("${type}"`);
        expect(at, 'registerType with a literal type name').to.be.at.least(0);
        const call = html.slice(at);
        expect(call).to.match(/^registerType\("[^"]+", \{/);
        expect(call).to.match(/\n\s+category: "[^"]+",/);
        expect(call).to.match(/\n\s+defaults: \{/);
        expect(def?.defaults).to.be.an('object');
        if (type !== 'lightwire-config') {
          expect(def?.category).to.equal('Lightwire');
          for (const key of ['color', 'icon']) expect(call).to.match(new RegExp(`\\n\\s+${key}: "[^"]+",`), key);
          for (const key of ['inputs', 'outputs']) expect(call).to.match(new RegExp(`\\n\\s+${key}: \\d+,`), key);
          expect(def?.defaults?.config).to.deep.include({ type: 'lightwire-config', required: true });
        } else {
          expect(def?.category).to.equal('config');
          expect(Object.keys(def?.credentials ?? {})).to.deep.equal(['tokens']);
        }
      });

      it('uses no property name the editor keeps for itself', () => {
        const reserved = ['id', 'type', 'x', 'y', 'z', 'g', 'wires', 'inputs', 'outputs', 'changed', 'dirty', 'valid', 'selected', 'users', '_def'];
        expect(Object.keys(def?.defaults ?? {}).filter((k) => reserved.includes(k))).to.deep.equal([]);
      });

      it('ships its icon', () => {
        if (def?.icon === undefined) return expect(type).to.equal('lightwire-config');
        expect(existsSync(path.join(REPO_ROOT, 'nodes', 'icons', String(def.icon))), String(def.icon)).to.equal(true);
      });

      it('finds every data-i18n key of its form in its en-US catalogue', () => {
        const keys = [
          ...[...html.matchAll(/data-i18n="(?:\[[a-z]+\])?([^"]+)"/g)].map((m) => m[1]!),
          // this._("...") in the definition, and the picker's t("...") in the config node's file
          ...[...html.matchAll(/this\._\("([^"]+)"\)/g)].map((m) => m[1]!),
          ...[...html.matchAll(/\bt\("([a-zA-Z]+)"/g)].map((m) => `lightwire-config.picker.${m[1]!}`),
        ];
        expect(keys.length).to.be.greaterThan(2);
        const cat = catalogue(type);
        for (const key of keys) expect(lookup(cat, key), key).to.be.a('string');
      });

      it('has help in the Inputs / Outputs / Details form', () => {
        const help = /<script type="text\/html" data-help-name="([^"]+)">([\s\S]*?)<\/script>/.exec(html);
        expect(help?.[1]).to.equal(type);
        const headings = [...help![2]!.matchAll(/<h3>([^<]+)<\/h3>/g)].map((m) => m[1]);
        expect(headings).to.include('Details');
        if (type !== 'lightwire-config') expect(headings.slice(0, 2)).to.deep.equal(['Inputs', 'Outputs']);
      });
    });
  }

  it('uses every flow node in examples/flows.json (N02), with valid wiring', () => {
    const flows = JSON.parse(readFileSync(path.join(REPO_ROOT, 'examples', 'flows.json'), 'utf8')) as Array<{ id: string; type: string; z?: string; wires?: string[][]; config?: string }>;
    const used = new Set(flows.map((n) => n.type));
    for (const type of TYPES) expect(used.has(type), type).to.equal(true);
    const ids = new Set(flows.map((n) => n.id));
    expect(ids.size).to.equal(flows.length);
    for (const n of flows) {
      for (const target of (n.wires ?? []).flat()) expect(ids.has(target), `${n.id} -> ${target}`).to.equal(true);
      if (n.config !== undefined) expect(ids.has(n.config), `${n.id} config`).to.equal(true);
    }
    const config = flows.find((n) => n.type === 'lightwire-config') as unknown as { virtual: boolean };
    expect(config.virtual, 'the example runs on any machine').to.equal(true);
  });

  it('has at most six dependencies (D01), and no package known to break Node-RED in their tree (D02)', () => {
    const deps = Object.keys(manifest.dependencies ?? {});
    expect(deps.length).to.be.at.most(6);
    const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; dependencies?: Record<string, string>; dev?: boolean }> };
    const seen = new Set<string>();
    const queue = deps.map((d) => `node_modules/${d}`);
    while (queue.length > 0) {
      const at = queue.pop()!;
      if (seen.has(at)) continue;
      seen.add(at);
      const entry = lock.packages[at];
      expect(entry, at).to.not.equal(undefined);
      const name = at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length);
      expect(BAD_PACKAGES[name]?.(entry!.version!) ?? false, `${name}@${entry!.version}`).to.equal(false);
      for (const dep of Object.keys(entry!.dependencies ?? {})) {
        let base = at;
        for (;;) {
          const candidate = `${base}/node_modules/${dep}`;
          if (lock.packages[candidate] !== undefined) {
            queue.push(candidate);
            break;
          }
          const cut = base.lastIndexOf('/node_modules/');
          if (cut < 0) {
            queue.push(`node_modules/${dep}`);
            break;
          }
          base = base.slice(0, cut);
        }
      }
    }
    expect(seen.size).to.be.greaterThan(deps.length);
  });
});
