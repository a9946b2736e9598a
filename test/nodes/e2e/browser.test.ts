// A real browser on the real editor: Debian's Chromium driven by playwright-core opens Node-RED (the packed package
// installed, the example flows against a separate fleet), finds the Lightwire nodes in the palette, opens each edit
// dialog and sees the selector list filled from the config node, drops a new set-state node, picks a light for it
// and deploys. Screenshots go to docs/images/ with UPDATE_SCREENSHOTS=1 (nodes/README.md shows them), else to a temporary folder. Without Chromium this suite fails: CI
// installs it (apt-get install chromium), and a browser test that silently skips proves nothing.

import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../helpers/chromium.js';
import { REPO_ROOT } from '../../helpers/packed.js';
import { EXAMPLE_FLOWS, exampleAgainst, startFleetChild, startNodeRed, type FleetChild, type FlowNode, type NodeRed } from './node-red.js';
import { until } from '../../helpers/wait.js';

// The README's screenshots are rewritten with UPDATE_SCREENSHOTS=1; a plain run leaves the work tree as it was.
const IMAGES = process.env.UPDATE_SCREENSHOTS === '1' ? path.join(REPO_ROOT, 'docs', 'images') : mkdtempSync(path.join(os.tmpdir(), 'lightwire-shots-'));
const LIGHTS = 5;
/** The edit tray slides in; screenshots wait for it (about 700 ms). */
const TRAY_MS = 700;

const example = JSON.parse(readFileSync(EXAMPLE_FLOWS, 'utf8')) as FlowNode[];
const idOf = (type: string): string => example.find((n) => n.type === type)!.id;

declare const RED: {
  nodes: {
    getType(type: string): { category: string } | undefined;
    filterNodes(filter: { type: string }): Array<{ id: string; selector?: string; config?: string }>;
  };
};

describe('Node-RED editor in Chromium', function () {
  this.timeout(60_000);
  let fleet: FleetChild;
  let red: NodeRed;
  let browser: Browser;
  let page: Page;

  before(async function () {
    this.timeout(240_000);
    // First: a missing Chromium fails at once, before Node-RED and the fleet are started.
    browser = await launchChromium();
    mkdirSync(IMAGES, { recursive: true });
    fleet = await startFleetChild(LIGHTS);
    red = await startNodeRed({ flows: exampleAgainst(example, fleet.port) });
    page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    await page.goto(red.url);
    await page.waitForSelector('.red-ui-palette-node[data-palette-type="lightwire-set-state"]', { timeout: 30_000 });
  });

  after(async () => {
    await browser?.close();
    await red?.stop();
    await fleet?.stop();
  });

  async function openEditor(nodeId: string): Promise<void> {
    await page.dblclick(`[id="${nodeId}"] .red-ui-flow-node`);
    await page.waitForSelector('#node-dialog-ok', { state: 'visible' });
    await page.waitForTimeout(TRAY_MS);
  }

  async function pickerFilled(): Promise<number> {
    await page.waitForSelector(`#lightwire-picker-select[data-lights="${LIGHTS}"]`, { timeout: 10_000 });
    return page.locator('#lightwire-picker-select option').count();
  }

  it('shows set state, get info and discover under Lightwire in the palette, and knows the config node', async () => {
    const inCategory = await page.$$eval('#red-ui-palette-container-Lightwire .red-ui-palette-node', (nodes) =>
      nodes.map((n) => n.getAttribute('data-palette-type')),
    );
    expect(inCategory).to.deep.equal(['lightwire-set-state', 'lightwire-get-info', 'lightwire-discover']);
    expect(await page.evaluate(() => RED.nodes.getType('lightwire-config')?.category)).to.equal('config');
    // The example's nodes show the config node's health.
    await until(async () => (await page.locator(`[id="${idOf('lightwire-set-state')}"] .red-ui-flow-node-status-label`).textContent()) === `${LIGHTS} lights`, { timeoutMs: 10_000, what: 'the set-state status' });
    await page.screenshot({ path: path.join(IMAGES, 'node-red-flow.png') });
    await page.locator('#red-ui-palette-search input').click();
    await page.locator('#red-ui-palette-search input').pressSequentially('lightwire', { delay: 20 });
    await page.waitForTimeout(500);
    const visible = await page.$$eval('.red-ui-palette-node', (nodes) =>
      nodes.filter((n) => (n as HTMLElement).offsetParent !== null).map((n) => n.getAttribute('data-palette-type')),
    );
    expect(visible).to.include.members(['lightwire-set-state', 'lightwire-get-info', 'lightwire-discover']);
    const top = (await page.locator('#red-ui-palette-search').boundingBox())!;
    const bottom = (await page.locator('#red-ui-palette-container-Lightwire').boundingBox())!;
    await page.screenshot({ path: path.join(IMAGES, 'node-red-palette.png'), clip: { x: top.x, y: top.y - 30, width: top.width, height: bottom.y + bottom.height - top.y + 40 } });
  });

  for (const [type, image] of [
    ['lightwire-set-state', 'node-red-set-state.png'],
    ['lightwire-get-info', 'node-red-get-info.png'],
    ['lightwire-discover', 'node-red-discover.png'],
  ] as const) {
    it(`opens the ${type} dialog with the selector list filled from the config node`, async () => {
      await openEditor(idOf(type));
      expect(await pickerFilled()).to.be.at.least(1 + 1 + LIGHTS); // the prompt, "all lights", each light, groups
      const groups = await page.$$eval('#lightwire-picker-select optgroup', (g) => g.map((x) => x.getAttribute('label')));
      expect(groups).to.deep.equal(['Lights', 'Groups', 'Locations']);
      const lightOptions = await page.$$eval('#lightwire-picker-select optgroup[label="Lights"] option', (o) => o.map((x) => (x as HTMLOptionElement).value));
      expect(lightOptions).to.have.length(LIGHTS);
      // A closed drop-down hides its list in a screenshot: show it as a list box for the picture only.
      await page.$eval('#lightwire-picker-select', (s) => ((s as HTMLSelectElement).size = 12));
      await page.screenshot({ path: path.join(IMAGES, image) });
      await page.click('#node-dialog-cancel');
      await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
    });
  }

  it('opens the config node dialog', async () => {
    await openEditor(idOf('lightwire-set-state'));
    await page.click('#node-input-btn-config-edit');
    await page.waitForSelector('#node-config-input-virtual', { state: 'attached' });
    await page.waitForTimeout(TRAY_MS);
    expect(await page.inputValue('#node-config-input-lanPort')).to.equal(String(fleet.port));
    expect(await page.isChecked('#node-config-input-virtual')).to.equal(false);
    await page.screenshot({ path: path.join(IMAGES, 'node-red-config.png') });
    await page.click('#node-config-dialog-cancel');
    await page.waitForTimeout(300);
    await page.click('#node-dialog-cancel');
    await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
  });

  it('drops a set-state node, picks a light from the list and deploys it', async () => {
    const before = new Set(await page.evaluate(() => RED.nodes.filterNodes({ type: 'lightwire-set-state' }).map((n) => n.id)));
    const source = page.locator('.red-ui-palette-node[data-palette-type="lightwire-set-state"]').first();
    const box = (await page.locator('#red-ui-workspace-chart').boundingBox())!;
    await source.hover();
    await page.mouse.down();
    await page.mouse.move(box.x + 420, box.y + 520, { steps: 12 });
    await page.mouse.up();
    const dropped = await until(
      () => page.evaluate((known) => RED.nodes.filterNodes({ type: 'lightwire-set-state' }).find((n) => !known.includes(n.id))?.id, [...before]),
      { timeoutMs: 5000, what: 'the dropped node' },
    );
    await openEditor(dropped);
    // A new node: the list waits for a config node, then fills once one is chosen.
    expect(await page.locator('#lightwire-picker-status').textContent()).to.equal('choose a config node first');
    expect(await page.locator('#lightwire-picker-status').isVisible()).to.equal(true);
    await page.selectOption('#node-input-config', idOf('lightwire-config'));
    await pickerFilled();
    const choice = await page.$eval('#lightwire-picker-select optgroup[label="Lights"] option', (o) => (o as HTMLOptionElement).value);
    await page.selectOption('#lightwire-picker-select', choice);
    expect(await page.inputValue('#node-input-selector')).to.equal(choice);
    await page.click('#node-dialog-ok');
    await page.waitForSelector('#node-dialog-ok', { state: 'detached' });
    await page.click('#red-ui-header-button-deploy');
    const deployed = await until(async () => {
      const flows = (await red.api('GET', '/flows')).body as FlowNode[];
      return flows.find((n) => n.id === dropped);
    }, { timeoutMs: 10_000, what: 'the dropped node in the deployed flows' });
    expect(deployed.selector).to.equal(choice);
    expect(deployed.config).to.equal(idOf('lightwire-config'));
    // The runtime runs it: an inject aimed at it through the admin API's node status is not available, so ask the
    // runtime for its status as the editor shows it.
    await until(async () => (await page.locator(`[id="${dropped}"] .red-ui-flow-node-status-label`).textContent()) === `${LIGHTS} lights`, { timeoutMs: 10_000, what: 'the new node running' });
  });
});
