import { expect } from 'chai';
import { startServer, type RunningServer } from '../../core/http/server.js';
import { defaultFleet } from '../../core/simulator/default-fleet.js';
import { serviceRig, type ServiceRig } from '../helpers/service-rig.js';

type Body = Record<string, any>;

// The published cloud client (npm lifx-http-api 1.0.3, klarstil), used unchanged: only its base URL moves
// from https://api.lifx.com/ to ours. It builds `${url}${version}/` + path, sends `Authorization: Bearer`,
// JSON bodies, and turns only 422 answers into errors (its status table never matches anything else, so
// other answers resolve with their body).
const LifxClient = require('lifx-http-api') as new (settings: { bearerToken: string }) => {
  setUrl(url: string): boolean;
  getApiUrl(): string;
  listLights(selector?: string): Promise<Body[]>;
  listScenes(): Promise<Body[]>;
  setState(selector: string, settings: Body): Promise<Body>;
  togglePower(selector: string, duration?: number): Promise<Body>;
  breathe(selector: string, settings: Body): Promise<Body>;
  validateColor(color: string): Promise<Body>;
};

const TOKEN = 'c1oud-client-token';

describe('the published cloud client lifx-http-api, unchanged, against our base URL', function () {
  this.timeout(30_000);
  let rig: ServiceRig;
  let server: RunningServer;
  let client: InstanceType<typeof LifxClient>;

  before(async () => {
    rig = await serviceRig(defaultFleet(3), { deadlineMs: 1500 });
    server = await startServer({ service: rig.service, port: 0, tokens: [TOKEN] });
    client = new LifxClient({ bearerToken: TOKEN });
    // The only change a user makes: the base URL (the client appends the version, v1).
    expect(client.setUrl(server.url.replace(/v1$/, ''))).to.equal(true);
    expect(client.getApiUrl()).to.equal(server.url);
  });
  after(async () => {
    await server.close();
    await rig.close();
  });

  it('lists lights', async () => {
    const lights = await client.listLights('all');
    expect(lights.map((l) => l.id)).to.deep.equal(['d073d5000001', 'd073d5000003', 'd073d5000002']);
    expect(lights[0]).to.deep.include({ label: 'Color 1', connected: true });
    const one = await client.listLights('id:d073d5000002');
    expect(one.map((l) => l.label)).to.deep.equal(['White to Warm 2']);
  });

  it('sets state and gets the 207 results', async () => {
    const answer = await client.setState('label:Color 1', { power: 'on', color: 'red', brightness: 0.3, duration: 0 });
    expect(answer).to.deep.equal({ results: [{ id: 'd073d5000001', label: 'Color 1', status: 'ok' }] });
    const state = rig.fleet.light('d073d5000001').state;
    expect(state.power).to.equal('on');
    expect(state.color.hue).to.be.closeTo(0, 0.01);
    expect(state.color.brightness).to.be.closeTo(0.3, 0.001);
  });

  it('toggles power', async () => {
    const before = rig.fleet.lights.map((l) => l.state.power);
    const answer = await client.togglePower('all', 0);
    const power = before.includes('on') ? 'off' : 'on';
    expect((answer.results as Body[]).map((r) => r.power)).to.deep.equal([power, power, power]);
    expect(rig.fleet.lights.map((l) => l.state.power)).to.deep.equal([power, power, power]);
  });

  it('rejects with our 422 message, which the client surfaces as body.error', async () => {
    const err = await client.setState('all', { brightness: 2 }).then(() => null, (e: unknown) => e);
    expect(err).to.equal('brightness must be a number from 0 to 1 (got 2)');
    const breathe = await client.breathe('all', { color: 'blurple' }).then(() => null, (e: unknown) => e);
    expect(breathe).to.match(/^Unable to parse color: "blurple"/);
  });

  it('gets 404 from validateColor, as it does from the cloud: it sends PUT /v1/color?color=, and resolves with our hint', async () => {
    // The client's validateColor uses PUT and `color=` (klarstil/lifx-http-api#5); the endpoint is GET ?string=.
    const answer = await client.validateColor('red');
    expect(answer).to.deep.equal({
      error: 'No endpoint PUT /v1/color; Validate Color is GET /v1/color?string=<colour string>',
      errors: [],
      code: 'ROUTE_NOT_FOUND',
    });
  });

  it('lists scenes', async () => {
    expect(await client.listScenes()).to.deep.equal([]);
  });

  it('resolves with the 401 body for a wrong token (the client only rejects 422s)', async () => {
    const wrong = new LifxClient({ bearerToken: 'wrong' });
    wrong.setUrl(server.url.replace(/v1$/, ''));
    expect(await wrong.listLights('all')).to.deep.equal({ error: 'Bad access token: the token is not one this server knows', errors: [], code: 'UNAUTHORIZED' });
  });
});
