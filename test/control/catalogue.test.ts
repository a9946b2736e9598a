// The operation catalogue against every face, as fastify's errors test walks its error table: an operation or a
// parameter the catalogue declares and a face does not offer (or offers otherwise) fails here, naming both.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OPERATIONS, OPERATION_LIST, EFFECT_OPERATIONS, FIRMWARE_EFFECTS, NAMING_OPERATIONS, THEME_NAMES, V1_OPERATIONS, type OperationDecl, type ParamDecl } from '../../core/control/catalogue.js';
import { checkText, parseRequest } from '../../core/control/requests.js';
import { DASHBOARD_EFFECTS, parseAction } from '../../core/http/dashboard/actions.js';
import { openApiDocument, openApiPath } from '../../core/http/openapi.js';
import type { JsonSchema } from '../../core/http/json-schema.js';
import { isLightwireError } from '../../core/errors.js';
import { EFFECT_KINDS } from '../../homebridge-plugin/config.js';
import { EFFECTS as HOMEKIT_EFFECTS, themesFor } from '../../homebridge-plugin/effects.js';
import { EFFECTS as NODE_RED_EFFECTS, NAMING_PAYLOADS, parsePayload } from '../../nodes/payload.js';
import { COMMANDS } from '../../core/cli/commands.js';

const ROOT = path.resolve(__dirname, '..', '..');
/** Each API's document: the cloud's v1, and our own endpoints served beside it (renaming, pixels, themes). */
const documents = { v1: openApiDocument('/v1'), lightwire: openApiDocument('/lightwire', 'lightwire') };
const prefixOf = (o: OperationDecl): string => `/${o.api ?? 'v1'}`;

/** A value each kind of parameter takes, within the declared range. */
function validValue(p: ParamDecl): unknown {
  switch (p.kind) {
    case 'power':
      return 'on';
    case 'number':
      return p.min ?? (p.max !== undefined ? Math.min(0, p.max) : 0);
    case 'boolean':
      return true;
    case 'enum':
      return p.values![p.values!.length - 1];
    case 'color':
      return 'red';
    case 'colors':
      return ['red'];
    case 'enumList':
      return [p.values![0]];
    case 'state':
      return { power: 'on' };
    case 'states':
      return Array.from({ length: p.minItems ?? 1 }, () => (p.selector ? { selector: 'all', power: 'on' } : { power: 'on' }));
    case 'grid':
      return [['red', 'blue']];
    case 'text':
      return p.values?.[0] ?? 'text';
    case 'label':
      return 'Kitchen';
  }
}

/**
 * The parameters a request needs besides `except`, valid: the required ones, and for Paint Pixels (whose rule asks for
 * one of pixels and color) a colour unless the grid is what is given.
 */
function needed(o: OperationDecl, vocabulary: 'v1' | 'library', except?: ParamDecl): Record<string, unknown> {
  const name = (q: ParamDecl): string => (vocabulary === 'v1' ? q.v1 : q.key);
  const out = Object.fromEntries(o.params.filter((q) => q.required === true && q !== except).map((q) => [name(q), validValue(q)]));
  if (o.name === 'paint' && except?.key !== 'pixels' && except?.key !== 'color') out.color = 'red';
  return out;
}

function requestBody(operation: OperationDecl): JsonSchema {
  const op = documents[operation.api ?? 'v1'].paths[openApiPath(operation.path)]?.[operation.method.toLowerCase()];
  expect(op, `${operation.name}: ${operation.method} ${prefixOf(operation)}${operation.path} in openapi.json`).to.not.equal(undefined);
  expect(op!.operationId).to.equal(operation.operationId ?? operation.name);
  expect(op!.summary).to.equal(operation.summary);
  expect(op!['x-lightwire-scope']).to.equal(operation.scope);
  return op!.requestBody!.content['application/json']!.schema;
}

describe('the operation catalogue', () => {
  it('declares each operation once, with unique v1 names and service keys per operation', () => {
    const names = OPERATION_LIST.map((o) => o.name);
    expect(new Set(names).size).to.equal(names.length);
    for (const o of OPERATION_LIST) {
      expect(new Set(o.params.map((p) => p.v1)).size, o.name).to.equal(o.params.length);
      expect(new Set(o.params.map((p) => p.key)).size, o.name).to.equal(o.params.length);
      for (const p of o.params) {
        // Units in names: a number in seconds is named so (durationS, periodS), in the service's vocabulary.
        if (p.unit === 's') expect(p.key, `${o.name}.${p.v1}`).to.match(/S$/);
        if (p.kind === 'enum' || p.kind === 'enumList') expect(p.values, `${o.name}.${p.v1}`).to.have.length.above(0);
        if (p.default !== undefined && p.default !== 'service') {
          // A default is itself a value the parser accepts.
          const required = needed(o, 'library');
          expect(() => parseRequest(o.name as never, { ...required, [p.key]: p.default }, { vocabulary: 'library', defaultDurationS: 1 }), `${o.name}.${p.key}`).to.not.throw();
        }
      }
    }
  });

  describe('HTTP (openapi.json)', () => {
    for (const operation of OPERATION_LIST) {
      it(`${operation.name}: ${operation.method} ${prefixOf(operation)}${operation.path} with every parameter as declared`, () => {
        const body = requestBody(operation);
        for (const p of operation.params) {
          const schema = body.properties?.[p.v1];
          expect(schema, `${operation.name}: parameter ${p.v1}`).to.not.equal(undefined);
          if (p.min !== undefined) expect(schema!.minimum, `${operation.name}.${p.v1} minimum`).to.equal(p.min);
          if (p.max !== undefined) expect(schema!.maximum, `${operation.name}.${p.v1} maximum`).to.equal(p.max);
          if (p.minItems !== undefined) expect(schema!.minItems, `${operation.name}.${p.v1} minItems`).to.equal(p.minItems);
          if (p.maxItems !== undefined) expect(schema!.maxItems, `${operation.name}.${p.v1} maxItems`).to.equal(p.maxItems);
          expect(body.required ?? [], `${operation.name}.${p.v1} required`).to.satisfy((r: string[]) => r.includes(p.v1) === (p.required === true));
        }
        // Nothing in the body that the catalogue does not declare, but the write flags every write takes (renaming
        // is always confirmed).
        const extra = Object.keys(body.properties ?? {}).filter((k) => !operation.params.some((p) => p.v1 === k));
        expect(extra, operation.name).to.deep.equal(operation.naming === undefined ? ['fast', 'async'] : []);
      });
    }
    it('keeps /v1 the cloud\'s: the renaming operations are served beside it, each document holding only its own', () => {
      const ids = (api: 'v1' | 'lightwire') => Object.values(documents[api].paths).flatMap((p) => Object.values(p).map((o) => o.operationId));
      expect(NAMING_OPERATIONS.map((o) => o.name)).to.deep.equal(['setLabel', 'setGroup', 'setLocation', 'renameGroup', 'renameLocation']);
      for (const o of NAMING_OPERATIONS) expect(o.api, o.name).to.equal('lightwire');
      // Beside them: Paint Pixels and Paint Theme, and List Themes (a read of our own).
      const own = OPERATION_LIST.filter((o) => o.api === 'lightwire').map((o) => o.name);
      expect(own).to.deep.equal([...NAMING_OPERATIONS.map((o) => o.name), 'paint', 'theme']);
      expect([...ids('lightwire')].sort()).to.deep.equal([...own, 'listThemes'].sort());
      for (const o of NAMING_OPERATIONS) expect(ids('v1'), o.name).to.not.include(o.name);
      for (const o of V1_OPERATIONS) expect(ids('v1'), o.name).to.include(o.operationId ?? o.name);
    });
  });

  describe('Node-RED (set-state payloads)', () => {
    const d = { fast: false };
    for (const operation of EFFECT_OPERATIONS) {
      it(`offers ${operation.name} as {effect: "${operation.effect.name}"} with every parameter`, () => {
        expect(NODE_RED_EFFECTS[operation.effect.name]).to.equal(operation.name);
        const payload: Record<string, unknown> = { effect: operation.effect.name };
        for (const p of operation.params) payload[p.v1] = validValue(p);
        const parsed = parsePayload(payload, d);
        expect(parsed.kind).to.equal('effect');
        if (parsed.kind !== 'effect') return;
        for (const p of operation.params) expect(parsed.request, `${operation.name}.${p.v1}`).to.have.property(p.key);
      });
    }
    it('offers Set State, Toggle Power and Activate Scene with every parameter', () => {
      const setState = parsePayload(Object.fromEntries(OPERATIONS.setState.params.map((p) => [p.v1, validValue(p)])), d);
      expect(setState.kind).to.equal('setState');
      if (setState.kind === 'setState') for (const p of OPERATIONS.setState.params) expect(setState.request).to.have.property(p.key);
      expect(parsePayload({ toggle: true, duration: 2 }, d)).to.deep.include({ kind: 'toggle' });
      const scene = parsePayload({ scene: 'Evening', ...Object.fromEntries(OPERATIONS.activateScene.params.map((p) => [p.v1, validValue(p)])) }, d);
      expect(scene.kind).to.equal('scene');
      if (scene.kind === 'scene') for (const p of OPERATIONS.activateScene.params) expect(scene.request).to.have.property(p.key);
    });
    it('has no effect the catalogue does not declare', () => {
      expect(Object.keys(NODE_RED_EFFECTS)).to.deep.equal(EFFECT_OPERATIONS.map((o) => o.effect.name));
    });
    for (const operation of NAMING_OPERATIONS) {
      const key = operation.naming.payload;
      it(`offers ${operation.name} as {${key}${operation.naming.rename ? ': {from, to}' : ''}} with every parameter`, () => {
        expect(NAMING_PAYLOADS[key]).to.equal(operation.name);
        const params = Object.fromEntries(operation.params.map((p) => [p.v1, validValue(p)]));
        const parsed = parsePayload(operation.naming.rename ? { [key]: params } : params, d);
        expect(parsed.kind).to.equal('naming');
        if (parsed.kind !== 'naming') return;
        expect(parsed.operation).to.equal(operation.name);
        for (const p of operation.params) expect(parsed.request, `${operation.name}.${p.v1}`).to.have.property(p.key, 'Kitchen');
      });
    }
    it('has no renaming payload the catalogue does not declare', () => {
      expect(Object.keys(NAMING_PAYLOADS)).to.deep.equal(NAMING_OPERATIONS.map((o) => o.naming.payload));
    });
  });

  describe('the CLI', () => {
    it('offers every renaming operation as a command named by what it names, renames by --rename', () => {
      for (const operation of NAMING_OPERATIONS) {
        const command = COMMANDS.find((c) => c.name === operation.naming.kind);
        expect(command, operation.name).to.not.equal(undefined);
        if (operation.naming.rename) expect(command!.help, operation.name).to.contain(`lightwire ${operation.naming.kind} --rename OLD NEW`);
        else expect(command!.help, operation.name).to.contain(`lightwire ${operation.naming.kind} SELECTOR`);
      }
    });
  });

  describe('the dashboard', () => {
    it('offers every effect as a button (Effects Off as its own), each with the capability it needs', () => {
      const buttons = new Map(DASHBOARD_EFFECTS.map((e) => [e.name, e]));
      for (const operation of EFFECT_OPERATIONS) {
        if (operation.name === 'effectsOff') {
          expect(parseAction({ op: 'effectsOff', selector: 'all' })).to.deep.equal({ op: 'effectsOff', selector: 'all' });
          continue;
        }
        const button = buttons.get(operation.effect.name);
        expect(button, operation.name).to.not.equal(undefined);
        expect(button!.needs).to.equal(operation.needs ?? null);
        expect(parseAction({ op: 'effect', selector: 'all', effect: operation.effect.name })).to.include({ effect: operation.effect.name });
      }
      expect(DASHBOARD_EFFECTS.length).to.equal(EFFECT_OPERATIONS.length - 1);
    });
    it('renames a light in place (setLabel) and a group or location (renameGroup, renameLocation)', () => {
      expect(parseAction({ op: 'label', selector: 'id:d073d5000001', label: ' Desk ' })).to.deep.equal({ op: 'label', selector: 'id:d073d5000001', label: 'Desk' });
      expect(parseAction({ op: 'rename', kind: 'group', from: 'Office', to: 'Study' })).to.deep.equal({ op: 'rename', kind: 'group', from: 'Office', to: 'Study' });
      expect(parseAction({ op: 'rename', kind: 'location', from: 'Home', to: 'Flat' })).to.deep.include({ kind: 'location' });
      expect(() => parseAction({ op: 'label', selector: 'id:d073d5000001', label: 'x'.repeat(33) })).to.throw().with.property('code', 'LABEL_TOO_LONG');
    });
  });

  describe('Homebridge (effect switches)', () => {
    it('offers every firmware effect as a switch, needing what the catalogue says and showing On while the light reports it', () => {
      expect([...EFFECT_KINDS]).to.deep.equal([...FIRMWARE_EFFECTS]);
      for (const kind of FIRMWARE_EFFECTS) {
        const operation: OperationDecl = OPERATIONS[kind];
        expect(HOMEKIT_EFFECTS[kind].needs, kind).to.equal(operation.needs);
        expect(HOMEKIT_EFFECTS[kind].firmware, kind).to.equal(operation.firmware);
        expect(HOMEKIT_EFFECTS[kind].title, kind).to.equal(operation.effect!.title);
      }
      const schema = JSON.parse(readFileSync(path.join(ROOT, 'config.schema.json'), 'utf8')) as { schema: { properties: { lights: { properties: { effects: { items: { enum: string[] } } } } } } };
      expect(schema.schema.properties.lights.properties.effects.items.enum).to.deep.equal([...FIRMWARE_EFFECTS]);
    });
  });

  describe('pixels and themes on every face', () => {
    const d = { fast: false };
    it('Node-RED: {theme} is Paint Theme, {pixels} and a rectangle {color, x, ...} are Paint Pixels, each with every parameter', () => {
      for (const name of ['paint', 'theme'] as const) {
        const operation: OperationDecl = OPERATIONS[name];
        const payload: Record<string, unknown> = {};
        for (const p of operation.params) if (!(name === 'paint' && p.key === 'color')) payload[p.v1] = validValue(p);
        const parsed = parsePayload(payload, d);
        expect(parsed.kind).to.equal(name);
        if (parsed.kind !== name) continue;
        for (const p of operation.params) if (!(name === 'paint' && p.key === 'color')) expect(parsed.request, `${name}.${p.v1}`).to.have.property(p.key);
      }
      expect(parsePayload({ color: 'red', x: 1, width: 2 }, d).kind).to.equal('paint');
      expect(parsePayload({ color: 'red' }, d).kind).to.equal('setState');
    });
    it('the dashboard: op theme and op paint, checked by the catalogue\'s parser', () => {
      expect(parseAction({ op: 'theme', selector: 'all', theme: 'autumn' })).to.deep.include({ op: 'theme', selector: 'all' });
      expect(parseAction({ op: 'paint', selector: 'all', color: 'red', x: 1, y: 2, width: 1, height: 1 })).to.deep.include({ op: 'paint' });
      expect(() => parseAction({ op: 'theme', selector: 'all', theme: 'nope' })).to.throw(/no theme named/);
    });
    it('Homebridge: a theme switch for each theme named that the catalogue knows', () => {
      expect(themesFor(['autumn', 'nope', 'bias_lighting']).map((t) => [t.theme, t.title])).to.deep.equal([
        ['autumn', 'Theme Autumn'],
        ['bias_lighting', 'Theme Bias Lighting'],
      ]);
      const schema = JSON.parse(readFileSync(path.join(ROOT, 'config.schema.json'), 'utf8')) as { schema: { properties: { lights: { properties: { themes: { items: { enum: string[] } } } } } } };
      expect(schema.schema.properties.lights.properties.themes.items.enum).to.deep.equal([...THEME_NAMES]);
    });
  });

  describe('one text per check', () => {
    for (const operation of OPERATION_LIST) {
      for (const p of operation.params) {
        if (p.kind === 'state' || p.kind === 'states' || p.kind === 'color') continue;
        it(`${operation.name}.${p.v1}: the library and the v1 names get the same code and text, each naming the field its own way`, () => {
          const bad = p.kind === 'number' ? 'x' : p.kind === 'boolean' ? 'yes' : 7;
          const errorOf = (vocabulary: 'v1' | 'library'): { code: string; field: string; reason: string } => {
            // Every other required parameter is given, valid, so the bad one is the only fault.
            const others = needed(operation, vocabulary, p);
            try {
              parseRequest(operation.name as never, { ...others, [vocabulary === 'v1' ? p.v1 : p.key]: bad }, { vocabulary, defaultDurationS: 1 });
            } catch (err) {
              if (isLightwireError(err, 'PARAMETER_INVALID')) return { code: err.code, field: err.params.field, reason: err.params.reason };
              throw err;
            }
            throw new Error('no error');
          };
          const v1 = errorOf('v1');
          const library = errorOf('library');
          expect(v1.code).to.equal('PARAMETER_INVALID');
          expect(v1.field).to.equal(p.v1);
          expect(library.field).to.equal(p.key);
          expect(v1.reason).to.equal(library.reason);
          expect(v1.reason.startsWith(checkText(p)), v1.reason).to.equal(true);
        });
      }
    }
  });
});
