// The dashboard in a real Chromium against `lightwire serve` and virtual lights on loopback: every light listed,
// a click toggles a light (the virtual light's own state says so), a change made by the CLI shows within a
// second, a light taken offline through the fleet's control endpoint shows offline, and a page of another origin
// cannot drive anything. Screenshots go to docs/images/ with UPDATE_SCREENSHOTS=1 (else to a temporary folder).

import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { COMMANDS } from '../../../core/cli/commands.js';
import { startServer, type RunningServer } from '../../../core/http/server.js';
import { defaultFleet, Fleet, idFromLabel, startControlServer, type ControlServer, type DefaultFleet } from '../../../core/simulator/index.js';
import { LightClient } from '../../../core/discovery/client.js';
import { LightService } from '../../../core/control/service.js';
import { captureIO } from '../../helpers/cli-io.js';
import { serviceRig, type ServiceRig } from '../../helpers/service-rig.js';
import { launchChromium, median, serveFleet, type Served } from './helpers.js';
import { quietFor, until } from '../../helpers/wait.js';

const LIGHTS = 12;
const LOSSY = 11;
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? path.join(__dirname, '..', '..', '..', 'docs', 'images') : mkdtempSync(path.join(os.tmpdir(), 'lightwire-shots-'));

function fleetInput(): DefaultFleet {
  const fleet = defaultFleet(LIGHTS);
  // Two locations, so the page groups by location and then by group.
  for (const [i, light] of fleet.lights.entries()) if (i >= 9) (light as { location?: { label: string } }).location = { label: 'Cabin' };
  return fleet;
}

async function patchLight(served: Pick<Served, 'control'>, serial: string, body: unknown): Promise<void> {
  const res = await fetch(`${served.control.url}/lights/${serial}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`control endpoint: ${res.status} ${await res.text()}`);
}

/**
 * What a page of another origin tries against the dashboard's server, as page source (a string: tsx would wrap
 * named functions in a helper the page does not have). Resolves with what each attempt saw.
 */
function attackScript(target: string): string {
  return `(async () => {
    const target = ${JSON.stringify(target)};
    const out = {};
    const attempt = async (name, run) => {
      try {
        const res = await run();
        out[name] = 'status ' + res.status + ' ' + res.type;
      } catch (err) {
        out[name] = 'threw ' + err.name;
      }
    };
    await attempt('json action', () => fetch(target + 'api/action', { method: 'POST', credentials: 'include',
      headers: { 'content-type': 'application/json', 'x-lightwire-csrf': 'guess' }, body: '{"op":"toggle","selector":"all"}' }));
    await attempt('simple action', () => fetch(target + 'api/action', { method: 'POST', mode: 'no-cors', credentials: 'include',
      headers: { 'content-type': 'text/plain' }, body: '{"op":"toggle","selector":"all"}' }));
    await attempt('v1 toggle', () => fetch(target + 'v1/lights/all/toggle', { method: 'POST', mode: 'no-cors', credentials: 'include',
      headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'duration=0' }));
    await attempt('read page', () => fetch(target, { credentials: 'include' }));
    await attempt('read doctor', () => fetch(target + 'api/doctor', { credentials: 'include' }));
    out.stream = await new Promise((resolve) => {
      const es = new EventSource(target + 'events', { withCredentials: true });
      es.addEventListener('snapshot', () => { es.close(); resolve('got a snapshot'); });
      es.onerror = () => { es.close(); resolve('error'); };
      setTimeout(() => { es.close(); resolve('nothing'); }, 3000);
    });
    // A form posted into a hidden iframe: no preflight, and the browser attaches its cookies (same site).
    const form = document.createElement('form');
    form.method = 'POST';
    form.action = target + 'v1/lights/all/toggle';
    form.target = 'sink';
    const frame = document.createElement('iframe');
    frame.name = 'sink';
    document.body.append(frame, form);
    form.submit();
    // In the page: the form's POST goes out before the script returns (the test checks no light changed after).
    await new Promise((r) => setTimeout(r, 500));
    return out;
  })()`;
}

const cardClass = (page: Page, serial: string): Promise<string | null> => page.getAttribute(`.light[data-serial="${serial}"]`, 'class');

describe('dashboard in Chromium against lightwire serve', function () {
  this.timeout(90_000);
  let browser: Browser;
  let served: Served;
  let context: BrowserContext;
  let page: Page;

  before(async () => {
    browser = await launchChromium();
    served = await serveFleet(fleetInput());
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    await page.goto(`${served.origin}/`);
  });

  after(async () => {
    await browser?.close();
    await served?.close();
  });

  it('lists every light, grouped by location and group, with label, product, power and signal', async () => {
    await page.waitForFunction((n) => document.querySelectorAll('.light').length === n, LIGHTS, { timeout: 10_000 });
    const serials = await page.$$eval('.light', (els) => els.map((e) => (e as HTMLElement).dataset.serial));
    expect(serials.sort()).to.deep.equal(served.fleet.lights.map((l) => l.serial).sort());
    const locations = await page.$$eval('.location > h2', (els) => els.map((e) => e.textContent));
    expect(locations).to.deep.equal(['Cabin', 'Home']);
    const groups = await page.$$eval('.group-head h3', (els) => els.map((e) => e.textContent));
    expect(groups).to.include.members(['Living Room', 'Kitchen', 'Bedroom', 'Office', 'Hallway']);
    const first = served.fleet.lights[0]!;
    const text = await page.textContent(`.light[data-serial="${first.serial}"]`);
    expect(text).to.include(first.state.label).and.include('LIFX').and.include('signal');
    expect(await page.textContent('#status')).to.equal('live');
    // Off lights look off: the seventh light of the default fleet starts off.
    expect(await cardClass(page, served.fleet.lights[6]!.serial)).to.include('off');
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-desktop.png') });
  });

  it('a click on a swatch toggles that light (as the virtual light itself reports), and the card follows', async () => {
    const light = served.fleet.lights[0]!;
    const before = light.state.power;
    await page.click(`.light[data-serial="${light.serial}"] .swatch`);
    await until(() => light.state.power !== before, { timeoutMs: 3000, what: 'the light to change power' });
    expect(light.state.power).to.equal(before === 'on' ? 'off' : 'on');
    await page.waitForFunction(
      ([serial, want]) => document.querySelector(`.light[data-serial="${serial}"]`)?.classList.contains(want as string) === true,
      [light.serial, light.state.power],
      { timeout: 2000 },
    );
    expect(await page.textContent(`.light[data-serial="${light.serial}"] .result`)).to.equal('✓');
  });

  it('brightness and colour temperature from the panel reach the light; the kelvin slider follows the product range', async () => {
    const warm = served.fleet.lights[1]!; // White to Warm: no colour, a narrower kelvin range
    await page.click(`.light[data-serial="${warm.serial}"] .info`);
    await page.waitForSelector('#panel:not([hidden])');
    expect(await page.isHidden('#row-color')).to.equal(true);
    const [min, max] = await page.$eval('#kelvin', (e) => [(e as HTMLInputElement).min, (e as HTMLInputElement).max]);
    expect(Number(min)).to.be.at.least(1500);
    expect(Number(max)).to.be.at.most(9000);
    await page.$eval('#brightness', (e) => {
      (e as HTMLInputElement).value = '35';
      e.dispatchEvent(new Event('input'));
    });
    await until(() => Math.abs(warm.state.color.brightness - 0.35) < 0.01, { timeoutMs: 3000, what: 'brightness 35 %' });
    await page.$eval('#kelvin', (e, k) => {
      (e as HTMLInputElement).value = String(k);
      e.dispatchEvent(new Event('input'));
    }, Number(max));
    await until(() => warm.state.color.kelvin === Number(max), { timeoutMs: 3000, what: `kelvin ${max}` });
    await page.waitForSelector('#panel-results li.ok');
    // Renamed in place: the name field holds the label; a new one reaches the light (SetLabel), the card and the title.
    expect(await page.inputValue('#rename')).to.equal(warm.state.label);
    await page.fill('#rename', 'Reading lamp ✨');
    await page.click('#rename-save');
    await until(() => warm.state.label === 'Reading lamp ✨', { timeoutMs: 3000, what: 'the light renamed' });
    await page.waitForFunction((serial) => document.querySelector(`.light[data-serial="${serial}"] .label`)?.textContent === 'Reading lamp ✨', warm.serial, { timeout: 3000 });
    expect(await page.textContent('#panel-title')).to.equal('Reading lamp ✨');
    expect(warm.received('SetLabel').map((p) => p.payload)).to.deep.equal([{ label: 'Reading lamp ✨' }]);
    await page.click('#panel-close');
  });

  it('renames a group from its panel: every member gets the name with one updated_at, and the page shows it', async () => {
    const members = served.fleet.lights.filter((l) => l.state.group.label === 'Bedroom');
    expect(members.length).to.be.above(1);
    const before = members[0]!.state.group;
    await page.click('.group:has(h3:text-is("Bedroom")) .group-more');
    await page.waitForSelector('#panel:not([hidden])');
    expect(await page.textContent('#panel-title')).to.equal('Bedroom');
    expect(await page.inputValue('#rename')).to.equal('Bedroom');
    await page.fill('#rename', 'Guest room');
    await page.click('#rename-save');
    await until(() => members.every((l) => l.state.group.label === 'Guest room'), { timeoutMs: 3000, what: 'every member renamed' });
    expect(new Set(members.map((l) => `${l.state.group.id} ${l.state.group.updatedAtNs}`)).size).to.equal(1);
    expect(members[0]!.state.group.id).to.equal(before.id);
    await page.waitForFunction(() => [...document.querySelectorAll('.group-head h3')].some((e) => e.textContent === 'Guest room'), undefined, { timeout: 3000 });
    expect(await page.textContent('#panel-title')).to.equal('Guest room');
    // Back as it was, from the same field.
    await page.fill('#rename', 'Bedroom');
    await page.click('#rename-save');
    await until(() => members.every((l) => l.state.group.label === 'Bedroom'), { timeoutMs: 3000, what: 'the name back' });
    await page.click('#panel-close');
  });

  it('offers a matrix light on firmware 3 its morph and flame buttons but not the sky effects (they need firmware 4)', async () => {
    const tile = served.fleet.lights[9]!; // the Tile, firmware 3.70
    expect(tile.summary().firmware.major).to.equal(3);
    await page.click(`.light[data-serial="${tile.serial}"] .info`);
    await page.waitForSelector('#panel:not([hidden])');
    const effects = await page.$$eval('#effects .effect', (els) => els.map((e) => e.textContent));
    expect(effects).to.include.members(['morph', 'flame']);
    expect(effects.filter((e) => e === 'sunrise' || e === 'sunset' || e === 'clouds')).to.deep.equal([]);
    await page.click('#panel-close');
  });

  it('draws what strips and matrix lights show (zones as a band, pixels as a grid), paints a theme and a pixel from the panel', async () => {
    const strip = served.fleet.lights[2]!; // 16 zones
    const candle = served.fleet.lights[4]!; // 5 x 6
    await page.waitForSelector(`.light[data-serial="${strip.serial}"] .swatch.band`, { timeout: 5000 });
    expect(await page.$eval(`.light[data-serial="${strip.serial}"] .swatch`, (e) => (e as HTMLElement).style.background)).to.include('linear-gradient');
    await page.waitForSelector(`.light[data-serial="${candle.serial}"] .swatch.grid canvas`, { timeout: 5000 });
    expect(await page.$eval(`.light[data-serial="${candle.serial}"] canvas`, (e) => [(e as HTMLCanvasElement).width, (e as HTMLCanvasElement).height])).to.deep.equal([5, 6]);
    // A theme from the strip's panel: the fleet's strip shows the palette's first colour at zone 0.
    await page.click(`.light[data-serial="${strip.serial}"] .info`);
    await page.waitForSelector('#panel:not([hidden])');
    expect(await page.isHidden('#row-pixels')).to.equal(true);
    await page.selectOption('#theme', 'autumn');
    await page.click('#theme-apply');
    await until(() => Math.round(strip.state.zones![0]!.hue) === 31 && new Set(strip.state.zones!.map((z) => Math.round(z.hue))).size > 3, { timeoutMs: 4000, what: 'the autumn theme on the strip' });
    await page.click('#panel-close');
    // A pixel from the Candle's editor: the top left pixel takes the panel's hue.
    await page.click(`.light[data-serial="${candle.serial}"] .info`);
    await page.waitForSelector('#row-pixels:not([hidden])');
    await page.$eval('#hue', (e) => { (e as HTMLInputElement).value = '200'; });
    await page.$eval('#saturation', (e) => { (e as HTMLInputElement).value = '100'; });
    const box = (await page.$('#pixel-editor'))!;
    const size = (await box.boundingBox())!;
    await page.mouse.click(size.x + size.width / 10, size.y + size.height / 12);
    await until(() => Math.round(candle.state.tiles![0]![0]!.hue) === 200 && candle.state.tiles![0]![0]!.saturation > 0.99, { timeoutMs: 4000, what: 'the top left pixel of the Candle painted' });
    expect(candle.state.tiles![0]!.slice(1).every((c) => Math.round(c.hue) !== 200 || c.saturation !== 1)).to.equal(true);
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-pixels.png') });
    await page.click('#panel-close');
  });

  it('a change made by the CLI (lightwire set) shows on the page within a second', async () => {
    const light = served.fleet.lights[2]!;
    const want = light.state.power === 'on' ? 'off' : 'on';
    const set = COMMANDS.find((c) => c.name === 'set')!;
    const io = captureIO();
    const code = await set.run([`id:${light.serial}`, '--power', want, '--duration', '0', '--broadcast', '127.255.255.255', '--lan-port', String(served.fleet.port)], io);
    expect(code, io.err()).to.equal(0);
    const changedAt = Date.now();
    expect(light.state.power).to.equal(want);
    await page.waitForFunction(
      ([serial, cls]) => document.querySelector(`.light[data-serial="${serial}"]`)?.classList.contains(cls as string) === true,
      [light.serial, want],
      { timeout: 1000 },
    );
    const latencyMs = Date.now() - changedAt;
    console.log(`      CLI change -> page: ${latencyMs} ms`);
    expect(latencyMs).to.be.below(1000);
  });

  it('changes made on the LAN (the fleet itself, like the vendor app) reach the page: median latency', async () => {
    const light = served.fleet.lights[3]!;
    const samples: number[] = [];
    for (let i = 0; i < 8; i++) {
      const want = light.state.power === 'on' ? 'off' : 'on';
      // Not a wait for anything: the change comes at a random moment, as changes made elsewhere do, not in step
      // with the server's reads.
      await new Promise((r) => setTimeout(r, Math.random() * 700));
      const t0 = Date.now();
      await patchLight(served, light.serial, { state: { power: want } });
      await page.waitForFunction(
        ([serial, cls]) => document.querySelector(`.light[data-serial="${serial}"]`)?.classList.contains(cls as string) === true,
        [light.serial, want],
        { timeout: 2000, polling: 'raf' },
      );
      samples.push(Date.now() - t0);
    }
    console.log(`      LAN change -> page: median ${median(samples)} ms, max ${Math.max(...samples)} ms (${samples.join(', ')})`);
    expect(median(samples)).to.be.below(1000);
  });

  it('a light taken offline through the fleet control endpoint is shown offline, and back when it returns', async () => {
    const light = served.fleet.lights[4]!;
    await patchLight(served, light.serial, { faults: { offline: true } });
    await page.waitForFunction((serial) => document.querySelector(`.light[data-serial="${serial}"]`)?.classList.contains('offline') === true, light.serial, { timeout: 15_000 });
    expect(await page.textContent(`.light[data-serial="${light.serial}"] .badge`)).to.equal('offline');
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-offline.png') });
    await patchLight(served, light.serial, { faults: { offline: false } });
    await page.waitForFunction((serial) => document.querySelector(`.light[data-serial="${serial}"]`)?.classList.contains('offline') === false, light.serial, { timeout: 15_000 });
  });

  it('a page of another origin (another port) cannot drive the API or read the stream, even with the session cookie in the browser', async () => {
    const attacker: Server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>other origin</title><p>other origin</p>');
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const other = `http://127.0.0.1:${(attacker.address() as { port: number }).port}/`;
    try {
      const before = served.fleet.lights.map((l) => l.state.power);
      const evil = await context.newPage();
      await evil.goto(other);
      const outcome = (await evil.evaluate(attackScript(`${served.origin}/`))) as Record<string, string>;
      expect(outcome['json action']).to.equal('threw TypeError'); // the CORS preflight is never answered
      expect(outcome['simple action']).to.equal('status 0 opaque');
      expect(outcome['v1 toggle']).to.equal('status 0 opaque');
      expect(outcome['read page']).to.equal('threw TypeError');
      expect(outcome['read doctor']).to.equal('threw TypeError');
      expect(outcome.stream).to.not.equal('got a snapshot');
      // A negative window: the forged requests changed no light. A fast write reaches a virtual light within a few
      // ms; 300 ms outlasts that.
      await quietFor(300);
      expect(served.fleet.lights.map((l) => l.state.power)).to.deep.equal(before);
      await evil.close();
    } finally {
      await new Promise<void>((resolve) => attacker.close(() => resolve()));
    }
  });

  it('the health panel shows the doctor: every light with its figures, the lossy one named', async () => {
    // One light on a bad link from now on.
    await patchLight(served, served.fleet.lights[LOSSY]!.serial, { faults: { lossProbability: 0.5 } });
    await page.click('#health-open');
    await page.waitForSelector('#health:not([hidden]) .health-table');
    await page.click('#health-probe');
    // One measurement at a time.
    expect(await page.isDisabled('#health-probe')).to.equal(true);
    await page.waitForFunction((n) => document.querySelectorAll('#health-body .health-table tr').length === n + 1 && !document.getElementById('health-body')!.textContent!.includes('Measuring'), LIGHTS, { timeout: 20_000 });
    const lossy = served.fleet.lights[LOSSY]!;
    expect(await page.isEnabled('#health-probe')).to.equal(true);
    const rows = await page.$$eval('#health-body .health-table tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td,th')].map((c) => c.textContent ?? '')));
    expect(rows[0]).to.deep.equal(['Light', 'Address', 'RTT median', 'RTT p99', 'Loss', 'Retransmits', 'Signal', 'Firmware', 'Uptime', 'Last seen', 'Moves', 'Status']);
    const row = rows.find((r) => r[0] === lossy.state.label)!;
    expect(row[11]).to.equal('lossy');
    expect(Number.parseFloat(row[4]!)).to.be.above(20);
    const healthyRow = rows.find((r) => r[0] === served.fleet.lights[5]!.state.label)!;
    expect(healthyRow[11]).to.equal('ok');
    expect(healthyRow[2]).to.match(/ms$/);
    expect(await page.textContent('#health-body .problems')).to.include('loses');
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-health.png') });
    await page.click('#health-close');
    await patchLight(served, lossy.serial, { faults: { lossProbability: 0 } });
  });

  it('works at phone width: one column, the panel as a bottom sheet', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const p = await phone.newPage();
    await p.goto(`${served.origin}/`);
    await p.waitForFunction((n) => document.querySelectorAll('.light').length === n, LIGHTS, { timeout: 10_000 });
    const widths = await p.$$eval('.light', (els) => els.slice(0, 3).map((e) => e.getBoundingClientRect().width));
    for (const w of widths) expect(w).to.be.above(300); // one card per row
    const scrollWidth = await p.evaluate(() => document.documentElement.scrollWidth);
    expect(scrollWidth).to.be.at.most(390); // nothing wider than the screen
    await p.screenshot({ path: path.join(SHOTS, 'dashboard-phone.png') });
    await p.tap(`.light[data-serial="${served.fleet.lights[0]!.serial}"] .info`);
    const box = await p.$eval('#panel', (e) => e.getBoundingClientRect().toJSON() as DOMRect);
    expect(box.width).to.equal(390);
    expect(box.bottom).to.be.closeTo(844, 1);
    await p.screenshot({ path: path.join(SHOTS, 'dashboard-phone-panel.png') });
    await phone.close();
    for (const name of ['dashboard-desktop.png', 'dashboard-phone.png']) expect(statSync(path.join(SHOTS, name)).size).to.be.above(10_000);
  });
});

describe('dashboard in Chromium against lightwire serve --token', function () {
  this.timeout(60_000);
  let browser: Browser;
  let served: Served;

  before(async () => {
    browser = await launchChromium();
    served = await serveFleet(defaultFleet(4), ['--token', 'sesame', '--token', 'onlylooking:read']);
  });

  after(async () => {
    await browser?.close();
    await served?.close();
  });

  it('asks for the token, refuses a wrong one, and signs in with the right one; the page then drives the lights', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${served.origin}/`);
    expect(await page.isVisible('input[name="token"]')).to.equal(true);
    await page.fill('input[name="token"]', 'wrong');
    await page.click('button[type="submit"]');
    await page.waitForSelector('.error');
    expect(await page.textContent('.error')).to.include('not one this server knows');
    await page.fill('input[name="token"]', 'sesame');
    await page.click('button[type="submit"]');
    await page.waitForFunction(() => document.querySelectorAll('.light').length === 4, undefined, { timeout: 10_000 });
    const light = served.fleet.lights[0]!;
    const before = light.state.power;
    await page.click(`.light[data-serial="${light.serial}"] .swatch`);
    await until(() => light.state.power !== before, { timeoutMs: 3000, what: 'the light to change power' });
    // The v1 API still wants the token from anything that is not the page.
    expect((await fetch(`${served.apiUrl}/lights/all`)).status).to.equal(401);
  });

  it('a session of a read token shows the lights with every control disabled', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${served.origin}/`);
    await page.fill('input[name="token"]', 'onlylooking');
    await page.click('button[type="submit"]');
    await page.waitForFunction(() => document.querySelectorAll('.light').length === 4, undefined, { timeout: 10_000 });
    expect(await page.$$eval('.light .swatch, .group-toggle', (els) => els.filter((e) => !(e as HTMLButtonElement).disabled).length)).to.equal(0);
    // The panel still opens (it tells about the light), its controls do not act.
    await page.click(`.light[data-serial="${served.fleet.lights[0]!.serial}"] .info`);
    await page.waitForSelector('#panel:not([hidden])');
    const enabled = await page.$$eval('#panel button, #panel input', (els) => els.filter((e) => !(e as HTMLButtonElement).disabled).map((e) => e.id || e.textContent));
    expect(enabled).to.deep.equal(['panel-close']);
    // Health reads only: it stays.
    expect(await page.isEnabled('#health-open')).to.equal(true);
  });
});

describe('dashboard in Chromium: a Switch, renamed groups and the filter as the fleet changes', function () {
  this.timeout(90_000);
  const SWITCH = 'd073d5000009';
  let browser: Browser;
  let rig: ServiceRig;
  let control: ControlServer;
  let server: RunningServer;
  let page: Page;
  let serials: string[];
  /** HTTP errors and console errors of the page (the browser's own /favicon.ico request shows only as the latter). */
  const errors: string[] = [];

  /**
   * Changes on the fleet's side, then the reads that learn them. The service reads a light's group and location
   * only every few minutes; the test does not wait for that.
   */
  async function patchAndRead(changes: [serial: string, state: unknown][]): Promise<void> {
    for (const [serial, state] of changes) await patchLight({ control }, serial, { state });
    await Promise.all(changes.map(([serial]) => Promise.all([rig.client.refreshInfo(serial), rig.client.refreshState(serial)])));
  }

  before(async () => {
    browser = await launchChromium();
    const fleet = defaultFleet(4); // Color 1 (Living Room), White to Warm 2 (Kitchen), Strip 3 (Bedroom), A19 4 (Office)
    fleet.lights.push({ serial: SWITCH, product: 70, label: 'Wall switch', group: { label: 'Living Room' }, location: { label: 'Home' } });
    // The first light has an ambient light sensor (it answers SensorGetAmbientLight); the others have none.
    (fleet.lights[0] as { lux?: number }).lux = 55;
    rig = await serviceRig(fleet);
    serials = rig.fleet.lights.slice(0, 4).map((l) => l.serial);
    // The service knows the Switch (it has relays); the page is to leave it out.
    expect(rig.service.views().map((v) => v.serial)).to.include(SWITCH);
    await rig.service.start();
    control = await startControlServer(rig.fleet);
    server = await startServer({ service: rig.service, host: '127.0.0.1', port: 0, dashboard: { liveRefresh: false }, logLevel: 'silent' });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    page.on('response', (res) => {
      if (res.status() >= 400) errors.push(`${res.status()} ${res.url()}`);
    });
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`http://127.0.0.1:${server.port}/`);
    // The event stream opening ('live') and the list being drawn are separate: wait for both (four lights at
    // least: that the Switch is left out is the first test's).
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'live' && document.querySelectorAll('.light').length >= 4, undefined, { timeout: 10_000 });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await control?.close();
    await rig?.service.stop();
    await rig?.close();
  });

  it('leaves out a LIFX Switch (no light, as /v1 lists lights only): no card, and counts count lights', async () => {
    expect(await page.$$eval('.light', (els) => els.map((e) => (e as HTMLElement).dataset.serial).sort())).to.deep.equal([...serials].sort());
    expect(await page.textContent('#summary')).to.match(/^4 lights · /);
    const living = await page.$$eval('.group', (gs) => gs.filter((g) => g.querySelector('h3')!.textContent === 'Living Room').map((g) => g.querySelector('.count')!.textContent));
    expect(living).to.deep.equal(['1 light']);
  });

  it('shows the ambient light reading on the card of a light with the sensor only, and a new reading after a refresh', async () => {
    const [lamp, other] = serials as [string, string];
    const metaHas = (serial: string, text: string): Promise<unknown> =>
      page.waitForFunction(([s, t]) => document.querySelector(`.light[data-serial="${s}"] .meta`)?.textContent?.includes(t as string) === true, [serial, text], { timeout: 5000 });
    // The sensor is asked on a state refresh after the first read.
    await rig.client.refreshState(lamp);
    await metaHas(lamp, '55 lux');
    expect(await page.getAttribute(`.light[data-serial="${lamp}"]`, 'title')).to.include('ambient light 55 lux (raw sensor reading');
    expect(await page.textContent(`.light[data-serial="${other}"] .meta`)).not.to.include('lux');
    await patchAndRead([[lamp, { lux: 7.5 }]]);
    await metaHas(lamp, '7.5 lux');
  });

  it('loads without an error in the console (no /favicon.ico 404)', async () => {
    // A negative window: no console error (the favicon request goes out as the page loads). 500 ms outlasts it.
    await quietFor(500);
    expect(errors).to.deep.equal([]);
  });

  it('an open panel leaves the header\'s Health button in reach', async () => {
    await page.click(`.light[data-serial="${serials[0]!}"] .info`);
    await page.waitForSelector('#panel:not([hidden])');
    const onTop = await page.$eval('#health-open', (b) => {
      const r = b.getBoundingClientRect();
      return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === b;
    });
    expect(onTop).to.equal(true);
    await page.click('#health-open');
    await page.waitForSelector('#health:not([hidden])');
    await page.click('#health-close');
    await page.click('#panel-close');
  });

  it('a group or location renamed in the vendor app (same id, new name) shows its new name', async () => {
    const [color, warm, strip, a19] = serials;
    const home = { id: idFromLabel('location', 'Home'), label: 'Cottage' };
    const lounge = { id: idFromLabel('group', 'Living Room'), label: 'Lounge' };
    await patchAndRead([
      [color!, { group: lounge, location: home }],
      [SWITCH, { group: lounge, location: home }],
      ...[warm!, strip!, a19!].map((serial): [string, unknown] => [serial, { location: home }]),
    ]);
    await page.waitForFunction(
      () => {
        const titles = [...document.querySelectorAll('.group-head h3, .location > h2')].map((e) => e.textContent);
        return titles.includes('Lounge') && titles.includes('Cottage') && !titles.includes('Living Room') && !titles.includes('Home');
      },
      undefined,
      { timeout: 5000 },
    );
    expect(await page.getAttribute('.group-toggle[aria-label^="Toggle group Lounge"]', 'aria-label')).to.equal('Toggle group Lounge');
  });

  it('the filter keeps a group shown iff one of its cards shows, through changes that arrive while it is set', async () => {
    const [, warm, strip] = serials;
    const groups = (): Promise<{ name: string; shown: boolean; cardsShown: number }[]> =>
      page.$$eval('.group', (gs) =>
        gs.map((g) => ({ name: g.querySelector('h3')!.textContent!, shown: !(g as HTMLElement).hidden, cardsShown: [...g.querySelectorAll('.light')].filter((c) => !(c as HTMLElement).hidden).length })),
      );
    await page.fill('#filter', 'kitchen');
    expect((await groups()).filter((g) => g.shown).map((g) => g.name)).to.deep.equal(['Kitchen']);
    // A light of a hidden group renamed so that it matches: its group shows.
    await patchAndRead([[strip!, { label: 'Kitchen strip' }]]);
    await page.waitForFunction(() => [...document.querySelectorAll('.light:not([hidden]) .label')].some((e) => e.textContent === 'Kitchen strip'), undefined, { timeout: 5000 });
    // The matching light moved to a group the filter does not match: that new group stays hidden.
    await patchAndRead([[warm!, { group: { label: 'Pantry' } }]]);
    await page.waitForFunction(
      () => {
        const titles = [...document.querySelectorAll('.group-head h3')].map((e) => e.textContent);
        return titles.includes('Pantry') && !titles.includes('Kitchen');
      },
      undefined,
      { timeout: 5000 },
    );
    const now = await groups();
    for (const g of now) expect(g.shown, JSON.stringify(now)).to.equal(g.cardsShown > 0);
    expect(now.filter((g) => g.shown).map((g) => g.name)).to.deep.equal(['Bedroom']);
    await page.fill('#filter', '');
    expect((await groups()).every((g) => g.shown)).to.equal(true);
  });
});

describe('dashboard in Chromium across a server restart', function () {
  this.timeout(90_000);
  let browser: Browser;
  let rig: ServiceRig;
  let server: RunningServer | undefined;
  let port = 0;

  const start = async (tokens: string[] = []): Promise<RunningServer> => {
    server = await startServer({ service: rig.service, host: '127.0.0.1', port, tokens, dashboard: { liveRefresh: false }, logLevel: 'silent' });
    port = server.port;
    return server;
  };
  const status = (page: Page): Promise<string | null> => page.textContent('#status');
  const stale = (page: Page): Promise<{ marked: boolean; opacity: number }> =>
    page.evaluate(() => ({ marked: document.body.classList.contains('disconnected'), opacity: Number(getComputedStyle(document.getElementById('lights')!).opacity) }));

  before(async () => {
    browser = await launchChromium();
    rig = await serviceRig(defaultFleet(3));
    await rig.service.start();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await rig?.service.stop();
    await rig?.close();
  });

  it('open server: while it is down the cards are marked stale; when it is back the page gets a new session and works', async () => {
    await start();
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => document.querySelectorAll('.light').length === 3 && document.getElementById('status')!.textContent === 'live', undefined, { timeout: 10_000 });
    expect(await stale(page)).to.deep.equal({ marked: false, opacity: 1 });
    await server!.close();
    await page.waitForFunction(() => document.body.classList.contains('disconnected'), undefined, { timeout: 5000 });
    expect(await status(page)).to.match(/^disconnected/);
    expect((await stale(page)).opacity).to.be.below(1);
    // Back, with no memory of the page's session.
    await start();
    await page.waitForFunction(() => document.getElementById('status')!.textContent === 'live', undefined, { timeout: 15_000 });
    expect(await stale(page)).to.deep.equal({ marked: false, opacity: 1 });
    const light = rig.fleet.lights[0]!;
    const before = light.state.power;
    await page.click(`.light[data-serial="${light.serial}"] .swatch`);
    await until(() => light.state.power !== before, { timeoutMs: 3000, what: 'the light to change power' });
    await page.close();
    await server!.close();
  });

  it('server with tokens: the page says the session ended and how to sign in again', async () => {
    const first = await start(['sesame']);
    const page = await browser.newPage();
    await page.goto(first.dashboardUrl!);
    await page.waitForFunction(() => document.querySelectorAll('.light').length === 3, undefined, { timeout: 10_000 });
    await server!.close();
    await start(['sesame']);
    await page.waitForFunction(() => document.getElementById('status')!.classList.contains('ended'), undefined, { timeout: 15_000 });
    expect(await status(page)).to.equal('session ended — sign in again with an access token or a new dashboard link');
    expect(await page.getAttribute('#status a', 'href')).to.equal('/');
    expect((await stale(page)).marked).to.equal(true);
    await page.close();
  });
});

describe('dashboard in Chromium: no light, one light, odd labels, a replaced session', function () {
  this.timeout(90_000);
  const DESK = 'd073d5000001';
  const HTML = 'd073d5000002';
  const EMOJI = 'd073d5000003';
  const LONG = 'd073d5000004';
  const LABELS: Record<string, string> = { [DESK]: 'Desk', [HTML]: '<img src=x onerror=alert(1)>', [EMOJI]: '🎉 Party 💡', [LONG]: 'W'.repeat(32) };
  const LONG_GROUP = 'G'.repeat(32);
  let browser: Browser;
  let fleet: Fleet;
  let client: LightClient;
  let service: LightService;
  let server: RunningServer;
  let context: BrowserContext;
  let page: Page;
  const dialogs: string[] = [];

  before(async () => {
    browser = await launchChromium();
    // Every light is without power at first: the server knows none of them.
    fleet = new Fleet({
      lights: [
        { serial: DESK, product: 91, label: LABELS[DESK]!, group: { label: 'Office' }, location: { label: 'Home' }, power: 'on', color: { hue: 0, saturation: 0, brightness: 0.8, kelvin: 3500 }, faults: { offline: true } },
        { serial: HTML, product: 91, label: LABELS[HTML]!, group: { label: 'Office' }, location: { label: 'Home' }, power: 'on', faults: { offline: true } },
        { serial: EMOJI, product: 91, label: LABELS[EMOJI]!, group: { label: 'Office' }, location: { label: 'Home' }, power: 'off', faults: { offline: true } },
        { serial: LONG, product: 91, label: LABELS[LONG]!, group: { label: LONG_GROUP }, location: { label: 'Home' }, power: 'on', faults: { offline: true } },
      ],
    }, { port: 0 });
    await fleet.start();
    client = new LightClient({ discovery: { broadcastAddresses: ['127.255.255.255'], port: fleet.port, burstScheduleMs: [0], heartbeatMs: 300, refreshIntervalMs: 0 } });
    service = new LightService(client, { readyTimeoutMs: 500 });
    await service.start();
    server = await startServer({ service, host: '127.0.0.1', port: 0, dashboard: { liveRefresh: false }, logLevel: 'silent' });
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await context.newPage();
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`http://127.0.0.1:${server.port}/`);
    await page.waitForFunction(() => document.getElementById('status')?.textContent === 'live', undefined, { timeout: 10_000 });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await service?.stop();
    await fleet?.stop();
  });

  it('with no light, says none was found yet and where to look, rather than an empty page', async () => {
    await page.waitForSelector('#empty:not([hidden])', { timeout: 5000 });
    expect(await page.textContent('#empty')).to.include('No lights found yet').and.include('Health');
    expect(await page.textContent('#summary')).to.equal('0 lights · 0 on · 0 offline');
    expect(await page.$$('.light')).to.have.length(0);
  });

  it('with one light: its card, "1 light" (not "1 lights"), and the empty note gone', async () => {
    fleet.light(DESK).setFaults({ offline: false });
    await page.waitForFunction((serial) => document.querySelector(`.light[data-serial="${serial}"]`) !== null, DESK, { timeout: 10_000 });
    await page.waitForFunction(() => document.getElementById('summary')!.textContent === '1 light · 1 on · 0 offline', undefined, { timeout: 5000 });
    expect(await page.isHidden('#empty')).to.equal(true);
    // A filter that matches nothing says so.
    await page.fill('#filter', 'nothing like it');
    expect(await page.textContent('#empty')).to.equal('No light matches “nothing like it”.');
    expect(await page.isVisible('#empty')).to.equal(true);
    await page.fill('#filter', '');
    expect(await page.isHidden('#empty')).to.equal(true);
  });

  it('shows HTML, emoji and 32-character labels as text; at phone width a long group name leaves its buttons in reach', async () => {
    for (const serial of [HTML, EMOJI, LONG]) fleet.light(serial).setFaults({ offline: false });
    await page.waitForFunction(() => document.querySelectorAll('.light').length === 4, undefined, { timeout: 10_000 });
    for (const [serial, label] of Object.entries(LABELS)) expect(await page.textContent(`.light[data-serial="${serial}"] .label`)).to.equal(label);
    expect(await page.$$('main img, main [onerror]')).to.have.length(0);
    expect(dialogs).to.deep.equal([]);

    const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })).newPage();
    await phone.goto(`http://127.0.0.1:${server.port}/`);
    await phone.waitForFunction(() => document.querySelectorAll('.light').length === 4, undefined, { timeout: 10_000 });
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).to.be.at.most(390);
    // (No named function inside: tsx would wrap it in a helper the page does not have.)
    const group = await phone.$$eval('.group', (gs, name) => {
      const g = gs.find((x) => x.querySelector('h3')!.textContent === name)!;
      const reach = [g.querySelector('.group-toggle')!, g.querySelector('.group-more')!].map((b) => {
        const r = b.getBoundingClientRect();
        return r.left >= 0 && r.right <= window.innerWidth && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === b;
      });
      return { reach, title: g.querySelector('h3')!.getAttribute('title') };
    }, LONG_GROUP);
    expect(group).to.deep.equal({ reach: [true, true], title: LONG_GROUP });
    // The panel's title wraps rather than running under its close button.
    await phone.tap(`.light[data-serial="${LONG}"] .info`);
    await phone.waitForSelector('#panel:not([hidden])');
    const [title, close] = await Promise.all([phone.$eval('#panel-title', (e) => e.getBoundingClientRect().toJSON() as DOMRect), phone.$eval('#panel-close', (e) => e.getBoundingClientRect().toJSON() as DOMRect)]);
    expect(title.right).to.be.at.most(close.left + 1);
    await phone.context().close();
  });

  it('moving the hue of a white light (no saturation) makes it coloured', async () => {
    const desk = fleet.light(DESK);
    expect(desk.state.color.saturation).to.equal(0);
    await page.click(`.light[data-serial="${DESK}"] .info`);
    await page.waitForSelector('#panel:not([hidden])');
    expect(await page.inputValue('#saturation')).to.equal('0');
    await page.$eval('#hue', (e) => {
      (e as HTMLInputElement).value = '240';
      e.dispatchEvent(new Event('input'));
    });
    await until(() => Math.abs(desk.state.color.hue - 240) < 1 && desk.state.color.saturation > 0.99, { timeoutMs: 3000, what: 'a blue light' });
    expect(await page.inputValue('#saturation')).to.equal('100');
    await page.click('#panel-close');
  });

  it('a click still reaches the light when the page\'s session went away under it (cookie gone, or replaced by another tab)', async () => {
    const desk = fleet.light(DESK);
    await context.clearCookies();
    const before = desk.state.power;
    await page.click(`.light[data-serial="${DESK}"] .swatch`);
    await until(() => desk.state.power !== before, { timeoutMs: 5000, what: 'the light to change power' });
    await page.waitForFunction((serial) => document.querySelector(`.light[data-serial="${serial}"] .result`)?.textContent === '✓', DESK, { timeout: 3000 });
    // Another tab of this browser whose session the server forgot: its new session replaces the cookie of this one.
    await context.clearCookies();
    const other = await context.newPage();
    await other.goto(`http://127.0.0.1:${server.port}/`);
    await other.waitForFunction(() => document.querySelectorAll('.light').length === 4, undefined, { timeout: 10_000 });
    const again = desk.state.power;
    await page.click(`.light[data-serial="${DESK}"] .swatch`);
    await until(() => desk.state.power !== again, { timeoutMs: 5000, what: 'the light to change power from the first tab' });
    await other.close();
  });
});
