// 500 virtual lights behind `lightwire serve`, in Chromium: the page weight as loaded, the time to the first render
// of every light, and a fleet-wide change (all 500 toggled) applied in one frame of bounded work.

import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { defaultFleet } from '../../../core/simulator/index.js';
import { launchChromium, serveFleet, type Served } from './helpers.js';
import { until } from '../../helpers/wait.js';

const LIGHTS = 500;

interface Metrics {
  firstRenderMs: number | null;
  lights: number;
  lastFlushMs: number;
  maxFlushMs: number;
}

describe('dashboard with 500 lights', function () {
  this.timeout(120_000);
  let browser: Browser;
  let served: Served;

  before(async () => {
    browser = await launchChromium();
    served = await serveFleet(defaultFleet(LIGHTS), ['--wait-ms', '20000', '--expect', String(LIGHTS)]);
    // Every light known to serve before the page opens (lights found late would arrive as events instead).
    let known = 0;
    await until(
      async () => (known = ((await (await fetch(`${served.apiUrl}/lights/all`)).json()) as unknown[]).length) === LIGHTS,
      { timeoutMs: 60_000, everyMs: 200, what: () => `serve to know all ${LIGHTS} lights (it knows ${known})` },
    );
  });

  after(async () => {
    await browser?.close();
    await served?.close();
  });

  it('loads under 100 KB, renders every light, and applies a change to all 500 in one bounded frame', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${served.origin}/`);
    await page.waitForFunction((n) => (window as unknown as { lightwireMetrics?: Metrics }).lightwireMetrics?.firstRenderMs != null && document.querySelectorAll('.light').length === n, LIGHTS, { timeout: 20_000 });
    const first = (await page.evaluate('window.lightwireMetrics')) as Metrics;
    const weight = (await page.evaluate(`(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const res = performance.getEntriesByType('resource').filter((r) => !r.name.includes('/events'));
      return { document: nav.transferSize, assets: res.reduce((n, r) => n + r.transferSize, 0), decoded: nav.decodedBodySize + res.reduce((n, r) => n + r.decodedBodySize, 0) };
    })()`)) as { document: number; assets: number; decoded: number };
    console.log(`      first render of ${LIGHTS} lights: ${Math.round(first.firstRenderMs!)} ms after navigation start (render work ${Math.round(first.maxFlushMs)} ms)`);
    console.log(`      page weight: ${weight.document + weight.assets} bytes transferred (${weight.decoded} bytes decoded), event stream not counted`);
    expect(weight.decoded).to.be.below(100 * 1024);
    expect(first.firstRenderMs).to.be.below(5000);

    const before = (await page.evaluate('window.lightwireMetrics.maxFlushMs')) as number;
    await page.evaluate('window.lightwireMetrics.maxFlushMs = 0');
    const started = Date.now();
    const res = await fetch(`${served.apiUrl}/lights/all/toggle`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"duration":0}' });
    expect(res.status).to.equal(207);
    const results = ((await res.json()) as { results: { status: string }[] }).results;
    expect(results.filter((r) => r.status === 'ok').length).to.equal(LIGHTS);
    const expectOn = served.fleet.lights.filter((l) => l.state.power === 'on').length;
    await page.waitForFunction((n) => document.querySelectorAll('.light.on').length === n, expectOn, { timeout: 5000 });
    const update = (await page.evaluate('window.lightwireMetrics')) as Metrics;
    console.log(`      all ${LIGHTS} toggled -> page in ${Date.now() - started} ms; longest frame of updates ${Math.round(update.maxFlushMs)} ms (first render ${Math.round(before)} ms)`);
    expect(update.maxFlushMs).to.be.below(200);
  });
});
