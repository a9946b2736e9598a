// The package as Homebridge loads it, and the Homebridge verified-plugin rules that can be checked from the source.
// https://github.com/homebridge/homebridge/wiki/verified-Plugins

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { API } from 'homebridge';
import initialize, { LightService } from '../../homebridge-plugin/index.js';
import { LightwirePlatform } from '../../homebridge-plugin/platform.js';
import { PLATFORM_NAME, PLUGIN_NAME } from '../../homebridge-plugin/settings.js';

const ROOT = path.resolve(__dirname, '../..');

/** Module specifiers of static imports and re-exports, dynamic import() and require(). */
function specifiers(text: string): string[] {
  const patterns = [/\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g, /\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]\s*\)/g];
  return patterns.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]!));
}
const PLUGIN_DIR = path.join(ROOT, 'homebridge-plugin');
const sources = readdirSync(PLUGIN_DIR).filter((f) => f.endsWith('.ts')).map((f) => ({ file: f, text: readFileSync(path.join(PLUGIN_DIR, f), 'utf8') }));
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  keywords: string[];
  engines: Record<string, string>;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('homebridge package entry', () => {
  it('default-exports an initializer that registers the Lightwire platform, beside the library', () => {
    const registered: [string, unknown][] = [];
    initialize({ registerPlatform: (name: string, ctor: unknown) => void registered.push([name, ctor]) } as unknown as API);
    expect(registered).to.deep.equal([[PLATFORM_NAME, LightwirePlatform]]);
    expect(LightService).to.be.a('function');
  });

  it('loads Homebridge and HAP-NodeJS only as types: at runtime everything comes from the api object', () => {
    for (const { file, text } of sources) {
      for (const spec of specifiers(text).filter((s) => s === 'homebridge' || s.startsWith('@homebridge/') || s.startsWith('hap-nodejs'))) {
        const line = text.split('\n').find((l) => l.includes(`'${spec}'`)) ?? '';
        expect(line, `${file}: ${line}`).to.match(/^import type /);
      }
    }
  });
});

describe('homebridge verified-plugin rules', () => {
  it('package name homebridge-*, the homebridge-plugin keyword, engines for Node and Homebridge', () => {
    expect(pkg.name).to.equal(PLUGIN_NAME).and.to.match(/^homebridge-/);
    expect(pkg.keywords).to.include('homebridge-plugin');
    expect(pkg.engines.node).to.be.a('string');
    expect(pkg.engines.homebridge).to.match(/\^2\./);
  });

  it('no install scripts, and Homebridge / HAP-NodeJS not in dependencies', () => {
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts, hook).not.to.have.property(hook);
    for (const dep of ['homebridge', 'hap-nodejs', '@homebridge/hap-nodejs']) expect(pkg.dependencies, dep).not.to.have.property(dep);
    expect(pkg.devDependencies).to.have.property('homebridge');
  });

  it('runs no commands and opens no connections of its own (no child_process, http client or dns in the plugin)', () => {
    for (const { file, text } of sources) {
      expect(specifiers(text).filter((s) => /^(node:)?(child_process|https?|net|dgram|dns)$/.test(s)), file).to.deep.equal([]);
    }
  });

  it('logs only through the Homebridge logger (no console, no process.stdout in the plugin)', () => {
    for (const { file, text } of sources) expect(text, file).not.to.match(/\bconsole\.|process\.(stdout|stderr)/);
  });
});
