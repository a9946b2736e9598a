// The nodes' pure parts: config properties, payload forms, status texts, the picker's selectors, and the
// connection's release after its last user (fake time).

import { expect } from 'chai';
import sinon from 'sinon';
import { LightwireError, isLightwireError, type LightView } from '../../core/index.js';
import type { Node } from 'node-red';
import { configOptions, listProp } from '../../nodes/config-options.js';
import { Connection, serviceOptions, type Health } from '../../nodes/connection.js';
import { MessagesInFlight } from '../../nodes/node-props.js';
import { parsePayload, selectorOf, EFFECT_NAMES } from '../../nodes/payload.js';
import { selectorList } from '../../nodes/selector-list.js';
import { healthStatus, healthText, resultsStatus, resultsText } from '../../nodes/status.js';
import { until } from '../helpers/wait.js';

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof LightwireError) return `${err.code} ${JSON.stringify(err.params)}`;
    throw err;
  }
  return 'no error';
}

describe('nodes: config properties', () => {
  it('reads the parts of lights as JSON and checks them as the service does (OPTIONS_INVALID naming parts)', () => {
    expect(configOptions({ parts: '{"Strip": ["left", "middle", "right"]}' }).parts).to.deep.equal({ Strip: ['left', 'middle', 'right'] });
    expect(configOptions({ parts: ' ' }).parts).to.equal(undefined);
    for (const parts of ['{Strip', '["left"]', '{"Strip": ["a"]}', '{"Strip": {"desk": "9-1"}}']) {
      let code: unknown;
      try {
        configOptions({ parts });
      } catch (err) {
        code = isLightwireError(err) ? [err.code, err.params] : err;
      }
      expect(code, parts).to.deep.include('OPTIONS_INVALID');
      expect((code as [string, { option: string }])[1].option, parts).to.equal('parts');
    }
  });

  it('lists each light\'s parts in the picker as SELECTOR|PART', () => {
    const ceiling = { serial: 'd073d5000001', label: 'Ceiling', online: true, group: null, location: null } as unknown as LightView;
    const list = selectorList([ceiling], { state: 'ready', lights: 1, online: 1, offline: 0, error: null, httpUrl: null, httpError: null }, () => ['downlight', 'uplight']);
    expect(list.lights[0]!.parts).to.deep.equal([
      { selector: 'label:Ceiling|downlight', label: 'Ceiling · downlight' },
      { selector: 'label:Ceiling|uplight', label: 'Ceiling · uplight' },
    ]);
  });

  it('takes the editor defaults: every interface, LIFX port, refresh 10 s, transition 1 s, nothing virtual, no HTTP', () => {
    expect(configOptions({})).to.deep.equal({
      broadcastAddresses: null,
      staticHosts: [],
      sweepSubnets: [],
      lanPort: 56700,
      refreshIntervalMs: 10_000,
      defaultDurationS: 1,
      answerTimeoutMs: null,
      virtualLights: 0,
      http: null,
      scenesFile: null,
      productsFile: null,
    });
  });

  it('reads lists separated by commas, spaces or new lines, and numbers typed as strings', () => {
    const o = configOptions(
      { broadcast: '192.168.1.255, 10.0.0.255', hosts: '10.1.1.5:56701\n10.1.1.6', subnets: ['172.20.4.0/24'], lanPort: '56800', refreshS: '2.5', durationS: 0, timeoutS: '0.5', virtual: 'false', http: true, httpPort: '0' },
      { tokens: 'abc def:read' },
      '/data/lightwire-scenes.json',
    );
    expect(o.broadcastAddresses).to.deep.equal(['192.168.1.255', '10.0.0.255']);
    expect(o.staticHosts).to.deep.equal(['10.1.1.5:56701', '10.1.1.6']);
    expect(o.sweepSubnets).to.deep.equal(['172.20.4.0/24']);
    expect(o).to.include({ lanPort: 56800, refreshIntervalMs: 2500, defaultDurationS: 0, answerTimeoutMs: 500, virtualLights: 0, scenesFile: '/data/lightwire-scenes.json' });
    expect(o.http).to.deep.equal({ host: '127.0.0.1', port: 0, tokens: ['abc', 'def:read'] });
    expect(Object.isFrozen(o)).to.equal(true);
    expect(configOptions({ virtual: 'true', virtualLights: '7' }).virtualLights).to.equal(7);
  });

  const bad: Array<[string, Record<string, unknown>, string]> = [
    ['a port out of range', { lanPort: 70000 }, 'lanPort'],
    ['a port that is not a number', { lanPort: 'seventy' }, 'lanPort'],
    ['a fractional port', { lanPort: 1.5 }, 'lanPort'],
    ['a port in hexadecimal', { lanPort: '0x10' }, 'lanPort'],
    ['a port in binary', { lanPort: '0b1' }, 'lanPort'],
    ['a negative refresh', { refreshS: -1 }, 'refreshS'],
    ['a refresh of -5 typed in', { refreshS: '-5' }, 'refreshS'],
    ['a refresh of Infinity', { refreshS: 'Infinity' }, 'refreshS'],
    ['a transition that is text', { durationS: 'slow' }, 'durationS'],
    ['a transition that is NaN', { durationS: 'NaN' }, 'durationS'],
    ['a zero timeout', { timeoutS: 0 }, 'timeoutS'],
    ['a timeout of two minutes', { timeoutS: '120' }, 'timeoutS'],
    ['too many virtual lights', { virtual: true, virtualLights: 100000 }, 'virtualLights'],
    ['1000 virtual lights', { virtual: true, virtualLights: '1000' }, 'virtualLights'],
    ['no virtual lights when they are on', { virtual: true, virtualLights: 0 }, 'virtualLights'],
    ['a fractional count of virtual lights', { virtual: true, virtualLights: 2.5 }, 'virtualLights'],
    ['a checkbox that is not a boolean', { virtual: 'yes' }, 'virtual'],
    ['an HTTP port that is text', { http: true, httpPort: 'web' }, 'httpPort'],
    ['an HTTP port out of range', { http: true, httpPort: 70000 }, 'httpPort'],
    ['a fractional HTTP port', { http: true, httpPort: '1.5' }, 'httpPort'],
    ['an HTTP host that is no address', { http: true, httpHost: '999.999.1.1' }, 'httpHost'],
    ['an HTTP host that is a URL', { http: true, httpHost: 'http://pc' }, 'httpHost'],
    ['a list that is a number', { hosts: 5 }, 'hosts'],
    ['a list with a non-string entry', { subnets: ['10.0.0.0/24', 7] }, 'subnets'],
    ['a name that is not a string', { name: 3 }, 'name'],
  ];
  for (const [what, props, option] of bad) {
    it(`refuses ${what} with OPTIONS_INVALID naming ${option}`, () => {
      expect(code(() => configOptions(props))).to.match(new RegExp(`^OPTIONS_INVALID \\{"option":"${option}"`));
    });
  }

  it('does not read a section that is switched off: virtual lights, the real-light finding, the HTTP API', () => {
    // Virtual lights off: their count is not read (the editor hides it).
    expect(configOptions({ virtual: false, virtualLights: 0 }).virtualLights).to.equal(0);
    expect(configOptions({ virtualLights: 2.5 }).virtualLights).to.equal(0);
    // HTTP off: its address and port are not read.
    expect(configOptions({ http: false, httpHost: 'http://pc', httpPort: 70000 }).http).to.equal(null);
    expect(configOptions({ httpHost: 'lights host', httpPort: '0x10' }).http).to.equal(null);
    // Virtual lights on: the real-light finding is not read.
    const o = configOptions({ virtual: true, virtualLights: 2, lanPort: 70000, broadcast: 5, hosts: [7], subnets: {} });
    expect(o).to.include({ lanPort: 56700, broadcastAddresses: null, virtualLights: 2 });
    expect(o.staticHosts).to.deep.equal([]);
    expect(o.sweepSubnets).to.deep.equal([]);
  });

  it('says what an HTTP host should be when it refuses one', () => {
    for (const httpHost of ['http://pc', 'pc:8080', '999.999.1.1', 'lights host']) {
      let message = '';
      try {
        configOptions({ http: true, httpHost });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message, httpHost).to.match(/^option httpHost must be an IP address such as 127\.0\.0\.1, 0\.0\.0\.0 or ::1, or a host name such as localhost; /);
      expect(message, httpHost).to.contain(JSON.stringify(httpHost));
    }
    expect(code(() => configOptions({ http: true, httpHost: 'http://pc' }))).to.contain('is a URL, not an address');
  });

  it('reads numbers written in decimal, with a fraction or an exponent, around spaces', () => {
    expect(configOptions({ lanPort: ' 56701 ', refreshS: '.5', durationS: '2.', timeoutS: '1e1' })).to.include({ lanPort: 56701, refreshIntervalMs: 500, defaultDurationS: 2, answerTimeoutMs: 10_000 });
    expect(configOptions({ lanPort: '', refreshS: '' }).lanPort).to.equal(56700);
  });

  it('splits lists on commas and white space only', () => {
    expect(listProp('hosts', ' a ,b\tc\n\nd ')).to.deep.equal(['a', 'b', 'c', 'd']);
  });

  it('turns virtual lights into a loopback-only discovery on their port', () => {
    const o = configOptions({ virtual: true, virtualLights: 3, broadcast: '192.168.1.255', refreshS: 0 });
    expect(serviceOptions(o, 41000)).to.deep.equal({
      discovery: { broadcastAddresses: ['127.255.255.255'], port: 41000, refreshIntervalMs: 0 },
      defaultDurationS: 1,
      expectLights: 3,
      // The client talks only to the virtual lights: it binds loopback, never every interface.
      transport: { bindAddress: '127.0.0.1' },
    });
  });

  it('passes real-light options through, and the timeout to both writes and reads', () => {
    const o = configOptions({ broadcast: '10.0.0.255', hosts: '10.0.1.9', subnets: '10.0.2.0/24', timeoutS: 2 }, {}, '/x/s.json');
    expect(serviceOptions(o, null)).to.deep.equal({
      discovery: { broadcastAddresses: ['10.0.0.255'], port: 56700, staticHosts: ['10.0.1.9'], sweepSubnets: ['10.0.2.0/24'], refreshIntervalMs: 10_000, readTimeoutMs: 2000 },
      deadlineMs: 2000,
      defaultDurationS: 1,
      scenes: '/x/s.json',
    });
  });
});

describe('nodes: products file', () => {
  it('passes a products file to the service, which lays it over the bundled registry (none when the field is empty)', () => {
    const o = configOptions({ productsFile: ' /data/products.json ' });
    expect(o.productsFile).to.equal('/data/products.json');
    expect(serviceOptions(o, null)).to.deep.include({ products: '/data/products.json' });
    expect(serviceOptions(configOptions({ productsFile: '' }), null)).to.not.have.property('products');
    expect(serviceOptions(configOptions({ virtual: true, productsFile: '/p.json' }), 41000)).to.deep.include({ products: '/p.json' });
  });

  it('refuses a products file that is not a string, naming the property', () => {
    expect(() => configOptions({ productsFile: 3 })).to.throw().that.satisfies((err: unknown) => isLightwireError(err, 'OPTIONS_INVALID') && err.params.option === 'productsFile');
  });
});

describe('nodes: set-state payloads', () => {
  const d = { fast: false, durationS: undefined };

  it('reads the shorthands', () => {
    expect(parsePayload('on', d)).to.deep.equal({ kind: 'setState', request: { power: 'on' }, fast: false });
    expect(parsePayload(' Off ', d)).to.deep.equal({ kind: 'setState', request: { power: 'off' }, fast: false });
    expect(parsePayload(true, d)).to.deep.equal({ kind: 'setState', request: { power: 'on' }, fast: false });
    expect(parsePayload('toggle', { fast: true, durationS: 2 })).to.deep.equal({ kind: 'toggle', request: { durationS: 2 }, fast: true });
    // Checked by the service's parser: the colour string is parsed once, here.
    expect(parsePayload('kelvin:2700', d)).to.deep.equal({ kind: 'setState', request: { color: { kelvin: 2700, saturation: 0 } }, fast: false });
    expect(parsePayload(0.4, d)).to.deep.equal({ kind: 'setState', request: { brightness: 0.4 }, fast: false });
  });

  it('maps HTTP API names to the service and fills in the node transition', () => {
    expect(parsePayload({ power: 'on', color: { hue: 10 }, duration: 3, fast: true }, { fast: false, durationS: 1 })).to.deep.equal({
      kind: 'setState',
      request: { power: 'on', color: { hue: 10 }, durationS: 3 },
      fast: true,
    });
    expect(parsePayload({ brightness: 1 }, { fast: false, durationS: 1 })).to.deep.equal({ kind: 'setState', request: { brightness: 1, durationS: 1 }, fast: false });
    expect(parsePayload({ effect: 'pulse', color: 'red', from_color: { kelvin: 2700 }, period: 2, power_on: false }, d)).to.deep.equal({
      kind: 'effect',
      effect: 'pulse',
      // Checked by the service's parser: colours parsed, the catalogue's defaults filled in.
      request: { color: { hue: 0, saturation: 1 }, fromColor: { kelvin: 2700 }, periodS: 2, cycles: 1, persist: false, powerOn: false },
      fast: false,
    });
    expect(parsePayload({ scene: 'Evening', duration: 2 }, d)).to.deep.equal({ kind: 'scene', scene: 'Evening', request: { durationS: 2 }, fast: false });
    expect(parsePayload({ capture: 'Evening' }, d)).to.deep.equal({ kind: 'capture', name: 'Evening' });
  });

  it('reads power in any case, in an object as in the shorthands', () => {
    for (const word of ['ON', 'On', ' on ']) expect(parsePayload({ power: word }, d)).to.deep.equal({ kind: 'setState', request: { power: 'on' }, fast: false });
    expect(parsePayload({ power: 'OFF', brightness: 0.5 }, d)).to.deep.equal({ kind: 'setState', request: { power: 'off', brightness: 0.5 }, fast: false });
    expect(parsePayload('ON', d)).to.deep.equal(parsePayload({ power: 'ON' }, d));
    expect(code(() => parsePayload({ power: 'maybe' }, d))).to.match(/^PARAMETER_INVALID \{"field":"payload.power"/);
    expect(code(() => parsePayload({ power: true }, d))).to.match(/^PARAMETER_INVALID \{"field":"payload.power"/);
  });

  it('offers every effect of the service', () => {
    expect(EFFECT_NAMES).to.deep.equal(['pulse', 'breathe', 'move', 'morph', 'flame', 'clouds', 'sunrise', 'sunset', 'off', 'clean']);
  });

  it('hands a colour object to the service as it is (the service checks its numbers), and refuses other shapes', () => {
    const hsbk = { hue: 120, saturation: 1, brightness: 0.5, kelvin: 3500 };
    expect(parsePayload({ effect: 'morph', palette: ['red', hsbk] }, d)).to.deep.equal({ kind: 'effect', effect: 'morph', request: { palette: [{ hue: 0, saturation: 1 }, hsbk], periodS: 5, powerOn: true }, fast: false });
    expect(code(() => parsePayload({ effect: 'pulse', color: 7 }, d))).to.match(/^PARAMETER_INVALID \{"field":"payload.color"/);
    expect(code(() => parsePayload({ effect: 'pulse', color: 'red', from_color: ['red'] }, d))).to.match(/^PARAMETER_INVALID \{"field":"payload.from_color"/);
    expect(code(() => parsePayload({ effect: 'morph', palette: ['red', 3] }, d))).to.match(/^PARAMETER_INVALID \{"field":"payload.palette\[1\]"/);
  });

  it('takes msg.selector over the node selector, and needs one of them', () => {
    expect(selectorOf('label:A', 'all')).to.equal('label:A');
    expect(selectorOf(undefined, ' group:B ')).to.equal('group:B');
    expect(code(() => selectorOf(undefined, ''))).to.equal('PARAMETER_MISSING {"field":"selector"}');
    // An empty or blank msg.selector is not given: the node's own selector stands.
    expect(selectorOf('', 'all')).to.equal('all');
    expect(selectorOf(' \t ', 'group:B')).to.equal('group:B');
    expect(code(() => selectorOf('  ', ''))).to.equal('PARAMETER_MISSING {"field":"selector"}');
    expect(code(() => selectorOf(1, 'all'))).to.match(/^PARAMETER_INVALID/);
  });
});

describe('nodes: status texts', () => {
  it('counts results per status, ok first', () => {
    const r = (status: 'ok' | 'timed_out' | 'offline') => ({ id: 'x', label: 'x', status });
    expect(resultsText([r('timed_out'), r('ok'), r('ok'), r('offline'), r('ok')])).to.equal('3 ok, 1 timed out, 1 offline');
    expect(resultsStatus([r('ok')])).to.deep.equal({ fill: 'green', shape: 'dot', text: '1 ok' });
    expect(resultsStatus([r('ok'), r('offline')]).fill).to.equal('yellow');
    expect(resultsStatus([r('offline')]).fill).to.equal('red');
  });

  it('words the health of a config node', () => {
    const h = (extra: Partial<Health>): Health => ({ state: 'ready', lights: 0, online: 0, offline: 0, error: null, httpUrl: null, httpError: null, ...extra });
    expect(healthText(h({ state: 'searching' }))).to.equal('searching');
    expect(healthText(h({ lights: 1, online: 1 }))).to.equal('1 light');
    expect(healthText(h({ lights: 5, online: 4, offline: 1 }))).to.equal('5 lights, 1 offline');
    expect(healthText(h({ state: 'failed', error: new LightwireError('OPTIONS_INVALID', { option: 'x', reason: 'y' }) }))).to.equal('failed: OPTIONS_INVALID');
    const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    expect(healthText(h({ lights: 5, online: 5, httpError: inUse }))).to.equal('5 lights, HTTP failed: EADDRINUSE');
    expect(healthStatus(h({ lights: 5, online: 5, httpError: inUse })).fill).to.equal('yellow');
    expect(healthStatus(h({ lights: 5, online: 5 })).fill).to.equal('green');
  });
});

describe('nodes: picker selectors', () => {
  const view = (serial: string, label: string, group: string | null): LightView =>
    ({ serial, label, online: true, group: group === null ? null : { id: `g-${group}`, name: group }, location: { id: 'l1', name: 'Home' } }) as unknown as LightView;

  it('names lights and groups by label, by id when the name holds a reserved character', () => {
    const list = selectorList(
      [view('d073d5000002', 'Desk, left', 'Office'), view('d073d5000001', 'Lamp', 'A|B'), view('d073d5000003', '', null)],
      { state: 'ready', lights: 3, online: 3, offline: 0, error: null, httpUrl: null, httpError: null },
    );
    expect(list.lights.map((l) => l.selector)).to.deep.equal(['id:d073d5000003', 'id:d073d5000002', 'label:Lamp']);
    expect(list.groups.map((g) => g.selector)).to.deep.equal(['group_id:g-A|B', 'group:Office']);
    expect(list.locations).to.deep.equal([{ selector: 'location:Home', label: 'Home', lights: 3 }]);
  });
});

describe('nodes: connection lifetime', () => {
  let clock: sinon.SinonFakeTimers;
  afterEach(() => clock?.restore());

  it('is idle until a user comes, and a failed configuration is passed to every user', async () => {
    const err = new LightwireError('OPTIONS_INVALID', { option: 'lanPort', reason: 'bad' });
    const c = new Connection(err, { warn: () => {}, error: () => {} });
    const seen: Health[] = [];
    c.acquire({ id: 'a', health: (h) => seen.push(h) });
    expect(seen.at(-1)?.state).to.equal('failed');
    let rejected: unknown;
    await c.service().catch((e: unknown) => (rejected = e));
    expect(rejected).to.equal(err);
    await c.close();
  });

  it('lets an operation in flight finish when it closes, then answers CLIENT_STOPPED', async () => {
    const c = new Connection(configOptions({ virtual: true, virtualLights: 2, refreshS: 0 }), { warn: () => {}, error: () => {} });
    c.acquire({ id: 'a', health: () => {} });
    await c.service();
    // The operation is under way when close() starts, and goes on (to the lights) only after it has.
    let entered = false;
    let goOn!: () => void;
    const closeStarted = new Promise<void>((resolve) => (goOn = resolve));
    const op = c.run(async (service) => {
      entered = true;
      await closeStarted;
      return service.setState('all', { power: 'off', durationS: 0 });
    });
    await until(() => entered, { what: 'the operation under way' });
    const closing = c.close();
    setImmediate(goOn);
    expect((await op).map((r) => r.status)).to.deep.equal(['ok', 'ok']);
    await closing;
    expect(c.peek()).to.equal(null);
    const after = await c.run(() => 1).catch((e: unknown) => e);
    expect(isLightwireError(after, 'CLIENT_STOPPED')).to.equal(true);
  });

  it('answers CLIENT_STOPPED, not LIGHTS_NOT_FOUND, to an operation still waiting for the first discovery when it closes', async () => {
    // No lights answer on this port: the first round is still being waited for when the connection closes.
    const c = new Connection(configOptions({ broadcast: '127.255.255.255', lanPort: 9, refreshS: 0 }), { warn: () => {}, error: () => {} }, { closeDrainMs: 100 });
    c.acquire({ id: 'a', health: () => {} });
    const op = c.run((service) => service.list('all')).catch((e: unknown) => e);
    // The service is started and the operation waits for its first round.
    await until(() => c.peek() !== null, { what: 'the service started' });
    const started = Date.now();
    await c.close();
    expect(Date.now() - started).to.be.below(1000);
    const outcome = await op;
    expect(isLightwireError(outcome, 'CLIENT_STOPPED'), String(outcome)).to.equal(true);
  });

  it('stops the service a grace period after its last user leaves, unless a user comes back', async () => {
    clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const c = new Connection(configOptions({ broadcast: '127.255.255.255', lanPort: 9, refreshS: 0 }), { warn: () => {}, error: () => {} }, { releaseGraceMs: 1000 });
    const a = { id: 'a', health: () => {} };
    c.acquire(a);
    await clock.tickAsync(0);
    c.release(a);
    await clock.tickAsync(900);
    c.acquire(a); // a redeploy brought it back in time
    await clock.tickAsync(2000);
    expect(c.health().state).to.not.equal('idle');
    c.release(a);
    await clock.tickAsync(1000);
    clock.restore();
    await until(() => c.health().state === 'idle', { timeoutMs: 200, what: 'the connection idle' });
    expect(c.health().state).to.equal('idle');
    expect(c.peek()).to.equal(null);
    await c.close();
  });
});

describe('nodes: messages in flight', () => {
  /** A node that records what it reports; done() throws as Node-RED's does for a message it cannot copy. */
  function rig(): { messages: MessagesInFlight; errors: string[]; warnings: string[]; dones: unknown[][] } {
    const errors: string[] = [];
    const warnings: string[] = [];
    const node = { status: () => {}, error: (text: string) => errors.push(text), warn: (text: string) => warnings.push(text) } as unknown as Node;
    return { messages: new MessagesInFlight(node), errors, warnings, dones: [] };
  }
  const uncopyable = (calls: unknown[][]) => (...args: unknown[]): void => {
    calls.push(args);
    throw new Error('the message cannot be copied for a Complete node');
  };

  it('reports a message whose done() throws on the way out (a Complete node), and finishes it only once', () => {
    const r = rig();
    const message = r.messages.begin(() => {}, uncopyable(r.dones));
    expect(() => message.done()).to.not.throw();
    expect(r.errors).to.have.length(1);
    expect(r.errors[0]).to.contain('the message cannot be copied for a Complete node');
    // A caller's catch that fails the message now does nothing: the message is already finished.
    message.fail(new Error('later'));
    message.done();
    expect(r.dones).to.deep.equal([[]]);
    expect(r.errors).to.have.length(1);
  });

  it('reports a failed message whose done(err) throws, and one finished at close without an error', () => {
    const failing = rig();
    failing.messages.begin(() => {}, uncopyable(failing.dones)).fail(new LightwireError('PARAMETER_INVALID', { field: 'payload', reason: 'bad' }));
    expect(failing.errors).to.have.length(1);
    expect(failing.errors[0]).to.match(/^PARAMETER_INVALID: .*could not be handed to Catch nodes/);
    const closing = rig();
    closing.messages.begin(() => {}, uncopyable(closing.dones));
    expect(() => closing.messages.close()).to.not.throw();
    expect(closing.dones).to.deep.equal([[]]);
    expect(closing.warnings).to.have.length(1);
  });
});
