// Lightwire's own endpoints beside /v1 (/lightwire): Paint Pixels, Paint Theme and List Themes, with the same
// tokens, scopes, bodies and error answers as /v1, checked against what the virtual lights show.
import { expect } from 'chai';
import { THEME_NAMES } from '../../core/control/catalogue.js';
import { apiRig, contractFleet, FORM, STRIP, TILES, type ApiRig } from './helpers.js';

const CAPSULE = 'd073d5000031';
const CONTROL = 'control-token-0123456789';
const READ = 'read-token-0123456789ab';

describe('HTTP: /lightwire (pixels and themes, beside /v1)', function () {
  this.timeout(20_000);
  let rig: ApiRig;
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  beforeEach(async () => {
    const fleet = contractFleet();
    rig = await apiRig(
      { lights: [...fleet.lights, { serial: CAPSULE, product: 202, label: 'Capsule', power: 'on', color: { hue: 0, saturation: 0, brightness: 1, kelvin: 3500 } }] },
      { tokens: [CONTROL, `${READ}:read`] },
    );
  });
  afterEach(() => rig.close());

  it('paints a 16 x 8 light from a JSON grid (207 with one result) and the fleet shows every pixel', async () => {
    const grid = Array.from({ length: 8 }, (_, row) => Array.from({ length: 16 }, (_, col) => (row < 4 === col < 8 ? 'red' : 'blue')));
    const res = await rig.call({ method: 'PUT', url: `/lightwire/lights/id:${CAPSULE}/pixels`, headers: auth(CONTROL), payload: { pixels: grid, duration: 0 } });
    expect(res.statusCode).to.equal(207);
    expect(res.json()).to.deep.equal({ results: [{ id: CAPSULE, label: 'Capsule', status: 'ok' }] });
    const shown = rig.fleet.light(CAPSULE).state.tiles![0]!.map((c) => Math.round(c.hue));
    expect(shown).to.deep.equal(Array.from({ length: 128 }, (_, i) => ((Math.floor(i / 16) < 4) === (i % 16 < 8) ? 0 : 250)));
  });

  it('paints a rectangle from a form body, and answers 202 in fast mode', async () => {
    const res = await rig.call({ method: 'PUT', url: `/lightwire/lights/id:${TILES}/pixels`, headers: { ...auth(CONTROL), ...FORM }, payload: 'color=green&x=1&y=1&width=2&height=2&duration=0&fast=true' });
    expect(res.statusCode).to.equal(202);
    const deadline = Date.now() + 2000;
    const green = (): number => rig.fleet.light(TILES).state.tiles![0]!.filter((c) => Math.round(c.hue) === 120 && c.saturation === 1).length;
    while (green() < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(green()).to.equal(4);
  });

  it('answers 422 with the code for a bad grid, a grid that does not fit, a light that is no matrix and an unknown theme', async () => {
    const bad = await rig.call({ method: 'PUT', url: `/lightwire/lights/id:${TILES}/pixels`, headers: auth(CONTROL), payload: { pixels: [['red', 'nocolour']] } });
    expect(bad.statusCode).to.equal(422);
    expect(bad.json().code).to.equal('COLOR_INVALID');
    const big = await rig.call({ method: 'PUT', url: `/lightwire/lights/id:${TILES}/pixels`, headers: auth(CONTROL), payload: { color: 'red', y: 4, height: 5 } });
    expect(big.statusCode).to.equal(422);
    expect(big.json().code).to.equal('PIXELS_OUT_OF_CANVAS');
    const strip = await rig.call({ method: 'PUT', url: `/lightwire/lights/id:${STRIP}/pixels`, headers: auth(CONTROL), payload: { color: 'red' } });
    expect(strip.statusCode).to.equal(422);
    expect(strip.json().code).to.equal('CAPABILITY_MISSING');
    const theme = await rig.call({ method: 'PUT', url: '/lightwire/lights/all/theme', headers: auth(CONTROL), payload: { theme: 'halloweeen' } });
    expect(theme.statusCode).to.equal(422);
    expect(theme.json().code).to.equal('THEME_UNKNOWN');
    expect(theme.json().error).to.include('halloween');
  });

  it('paints a theme over a strip with the write scope; a read token lists the themes and may not paint', async () => {
    const denied = await rig.call({ method: 'PUT', url: '/lightwire/lights/all/theme', headers: auth(READ), payload: { theme: 'autumn' } });
    expect(denied.statusCode).to.equal(403);
    const list = await rig.call({ method: 'GET', url: '/lightwire/themes', headers: auth(READ) });
    expect(list.statusCode).to.equal(200);
    expect(list.json().map((t: { name: string }) => t.name)).to.deep.equal([...THEME_NAMES]);
    const res = await rig.call({ method: 'PUT', url: `/lightwire/lights/id:${STRIP}/theme`, headers: auth(CONTROL), payload: { theme: 'autumn', duration: 0 } });
    expect(res.statusCode).to.equal(207);
    const hues = rig.fleet.light(STRIP).state.zones!.map((z) => Math.round(z.hue));
    expect(hues[0]).to.equal(31);
    expect(new Set(hues).size).to.be.greaterThan(3);
  });

  it('keeps /v1 the cloud\'s: no pixels or themes there, and each API documents only its own endpoints', async () => {
    const v1 = await rig.call({ method: 'PUT', url: `/v1/lights/id:${TILES}/pixels`, headers: auth(CONTROL), payload: { color: 'red' } });
    expect(v1.statusCode).to.equal(404);
    const doc = (await rig.call({ method: 'GET', url: '/lightwire/openapi.json' })).json();
    expect(Object.keys(doc.paths)).to.include.members(['/lights/{selector}/pixels', '/lights/{selector}/theme', '/themes']);
    const v1doc = (await rig.call({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(Object.keys(v1doc.paths)).to.not.include('/lights/{selector}/pixels');
  });
});
