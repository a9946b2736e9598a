import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { expect } from 'chai';
import fc from 'fast-check';
import {
  CONFIG_SPEC,
  EFFECT_KINDS,
  lightSettings,
  parseConfig,
  serviceOptions,
  type ConfigIssue,
  type LightwireConfig,
  type Spec,
} from '../../homebridge-plugin/config.js';
import { PLATFORM_NAME, PLUGIN_NAME } from '../../homebridge-plugin/settings.js';
import { CONFIG_SCHEMA_PATH, configSchemaText } from './write-config-schema.js';

const ROOT = path.resolve(__dirname, '../..');

function parsed(raw: unknown): LightwireConfig {
  const result = parseConfig(raw);
  if (!result.ok) throw new Error(`expected a valid config, got ${result.errors.map((e) => e.message).join('; ')}`);
  return result.config;
}

function errorsOf(raw: unknown): readonly ConfigIssue[] {
  const result = parseConfig(raw);
  if (result.ok) throw new Error('expected the config to be rejected');
  return result.errors;
}

const schemaFile = (): { pluginAlias: string; pluginType: string; singular: boolean; schema: object } =>
  JSON.parse(readFileSync(CONFIG_SCHEMA_PATH, 'utf8'));

describe('homebridge config', () => {
  describe('config.schema.json', () => {
    it('is exactly what the option table generates (regenerate: node --import tsx test/homebridge-plugin/write-config-schema.ts)', () => {
      expect(readFileSync(CONFIG_SCHEMA_PATH, 'utf8')).to.equal(configSchemaText());
    });

    it('names the platform alias the plugin registers, as a singular dynamic platform', () => {
      const file = schemaFile();
      expect(file.pluginAlias).to.equal(PLATFORM_NAME);
      expect(file.pluginType).to.equal('platform');
      expect(file.singular).to.equal(true);
    });

    it('sits at the package root where the Homebridge UI looks, and ships in the tarball', () => {
      const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; files: string[] };
      expect(pkg.name).to.equal(PLUGIN_NAME);
      expect(pkg.files).to.include('config.schema.json');
    });

    it('compiles under ajv (strict about everything but the UI-only placeholder keyword)', () => {
      const ajv = new Ajv({ strict: true, allErrors: true });
      ajv.addKeyword('placeholder');
      expect(() => ajv.compile(schemaFile().schema)).not.to.throw();
    });
  });

  describe('parseConfig', () => {
    it('accepts a bare platform block and fills every default', () => {
      const config = parsed({ platform: 'Lightwire' });
      expect(config.name).to.equal('Lightwire');
      expect(config.discovery.port).to.equal(56700);
      expect(config.discovery.staticHosts).to.deep.equal([]);
      expect(config.discovery.removeAfterHours).to.equal(168);
      expect(config.lights).to.deep.include({ transitionS: 0.5, mergeWindowMs: 30, responseTimeoutMs: 1000, unreachableAsOff: false, adaptiveLighting: true });
      expect(config.scenes.switches).to.equal(false);
      expect(config.http).to.deep.include({ enabled: false, host: '127.0.0.1', port: 3000 });
      expect(Object.isFrozen(config.lights)).to.equal(true);
    });

    it('names the path and the rule of each mistake', () => {
      const errors = errorsOf({
        platform: 'Lightwire',
        discovery: { port: 70000, staticHosts: ['10.0.0.1', 'lamp.local'], sweepSubnets: ['10.0.0.0/16'], refreshIntervalS: '10' },
        lights: { mergeWindowMs: 2.5, effects: ['flame', 'disco'] },
        accessories: [{ hidden: true }, { serial: 'd073d5' }],
        http: { enabled: 'yes' },
      });
      expect(errors.map((e) => [e.path, e.rule])).to.have.deep.members([
        ['discovery.port', 'maximum'],
        ['discovery.staticHosts[1]', 'pattern'],
        ['discovery.sweepSubnets[0]', 'pattern'],
        ['discovery.refreshIntervalS', 'type'],
        ['lights.mergeWindowMs', 'type'],
        ['lights.effects[1]', 'enum'],
        ['accessories[0].serial', 'required'],
        ['accessories[1].serial', 'pattern'],
        ['http.enabled', 'type'],
      ]);
      for (const e of errors) expect(e.message.startsWith(`${e.path}: `), e.message).to.equal(true);
    });

    it('explains patterns in words a user can act on', () => {
      const [staticHost] = errorsOf({ discovery: { staticHosts: ['lamp.local'] } });
      expect(staticHost!.message).to.equal('discovery.staticHosts[0]: "lamp.local" is not an IPv4 address with an optional :port, like 10.0.20.31 or 10.0.20.31:56700');
      const [subnet] = errorsOf({ discovery: { sweepSubnets: ['10.0.0.0/16'] } });
      expect(subnet!.message).to.contain('/22 to /30');
    });

    it('rejects a platform block that is not an object', () => {
      for (const raw of [null, undefined, 'Lightwire', [], 3]) expect(parseConfig(raw).ok, String(raw)).to.equal(false);
    });

    it('warns about unknown options without failing, and ignores the keys Homebridge adds', () => {
      const result = parseConfig({ platform: 'Lightwire', _bridge: { username: 'x' }, colour: 'blue', lights: { fade: 2 } });
      expect(result.ok).to.equal(true);
      expect(result.warnings.map((w) => w.path)).to.deep.equal(['lights.fade', 'colour']);
    });

    it('warns that scene switches without a scene file give no switches', () => {
      const result = parseConfig({ scenes: { switches: true } });
      expect(result.ok).to.equal(true);
      expect(result.warnings.map((w) => [w.path, w.rule])).to.deep.equal([['scenes.file', 'required']]);
      expect(result.warnings[0]!.message).to.equal(
        'scenes.file: scenes.switches is on but no scene file is set, so there are no scene switches; set scenes.file (e.g. "lightwire-scenes.json")',
      );
      expect(parseConfig({ scenes: { switches: true, file: 'scenes.json' } }).warnings).to.deep.equal([]);
      expect(parseConfig({ scenes: { switches: false } }).warnings).to.deep.equal([]);
    });

    it('rejects the same address listed twice and warns about the same light configured twice', () => {
      expect(errorsOf({ discovery: { staticHosts: ['10.0.0.1', '10.0.0.1'] } }).map((e) => e.rule)).to.deep.equal(['uniqueItems']);
      const result = parseConfig({ accessories: [{ serial: 'D073D5000001' }, { serial: 'd073d5000001' }] });
      expect(result.ok).to.equal(true);
      expect(result.warnings.map((w) => w.path)).to.deep.equal(['accessories[1].serial']);
    });
  });

  describe('the schema and the parser agree', () => {
    const ajv = new Ajv({ strict: false });
    const validate = ajv.compile(schemaFile().schema);

    const junk = fc.oneof(
      fc.constant(undefined),
      fc.constant(null),
      fc.boolean(),
      fc.integer({ min: -100000, max: 100000 }),
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
      fc.string({ maxLength: 20 }),
      fc.constantFrom('10.0.0.1', '10.0.0.1:56700', '10.0.0.0/24', '256.1.1.1', 'd073d5000001', '127.0.0.1', 'flame', ''),
      fc.array(fc.constantFrom('10.0.0.1', 'flame', 'x', 'move'), { maxLength: 3 }),
      fc.constant({}),
    );

    /** Documents shaped like configs: each key absent, valid-looking or junk, nested down the table. */
    const shaped = (spec: Spec, depth: number): fc.Arbitrary<unknown> => {
      if (spec.type === 'object' && depth < 4) {
        const entries = Object.entries(spec.properties).map(([k, s]) => [k, fc.option(shaped(s, depth + 1), { nil: undefined, freq: 3 })] as const);
        return fc.oneof({ weight: 6, arbitrary: fc.record(Object.fromEntries(entries)) }, { weight: 1, arbitrary: junk });
      }
      if (spec.type === 'array' && depth < 4) {
        return fc.oneof({ weight: 4, arbitrary: fc.array(shaped(spec.items, depth + 1), { maxLength: 3 }) }, { weight: 1, arbitrary: junk });
      }
      if (spec.type === 'string' && spec.enum !== undefined) return fc.oneof(fc.constantFrom(...spec.enum), junk);
      if (spec.type === 'number' || spec.type === 'integer') {
        return fc.oneof(fc.integer({ min: spec.minimum - 2, max: spec.maximum + 2 }), fc.double({ min: spec.minimum - 1, max: spec.maximum + 1, noNaN: true }), junk);
      }
      if (spec.type === 'boolean') return fc.oneof(fc.boolean(), junk);
      return junk;
    };

    /** What JSON.parse could give: undefined members dropped. */
    const asJson = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

    it('on thousands of generated documents, valid and broken alike', () => {
      let accepted = 0;
      fc.assert(
        fc.property(shaped(CONFIG_SPEC, 0), (doc) => {
          const json = asJson(doc);
          if (json === undefined) return;
          const byParser = parseConfig(json).ok;
          expect(byParser, JSON.stringify(json)).to.equal(validate(json));
          if (byParser) accepted++;
        }),
        { numRuns: 3000, seed: 10 },
      );
      // Both outcomes were exercised.
      expect(accepted).to.be.greaterThan(30);
      expect(accepted).to.be.lessThan(2900);
    });
  });

  describe('the user README', () => {
    it('documents every option of the table', () => {
      const readme = readFileSync(path.join(ROOT, 'homebridge-plugin/README.md'), 'utf8');
      const paths: string[] = [];
      const walk = (spec: Spec, at: string): void => {
        if (spec.type === 'object') for (const [k, s] of Object.entries(spec.properties)) walk(s, at ? `${at}.${k}` : k);
        else if (spec.type === 'array' && spec.items.type === 'object') for (const [k, s] of Object.entries(spec.items.properties)) walk(s, `${at}[].${k}`);
        else paths.push(at);
      };
      walk(CONFIG_SPEC, '');
      expect(paths.length).to.be.greaterThan(25);
      expect(paths.filter((p) => !readme.includes(`| \`${p}\` |`))).to.deep.equal([]);
    });
  });

  describe('from config to the service and to each light', () => {
    it('turns seconds into the service units and resolves the scene file in the storage folder', () => {
      const config = parsed({ discovery: { refreshIntervalS: 2.5, staticHosts: ['10.0.0.9'] }, scenes: { file: 'scenes.json' }, lights: { transitionS: 0.2 } });
      const options = serviceOptions(config, '/var/lib/homebridge');
      expect(options.discovery).to.deep.equal({ port: 56700, refreshIntervalMs: 2500, offlineAfterMisses: 3, staticHosts: ['10.0.0.9'] });
      expect(options.scenes).to.equal('/var/lib/homebridge/scenes.json');
      expect(options.defaultDurationS).to.equal(0.2);
    });

    it('resolves discovery.productsFile in the storage folder and hands it to the service (none when unset)', () => {
      expect(serviceOptions(parsed({ discovery: { productsFile: 'products.json' } }), '/var/lib/homebridge').products).to.equal('/var/lib/homebridge/products.json');
      expect(serviceOptions(parsed({ discovery: { productsFile: '/etc/lifx/products.json' } }), '/var/lib/homebridge').products).to.equal('/etc/lifx/products.json');
      expect(serviceOptions(parsed({}), '/var/lib/homebridge')).to.not.have.property('products');
      expect(parseConfig({ discovery: { productsFile: '' } }).ok).to.equal(false);
    });

    it('lets a light override the transition and the effect list (an empty list means none)', () => {
      const config = parsed({
        lights: { transitionS: 1, effects: ['flame', 'morph'] },
        accessories: [{ serial: 'D073D5000001', transitionS: 0 }, { serial: 'd073d5000002', effects: [] }, { serial: 'd073d5000003', hidden: true }],
      });
      expect(lightSettings(config, 'd073d5000001')).to.deep.equal({ hidden: false, transitionS: 0, effects: ['flame', 'morph'], themes: [] });
      expect(lightSettings(config, 'd073d5000002').effects).to.deep.equal([]);
      expect(lightSettings(config, 'd073d5000003').hidden).to.equal(true);
      expect(lightSettings(config, 'd073d5000004')).to.deep.equal({ hidden: false, transitionS: 1, effects: ['flame', 'morph'], themes: [] });
      expect(EFFECT_KINDS).to.include('sunrise');
    });
  });
});
