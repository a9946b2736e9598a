import { expect } from 'chai';
import { startControlServer, type ControlServer } from '../../core/simulator/control.js';
import { defaultFleet } from '../../core/simulator/default-fleet.js';
import { namesOf, payloadsOf } from './client.js';
import { rig, type Rig } from './helpers.js';

async function call(server: ControlServer, method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: response.status, json: await response.json() };
}

describe('simulator control endpoint', () => {
  let r: Rig;
  let server: ControlServer;

  beforeEach(async () => {
    r = await rig(defaultFleet(3));
    server = await startControlServer(r.fleet);
  });
  afterEach(async () => {
    await server.close();
    await r.close();
  });

  it('listens on 127.0.0.1 by default and lists every light with its address, product, state and faults', async () => {
    expect(server.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    const { status, json } = await call(server, 'GET', '/lights');
    expect(status).to.equal(200);
    expect(json.map((l: any) => l.serial)).to.deep.equal(['d073d5000001', 'd073d5000002', 'd073d5000003']);
    expect(json[0]).to.deep.include({ address: '127.0.0.2', port: r.fleet.port, productId: 91, productName: 'LIFX Color 800lm', label: 'Color 1' });
    expect(json[0].state.color).to.have.keys(['hue', 'saturation', 'brightness', 'kelvin']);
    expect(json[0].faults.offline).to.equal(false);
    expect(json[2].state.zones).to.have.length(16);
  });

  it('shows one light, and 404 LIGHT_NOT_FOUND for a serial it does not have', async () => {
    const one = await call(server, 'GET', '/lights/d073d5000002');
    expect(one.status).to.equal(200);
    expect(one.json).to.deep.include({ serial: 'd073d5000002', label: 'White to Warm 2' });
    const missing = await call(server, 'GET', '/lights/d073d5999999');
    expect(missing.status).to.equal(404);
    expect(missing.json.code).to.equal('LIGHT_NOT_FOUND');
  });

  it('takes a light offline with PATCH faults, and the light stops answering', async () => {
    const patched = await call(server, 'PATCH', '/lights/d073d5000001', { faults: { offline: true } });
    expect(patched.status).to.equal(200);
    expect(patched.json.faults.offline).to.equal(true);
    const replies = await r.client.request('GetService', {}, r.broadcast, { count: 2, settleMs: 80 });
    expect(replies.map((p) => p.header.target).sort()).to.deep.equal(['d073d5000002', 'd073d5000003']);
  });

  it('changes a light colour and label with PATCH state, and the light reports them', async () => {
    const patched = await call(server, 'PATCH', '/lights/d073d5000001', {
      state: { color: { hue: 180, saturation: 1, brightness: 0.25 }, label: 'Patched', power: 'off' },
    });
    expect(patched.status).to.equal(200);
    expect(patched.json.state).to.deep.include({ label: 'Patched', power: 'off' });
    const replies = await r.client.request('GetColor', {}, r.at('d073d5000001'), { count: 1 });
    expect(payloadsOf(replies, 'LightState')[0]).to.deep.equal({
      color: { hue: 32768, saturation: 65535, brightness: 16384, kelvin: 3500 },
      power: 0,
      label: 'Patched',
    });
  });

  it('sets loss per direction and reordering with PATCH faults, lossProbability as shorthand for lossInProbability', async () => {
    const patched = await call(server, 'PATCH', '/lights/d073d5000002', {
      faults: { lossProbability: 0.2, lossOutProbability: 0.3, reorderProbability: 0.4, reorderDelayMs: 250 },
    });
    expect(patched.status).to.equal(200);
    expect(patched.json.faults).to.deep.include({ lossInProbability: 0.2, lossProbability: 0.2, lossOutProbability: 0.3, reorderProbability: 0.4, reorderDelayMs: 250 });
    expect(r.fleet.light('d073d5000002').faults).to.deep.include({ lossInProbability: 0.2, lossOutProbability: 0.3 });
    expect(patched.json.stats).to.deep.include({ lost: 0, lostReplies: 0, reordered: 0 });
    const clash = await call(server, 'PATCH', '/lights/d073d5000002', { faults: { lossProbability: 0.1, lossInProbability: 0.9 } });
    expect(clash.status).to.equal(400);
    expect(clash.json.params.path).to.equal('faults.lossProbability');
    expect(r.fleet.light('d073d5000002').faults.lossInProbability).to.equal(0.2);
  });

  it('moves a light with POST move, and it answers from there', async () => {
    const moved = await call(server, 'POST', '/lights/d073d5000003/move', { address: '127.0.0.77' });
    expect(moved.status).to.equal(200);
    expect(moved.json.address).to.equal('127.0.0.77');
    const replies = await r.client.request('GetLabel', {}, { address: '127.0.0.77', port: r.fleet.port }, { count: 1 });
    expect(namesOf(replies)).to.deep.equal(['StateLabel']);
    const taken = await call(server, 'POST', '/lights/d073d5000003/move', { address: '127.0.0.2' });
    expect([taken.status, taken.json.code, taken.json.params.path]).to.deep.equal([400, 'FLEET_INVALID', 'address']);
    const stray = await call(server, 'POST', '/lights/d073d5000003/move', { address: '127.0.0.78', port: 1 });
    expect([stray.status, stray.json.code]).to.deep.equal([400, 'CONTROL_REQUEST_INVALID']);
    expect(r.fleet.light('d073d5000003').address).to.equal('127.0.0.77');
  });

  it('rejects a bad PATCH with a coded 400 and changes nothing', async () => {
    const badFault = await call(server, 'PATCH', '/lights/d073d5000001', { faults: { lossProbability: 3 }, state: { label: 'Nope' } });
    expect(badFault.status).to.equal(400);
    expect(badFault.json).to.deep.include({ code: 'FLEET_INVALID' });
    expect(badFault.json.params.path).to.equal('faults.lossProbability');
    const zonesOnBulb = await call(server, 'PATCH', '/lights/d073d5000001', { state: { zones: [{ hue: 1 }] }, faults: { offline: true } });
    expect(zonesOnBulb.status).to.equal(400);
    expect(zonesOnBulb.json.code).to.equal('CONTROL_REQUEST_INVALID');
    const unknownKey = await call(server, 'PATCH', '/lights/d073d5000001', { power: 'off' });
    expect(unknownKey.json.code).to.equal('CONTROL_REQUEST_INVALID');
    const light = r.fleet.light('d073d5000001');
    expect([light.state.label, light.faults.offline, light.faults.lossProbability]).to.deep.equal(['Color 1', false, 0]);
  });

  it('shows what a light received and forgets it on DELETE records', async () => {
    await r.client.request('GetLabel', {}, r.at('d073d5000003'), { ack: true, count: 2 });
    const before = await call(server, 'GET', '/lights/d073d5000003');
    expect(before.json.received).to.deep.equal({ total: 1, maxMessagesPerSecond: 1, byName: { GetLabel: 1 } });
    const cleared = await call(server, 'DELETE', '/lights/d073d5000003/records');
    expect(cleared.json.received.total).to.equal(0);
  });

  it('sets zone colours of a strip with PATCH state zones', async () => {
    const patched = await call(server, 'PATCH', '/lights/d073d5000003', { state: { zones: [{ hue: 90, saturation: 1 }, { brightness: 0 }] } });
    expect(patched.json.state.zones[0]).to.include({ hue: 90, saturation: 1 });
    expect(patched.json.state.zones[1].brightness).to.equal(0);
    const replies = await r.client.request('GetColorZones', { startIndex: 0, endIndex: 0 }, r.at('d073d5000003'), { count: 1 });
    expect(namesOf(replies)).to.deep.equal(['StateZone']);
    expect(payloadsOf(replies, 'StateZone')[0]!.color.hue).to.equal(16384);
  });
});

describe('simulator control endpoint binding', () => {
  it('refuses any host that is not loopback, before listening', async () => {
    const r = await rig(defaultFleet(1));
    try {
      for (const host of ['0.0.0.0', '172.20.1.10', '::', 'example.com']) {
        const err = await startControlServer(r.fleet, { host }).catch((e: unknown) => e);
        expect(err).to.have.property('code', 'CONTROL_HOST_NOT_LOOPBACK');
      }
      const local = await startControlServer(r.fleet, { host: '127.0.0.9' });
      expect(local.url).to.match(/^http:\/\/127\.0\.0\.9:/);
      await local.close();
    } finally {
      await r.close();
    }
  });
});
