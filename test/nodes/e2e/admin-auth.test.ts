// The selector picker's admin endpoint behind Node-RED's own admin auth, and the example exactly as shipped
// (virtual lights run by the config node itself): with adminAuth on, no token -> 401; a read-only user's token ->
// the lights of the running config node.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { EXAMPLE_FLOWS, installedModules, startNodeRed, type FlowNode, type NodeRed } from './node-red.js';
import { until } from '../../helpers/wait.js';

const example = JSON.parse(readFileSync(EXAMPLE_FLOWS, 'utf8')) as FlowNode[];
const configId = example.find((n) => n.type === 'lightwire-config')!.id;
const PASSWORD = 'lightwire-e2e';

describe('Node-RED with admin auth: the picker endpoint, the shipped example', function () {
  this.timeout(30_000);
  let red: NodeRed;

  before(async function () {
    this.timeout(240_000);
    const modules = await installedModules();
    // Node-RED's own bcrypt, from the user directory's install.
    const bcrypt = createRequire(path.join(modules, 'node_modules', 'node-red', 'package.json'))('bcryptjs') as { hashSync(p: string, rounds: number): string };
    const hash = bcrypt.hashSync(PASSWORD, 4);
    red = await startNodeRed({
      flows: example,
      settings: { adminAuth: { type: 'credentials', users: [{ username: 'viewer', password: hash, permissions: 'read' }] } },
    });
  });

  after(async () => {
    await red?.stop();
  });

  async function token(): Promise<string> {
    const res = await fetch(`${red.url}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'node-red-admin', grant_type: 'password', scope: 'read', username: 'viewer', password: PASSWORD }),
    });
    expect(res.status).to.equal(200);
    return ((await res.json()) as { access_token: string }).access_token;
  }

  it('refuses the picker without a token', async () => {
    const res = await red.api('GET', `/lightwire-config/${configId}/selectors`);
    expect(res.status).to.equal(401);
  });

  it("answers a read-only user with the example's own virtual lights", async () => {
    const bearer = { authorization: `Bearer ${await token()}` };
    const body = await until(async () => {
      const res = await red.api('GET', `/lightwire-config/${configId}/selectors`, undefined, bearer);
      expect(res.status).to.equal(200);
      const list = res.body as { lights: Array<{ selector: string; online: boolean }>; groups: unknown[] };
      return list.lights.length === 5 ? list : null;
    }, { timeoutMs: 10_000, what: 'five virtual lights' });
    expect(body.lights.every((l) => l.online)).to.equal(true);
    expect(body.lights.map((l) => l.selector)).to.include('label:Color 1');
    expect(body.groups).to.have.length(5);
  });

  it('a read-only user may not fire the example injects', async () => {
    const bearer = { authorization: `Bearer ${await token()}` };
    const inject = example.find((n) => n.type === 'inject')!.id;
    const res = await red.api('POST', `/inject/${inject}`, undefined, bearer);
    expect(res.status).to.equal(401);
  });
});
