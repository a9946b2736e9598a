import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SceneStore } from '../../core/control/scene-store.js';
import { apiRig, CLEAN, contractFleet, DESK, FORM, JSON_TYPE, LEFT, PORCH, STRIP, TILES, WARM, type ApiRig } from './helpers.js';
import { until } from '../helpers/wait.js';

type Body = Record<string, any>;

describe('HTTP API v1 writes (inject, virtual lights)', function () {
  this.timeout(20_000);
  let rig: ApiRig;
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-http-'));
    rig = await apiRig(contractFleet(), {}, { scenes: await SceneStore.open(path.join(dir, 'scenes.json')) });
  });
  afterEach(async () => {
    await rig.close();
    await rm(dir, { recursive: true, force: true });
  });

  const state = (serial: string) => rig.fleet.light(serial).state;
  const received = (serial: string, name: Parameters<ReturnType<ApiRig['fleet']['light']>['received']>[0]) => rig.fleet.light(serial).received(name);

  describe('Set State', () => {
    it('answers 207 with one ok result per light and the lights take the JSON state', async () => {
      const res = await rig.call({ method: 'PUT', url: '/v1/lights/group:Living%20Room/state', payload: { power: 'on', color: 'blue saturation:0.5', brightness: 0.25, duration: 0 } });
      expect(res.statusCode).to.equal(207);
      expect(res.json()).to.deep.equal({
        results: [
          { id: WARM, label: '100% Warm', status: 'ok' },
          { id: LEFT, label: 'Living Room/Left', status: 'ok' },
        ],
      });
      expect(state(LEFT).power).to.equal('on');
      expect(state(LEFT).color.hue).to.be.closeTo(250, 0.01);
      expect(state(LEFT).color.saturation).to.be.closeTo(0.5, 0.001);
      expect(state(LEFT).color.brightness).to.be.closeTo(0.25, 0.001);
      expect(state(WARM).color.brightness).to.be.closeTo(0.25, 0.001);
    });

    it('accepts a form-encoded body, coercing numbers and booleans from strings', async () => {
      const res = await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, headers: FORM, payload: 'power=off&duration=0&brightness=0.75' });
      expect(res.statusCode).to.equal(207);
      expect(res.json()).to.deep.equal({ results: [{ id: DESK, label: 'Desk', status: 'ok' }] });
      expect(state(DESK).power).to.equal('off');
      expect(state(DESK).color.brightness).to.be.closeTo(0.75, 0.001);
    });

    it('echoes unknown parameters as a warning and still runs the request', async () => {
      const res = await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { power: 'off', duration: 0, foo: 'bar', speed: 3 } });
      expect(res.statusCode).to.equal(207);
      expect(res.json()).to.deep.equal({
        results: [{ id: DESK, label: 'Desk', status: 'ok' }],
        warnings: [{ warning: 'Unknown params', unknown_params: { foo: 'bar', speed: 3 } }],
      });
      expect(state(DESK).power).to.equal('off');
    });

    it('echoes parameters sent in the query string of a write as a warning: they are not used', async () => {
      const before = state(DESK).power;
      const res = await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state?power=${before === 'on' ? 'off' : 'on'}&color=blorp`, payload: { duration: 0, foo: 1 } });
      expect(res.statusCode).to.equal(207);
      expect((res.json() as Body).warnings).to.deep.equal([
        { warning: 'Unknown params', unknown_params: { foo: 1 } },
        { warning: 'Params in the query string are ignored: send them in the body', unknown_params: { power: before === 'on' ? 'off' : 'on', color: 'blorp' } },
      ]);
      expect(state(DESK).power).to.equal(before);
    });

    it('echoes unknown form fields as strings, as they arrived', async () => {
      const res = await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, headers: FORM, payload: 'power=on&colour=red' });
      expect((res.json() as Body).warnings).to.deep.equal([{ warning: 'Unknown params', unknown_params: { colour: 'red' } }]);
    });

    it('answers 202 with no body in fast mode once the request validated, and sends only end-state messages', async () => {
      const res = await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { color: 'green', duration: 0, fast: true, foo: 1 } });
      expect(res.statusCode).to.equal(202);
      expect(res.body).to.equal('');
      expect(res.headers['content-length']).to.equal('0');
      expect(res.headers).to.not.have.property('content-type');
      await until(() => received(DESK, 'SetColor').length > 0 || received(DESK, 'SetWaveformOptional').length > 0);
      expect(received(DESK, 'GetColor')).to.have.length(0);
    });

    it('takes fast from a form as the string "true"', async () => {
      const res = await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, headers: FORM, payload: 'power=off&fast=true' });
      expect(res.statusCode).to.equal(202);
      expect(res.body).to.equal('');
    });

    it('accepts async as an alias of fast, without a warning for it', async () => {
      const fast = await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { power: 'off', async: true } });
      expect(fast.statusCode).to.equal(202);
      const slow = await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { power: 'on', async: false } });
      expect(slow.statusCode).to.equal(207);
      expect(slow.json()).to.not.have.property('warnings');
    });

    it('still validates in fast mode: a bad colour is 422, not 202', async () => {
      const res = await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { color: 'blurple', fast: true } });
      expect(res.statusCode).to.equal(422);
      expect(res.json()).to.deep.include({ code: 'COLOR_INVALID' });
      const missing = await rig.call({ method: 'PUT', url: '/v1/lights/label:Nowhere/state', payload: { power: 'on', fast: true } });
      expect(missing.statusCode).to.equal(404);
    });

    it('treats an empty body, with or without a JSON content type, as all defaults', async () => {
      const none = await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state` });
      expect(none.statusCode).to.equal(207);
      const empty = await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, headers: JSON_TYPE, payload: '' });
      expect(empty.statusCode).to.equal(207);
      expect(empty.json()).to.deep.equal({ results: [{ id: DESK, label: 'Desk', status: 'ok' }] });
      expect(state(DESK).power).to.equal('on');
    });

    it('treats a null parameter as not given', async () => {
      const res = await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { power: 'off', brightness: null, color: null, duration: 0 } });
      expect(res.statusCode).to.equal(207);
      expect(res.json()).to.not.have.property('warnings');
      expect(state(DESK).power).to.equal('off');
      expect(state(DESK).color.brightness).to.be.closeTo(0.5, 0.001);
    });
  });

  describe('Set States', () => {
    it('runs each state with defaults merged, echoes the operation, and reports a selector that matched nothing', async () => {
      const res = await rig.call({
        method: 'PUT',
        url: '/v1/lights/states',
        payload: {
          states: [
            { selector: `id:${DESK}`, power: 'off' },
            { selector: 'label:100% Warm', brightness: 0.3 },
            { selector: 'label:Nowhere', power: 'on' },
          ],
          defaults: { duration: 0 },
        },
      });
      expect(res.statusCode).to.equal(207);
      expect(res.json()).to.deep.equal({
        results: [
          { operation: { selector: `id:${DESK}`, power: 'off', duration: 0 }, results: [{ id: DESK, label: 'Desk', status: 'ok' }] },
          { operation: { selector: 'label:100% Warm', brightness: 0.3, duration: 0 }, results: [{ id: WARM, label: '100% Warm', status: 'ok' }] },
          { operation: { selector: 'label:Nowhere', power: 'on', duration: 0 }, error: 'not found' },
        ],
      });
      expect(state(DESK).power).to.equal('off');
      expect(state(WARM).color.brightness).to.be.closeTo(0.3, 0.001);
    });

    it('reports unknown keys in their nested position, as the cloud did for a kelvin key', async () => {
      const res = await rig.call({
        method: 'PUT',
        url: '/v1/lights/states',
        payload: { states: [{ selector: `id:${DESK}`, kelvin: 3000 }, { selector: `id:${WARM}` }], defaults: { duration: 0 } },
      });
      expect(res.statusCode).to.equal(207);
      expect((res.json() as Body).warnings).to.deep.equal([
        { warning: 'Unknown params', unknown_params: { states: [{ kelvin: 3000 }, {}], defaults: {} } },
      ]);
    });

    it('answers 422 for more than 50 states, a state without selector, and a missing states list', async () => {
      const many = Array.from({ length: 51 }, () => ({ selector: `id:${DESK}`, power: 'on' }));
      const tooMany = await rig.call({ method: 'PUT', url: '/v1/lights/states', payload: { states: many } });
      expect(tooMany.statusCode).to.equal(422);
      expect(tooMany.json()).to.deep.include({ code: 'STATES_TOO_MANY' });
      const noSelector = await rig.call({ method: 'PUT', url: '/v1/lights/states', payload: { states: [{ power: 'on' }] } });
      expect(noSelector.statusCode).to.equal(422);
      expect(noSelector.json()).to.deep.equal({
        error: 'states[0].selector is missing',
        errors: [{ field: 'states[0].selector', message: ['is missing'] }],
        code: 'PARAMETER_MISSING',
      });
      const none = await rig.call({ method: 'PUT', url: '/v1/lights/states', payload: {} });
      expect(none.statusCode).to.equal(422);
      expect((none.json() as Body).errors).to.deep.equal([{ field: 'states', message: ['is missing'] }]);
      expect(received(DESK, 'SetLightPower')).to.have.length(0);
    });
  });

  describe('State Delta and Toggle', () => {
    it('adds to brightness and rotates hue relative to each light', async () => {
      const res = await rig.call({ method: 'POST', url: `/v1/lights/id:${DESK}/state/delta`, payload: { brightness: 0.1, hue: 30, duration: 0 } });
      expect(res.statusCode).to.equal(207);
      expect(res.json()).to.deep.equal({ results: [{ id: DESK, label: 'Desk', status: 'ok' }] });
      expect(state(DESK).color.brightness).to.be.closeTo(0.6, 0.001);
      expect(state(DESK).color.hue).to.be.closeTo(30, 0.01);
    });

    it('takes any finite brightness or saturation delta and clips the sum to 0-1', async () => {
      const down = await rig.call({ method: 'POST', url: `/v1/lights/id:${DESK}/state/delta`, payload: { brightness: -5, duration: 0 } });
      expect(down.statusCode).to.equal(207);
      expect(down.json()).to.deep.equal({ results: [{ id: DESK, label: 'Desk', status: 'ok' }] });
      expect(state(DESK).color.brightness).to.equal(0);
      const up = await rig.call({ method: 'POST', url: `/v1/lights/id:${DESK}/state/delta`, payload: { saturation: 12.5, brightness: 3, duration: 0 } });
      expect(up.statusCode).to.equal(207);
      expect(state(DESK).color.saturation).to.equal(1);
      expect(state(DESK).color.brightness).to.equal(1);
    });

    it('rejects a hue delta outside -360..360 with 422', async () => {
      const res = await rig.call({ method: 'POST', url: `/v1/lights/id:${DESK}/state/delta`, payload: { hue: 400 } });
      expect(res.statusCode).to.equal(422);
      const message = 'must be a number from -360 to 360 (got 400)';
      expect(res.json()).to.deep.equal({ error: `hue ${message}`, errors: [{ field: 'hue', message: [message] }], code: 'PARAMETER_INVALID' });
    });

    it('toggles: any light on turns them all off, and every result carries the new power', async () => {
      const res = await rig.call({ method: 'POST', url: '/v1/lights/group:Living%20Room/toggle', payload: { duration: 0 } });
      expect(res.statusCode).to.equal(207);
      expect(res.json()).to.deep.equal({
        results: [
          { id: WARM, label: '100% Warm', status: 'ok', power: 'off' },
          { id: LEFT, label: 'Living Room/Left', status: 'ok', power: 'off' },
        ],
      });
      expect(state(WARM).power).to.equal('off');
      expect(state(LEFT).power).to.equal('off');
    });
  });

  describe('effects', () => {
    it('breathes with a SINE waveform of the given period and cycles (form body, as the docs curl it)', async () => {
      const res = await rig.call({ method: 'POST', url: `/v1/lights/id:${DESK}/effects/breathe`, headers: FORM, payload: 'period=2&cycles=5&color=green&peak=0.25' });
      expect(res.statusCode).to.equal(207);
      expect(res.json()).to.deep.equal({ results: [{ id: DESK, label: 'Desk', status: 'ok' }] });
      const wave = [...received(DESK, 'SetWaveform'), ...received(DESK, 'SetWaveformOptional')][0]!.payload as Body;
      expect(wave).to.deep.include({ periodMs: 2000, cycles: 5, transient: true });
      expect(wave.waveform).to.be.oneOf([1, 'SINE']);
    });

    it('answers 422 "color is missing" for breathe and pulse without a colour', async () => {
      for (const effect of ['breathe', 'pulse']) {
        const res = await rig.call({ method: 'POST', url: `/v1/lights/all/effects/${effect}`, payload: { period: 1 } });
        expect(res.statusCode, effect).to.equal(422);
        expect(res.json(), effect).to.deep.equal({ error: 'color is missing', errors: [{ field: 'color', message: ['is missing'] }], code: 'PARAMETER_MISSING' });
      }
    });

    it('pulses with a PULSE waveform and names a bad from_color in the error', async () => {
      const res = await rig.call({ method: 'POST', url: `/v1/lights/id:${DESK}/effects/pulse`, payload: { color: 'red', from_color: 'blue', period: 0.5, cycles: 3, persist: true } });
      expect(res.statusCode).to.equal(207);
      const wave = [...received(DESK, 'SetWaveform'), ...received(DESK, 'SetWaveformOptional')][0]!.payload as Body;
      expect(wave).to.deep.include({ periodMs: 500, cycles: 3, transient: false });
      expect(wave.waveform).to.be.oneOf([4, 'PULSE']);
      const bad = await rig.call({ method: 'POST', url: `/v1/lights/id:${DESK}/effects/pulse`, payload: { color: 'red', from_color: 'bleu' } });
      expect(bad.statusCode).to.equal(422);
      expect((bad.json() as Body).errors[0].field).to.equal('from_color');
    });

    it('starts a MOVE firmware effect on the strip', async () => {
      const res = await rig.call({ method: 'POST', url: `/v1/lights/id:${STRIP}/effects/move`, payload: { direction: 'backward', period: 2, cycles: 5 } });
      expect(res.statusCode).to.equal(207);
      expect(res.json()).to.deep.equal({ results: [{ id: STRIP, label: 'Shelf', status: 'ok' }] });
      const settings = (received(STRIP, 'SetMultiZoneEffect')[0]!.payload as Body).settings;
      expect(settings).to.deep.include({ speedMs: 2000 });
      expect(settings.type).to.be.oneOf([1, 'MOVE']);
      expect(settings.parameters[1]).to.equal(0);
    });

    it('starts MORPH with the palette, FLAME, and the SKY effects on the matrix light', async () => {
      const morph = await rig.call({ method: 'POST', url: `/v1/lights/id:${TILES}/effects/morph`, payload: { period: 5, duration: 60, palette: ['red', 'green', 'blue'] } });
      expect(morph.statusCode).to.equal(207);
      const morphSettings = (received(TILES, 'SetTileEffect').at(-1)!.payload as Body).settings;
      expect(morphSettings).to.deep.include({ speedMs: 5000, paletteCount: 3 });
      expect(morphSettings.type).to.be.oneOf([2, 'MORPH']);
      const flame = await rig.call({ method: 'POST', url: `/v1/lights/id:${TILES}/effects/flame`, payload: { period: 3 } });
      expect(flame.statusCode).to.equal(207);
      expect((received(TILES, 'SetTileEffect').at(-1)!.payload as Body).settings.type).to.be.oneOf([3, 'FLAME']);
      const skyTypes: Record<string, number> = { sunrise: 0, sunset: 1, clouds: 2 };
      for (const [effect, skyType] of Object.entries(skyTypes)) {
        const res = await rig.call({ method: 'POST', url: `/v1/lights/id:${TILES}/effects/${effect}`, payload: { duration: 30 } });
        expect(res.statusCode, effect).to.equal(207);
        const settings = (received(TILES, 'SetTileEffect').at(-1)!.payload as Body).settings;
        expect(settings.type, effect).to.be.oneOf([5, 'SKY']);
        expect(settings.parameters[0], effect).to.equal(skyType);
      }
    });

    it('takes a list from a form as the field given once per item (-d palette=red -d palette=blue)', async () => {
      const res = await rig.call({
        method: 'POST',
        url: `/v1/lights/id:${TILES}/effects/morph`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'palette=red&palette=green&palette=blue&period=5',
      });
      expect(res.statusCode).to.equal(207);
      const settings = (received(TILES, 'SetTileEffect').at(-1)!.payload as Body).settings;
      expect(settings).to.deep.include({ speedMs: 5000, paletteCount: 3 });
      // Anything but a list is still one value a name.
      const twice = await rig.call({
        method: 'POST',
        url: `/v1/lights/id:${TILES}/effects/morph`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'palette=red&period=5&period=6',
      });
      expect(twice.statusCode).to.equal(422);
      expect((twice.json() as Body).error).to.equal('period is given more than once (2 times); give it once');
    });

    it('names the failing palette entry of a morph', async () => {
      const res = await rig.call({ method: 'POST', url: `/v1/lights/id:${TILES}/effects/morph`, payload: { palette: ['red', 'blurple'] } });
      expect(res.statusCode).to.equal(422);
      expect((res.json() as Body).errors[0].field).to.equal('palette[1]');
    });

    it('turns effects off and, with power_off, the lights too', async () => {
      const res = await rig.call({ method: 'POST', url: `/v1/lights/id:${DESK}/effects/off`, payload: { power_off: true } });
      expect(res.statusCode).to.equal(207);
      expect(res.json()).to.deep.equal({ results: [{ id: DESK, label: 'Desk', status: 'ok' }] });
      expect(received(DESK, 'SetLightPower').map((p) => (p.payload as Body).level)).to.deep.equal([0]);
    });

    it('starts a cleaning cycle of the given duration on the HEV light', async () => {
      const res = await rig.call({ method: 'POST', url: `/v1/lights/id:${CLEAN}/clean`, payload: { duration: 7200 } });
      expect(res.statusCode).to.equal(207);
      expect(received(CLEAN, 'SetHevCycle').map((p) => p.payload)).to.deep.equal([{ enable: true, durationS: 7200 }]);
      const stop = await rig.call({ method: 'POST', url: `/v1/lights/id:${CLEAN}/clean`, headers: FORM, payload: 'stop=true' });
      expect(stop.statusCode).to.equal(207);
      expect(received(CLEAN, 'SetHevCycle').at(-1)!.payload).to.deep.equal({ enable: false, durationS: 0 });
    });
  });

  describe('Cycle', () => {
    const body = {
      defaults: { duration: 0, power: 'on' },
      states: [{ color: 'kelvin:7000', brightness: 1 }, { color: 'kelvin:5000', brightness: 0.66 }, { color: 'kelvin:3000', brightness: 0.33 }, { power: 'off' }],
    };

    it('moves the lights to the next state on each call (the forum body)', async () => {
      const first = await rig.call({ method: 'POST', url: `/v1/lights/id:${DESK}/cycle`, payload: body });
      expect(first.statusCode).to.equal(207);
      expect(first.json()).to.deep.equal({ results: [{ id: DESK, label: 'Desk', status: 'ok' }] });
      expect(state(DESK).color.kelvin).to.equal(7000);
      await rig.call({ method: 'POST', url: `/v1/lights/id:${DESK}/cycle`, payload: body });
      expect(state(DESK).color.kelvin).to.equal(5000);
      expect(state(DESK).color.brightness).to.be.closeTo(0.66, 0.001);
    });

    it('warns about kelvin as a separate key inside states, as the cloud did', async () => {
      const res = await rig.call({
        method: 'POST',
        url: `/v1/lights/id:${DESK}/cycle`,
        payload: { states: [{ color: 'red', kelvin: 3000 }, { color: 'blue' }] },
      });
      expect(res.statusCode).to.equal(207);
      expect((res.json() as Body).warnings).to.deep.equal([{ warning: 'Unknown params', unknown_params: { states: [{ kelvin: 3000 }, {}] } }]);
    });

    it('answers 422 for fewer than 2 states', async () => {
      const res = await rig.call({ method: 'POST', url: `/v1/lights/id:${DESK}/cycle`, payload: { states: [{ power: 'off' }] } });
      expect(res.statusCode).to.equal(422);
      expect((res.json() as Body).errors[0].field).to.equal('states');
    });
  });

  describe('Activate Scene', () => {
    it('restores a captured scene through PUT /scenes/scene_id:<uuid>/activate, with an empty body', async () => {
      const scene = await rig.service.captureScene('Desk on', `id:${DESK}`);
      await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { power: 'off', color: 'blue', duration: 0 } });
      expect(state(DESK).power).to.equal('off');
      const res = await rig.call({ method: 'PUT', url: `/v1/scenes/scene_id:${scene.uuid}/activate`, payload: { duration: 0 } });
      expect(res.statusCode).to.equal(207);
      expect(res.json()).to.deep.equal({ results: [{ id: DESK, label: 'Desk', status: 'ok' }] });
      expect(state(DESK).power).to.equal('on');
      expect(state(DESK).color.hue).to.be.closeTo(0, 0.01);
      const noBody = await rig.call({ method: 'PUT', url: `/v1/scenes/scene_id%3A${scene.uuid}/activate` });
      expect(noBody.statusCode).to.equal(207);
    });

    it('restores the zones of a strip and the pixels of every tile it captured, and lists the scene in the cloud shape', async () => {
      const grid = Array.from({ length: 8 }, (_, row) => Array.from({ length: 16 }, (_, col) => ({ hue: (row * 16 + col) * 2, saturation: 1, brightness: 1, kelvin: 3500 })));
      await rig.service.paint(`id:${TILES}`, { pixels: grid, durationS: 0 });
      await rig.call({ method: 'PUT', url: `/v1/lights/id:${STRIP}|0-5/state`, payload: { color: 'hue:40 saturation:1', duration: 0 } });
      await rig.call({ method: 'PUT', url: `/v1/lights/id:${STRIP}|6-15/state`, payload: { color: 'hue:200 saturation:1', duration: 0 } });
      const tiles = state(TILES).tiles!.map((t) => t.map((c) => Math.round(c.hue)));
      const zones = state(STRIP).zones!.map((c) => Math.round(c.hue));
      const scene = await rig.service.captureScene('Pictures', `id:${TILES},id:${STRIP}`);
      await rig.call({ method: 'PUT', url: '/v1/lights/all/state', payload: { color: 'hue:300 saturation:1', duration: 0 } });
      const res = await rig.call({ method: 'PUT', url: `/v1/scenes/scene_id:${scene.uuid}/activate`, payload: { duration: 0 } });
      expect(res.statusCode).to.equal(207);
      expect(state(TILES).tiles!.map((t) => t.map((c) => Math.round(c.hue)))).to.deep.equal(tiles);
      expect(tiles[1]![0]).to.equal(16);
      expect(state(STRIP).zones!.map((c) => Math.round(c.hue))).to.deep.equal(zones);
      const listed = (await rig.call({ method: 'GET', url: '/v1/scenes' })).json() as { states: Record<string, unknown>[] }[];
      for (const s of listed[0]!.states) expect(Object.keys(s)).to.have.members(['brightness', 'color', 'power', 'selector']);
    });

    it('applies overrides and ignore', async () => {
      const scene = await rig.service.captureScene('Desk', `id:${DESK}`);
      const res = await rig.call({
        method: 'PUT',
        url: `/v1/scenes/scene_id:${scene.uuid}/activate`,
        payload: { duration: 0, ignore: ['power'], overrides: { brightness: 0.2 } },
      });
      expect(res.statusCode).to.equal(207);
      expect(state(DESK).color.brightness).to.be.closeTo(0.2, 0.001);
      expect(received(DESK, 'SetLightPower')).to.have.length(0);
    });

    it('answers 404 for an unknown scene and 422 for a segment that is not scene_id:<uuid>', async () => {
      const unknown = await rig.call({ method: 'PUT', url: '/v1/scenes/scene_id:1d52671c-99ba-4631-a563-2c31809b700d/activate' });
      expect(unknown.statusCode).to.equal(404);
      expect(unknown.json()).to.deep.include({ code: 'SCENE_NOT_FOUND' });
      const bad = await rig.call({ method: 'PUT', url: '/v1/scenes/1d52671c/activate' });
      expect(bad.statusCode).to.equal(422);
      expect((bad.json() as Body).errors).to.deep.equal([{ field: 'scene_id', message: ['must be given as the path segment scene_id:<uuid>'] }]);
      const badIgnore = await rig.call({ method: 'PUT', url: '/v1/scenes/scene_id:x/activate', payload: { ignore: ['colour'] } });
      expect(badIgnore.statusCode).to.equal(422);
      expect((badIgnore.json() as Body).errors[0].field).to.equal('ignore[0]');
    });
  });

  it('keeps infrared requests to the infrared light', async () => {
    const res = await rig.call({ method: 'PUT', url: `/v1/lights/id:${PORCH}/state`, payload: { power: 'off', infrared: 1 } });
    expect(res.statusCode).to.equal(207);
    expect(state(PORCH).infrared).to.be.closeTo(1, 0.001);
  });
});

