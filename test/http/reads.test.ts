import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SceneStore } from '../../core/control/scene-store.js';
import { apiRig, contractFleet, DESK, LEFT, WARM, type ApiRig } from './helpers.js';
import { until } from '../helpers/wait.js';

/** A light record without the one field that moves with the clock. */
function stable(light: Record<string, unknown>): Record<string, unknown> {
  const { seconds_since_seen: _age, ...rest } = light;
  return rest;
}

describe('HTTP API v1 reads (inject)', function () {
  this.timeout(20_000);
  let rig: ApiRig;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-http-'));
    const scenes = await SceneStore.open(path.join(dir, 'scenes.json'));
    rig = await apiRig(contractFleet(), {}, { scenes });
    await rig.service.captureScene('Evening', 'group:Office');
  });
  after(async () => {
    await rig.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists every light with 200 in the List Lights shape, exactly the service records', async () => {
    const res = await rig.call({ method: 'GET', url: '/v1/lights/all' });
    expect(res.statusCode).to.equal(200);
    expect(res.headers['content-type']).to.equal('application/json; charset=utf-8');
    const body = res.json() as Record<string, unknown>[];
    expect(body.map((l) => l.id)).to.have.members([DESK, LEFT, WARM, 'd073d5000004', 'd073d5000005', 'd073d5000006', 'd073d5000007']);
    const expected = JSON.parse(JSON.stringify(rig.service.list('all'))) as Record<string, unknown>[];
    expect(body.map(stable)).to.deep.equal(expected.map(stable));
    const desk = body.find((l) => l.id === DESK)!;
    expect(desk).to.deep.include({ label: 'Desk', connected: true, power: 'on', brightness: 0.5, effect: 'OFF' });
    expect(desk.color).to.deep.equal({ hue: 0, saturation: 1, kelvin: 3500 });
    expect(Object.keys(desk)).to.deep.equal([
      'id', 'uuid', 'label', 'connected', 'power', 'color', 'brightness', 'effect', 'group', 'location', 'product', 'last_seen', 'seconds_since_seen',
    ]);
  });

  it('keeps the ambient light reading (Lightwire\'s, not the cloud\'s) out of the List Lights records', async () => {
    // The Desk has an ambient light sensor: the service reads it, the /v1 record stays the cloud's shape.
    await until(async () => (await rig.service.refresh(`id:${DESK}`), rig.service.light(DESK)!.ambientLux === 33), { what: 'the desk\'s sensor read' });
    const res = await rig.call({ method: 'GET', url: `/v1/lights/id:${DESK}` });
    const [desk] = res.json() as Record<string, unknown>[];
    expect(Object.keys(desk!)).to.deep.equal([
      'id', 'uuid', 'label', 'connected', 'power', 'color', 'brightness', 'effect', 'group', 'location', 'product', 'last_seen', 'seconds_since_seen',
    ]);
    expect(res.body).not.to.match(/lux|ambient/i);
  });

  it('puts infrared just before brightness, where the docs put it, for lights that have it', async () => {
    const body = (await rig.call({ method: 'GET', url: '/v1/lights/label:Porch,label:Desk' })).json() as Record<string, unknown>[];
    const porch = body.find((l) => l.label === 'Porch')!;
    // Read from the light (u16 16384) and shown as every other fraction is, to 4 decimals: 0.25, not 0.2500038.
    expect(porch.infrared).to.equal(0.25);
    expect(Object.keys(porch).indexOf('infrared')).to.equal(Object.keys(porch).indexOf('brightness') - 1);
    expect(body.find((l) => l.label === 'Desk')).to.not.have.property('infrared');
  });

  it('takes the selector from the raw path segment and percent-decodes it exactly once', async () => {
    const slash = await rig.call({ method: 'GET', url: '/v1/lights/label:Living%20Room%2FLeft' });
    expect(slash.statusCode).to.equal(200);
    expect((slash.json() as { id: string }[]).map((l) => l.id)).to.deep.equal([LEFT]);
    const percent = await rig.call({ method: 'GET', url: '/v1/lights/label:100%25%20Warm' });
    expect((percent.json() as { id: string }[]).map((l) => l.id)).to.deep.equal([WARM]);
    // %2520 decodes once to the text "%20", which is not a space: no light has that label.
    const twice = await rig.call({ method: 'GET', url: '/v1/lights/label:Living%2520Room%2FLeft' });
    expect(twice.statusCode).to.equal(404);
    expect(twice.json()).to.deep.include({ code: 'LIGHTS_NOT_FOUND', error: "Could not find light with selector 'label:Living%20Room/Left'." });
  });

  it('unites comma lists and understands group, id and :random selectors', async () => {
    const group = (await rig.call({ method: 'GET', url: '/v1/lights/group:Living%20Room' })).json() as { id: string }[];
    expect(group.map((l) => l.id)).to.have.members([LEFT, WARM]);
    const list = (await rig.call({ method: 'GET', url: `/v1/lights/id:${DESK},label:Desk,group:Living%20Room` })).json() as { id: string }[];
    expect(list.map((l) => l.id)).to.have.members([DESK, LEFT, WARM]);
    const random = (await rig.call({ method: 'GET', url: '/v1/lights/all:random' })).json() as unknown[];
    expect(random).to.have.length(1);
  });

  it('answers 404 with the cloud wording when the selector matches no light', async () => {
    const res = await rig.call({ method: 'GET', url: '/v1/lights/label:Nowhere' });
    expect(res.statusCode).to.equal(404);
    expect(res.json()).to.deep.equal({ error: "Could not find light with selector 'label:Nowhere'.", errors: [], code: 'LIGHTS_NOT_FOUND' });
  });

  it('answers 422 for a selector of unknown type and for more than 25 selectors', async () => {
    const unknown = await rig.call({ method: 'GET', url: '/v1/lights/colour:red' });
    expect(unknown.statusCode).to.equal(422);
    expect(unknown.json()).to.deep.include({ code: 'SELECTOR_INVALID' });
    expect((unknown.json() as { errors: { field: string }[] }).errors[0]!.field).to.equal('selector');
    const many = Array.from({ length: 26 }, () => `id:${DESK}`).join(',');
    const tooMany = await rig.call({ method: 'GET', url: `/v1/lights/${many}` });
    expect(tooMany.statusCode).to.equal(422);
    expect(tooMany.json()).to.deep.include({ code: 'SELECTOR_TOO_MANY' });
    const exactly25 = await rig.call({ method: 'GET', url: `/v1/lights/${Array.from({ length: 25 }, () => `id:${DESK}`).join(',')}` });
    expect(exactly25.statusCode).to.equal(200);
  });

  it('validates colours with GET /color?string= into hue, saturation, brightness and kelvin, null where unset', async () => {
    const cases: [string, Record<string, number | null>][] = [
      ['red', { hue: 0, saturation: 1, brightness: null, kelvin: null }],
      ['white', { hue: null, saturation: 0, brightness: null, kelvin: null }],
      ['kelvin:5000', { hue: null, saturation: 0, brightness: null, kelvin: 5000 }],
      ['kelvin:2700 saturation:1', { hue: null, saturation: 1, brightness: null, kelvin: 2700 }],
      ['rgb:0,255,255', { hue: 180, saturation: 1, brightness: 1, kelvin: null }],
      ['hue:120 saturation:1.0 brightness:0.5', { hue: 120, saturation: 1, brightness: 0.5, kelvin: null }],
    ];
    for (const [text, expected] of cases) {
      const res = await rig.call({ method: 'GET', url: `/v1/color?string=${encodeURIComponent(text)}` });
      expect(res.statusCode, text).to.equal(200);
      expect(res.json(), text).to.deep.equal(expected);
    }
    const hex = (await rig.call({ method: 'GET', url: '/v1/color?string=%23674322' })).json() as Record<string, number>;
    expect(hex.hue).to.be.closeTo(28.6957, 0.0001);
    expect(hex.saturation).to.be.closeTo(0.6699, 0.0001);
    expect(hex.brightness).to.be.closeTo(0.4039, 0.0001);
    expect(hex.kelvin).to.equal(null);
  });

  it('answers 422 naming the string parameter for colours it cannot parse, and when string is missing', async () => {
    for (const bad of ['kelvin:9001', 'hue:361', 'brightness:2', 'rgb:256,0,0', '#12345', '#fff', 'blue-ish', '']) {
      const res = await rig.call({ method: 'GET', url: `/v1/color?string=${encodeURIComponent(bad)}` });
      expect(res.statusCode, bad).to.equal(422);
      const body = res.json() as { code: string; errors: { field: string }[] };
      expect(body.code, bad).to.equal('COLOR_INVALID');
      expect(body.errors[0]!.field, bad).to.equal('string');
    }
    const missing = await rig.call({ method: 'GET', url: '/v1/color' });
    expect(missing.statusCode).to.equal(422);
    expect(missing.json()).to.deep.equal({ error: 'string is missing', errors: [{ field: 'string', message: ['is missing'] }], code: 'PARAMETER_MISSING' });
  });

  it('lists scenes in the List Scenes shape', async () => {
    const res = await rig.call({ method: 'GET', url: '/v1/scenes' });
    expect(res.statusCode).to.equal(200);
    const scenes = res.json() as Record<string, unknown>[];
    expect(scenes).to.deep.equal(JSON.parse(JSON.stringify(rig.service.listScenes())));
    expect(scenes).to.have.length(1);
    const scene = scenes[0]!;
    expect(scene.name).to.equal('Evening');
    expect(Object.keys(scene)).to.have.members(['uuid', 'name', 'account', 'states', 'created_at', 'updated_at']);
    expect((scene.states as { selector: string }[]).map((s) => s.selector)).to.have.members([`id:${DESK}`, 'id:d073d5000004', 'id:d073d5000005']);
  });

  it('lists device and scene selectors for Power Automate style clients', async () => {
    const devices = (await rig.call({ method: 'GET', url: '/v1/selectors/devices' })).json() as { selector: string; label: string }[];
    expect(devices).to.deep.include({ selector: `id:${DESK}`, label: 'Desk' });
    expect(devices).to.have.length(7);
    const scenes = (await rig.call({ method: 'GET', url: '/v1/selectors/scenes' })).json() as { selector: string; label: string }[];
    expect(scenes).to.deep.equal([{ selector: `scene_id:${rig.service.listScenes()[0]!.uuid}`, label: 'Evening' }]);
  });
});
