import { expect } from 'chai';
import fc from 'fast-check';
import { ENDPOINTS } from '../../core/http/schemas.js';
import { apiRig, contractFleet, type ApiRig } from './helpers.js';

type Body = Record<string, any>;

const WRITES = ENDPOINTS.filter((e) => e.body !== undefined);
const PATH_OF = (path: string, selector: string): string => `/v1${path.replace(':selector', selector).replace(':scene', `scene_id:${selector}`)}`;

/** Pieces of selector text, percent-escapes (good and broken) included. */
const selectorText = fc
  .array(fc.constantFrom('all', 'label:', 'id:', 'group:', ':random', ',', '|', '0-5', '%', '%2', '%ZZ', '%2C', '%25', '%C3%A9', '%E0%A4', 'Desk', 'x', '-', '~'), { maxLength: 12 })
  .map((parts) => parts.join('') || 'all');

const contentTypes = fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain', 'application/json; charset=utf-8', 'multipart/form-data', '');

/** JSON values for known keys: wrong types, edge numbers, nested junk. */
const wildValue = fc.oneof(
  fc.constantFrom(null, true, false, 0, -0, 1, -1, 1e308, -1e308, 0.5, 3155760000, 3155760001, '', 'on', 'off', 'red', 'blurple', 'true', '1e3', 'NaN'),
  fc.double({ noNaN: true }),
  fc.string({ maxLength: 20 }),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);
const knownKeys = fc.constantFrom('power', 'color', 'brightness', 'duration', 'infrared', 'fast', 'async', 'states', 'defaults', 'period', 'cycles', 'palette', 'peak', 'from_color', 'direction', 'ignore', 'overrides', 'hue', 'kelvin', 'stop');
const wildBody = fc.dictionary(fc.oneof(knownKeys, fc.string({ maxLength: 8 })), wildValue, { maxKeys: 6 });

describe('HTTP API v1 under hostile input (fuzz)', function () {
  this.timeout(120_000);
  let rig: ApiRig;
  before(async () => {
    rig = await apiRig(contractFleet(), {}, { deadlineMs: 300 });
  });
  after(() => rig.close());

  function expectClientAnswer(status: number, body: string, what: string): void {
    expect(status, what).to.be.oneOf([200, 202, 207, 400, 404, 413, 414, 422]);
    if (status === 202) expect(body, what).to.equal('');
    else {
      const parsed = JSON.parse(body) as Body;
      if (status >= 400) {
        expect(parsed.error, what).to.be.a('string');
        expect(parsed.errors, what).to.be.an('array');
        expect(parsed.code, what).to.be.a('string');
      }
    }
  }

  it('answers every wild JSON body on every write endpoint with a client status, never a fault', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WRITES), wildBody, fc.boolean(), async (endpoint, body, fast) => {
        const payload = fast ? { ...body, fast: true } : body;
        const res = await rig.call({ method: endpoint.method, url: PATH_OF(endpoint.path, 'all'), payload });
        expectClientAnswer(res.statusCode, res.body, `${endpoint.id} ${JSON.stringify(payload)}`);
      }),
      { numRuns: 200 },
    );
  });

  it('answers garbage bytes under any content type with 400 or a client status', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...WRITES), contentTypes, fc.uint8Array({ maxLength: 300 }), async (endpoint, type, bytes) => {
        const res = await rig.call({
          method: endpoint.method,
          url: PATH_OF(endpoint.path, 'label:Desk'),
          headers: type === '' ? {} : { 'content-type': type },
          payload: Buffer.from(bytes),
        });
        expectClientAnswer(res.statusCode, res.body, `${endpoint.id} ${type} ${Buffer.from(bytes).toString('hex')}`);
      }),
      { numRuns: 300 },
    );
  });

  it('answers any selector text, broken escapes included, with 200, 404, 400 or 422', async () => {
    await fc.assert(
      fc.asyncProperty(selectorText, async (selector) => {
        const res = await rig.call({ method: 'GET', url: `/v1/lights/${selector}` });
        expect(res.statusCode, selector).to.be.oneOf([200, 400, 404, 422]);
        JSON.parse(res.body);
      }),
      { numRuns: 300 },
    );
  });

  it('survives huge selectors, wide and deep bodies, and keeps answering', async () => {
    const hugeList = Array.from({ length: 5000 }, (_, i) => `label:L${i}`).join(',');
    const huge = await rig.call({ method: 'GET', url: `/v1/lights/${hugeList.slice(0, 8000)}` });
    expect(huge.statusCode).to.equal(422);
    const wide = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
    const wideRes = await rig.call({ method: 'PUT', url: '/v1/lights/label:Desk/state', payload: { ...wide, power: 'on' } });
    expect(wideRes.statusCode).to.equal(207);
    expect(Object.keys((wideRes.json() as Body).warnings[0].unknown_params)).to.have.length(5000);
    const deepArray = `{"states":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const deepRes = await rig.call({ method: 'PUT', url: '/v1/lights/states', headers: { 'content-type': 'application/json' }, payload: deepArray });
    expect(deepRes.statusCode).to.equal(400);
    expect((deepRes.json() as Body).error).to.equal('the request body is invalid: it nests deeper than 32 levels');
    const deepObject = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;
    expect((await rig.call({ method: 'PUT', url: '/v1/lights/all/state', headers: { 'content-type': 'application/json' }, payload: deepObject })).statusCode).to.equal(400);
    const manyStates = { states: Array.from({ length: 50 }, () => ({ selector: Array.from({ length: 25 }, () => 'label:Desk').join(','), brightness: 0.5, fast: 'x' })) };
    const many = await rig.call({ method: 'PUT', url: '/v1/lights/states', payload: manyStates });
    expect(many.statusCode).to.equal(207);
    const formJunk = await rig.call({
      method: 'POST',
      url: '/v1/lights/all/effects/breathe',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'color=red&color=blue&__proto__=1&constructor[prototype][x]=1&period=%ZZ&cycles=1e400',
    });
    expect(formJunk.statusCode).to.equal(422);
    expect(({} as Body).x).to.equal(undefined);
    expect((await rig.call({ method: 'GET', url: '/v1/lights/all' })).statusCode).to.equal(200);
  });
});
