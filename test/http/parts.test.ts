// Parts over HTTP (issue 29 §1): `SELECTOR|PART` in /v1 paths beside zone ranges, PART_UNKNOWN and PART_UNSUPPORTED as
// 422, plain v1 selectors as before; and the dashboard's panel setting one part (`id:SERIAL|PART`). On a virtual 8 x 8
// Ceiling, whose pixels are compared on the fleet.
import { expect } from 'chai';
import { readCookie } from '../../core/http/dashboard/session.js';
import { pageLight } from '../../core/http/dashboard/light-json.js';
import type { Hsbk } from '../../core/protocol/index.js';
import { apiRig, JSON_TYPE, type ApiRig } from './helpers.js';

const CEILING = 'd073d5000051';
const BULB = 'd073d5000052';
const WHITE = { hue: 0, saturation: 0, brightness: 1, kelvin: 3500 };

const changed = (rig: ApiRig): number[] => rig.fleet.light(CEILING).state.tiles![0]!.flatMap((c: Hsbk, i) => (c.saturation === 0 && c.brightness === 1 ? [] : [i]));

describe('parts over HTTP: /v1 selectors and the dashboard', function () {
  this.timeout(20_000);
  let rig: ApiRig;
  beforeEach(async () => {
    rig = await apiRig(
      { lights: [{ serial: CEILING, product: 176, label: 'Ceiling', power: 'on', color: WHITE }, { serial: BULB, product: 91, label: 'Bulb', power: 'on', color: WHITE }] },
      { dashboard: { liveRefresh: false } },
    );
    await rig.service.refreshLight(CEILING);
  });
  afterEach(() => rig.close());

  const put = (selector: string, body: unknown) => rig.call({ method: 'PUT', url: `/v1/lights/${encodeURIComponent(selector)}/state`, headers: JSON_TYPE, payload: JSON.stringify(body) });

  it('sets label:Ceiling|uplight (percent-encoded or not): pixel 63 alone; label:Ceiling stays the whole light', async () => {
    const res = await put('label:Ceiling|uplight', { color: 'red', duration: 0 });
    expect(res.statusCode, res.body).to.equal(207);
    expect((res.json() as { results: { id: string; status: string }[] }).results).to.deep.equal([{ id: CEILING, label: 'Ceiling', status: 'ok' }]);
    expect(changed(rig)).to.deep.equal([63]);
    const raw = await rig.call({ method: 'PUT', url: '/v1/lights/label:Ceiling|downlight/state', headers: JSON_TYPE, payload: JSON.stringify({ color: 'blue', duration: 0 }) });
    expect(raw.statusCode, raw.body).to.equal(207);
    expect(changed(rig)).to.have.length(64);
    expect(Math.round(rig.fleet.light(CEILING).state.tiles![0]![63]!.hue)).to.equal(0);
    await put('label:Ceiling', { color: 'white', duration: 0 });
    expect(changed(rig)).to.deep.equal([]);
  });

  it('answers 422 PART_UNKNOWN naming the parts, and 422 PART_UNSUPPORTED for an effect on a part', async () => {
    const unknown = await put('label:Ceiling|rear', { color: 'red' });
    expect(unknown.statusCode).to.equal(422);
    expect(unknown.json()).to.include({ code: 'PART_UNKNOWN' });
    expect((unknown.json() as { error: string }).error).to.contain('downlight, uplight');
    const bulb = await put('label:Bulb|uplight', { color: 'red' });
    expect((bulb.json() as { code: string }).code).to.equal('PART_UNKNOWN');
    const pulse = await rig.call({ method: 'POST', url: `/v1/lights/${encodeURIComponent('label:Ceiling|uplight')}/effects/pulse`, headers: JSON_TYPE, payload: JSON.stringify({ color: 'red' }) });
    expect(pulse.statusCode).to.equal(422);
    expect((pulse.json() as { code: string }).code).to.equal('PART_UNSUPPORTED');
    expect(changed(rig)).to.deep.equal([]);
  });

  it('the dashboard lists a light its parts and its panel sets one (id:SERIAL|uplight)', async () => {
    expect(pageLight(rig.service.light(CEILING)!, rig.service.parts(CEILING).map((p) => p.name)).parts).to.deep.equal(['downlight', 'uplight']);
    const page = await rig.call({ method: 'GET', url: '/', headers: { 'sec-fetch-site': 'none' } });
    const id = readCookie(String(page.headers['set-cookie']).split(';')[0], 'lightwire_session_0');
    const csrf = /name="lightwire-csrf" content="([^"]+)"/.exec(page.body)![1]!;
    const res = await rig.call({
      method: 'POST',
      url: '/api/action',
      headers: { cookie: `lightwire_session_0=${id}`, 'x-lightwire-csrf': csrf, 'content-type': 'application/json', origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin' },
      payload: JSON.stringify({ op: 'power', selector: `id:${CEILING}|uplight`, power: 'off' }),
    });
    expect(res.statusCode, res.body).to.equal(200);
    expect(rig.fleet.light(CEILING).state.power).to.equal('on');
    expect(changed(rig)).to.deep.equal([63]);
    expect(rig.fleet.light(CEILING).state.tiles![0]![63]!.brightness).to.equal(0);
  });
});
