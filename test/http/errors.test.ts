import { expect } from 'chai';
import type { LightMyRequestResponse } from 'fastify';
import { buildServer } from '../../core/http/server.js';
import type { LightApi } from '../../core/http/service-api.js';
import { apiRig, contractFleet, DESK, FORM, JSON_TYPE, rateHeaders, type ApiRig } from './helpers.js';

type Body = Record<string, any>;

describe('HTTP API v1 error answers (inject)', function () {
  this.timeout(20_000);
  let rig: ApiRig;

  before(async () => {
    rig = await apiRig(contractFleet());
  });
  after(() => rig.close());

  async function call(options: Parameters<ApiRig['call']>[0]): Promise<LightMyRequestResponse & { json: () => Body }> {
    const res = await rig.call(options);
    return res as LightMyRequestResponse & { json: () => Body };
  }

  describe('400 for a body that is not usable', () => {
    const cases: [string, Record<string, string>, string][] = [
      ['malformed JSON', JSON_TYPE, '{"power": "on"'],
      ['a JSON array', JSON_TYPE, '[{"power": "on"}]'],
      ['a JSON string', JSON_TYPE, '"power=on"'],
      ['JSON null', JSON_TYPE, 'null'],
      ['plain text', { 'content-type': 'text/plain' }, 'power=on'],
      ['XML', { 'content-type': 'application/xml' }, '<power>on</power>'],
      ['a __proto__ key', JSON_TYPE, '{"__proto__": {"admin": true}, "power": "on"}'],
    ];
    for (const [name, headers, payload] of cases) {
      it(`answers 400 BODY_INVALID for ${name}`, async () => {
        const res = await call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, headers, payload });
        expect(res.statusCode).to.equal(400);
        expect(res.json().code).to.equal('BODY_INVALID');
        expect(res.json().error).to.match(/^the request body is invalid: /);
        expect(res.json().errors).to.deep.equal([]);
      });
    }

    it('names the reason when valid JSON sets __proto__ or constructor.prototype', async () => {
      for (const payload of ['{"__proto__": {"power": "off"}}', '{"constructor": {"prototype": {"power": "off"}}}']) {
        const res = await call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, headers: JSON_TYPE, payload });
        expect(res.statusCode).to.equal(400);
        expect(res.json().error).to.equal('the request body is invalid: it sets __proto__ or constructor.prototype');
      }
      const broken = await call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, headers: JSON_TYPE, payload: '{"__proto__": ' });
      expect(broken.json().error).to.equal('the request body is invalid: it is not valid JSON');
    });

    it('answers 400 for JSON nested deeper than 32 levels, and still works afterwards', async () => {
      const deep = `{"power":"on","x":${'['.repeat(40)}${']'.repeat(40)}}`;
      const res = await call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, headers: JSON_TYPE, payload: deep });
      expect(res.statusCode).to.equal(400);
      expect(res.json().error).to.equal('the request body is invalid: it nests deeper than 32 levels');
      expect((await call({ method: 'GET', url: '/v1/lights/all' })).statusCode).to.equal(200);
    });
  });

  describe('422 for missing or malformed parameters', () => {
    const cases: [string, Body, string, string][] = [
      // A declared parameter is refused in the service's own words (requests.ts), as every face says it.
      ['brightness above 1', { brightness: 1.01 }, 'brightness', 'must be a number from 0 to 1 (got 1.01)'],
      ['brightness below 0', { brightness: -0.5 }, 'brightness', 'must be a number from 0 to 1 (got -0.5)'],
      ['infrared above 1', { infrared: 2 }, 'infrared', 'must be a number from 0 to 1 (got 2)'],
      ['a negative duration', { duration: -1 }, 'duration', 'must be a number from 0 to 3155760000 (got -1)'],
      ['a duration over 100 years', { duration: 3155760001 }, 'duration', 'must be a number from 0 to 3155760000 (got 3155760001)'],
      ['power that is not on/off', { power: 'maybe' }, 'power', 'must be "on" or "off" (got "maybe")'],
      ['a number that is text', { brightness: 'bright' }, 'brightness', 'must be a number from 0 to 1 (got "bright")'],
      ['a colour that is a number', { color: 7 }, 'color', 'must be string'],
      ['fast that is not a boolean', { fast: 'sometimes' }, 'fast', 'must be boolean'],
    ];
    for (const [name, payload, field, message] of cases) {
      it(`answers 422 naming the field for ${name}`, async () => {
        const res = await call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload });
        expect(res.statusCode).to.equal(422);
        expect(res.json()).to.deep.equal({ error: `${field} ${message}`, errors: [{ field, message: [message] }], code: 'PARAMETER_INVALID' });
      });
    }

    it('answers 422 for a form value that does not coerce', async () => {
      const res = await call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, headers: FORM, payload: 'brightness=half&duration=' });
      expect(res.statusCode).to.equal(422);
      expect(res.json().errors).to.deep.equal([
        { field: 'brightness', message: ['must be a number from 0 to 1 (got "half")'] },
        { field: 'duration', message: ['must be a number from 0 to 3155760000 (got "")'] },
      ]);
    });

    it('answers 422 naming a form field given more than once, and changes nothing', async () => {
      const before = (await call({ method: 'GET', url: `/v1/lights/id:${DESK}` })).json()[0].power;
      const res = await call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, headers: { 'content-type': 'Application/X-WWW-Form-Urlencoded; charset=utf-8' }, payload: `power=${before === 'on' ? 'off' : 'on'}&power=on&duration=0` });
      expect(res.statusCode).to.equal(422);
      const message = 'is given more than once (2 times); give it once';
      expect(res.json()).to.deep.equal({ error: `power ${message}`, errors: [{ field: 'power', message: [message] }], code: 'PARAMETER_INVALID' });
      expect((await call({ method: 'GET', url: `/v1/lights/id:${DESK}` })).json()[0].power).to.equal(before);
      // A list in JSON is a wrong type, not a repeat.
      const json = await call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { power: ['on', 'off'] } });
      expect(json.statusCode).to.equal(422);
      expect(json.json().errors[0]).to.deep.include({ field: 'power' });
      expect(json.json().error).to.not.contain('more than once');
    });

    it('answers 422 COLOR_INVALID with the cloud-style message for a colour it cannot parse', async () => {
      const res = await call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { color: 'hue:400' } });
      expect(res.statusCode).to.equal(422);
      expect(res.json().code).to.equal('COLOR_INVALID');
      expect(res.json().error).to.match(/^Unable to parse color: "hue:400"/);
      expect(res.json().errors[0].field).to.equal('color');
    });

    it('lists a field error per nested state', async () => {
      const res = await call({ method: 'PUT', url: '/v1/lights/states', payload: { states: [{ selector: 'all', brightness: 3 }, { selector: 'all', power: 1 }] } });
      expect(res.statusCode).to.equal(422);
      expect(res.json().errors).to.deep.equal([
        { field: 'states[0].brightness', message: ['must be a number from 0 to 1 (got 3)'] },
        { field: 'states[1].power', message: ['must be "on" or "off" (got 1)'] },
      ]);
    });
  });

  describe('404, 410, 413 and 414', () => {
    it('answers 404 for a path that is no endpoint, with a hint', async () => {
      const res = await call({ method: 'GET', url: '/v1/bulbs' });
      expect(res.statusCode).to.equal(404);
      expect(res.json()).to.deep.equal({ error: 'No endpoint GET /v1/bulbs; see GET /v1/openapi.json for the endpoints', errors: [], code: 'ROUTE_NOT_FOUND' });
      const wrongMethod = await call({ method: 'GET', url: '/v1/lights/all/state' });
      expect(wrongMethod.statusCode).to.equal(404);
      expect(wrongMethod.json().error).to.equal('No endpoint GET /v1/lights/all/state; this path answers PUT');
      const outside = await call({ method: 'GET', url: '/lights/all' });
      expect(outside.statusCode).to.equal(404);
      expect(outside.json().error).to.equal('No endpoint GET /lights/all; the API lives under /v1; see /v1/openapi.json');
    });

    for (const removed of ['color', 'power']) {
      it(`answers 410 for the removed PUT /lights/:selector/${removed}, naming Set State`, async () => {
        const res = await call({ method: 'PUT', url: `/v1/lights/all/${removed}`, payload: { [removed]: removed === 'color' ? 'red' : 'on' } });
        expect(res.statusCode).to.equal(410);
        expect(res.json().code).to.equal('ENDPOINT_REMOVED');
        expect(res.json().error).to.equal(
          `PUT /v1/lights/:selector/${removed} was removed from the API; use Set State (PUT /v1/lights/:selector/state with ${removed}) instead`,
        );
      });
    }

    it('answers 413 for a body over the limit', async () => {
      const res = await call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { color: 'x'.repeat(300 * 1024) } });
      expect(res.statusCode).to.equal(413);
      expect(res.json()).to.deep.equal({ error: 'the request body is larger than 262144 bytes', errors: [], code: 'BODY_TOO_LARGE' });
    });

    it('answers 415 for a body with a Content-Encoding, compressed or not, and takes identity', async () => {
      const powerOf = async (): Promise<unknown> => (await call({ method: 'GET', url: `/v1/lights/id:${DESK}` })).json()[0].power;
      const before = await powerOf();
      expect(before).to.equal('on');
      for (const encoding of ['gzip', 'br, gzip', 'x-unknown']) {
        const res = await call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, headers: { ...JSON_TYPE, 'content-encoding': encoding }, payload: '{"power": "off"}' });
        expect(res.statusCode).to.equal(415);
        expect(res.json()).to.deep.equal({
          error: `the request body is sent with Content-Encoding ${JSON.stringify(encoding)}, which is not supported: send it unencoded`,
          errors: [],
          code: 'BODY_ENCODING_UNSUPPORTED',
        });
      }
      expect(await powerOf()).to.equal('on');
      const plain = await call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, headers: { ...JSON_TYPE, 'content-encoding': 'identity' }, payload: '{"duration": 0}' });
      expect(plain.statusCode).to.equal(207);
    });

    it('answers 414 for a selector segment over 8192 characters and 400 for a broken percent-escape', async () => {
      const long = await call({ method: 'GET', url: `/v1/lights/label:${'x'.repeat(9000)}` });
      expect(long.statusCode).to.equal(414);
      expect(long.json().code).to.equal('URL_TOO_LONG');
      const broken = await call({ method: 'GET', url: '/v1/lights/label:%E0%A4%A' });
      expect(broken.statusCode).to.equal(400);
      expect(broken.json().code).to.equal('URL_INVALID');
    });
  });

  describe('5xx only for faults of ours', () => {
    it('answers 503 when the light client has stopped', async () => {
      const own = await apiRig({ lights: contractFleet().lights.slice(0, 1) });
      try {
        await own.client.stop();
        const res = await own.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { power: 'on' } });
        expect(res.statusCode).to.equal(503);
        expect(res.json()).to.deep.equal({ error: 'the client is stopped', errors: [], code: 'CLIENT_STOPPED' });
      } finally {
        await own.close();
      }
    });

    it('answers 500 "Internal server error" for an unexpected exception, logs the stack, and leaks nothing', async () => {
      const lines: string[] = [];
      const broken: LightApi = new Proxy(rig.service, {
        get(target, key, receiver) {
          if (key === 'list') return () => { throw new TypeError('secret detail at /home/user/app.js:1'); };
          return Reflect.get(target, key, receiver) as unknown;
        },
      });
      const app = buildServer({ service: broken, log: (line) => lines.push(line) });
      try {
        const res = await app.inject({ method: 'GET', url: '/v1/lights/all' });
        expect(res.statusCode).to.equal(500);
        expect(JSON.parse(res.body)).to.deep.equal({ error: 'Internal server error', errors: [], code: 'INTERNAL_ERROR' });
        expect(res.body).to.not.include('secret');
        expect(rateHeaders(res).limit).to.be.a('number').and.above(0);
        expect(lines).to.have.length(1);
        expect(lines[0]).to.match(/^GET \/v1\/lights\/all: TypeError: secret detail/);
      } finally {
        await app.close();
      }
    });
  });

  it('sends numeric X-RateLimit-Limit, -Remaining and -Reset on answers of every status', async () => {
    const requests: [number, Parameters<ApiRig['call']>[0]][] = [
      [200, { method: 'GET', url: '/v1/lights/all' }],
      [207, { method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { brightness: 0.5 } }],
      [202, { method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { brightness: 0.5, fast: true } }],
      [400, { method: 'PUT', url: `/v1/lights/id:${DESK}/state`, headers: JSON_TYPE, payload: '{' }],
      [404, { method: 'GET', url: '/v1/lights/label:Nowhere' }],
      [404, { method: 'GET', url: '/nowhere' }],
      [410, { method: 'PUT', url: '/v1/lights/all/power' }],
      [413, { method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { color: 'x'.repeat(300 * 1024) } }],
      [414, { method: 'GET', url: `/v1/lights/label:${'x'.repeat(9000)}` }],
      [422, { method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { brightness: 9 } }],
      [400, { method: 'GET', url: '/v1/lights/%zz' }],
    ];
    const now = Date.now() / 1000;
    for (const [status, request] of requests) {
      const res = await rig.call(request);
      expect(res.statusCode, request.url as string).to.equal(status);
      for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
        expect(res.headers[name], `${name} on ${status}`).to.match(/^\d+$/);
      }
      const h = rateHeaders(res);
      expect(h.remaining).to.be.below(h.limit);
      expect(h.reset).to.be.within(Math.floor(now), now + 61);
    }
  });
});
