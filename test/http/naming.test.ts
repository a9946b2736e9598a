// The renaming endpoints beside /v1 (at /lightwire: the cloud's v1 has none, and /v1 stays exactly the cloud's):
// each renames on the virtual lights, answers the per-light results of every write, needs the control scope, and
// refuses what the service refuses with its code; their OpenAPI document is derived from the catalogue.

import { expect } from 'chai';
import { NAMING_OPERATIONS } from '../../core/control/catalogue.js';
import { apiRig, contractFleet, DESK, FORM, LEFT, STRIP, TILES, WARM, type ApiRig } from './helpers.js';

describe('HTTP renaming endpoints (/lightwire, beside /v1)', function () {
  this.timeout(20_000);
  let rig: ApiRig;
  afterEach(() => rig.close());

  describe('open (loopback, no token)', () => {
    beforeEach(async () => {
      rig = await apiRig(contractFleet());
    });
    const state = (serial: string) => rig.fleet.light(serial).state;

    it('PUT /lightwire/lights/:selector/label renames one light (the selector percent-decoded once)', async () => {
      const res = await rig.call({ method: 'PUT', url: '/lightwire/lights/label:Living%20Room%2FLeft/label', payload: { label: 'Left lamp' } });
      expect(res.statusCode).to.equal(207);
      expect(res.json()).to.deep.equal({ results: [{ id: LEFT, label: 'Left lamp', status: 'ok' }] });
      expect(state(LEFT).label).to.equal('Left lamp');
      // No fast mode: `fast` is an unknown parameter here, and the write is confirmed all the same.
      const fast = await rig.call({ method: 'PUT', url: `/lightwire/lights/id:${LEFT}/label`, payload: { label: 'Left', fast: true } });
      expect(fast.statusCode).to.equal(207);
      expect(fast.json()).to.deep.equal({ results: [{ id: LEFT, label: 'Left', status: 'ok' }], warnings: [{ warning: 'Unknown params', unknown_params: { fast: true } }] });
      await rig.call({ method: 'PUT', url: `/lightwire/lights/id:${LEFT}/label`, payload: { label: 'Left lamp' } });
      // List Lights sees the new label at once.
      const listed = await rig.call({ method: 'GET', url: '/v1/lights/label:Left%20lamp' });
      expect(listed.json().map((l: { id: string }) => l.id)).to.deep.equal([LEFT]);
    });

    it('refuses a label over 32 bytes (LABEL_TOO_LONG, 422), a selector naming several lights (SELECTOR_NOT_ONE_LIGHT, 422) and a missing label', async () => {
      const long = await rig.call({ method: 'PUT', url: `/lightwire/lights/id:${DESK}/label`, payload: { label: '€'.repeat(11) } });
      expect(long.statusCode).to.equal(422);
      expect(long.json().code).to.equal('LABEL_TOO_LONG');
      const many = await rig.call({ method: 'PUT', url: '/lightwire/lights/group:Office/label', payload: { label: 'All' } });
      expect(many.statusCode).to.equal(422);
      expect(many.json().code).to.equal('SELECTOR_NOT_ONE_LIGHT');
      const none = await rig.call({ method: 'PUT', url: `/lightwire/lights/id:${DESK}/label`, payload: {} });
      expect(none.statusCode).to.equal(422);
      expect(none.json().code).to.equal('PARAMETER_MISSING');
      expect(rig.fleet.light(DESK).received('SetLabel')).to.have.length(0);
    });

    it('PUT /lightwire/lights/:selector/group moves lights (a form body too), and PUT /lightwire/groups/rename renames with one updated_at', async () => {
      const moved = await rig.call({ method: 'PUT', url: '/lightwire/lights/group:Living%20Room/group', headers: FORM, payload: 'group=office' });
      expect(moved.statusCode).to.equal(207);
      expect(moved.json().results.map((r: { id: string; status: string }) => [r.id, r.status])).to.deep.equal([[WARM, 'ok'], [LEFT, 'ok']]);
      const office = state(DESK).group;
      expect(state(LEFT).group).to.deep.equal(office);
      const renamed = await rig.call({ method: 'PUT', url: '/lightwire/groups/rename', payload: { from: 'Office', to: 'Studio' } });
      expect(renamed.statusCode).to.equal(207);
      const members = [DESK, LEFT, WARM, STRIP, TILES];
      expect(renamed.json().results.map((r: { id: string }) => r.id).sort()).to.deep.equal([...members].sort());
      for (const serial of members) expect(state(serial).group).to.deep.equal(state(DESK).group);
      expect(state(DESK).group).to.include({ id: office.id, label: 'Studio' });
      const location = await rig.call({ method: 'PUT', url: `/lightwire/lights/id:${DESK}/location`, payload: { location: 'Office block' } });
      expect(location.statusCode).to.equal(207);
      expect(state(DESK).location.label).to.equal('Office block');
      const gone = await rig.call({ method: 'PUT', url: '/lightwire/locations/rename', payload: { from: 'Nowhere', to: 'Here' } });
      expect(gone.statusCode).to.equal(404);
      expect(gone.json().code).to.equal('LIGHTS_NOT_FOUND');
    });

    it('keeps /v1 the cloud\'s: no renaming endpoint there, none in its OpenAPI document; /lightwire has its own, from the catalogue', async () => {
      const v1 = await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/label`, payload: { label: 'x' } });
      expect(v1.statusCode).to.equal(404);
      const v1Doc = (await rig.call({ method: 'GET', url: '/v1/openapi.json' })).json();
      expect(Object.keys(v1Doc.paths).filter((p) => /label|group|location|rename/.test(p))).to.deep.equal([]);
      const doc = (await rig.call({ method: 'GET', url: '/lightwire/openapi.json' })).json();
      expect(doc.servers).to.deep.equal([{ url: '/lightwire' }]);
      const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string; 'x-lightwire-scope': string }>>).flatMap((p) => Object.values(p));
      // Beside the renaming endpoints: Paint Pixels, Paint Theme and List Themes (issue 29).
      expect(ids.map((o) => o.operationId).sort()).to.deep.equal([...NAMING_OPERATIONS.map((o) => o.name), 'paint', 'theme', 'listThemes'].sort());
      const naming = new Set<string>(NAMING_OPERATIONS.map((o) => o.name));
      expect(ids.filter((o) => naming.has(o.operationId)).every((o) => o['x-lightwire-scope'] === 'control')).to.equal(true);
      const missing = await rig.call({ method: 'GET', url: '/lightwire/lights/all/label' });
      expect(missing.statusCode).to.equal(404);
      expect(missing.json().error).to.contain('this path answers PUT');
    });
  });

  describe('with tokens', () => {
    const CONTROL = 'c'.repeat(20);
    const READ = 'r'.repeat(20);
    beforeEach(async () => {
      rig = await apiRig(contractFleet(), { tokens: [CONTROL, `${READ}:read`] });
    });

    it('needs a token with the control scope: 401 without one, 403 with a read token, 207 with a control token', async () => {
      const url = `/lightwire/lights/id:${DESK}/label`;
      const anonymous = await rig.call({ method: 'PUT', url, payload: { label: 'A' } });
      expect(anonymous.statusCode).to.equal(401);
      const reader = await rig.call({ method: 'PUT', url, payload: { label: 'A' }, headers: { authorization: `Bearer ${READ}` } });
      expect(reader.statusCode).to.equal(403);
      expect(reader.json().code).to.equal('FORBIDDEN');
      expect(rig.fleet.light(DESK).received('SetLabel')).to.have.length(0);
      const controller = await rig.call({ method: 'PUT', url, payload: { label: 'A' }, headers: { authorization: `Bearer ${CONTROL}` } });
      expect(controller.statusCode).to.equal(207);
      expect(rig.fleet.light(DESK).state.label).to.equal('A');
    });
  });
});
