import Ajv from 'ajv';
import { expect } from 'chai';
import { fieldName, findString } from '../../core/http/errors.js';
import { coerce, nestingDepth, unknownParams, withoutRequired, type JsonSchema } from '../../core/http/json-schema.js';
import { openApiPath, type OpenApiDocument } from '../../core/http/openapi.js';
import { prepareInput } from '../../core/http/plugin.js';
import { ENDPOINTS, REMOVED_ENDPOINTS, SET_STATE_BODY, SET_STATES_BODY, CYCLE_BODY } from '../../core/http/schemas.js';
import { apiRig, contractFleet, DESK, type ApiRig } from './helpers.js';

type Body = Record<string, any>;

describe('HTTP API v1 schemas', () => {
  describe('coercion of form strings', () => {
    it('turns number and boolean strings into what the schema asks for and leaves the rest alone', () => {
      const out = coerce({ brightness: '0.5', duration: ' 2 ', fast: 'TRUE', power: 'on', color: '7', foo: '1' }, SET_STATE_BODY);
      expect({ ...(out as Body) }).to.deep.equal({ brightness: 0.5, duration: 2, fast: true, power: 'on', color: '7', foo: '1' });
      expect({ ...(coerce({ fast: '0', async: 'false' }, SET_STATE_BODY) as Body) }).to.deep.equal({ fast: false, async: false });
      expect({ ...(coerce({ brightness: 'half', fast: 'yes' }, SET_STATE_BODY) as Body) }).to.deep.equal({ brightness: 'half', fast: 'yes' });
    });

    it('makes a one-element array of a form field given once and drops nulls of known keys', () => {
      const morph = ENDPOINTS.find((e) => e.id === 'morph')!.body!;
      expect({ ...(coerce({ palette: 'red' }, morph) as Body) }).to.deep.equal({ palette: ['red'] });
      expect({ ...(coerce({ brightness: null, other: null }, SET_STATE_BODY) as Body) }).to.deep.equal({ other: null });
    });

    it('coerces inside nested states and defaults', () => {
      const out = coerce({ states: [{ selector: 'all', brightness: '1' }], defaults: { duration: '3' } }, SET_STATES_BODY) as Body;
      expect({ ...out.states[0] }).to.deep.equal({ selector: 'all', brightness: 1 });
      expect({ ...out.defaults }).to.deep.equal({ duration: 3 });
    });
  });

  describe('unknown parameters', () => {
    it('is undefined when every key is known', () => {
      expect(unknownParams({ power: 'on', fast: true, async: false }, SET_STATE_BODY)).to.equal(undefined);
      expect(unknownParams({ states: [{ selector: 'all' }], defaults: {} }, SET_STATES_BODY)).to.equal(undefined);
    });

    it('keeps unknown keys with their values, in their nested position', () => {
      expect({ ...unknownParams({ power: 'on', foo: { deep: [1] } }, SET_STATE_BODY) }).to.deep.equal({ foo: { deep: [1] } });
      const nested = unknownParams({ defaults: { duration: 30, power: 'on' }, states: [{ color: 'red', kelvin: 7000 }, { power: 'off' }] }, CYCLE_BODY)!;
      expect(JSON.parse(JSON.stringify(nested))).to.deep.equal({ defaults: {}, states: [{ kelvin: 7000 }, {}] });
    });

    it('keeps a __proto__ key from a form as plain data', () => {
      const form = Object.assign(Object.create(null) as Body, { ['__proto__']: 'x', power: 'on' });
      const unknown = unknownParams(form, SET_STATE_BODY)!;
      expect(Object.getPrototypeOf(unknown)).to.equal(null);
      expect(JSON.stringify(unknown)).to.equal('{"__proto__":"x"}');
      expect(({} as Body).x).to.equal(undefined);
    });
  });

  describe('limits and names', () => {
    it('measures nesting without recursion, stopping early', () => {
      expect(nestingDepth(1, 32)).to.equal(0);
      expect(nestingDepth({ a: [{ b: 1 }] }, 32)).to.equal(3);
      let deep: unknown = 0;
      for (let i = 0; i < 100_000; i++) deep = [deep];
      expect(nestingDepth(deep, 32)).to.equal(33);
    });

    it('names fields the way the service does', () => {
      expect(fieldName('/states/0/brightness')).to.equal('states[0].brightness');
      expect(fieldName('', 'color')).to.equal('color');
      expect(fieldName('/palette/2')).to.equal('palette[2]');
      expect(findString({ states: [{ color: 'red' }, { color: 'bleu' }] }, 'bleu')).to.equal('states[1].color');
    });

    it('strips required for the serializer and keeps everything else', () => {
      const schema: JsonSchema = { type: 'object', required: ['a'], properties: { a: { type: 'array', items: { type: 'object', required: ['b'], properties: { b: { type: 'string' } } } } } };
      expect(withoutRequired(schema)).to.deep.equal({ type: 'object', properties: { a: { type: 'array', items: { type: 'object', properties: { b: { type: 'string' } } } } } });
    });

    it('prepares an empty body as all defaults and refuses a body that is not an object', () => {
      expect(prepareInput(SET_STATE_BODY, undefined, 'body')).to.deep.equal({ params: {}, unknown: undefined });
      expect(() => prepareInput(SET_STATE_BODY, ['power'], 'body')).to.throw(/must be a JSON object or a form/);
    });
  });

  describe('the OpenAPI document', function () {
    this.timeout(20_000);
    let rig: ApiRig;
    let doc: OpenApiDocument;
    let ajv: Ajv;
    /** The compiled schema at a JSON pointer of the document. */
    const at = (...segments: string[]) => {
      const pointer = segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
      const v = ajv.getSchema(`openapi.json#/${pointer}`);
      if (!v) throw new Error(`no schema at ${pointer}`);
      return v;
    };

    before(async () => {
      rig = await apiRig(contractFleet());
      doc = (await rig.call({ method: 'GET', url: '/v1/openapi.json' })).json() as OpenApiDocument;
      ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true });
      ajv.addSchema(doc as unknown as object, 'openapi.json');
    });
    after(() => rig.close());

    it('describes every endpoint with the very schemas the server validates and serialises with', () => {
      expect(doc.openapi).to.equal('3.1.0');
      expect(doc.servers).to.deep.equal([{ url: '/v1' }]);
      const ids = new Set<string>();
      for (const e of ENDPOINTS) {
        const op = doc.paths[openApiPath(e.path)]![e.method.toLowerCase()]!;
        expect(op.operationId).to.equal(e.id);
        ids.add(op.operationId);
        expect(op['x-lightwire-scope']).to.equal(e.scope);
        expect(op.responses[String(e.status)]!.content!['application/json']!.schema).to.deep.equal(JSON.parse(JSON.stringify(e.response)));
        if (e.body) {
          const content = op.requestBody!.content;
          expect(content['application/json']!.schema).to.deep.equal(JSON.parse(JSON.stringify(e.body)));
          expect(content['application/x-www-form-urlencoded']!.schema).to.deep.equal(JSON.parse(JSON.stringify(e.body)));
          expect(op.responses).to.have.property('202');
        }
        for (const name of [...e.path.matchAll(/:([a-z]+)/g)].map((m) => m[1])) {
          expect(op.parameters.map((p) => p.name), e.id).to.include(name);
        }
      }
      expect(ids.size).to.equal(ENDPOINTS.length);
      for (const r of REMOVED_ENDPOINTS) expect(doc.paths[openApiPath(r.path)]!.put!.responses).to.have.property('410');
    });

    it('declares every request body open to unknown keys, at every level', () => {
      const walk = (s: JsonSchema, where: string): void => {
        if (s.properties) expect(s.additionalProperties, where).to.equal(true);
        for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, `${where}.${k}`);
        if (s.items) walk(s.items, `${where}[]`);
      };
      for (const e of ENDPOINTS) if (e.body) walk(e.body, e.id);
    });

    it('accepts the documented example bodies and rejects out-of-range ones, through the document', () => {
      const setState = at('paths', '/lights/{selector}/state', 'put', 'requestBody', 'content', 'application/json', 'schema');
      expect(setState({ power: 'on', color: 'blue saturation:0.5', brightness: 0.5, duration: 5 })).to.equal(true);
      expect(setState({ power: 'off', infrared: 1.0 })).to.equal(true);
      expect(setState({ brightness: 1.5 })).to.equal(false);
      const setStates = at('paths', '/lights/states', 'put', 'requestBody', 'content', 'application/json', 'schema');
      expect(setStates({ states: [{ selector: 'label:A', power: 'on' }, { selector: 'label:B', brightness: 0.5 }], defaults: { duration: 5.0 } })).to.equal(true);
      expect(setStates({ states: [{ power: 'on' }] })).to.equal(false);
      const cycle = at('paths', '/lights/{selector}/cycle', 'post', 'requestBody', 'content', 'application/json', 'schema');
      expect(cycle({ defaults: { duration: 30, power: 'on' }, states: [{ color: 'kelvin:7000', brightness: 1 }, { power: 'off' }] })).to.equal(true);
      const morph = at('paths', '/lights/{selector}/effects/morph', 'post', 'requestBody', 'content', 'application/json', 'schema');
      expect(morph({ period: 5, duration: 60, palette: ['red', 'green', 'blue'], power_on: true })).to.equal(true);
    });

    it('matches what the server answers: lights, results, Set States, colours, errors', async () => {
      const check = async (pointer: string[], request: Parameters<ApiRig['call']>[0], status: number) => {
        const res = await rig.call(request);
        expect(res.statusCode, request.url as string).to.equal(status);
        const validate = at(...pointer);
        expect(validate(res.json()), `${request.url as string}: ${JSON.stringify(validate.errors)}`).to.equal(true);
      };
      await check(['paths', '/lights/{selector}', 'get', 'responses', '200', 'content', 'application/json', 'schema'], { method: 'GET', url: '/v1/lights/all' }, 200);
      await check(
        ['paths', '/lights/{selector}/state', 'put', 'responses', '207', 'content', 'application/json', 'schema'],
        { method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { brightness: 0.4, foo: 1 } },
        207,
      );
      await check(
        ['paths', '/lights/{selector}/toggle', 'post', 'responses', '207', 'content', 'application/json', 'schema'],
        { method: 'POST', url: `/v1/lights/id:${DESK}/toggle` },
        207,
      );
      await check(
        ['paths', '/lights/states', 'put', 'responses', '207', 'content', 'application/json', 'schema'],
        { method: 'PUT', url: '/v1/lights/states', payload: { states: [{ selector: `id:${DESK}`, power: 'on' }, { selector: 'label:None' }] } },
        207,
      );
      await check(['paths', '/color', 'get', 'responses', '200', 'content', 'application/json', 'schema'], { method: 'GET', url: '/v1/color?string=kelvin:2700' }, 200);
      await check(['paths', '/scenes', 'get', 'responses', '200', 'content', 'application/json', 'schema'], { method: 'GET', url: '/v1/scenes' }, 200);
      await check(['components', 'schemas', 'Error'], { method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { brightness: 7 } }, 422);
      await check(['components', 'schemas', 'Error'], { method: 'GET', url: '/v1/lights/label:None' }, 404);
    });
  });
});
