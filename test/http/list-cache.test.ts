import { expect } from 'chai';
import { ListCache, LIST_CACHE_TTL_MS } from '../../core/http/list-cache.js';
import { apiRig, contractFleet, DESK, type ApiRig } from './helpers.js';

type Light = { id: string; power: string; brightness: number };

describe('List Lights cache', function () {
  this.timeout(20_000);

  describe('through the API', () => {
    let rig: ApiRig;
    beforeEach(async () => {
      rig = await apiRig(contractFleet());
    });
    afterEach(() => rig.close());

    const desk = async (): Promise<Light> => {
      const res = await rig.call({ method: 'GET', url: `/v1/lights/id:${DESK}` });
      expect(res.statusCode).to.equal(200);
      return (res.json() as Light[])[0]!;
    };

    it('shows a write made through the API on the very next list', async () => {
      expect((await desk()).power).to.equal('on');
      await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { power: 'off', duration: 0 } });
      expect((await desk()).power).to.equal('off');
      await rig.call({ method: 'PUT', url: `/v1/lights/id:${DESK}/state`, payload: { power: 'on', duration: 0, fast: true } });
      expect((await desk()).power).to.equal('on');
    });

    it('shows a change made by another face of the service (a light event) at once', async () => {
      expect((await desk()).power).to.equal('on');
      await rig.service.setState(`id:${DESK}`, { power: 'off', durationS: 0 });
      expect((await desk()).power).to.equal('off');
    });

    it('builds every answer afresh when the cache is off, and answers the same', async () => {
      const app = (await import('../../core/http/server.js')).buildServer({ service: rig.service, listCache: false });
      try {
        const a = await app.inject({ method: 'GET', url: '/v1/lights/all' });
        const b = await rig.call({ method: 'GET', url: '/v1/lights/all' });
        expect(a.statusCode).to.equal(200);
        expect(JSON.parse(a.body).map((l: Light) => l.id)).to.deep.equal((b.json() as Light[]).map((l) => l.id));
      } finally {
        await app.close();
      }
    });
  });

  describe('the cache itself', () => {
    it('keeps an answer for TTL_MS, then forgets it', () => {
      let now = 0;
      const cache = new ListCache(() => now);
      cache.set('all', '[1]');
      now = LIST_CACHE_TTL_MS - 1;
      expect(cache.get('all')).to.equal('[1]');
      now = LIST_CACHE_TTL_MS;
      expect(cache.get('all')).to.equal(undefined);
      expect(cache.size).to.equal(0);
    });

    it('never caches random or scene selectors, nor selectors that do not decode', () => {
      expect(ListCache.cacheable('all')).to.equal(true);
      expect(ListCache.cacheable('label:Desk,group:Office')).to.equal(true);
      for (const s of ['all:random', 'random', 'group:Office%3Arandom', 'scene_id:abc', 'SCENE_ID%3Aabc', '%E0%A4']) {
        expect(ListCache.cacheable(s), s).to.equal(false);
      }
    });

    it('holds at most 64 selectors', () => {
      const cache = new ListCache(() => 0);
      for (let i = 0; i < 100; i++) cache.set(`label:${i}`, '[]');
      expect(cache.size).to.be.at.most(64);
    });
  });
});
