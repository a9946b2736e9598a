import { expect } from 'chai';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { SCENE_IGNORE_KEYS, sceneStateToChange } from '../../core/control/scene-activation.js';
import { parseRequest } from '../../core/control/requests.js';
import type { SceneState } from '../../core/control/scene-file.js';
import { SceneStore, type SceneStoreFs } from '../../core/control/scene-store.js';
import type { LightView } from '../../core/control/types.js';
import { isLightwireError } from '../../core/errors.js';
import { PRODUCTS, type Hsbk } from '../../core/protocol/index.js';
import { quietFor, until } from '../helpers/wait.js';

const ACCOUNT = 'cc7e0336-43c8-4f00-b874-830690884adc';
const NIGHT = '1d52671c-99ba-4631-a563-2c31809b700d';
const WARM = '05bfb786-ec87-4766-a61a-8698b3e08b81';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function light(serial: string, over: Partial<LightView> = {}): LightView {
  const product = PRODUCTS.get(1, 22);
  return Object.freeze({
    serial,
    label: `Lamp ${serial.slice(-2)}`,
    online: true,
    group: null,
    location: null,
    product,
    capabilities: product.capabilities,
    power: 'on',
    color: { hue: 59.997253376058595, saturation: 1, brightness: 0.29999237048905164, kelvin: 3500 },
    infrared: null,
    zones: null,
    matrix: null,
    lastSeenAt: 0,
    address: '127.0.0.2',
    effect: 'OFF',
    relays: null,
    pixels: null,
    firmware: null,
    wifi: null,
    ambientLux: null,
    buttons: null,
    ...over,
  });
}

function irLight(serial: string, infrared: number): LightView {
  const product = PRODUCTS.get(1, 29);
  return light(serial, { product, capabilities: product.capabilities, infrared });
}

const warm: Hsbk = { hue: 0, saturation: 0, brightness: 0.1, kelvin: 2700 };

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const err = await rejection(promise);
  return isLightwireError(err) ? err.code : `not coded: ${String(err)}`;
}

function codeOfSync(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return isLightwireError(err) ? err.code : `not coded: ${String(err)}`;
  }
  return undefined;
}

describe('scene store', () => {
  let dir: string;
  let file: string;
  let clockMs: number;
  let logged: string[];
  const now = (): number => clockMs;

  const open = (options: Parameters<typeof SceneStore.open>[1] = {}): Promise<SceneStore> =>
    SceneStore.open(file, { accountUuid: ACCOUNT, now, log: (m) => logged.push(m), ...options });

  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'lightwire-scenes-'));
    file = path.join(dir, 'state', 'scenes.json');
    clockMs = 1_430_118_664_250;
    logged = [];
  });

  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  describe('opening', () => {
    it('treats a missing file as an empty store and creates it, with its directories, on the first write', async () => {
      const store = await open();
      expect(store.list()).to.deep.equal([]);
      expect(store.problem).to.equal(null);
      expect(store.filePath).to.equal(file);
      await fs.access(path.dirname(file)).then(
        () => expect.fail('nothing should be created before a write'),
        () => undefined,
      );

      await store.capture('Night time', [light('d073d5002bb3')]);
      const doc = JSON.parse(await fs.readFile(file, 'utf8')) as { version: number; scenes: unknown[] };
      expect(doc.version).to.equal(1);
      expect(doc.scenes).to.have.length(1);
    });

    it('reads a file that starts with a byte-order mark (as Windows editors write it)', async () => {
      const writer = await open();
      await writer.capture('Evening', [light('d073d5000001')]);
      await fs.writeFile(file, `\uFEFF${await fs.readFile(file, 'utf8')}`);
      const store = await open();
      expect(store.problem).to.equal(null);
      expect(store.list().map((s) => s.name)).to.deep.equal(['Evening']);
    });

    it('rejects a file it cannot read with SCENE_STORE_FAILED instead of starting empty', async () => {
      await fs.mkdir(file, { recursive: true });
      expect(await codeOf(open())).to.equal('SCENE_STORE_FAILED');
    });

    it('rejects bad options with OPTIONS_INVALID', async () => {
      expect(await codeOf(open({ accountUuid: 'me' }))).to.equal('OPTIONS_INVALID');
      expect(await codeOf(SceneStore.open(''))).to.equal('OPTIONS_INVALID');
    });
  });

  describe('capturing and listing', () => {
    it('lists captured scenes exactly in the shape of GET /scenes', async () => {
      const store = await open();
      await store.capture('Night time', [light('d073d5002bb3', { color: warm }), light('D073D5002B35', { power: 'off', color: warm })], {
        uuid: NIGHT,
      });
      expect(store.list()).to.deep.equal([
        {
          uuid: NIGHT,
          name: 'Night time',
          account: { uuid: ACCOUNT },
          states: [
            { brightness: 0.1, color: { hue: 0, saturation: 0, kelvin: 2700 }, power: 'on', selector: 'id:d073d5002bb3' },
            { brightness: 0.1, color: { hue: 0, saturation: 0, kelvin: 2700 }, power: 'off', selector: 'id:d073d5002b35' },
          ],
          created_at: 1430118664,
          updated_at: 1430118664,
        },
      ]);
      const json = JSON.parse(JSON.stringify(store.list())) as Record<string, unknown>[];
      expect(Object.keys(json[0] ?? {})).to.deep.equal(['uuid', 'name', 'account', 'states', 'created_at', 'updated_at']);
    });

    it('keeps colour values in user units, unrounded, and defaults to a random v4 uuid and the local account', async () => {
      const store = await SceneStore.open(file, { now });
      const scene = await store.capture('Lamp', [light('d073d5141876')]);
      expect(scene.uuid).to.match(UUID_V4);
      expect(scene.account.uuid).to.equal('00000000-0000-0000-0000-000000000000');
      expect(scene.states).to.deep.equal([
        {
          brightness: 0.29999237048905164,
          color: { hue: 59.997253376058595, saturation: 1, kelvin: 3500 },
          power: 'on',
          selector: 'id:d073d5141876',
        },
      ]);
      expect(Object.isFrozen(scene)).to.equal(true);
      expect(Object.isFrozen(scene.states[0])).to.equal(true);
    });

    it('captures infrared for infrared lights only, leaves out what is not known yet and keeps each light once', async () => {
      const store = await open();
      const scene = await store.capture('Porch', [
        irLight('d073d5000001', 0.5),
        light('d073d5000002', { infrared: 0.7 }),
        light('d073d5000003', { power: null, color: null }),
        light('d073d5000001', { power: 'off' }),
        light('d073d5000004', { color: { hue: 10, saturation: 0.5, brightness: 1, kelvin: 12000 } }),
      ]);
      expect(scene.states.map((s) => s.selector)).to.deep.equal([
        'id:d073d5000001',
        'id:d073d5000002',
        'id:d073d5000003',
        'id:d073d5000004',
      ]);
      expect(scene.states[0]?.infrared).to.equal(0.5);
      expect(scene.states[0]?.power).to.equal('on');
      expect(scene.states[1]).to.not.have.property('infrared');
      expect(scene.states[2]).to.deep.equal({ selector: 'id:d073d5000003' });
      // Kelvin is clamped to the API's 1500-9000 so that what is captured always loads again.
      expect(scene.states[3]?.color?.kelvin).to.equal(9000);
      const reopened = await open();
      expect(reopened.problem).to.equal(null);
      expect(reopened.list()).to.deep.equal([scene]);
    });

    it('sorts the list by name, then uuid', async () => {
      const store = await open();
      await store.capture('b', [light('d073d5000001')], { uuid: 'ffffffff-0000-4000-8000-000000000000' });
      await store.capture('a', [light('d073d5000001')], { uuid: WARM });
      await store.capture('B', [light('d073d5000001')], { uuid: NIGHT });
      expect(store.list().map((s) => s.name)).to.deep.equal(['B', 'a', 'b']);
    });

    it('gets a scene by uuid, case-insensitively, and answers SCENE_NOT_FOUND for an unknown one', async () => {
      const store = await open();
      await store.capture('Night time', [light('d073d5002bb3')], { uuid: NIGHT });
      expect(store.get(NIGHT.toUpperCase()).name).to.equal('Night time');
      expect(codeOfSync(() => store.get(WARM))).to.equal('SCENE_NOT_FOUND');
      expect(store.sceneSelectors(NIGHT)).to.deep.equal(['id:d073d5002bb3']);
      expect(store.sceneSelectors(WARM)).to.equal(undefined);
    });

    it('sees every scene after a restart', async () => {
      const first = await open();
      await first.capture('Night time', [light('d073d5002bb3', { color: warm })], { uuid: NIGHT });
      await first.capture('Warm', [light('d073d5002bb3'), irLight('d073d5002b35', 1)], { uuid: WARM });
      await first.remove(NIGHT);
      await first.capture('Night time', [light('d073d5002bb3')]);

      const second = await open();
      expect(second.problem).to.equal(null);
      expect(second.list()).to.deep.equal(first.list());
      expect(second.list().map((s) => s.name)).to.deep.equal(['Night time', 'Warm']);
    });

    it('replaces a scene captured again under the same name: same uuid and created_at, new updated_at and states', async () => {
      const store = await open();
      const before = await store.capture('Reading', [light('d073d5000001')]);
      clockMs += 90_000;
      const after = await store.capture('  Reading ', [light('d073d5000002', { power: 'off' })]);
      expect(after.uuid).to.equal(before.uuid);
      expect(after.created_at).to.equal(before.created_at);
      expect(after.updated_at).to.equal(before.updated_at + 90);
      expect(after.states.map((s) => s.selector)).to.deep.equal(['id:d073d5000002']);
      expect(store.list()).to.have.length(1);
      expect((await open()).list()).to.deep.equal([after]);
    });

    it('replaces a scene captured again under its uuid, taking the new name', async () => {
      const store = await open();
      const before = await store.capture('Reading', [light('d073d5000001')], { uuid: NIGHT });
      clockMs += 5_000;
      const after = await store.capture('Late reading', [light('d073d5000001')], { uuid: NIGHT });
      expect(after.created_at).to.equal(before.created_at);
      expect(after.updated_at).to.equal(before.updated_at + 5);
      expect(store.list().map((s) => [s.uuid, s.name])).to.deep.equal([[NIGHT, 'Late reading']]);
    });

    it('refuses a capture whose name belongs to another scene than the uuid given', async () => {
      const store = await open();
      await store.capture('Reading', [light('d073d5000001')], { uuid: NIGHT });
      expect(await codeOf(store.capture('Reading', [light('d073d5000001')], { uuid: WARM }))).to.equal('PARAMETER_INVALID');
      expect(store.list().map((s) => s.uuid)).to.deep.equal([NIGHT]);
    });

    it('validates names (1-64 characters), uuids and the list of lights with PARAMETER_INVALID', async () => {
      const store = await open();
      const lamp = [light('d073d5000001')];
      const invalid = async (p: Promise<unknown>): Promise<string | undefined> => {
        const err = await rejection(p);
        return isLightwireError(err, 'PARAMETER_INVALID') ? err.params.field : `not PARAMETER_INVALID: ${String(err)}`;
      };
      expect(await invalid(store.capture('', lamp))).to.equal('name');
      expect(await invalid(store.capture('   ', lamp))).to.equal('name');
      expect(await invalid(store.capture('x'.repeat(65), lamp))).to.equal('name');
      expect(await invalid(store.capture(42 as unknown as string, lamp))).to.equal('name');
      expect(await invalid(store.capture('ok', lamp, { uuid: 'scene-1' }))).to.equal('uuid');
      expect(await invalid(store.capture('ok', []))).to.equal('lights');
      expect(await invalid(store.capture('ok', [light('lamp')]))).to.equal('lights[0]');
      expect(store.list()).to.deep.equal([]);
      expect((await store.capture('x'.repeat(64), lamp)).name).to.have.length(64);
      expect((await store.capture('🌙'.repeat(64), lamp)).name).to.equal('🌙'.repeat(64));
    });
  });

  describe('removing and renaming', () => {
    it('removes a scene, answers false for an unknown one, and the removal survives a restart', async () => {
      const store = await open();
      await store.capture('Night time', [light('d073d5002bb3')], { uuid: NIGHT });
      await store.capture('Warm', [light('d073d5002bb3')], { uuid: WARM });
      expect(await store.remove(NIGHT)).to.equal(true);
      expect(await store.remove(NIGHT)).to.equal(false);
      expect(store.list().map((s) => s.uuid)).to.deep.equal([WARM]);
      expect((await open()).list().map((s) => s.uuid)).to.deep.equal([WARM]);
    });

    it('renames a scene, moving updated_at, and refuses unknown scenes, bad names and names in use', async () => {
      const store = await open();
      const night = await store.capture('Night time', [light('d073d5002bb3')], { uuid: NIGHT });
      await store.capture('Warm', [light('d073d5002bb3')], { uuid: WARM });
      clockMs += 3_000;
      const renamed = await store.rename(NIGHT, 'Bedtime');
      expect(renamed).to.include({ uuid: NIGHT, name: 'Bedtime', created_at: night.created_at, updated_at: night.updated_at + 3 });
      expect(renamed.states).to.deep.equal(night.states);
      expect(await codeOf(store.rename(NIGHT, 'Warm'))).to.equal('PARAMETER_INVALID');
      expect(await codeOf(store.rename(NIGHT, ''))).to.equal('PARAMETER_INVALID');
      expect(await codeOf(store.rename('00000000-0000-4000-8000-000000000000', 'Other'))).to.equal('SCENE_NOT_FOUND');
      expect((await open()).get(NIGHT).name).to.equal('Bedtime');
    });
  });

  describe('corrupt files', () => {
    async function expectMovedAside(bytes: string | Buffer): Promise<SceneStore> {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, bytes);
      const store = await open();
      expect(store.problem?.code).to.equal('SCENE_STORE_CORRUPT');
      const movedTo = store.problem?.params.movedTo ?? '';
      expect(movedTo).to.equal(`${file}.corrupt-${clockMs}`);
      expect(store.problem?.params.path).to.equal(file);
      expect(await fs.readFile(movedTo)).to.deep.equal(Buffer.from(bytes));
      expect(store.list()).to.deep.equal([]);
      expect(logged).to.have.length(1);
      expect(logged[0]).to.include(movedTo);
      await fs.access(file).then(
        () => expect.fail('the corrupt file should no longer be at its path'),
        () => undefined,
      );
      return store;
    }

    it('moves a file that is not JSON aside, keeping its bytes, reports SCENE_STORE_CORRUPT and starts empty', async () => {
      const bytes = '{"version":1,"scenes":[{"uuid":"1d52671c-99ba-4631-a563-2c31809b700d", "na';
      const store = await expectMovedAside(bytes);
      expect(store.problem?.params.reason).to.match(/JSON/);

      await store.capture('Fresh', [light('d073d5000001')]);
      expect(await fs.readFile(`${file}.corrupt-${clockMs}`, 'utf8')).to.equal(bytes);
      expect((await open()).list().map((s) => s.name)).to.deep.equal(['Fresh']);
    });

    it('read-only, reports a corrupt file and leaves it where it is, and refuses every change', async () => {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, '[1, 2, 3]');
      const store = await open({ readOnly: true });
      expect(store.problem?.code).to.equal('SCENE_STORE_CORRUPT');
      expect(store.problem?.params.movedTo).to.equal(null);
      expect(logged).to.have.length(1);
      expect(logged[0]).to.match(/scene file .*scenes\.json is not valid \(.*\); it was left as it is$/);
      expect(store.list()).to.deep.equal([]);
      expect(await fs.readFile(file, 'utf8')).to.equal('[1, 2, 3]');
      expect(await fs.readdir(path.dirname(file))).to.deep.equal(['scenes.json']);
      const err = await store.capture('New', [light('d073d5000001')]).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isLightwireError(err, 'SCENE_STORE_FAILED') && err.message).to.match(/it was opened read-only/);
      expect(await fs.readFile(file, 'utf8')).to.equal('[1, 2, 3]');
    });

    it('read-only, reads a valid file as usual', async () => {
      const writer = await open();
      await writer.capture('Kept', [light('d073d5000001')]);
      const reader = await open({ readOnly: true });
      expect(reader.problem).to.equal(null);
      expect(reader.list().map((s) => s.name)).to.deep.equal(['Kept']);
      expect(await codeOf(reader.remove(reader.list()[0]!.uuid))).to.equal('SCENE_STORE_FAILED');
      expect((await open()).list().map((s) => s.name)).to.deep.equal(['Kept']);
    });

    it('moves an empty file aside rather than treating it as an empty store', async () => {
      await expectMovedAside('');
    });

    const valid = {
      uuid: NIGHT,
      name: 'Night time',
      account: { uuid: ACCOUNT },
      states: [{ brightness: 0.1, selector: 'id:d073d5002bb3' }],
      created_at: 1430118664,
      updated_at: 1430118664,
    };
    const invalidDocuments: [string, unknown][] = [
      ['a brightness above 1', { version: 1, scenes: [{ ...valid, states: [{ brightness: 1.5, selector: 'id:d073d5002bb3' }] }] }],
      ['a state without a selector', { version: 1, scenes: [{ ...valid, states: [{ brightness: 0.1 }] }] }],
      ['a selector that is not a string', { version: 1, scenes: [{ ...valid, states: [{ selector: 7 }] }] }],
      ['a hue above 360', { version: 1, scenes: [{ ...valid, states: [{ selector: 'all', color: { hue: 361, saturation: 0, kelvin: 3500 } }] }] }],
      ['a kelvin below 1500', { version: 1, scenes: [{ ...valid, states: [{ selector: 'all', color: { hue: 0, saturation: 0, kelvin: 1000 } }] }] }],
      ['a power that is not on or off', { version: 1, scenes: [{ ...valid, states: [{ selector: 'all', power: 'dim' }] }] }],
      ['a scene without a name', { version: 1, scenes: [{ ...valid, name: '' }] }],
      ['a scene with a bad uuid', { version: 1, scenes: [{ ...valid, uuid: 'night' }] }],
      ['a uuid used twice', { version: 1, scenes: [valid, { ...valid, name: 'Again' }] }],
      ['a timestamp in milliseconds as a string', { version: 1, scenes: [{ ...valid, created_at: '1430118664000' }] }],
      ['an unknown key', { version: 1, scenes: [{ ...valid, colour: 'red' }] }],
      ['a brightness inside the colour above 1', { version: 1, scenes: [{ ...valid, states: [{ selector: 'all', color: { hue: 0, saturation: 0, kelvin: 3500, brightness: 2 } }] }] }],
      ['another version', { version: 2, scenes: [] }],
      ['a bare array', [valid]],
    ];
    for (const [what, doc] of invalidDocuments) {
      it(`moves a file with ${what} aside`, async () => {
        await expectMovedAside(JSON.stringify(doc));
      });
    }

    it('never overwrites an earlier moved-aside file', async () => {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, 'first');
      const first = await open();
      await fs.writeFile(file, 'second');
      const second = await open();
      expect(first.problem?.params.movedTo).to.equal(`${file}.corrupt-${clockMs}`);
      expect(second.problem?.params.movedTo).to.equal(`${file}.corrupt-${clockMs}-2`);
      expect(await fs.readFile(`${file}.corrupt-${clockMs}`, 'utf8')).to.equal('first');
      expect(await fs.readFile(`${file}.corrupt-${clockMs}-2`, 'utf8')).to.equal('second');
    });

    it('refuses to open when a corrupt file cannot be moved aside, so it is never overwritten later', async () => {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, 'not json');
      const failingRename: SceneStoreFs = {
        ...fs,
        rename: async () => {
          throw Object.assign(new Error('read-only file system'), { code: 'EROFS' });
        },
      };
      expect(await codeOf(open({ fs: failingRename }))).to.equal('SCENE_STORE_FAILED');
      expect(await fs.readFile(file, 'utf8')).to.equal('not json');
    });

    it('accepts a hand-written file with durations and infrared, and without optional values', async () => {
      const doc = {
        version: 1,
        scenes: [{ ...valid, states: [{ selector: 'id:d073d5002bb3' }, { selector: 'group:Porch', infrared: 1, duration: 4 }] }],
      };
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, JSON.stringify(doc));
      const store = await open();
      expect(store.problem).to.equal(null);
      expect(store.list()).to.deep.equal(doc.scenes);
    });

    it('accepts a brightness inside the colour, as some cloud scene payloads carry it, unless the state has its own', async () => {
      const color = { hue: 0, saturation: 0, kelvin: 2700, brightness: 0.5 };
      const doc = {
        version: 1,
        scenes: [{ ...valid, states: [{ selector: 'id:d073d5002bb3', color }, { selector: 'group:Porch', brightness: 0.2, color }] }],
      };
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, JSON.stringify(doc));
      const store = await open();
      expect(store.problem).to.equal(null);
      const plain = { hue: 0, saturation: 0, kelvin: 2700 };
      expect(store.list()[0]!.states).to.deep.equal([
        { brightness: 0.5, color: plain, selector: 'id:d073d5002bb3' },
        { brightness: 0.2, color: plain, selector: 'group:Porch' },
      ]);
    });
  });

  describe('writing', () => {
    it('persists two captures made at the same time', async () => {
      const store = await open();
      const [a, b] = await Promise.all([
        store.capture('Morning', [light('d073d5000001')]),
        store.capture('Evening', [light('d073d5000002')]),
      ]);
      expect(store.list().map((s) => s.uuid).sort()).to.deep.equal([a.uuid, b.uuid].sort());
      expect((await open()).list().map((s) => s.name)).to.deep.equal(['Evening', 'Morning']);
    });

    it('applies many concurrent changes in the order they were made', async () => {
      const store = await open();
      const changes = [
        store.capture('One', [light('d073d5000001')], { uuid: NIGHT }),
        store.capture('Two', [light('d073d5000002')], { uuid: WARM }),
        store.rename(NIGHT, 'Uno'),
        store.remove(WARM),
        store.capture('Three', [light('d073d5000003')]),
        store.capture('Three', [light('d073d5000004')]),
      ];
      await Promise.all(changes);
      const names = (await open()).list().map((s) => [s.name, s.states[0]?.selector]);
      expect(names).to.deep.equal([
        ['Three', 'id:d073d5000004'],
        ['Uno', 'id:d073d5000001'],
      ]);
    });

    it('writes through a temp file and leaves nothing but the scene file behind', async () => {
      const store = await open();
      await Promise.all(Array.from({ length: 10 }, (_, i) => store.capture(`Scene ${i}`, [light('d073d5000001')])));
      await store.remove(store.list()[0]?.uuid ?? '');
      expect(await fs.readdir(path.dirname(file))).to.deep.equal(['scenes.json']);
      const doc = JSON.parse(await fs.readFile(file, 'utf8')) as { version: number; scenes: { name: string }[] };
      expect(Object.keys(doc)).to.deep.equal(['version', 'scenes']);
      expect(doc.scenes.map((s) => s.name)).to.deep.equal(store.list().map((s) => s.name));
    });

    it('rejects with SCENE_STORE_FAILED, at once, for a folder that cannot be created (under /proc), and under a file', async () => {
      const underProc = await SceneStore.open('/proc/lightwire-nope/scenes/scenes.json', { accountUuid: ACCOUNT });
      const err = await rejection(underProc.capture('Evening', [light('d073d5000001')]));
      expect(isLightwireError(err, 'SCENE_STORE_FAILED')).to.equal(true);
      expect((err as Error).message).to.match(/cannot write it: ENOENT/);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(path.join(path.dirname(file), 'plain'), 'x');
      const underFile = await rejection(SceneStore.open(path.join(path.dirname(file), 'plain', 'scenes.json'), { accountUuid: ACCOUNT }));
      expect(isLightwireError(underFile, 'SCENE_STORE_FAILED')).to.equal(true);
      expect((underFile as Error).message).to.match(/ENOTDIR/);
    });

    it('rejects with SCENE_STORE_FAILED when the rename fails, keeping memory unchanged and no temp file', async () => {
      const store = await open();
      await store.capture('Kept', [light('d073d5000001')]);
      const before = store.list();
      // Running as root, permissions do not stop writes; a directory at the target path makes rename fail.
      await fs.rm(file);
      await fs.mkdir(file);
      const err = await rejection(store.capture('Lost', [light('d073d5000002')]));
      expect(isLightwireError(err, 'SCENE_STORE_FAILED')).to.equal(true);
      expect(isLightwireError(err, 'SCENE_STORE_FAILED') && err.params.path).to.equal(file);
      expect(store.list()).to.deep.equal(before);
      expect(await fs.readdir(path.dirname(file))).to.deep.equal(['scenes.json']);
      expect((await fs.stat(file)).isDirectory()).to.equal(true);
    });

    it('keeps the previous file byte for byte when a write fails, and later writes still go through', async () => {
      let failRename = false;
      let failSync = false;
      const flaky: SceneStoreFs = {
        ...fs,
        rename: async (from, to) => {
          if (failRename) throw Object.assign(new Error('input/output error'), { code: 'EIO' });
          return fs.rename(from, to);
        },
        open: (async (p: string, flags: string, mode?: number) => {
          const handle = await fs.open(p, flags, mode);
          if (!failSync || flags !== 'wx') return handle;
          return Object.assign(Object.create(handle) as fs.FileHandle, {
            sync: async () => {
              throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
            },
            writeFile: handle.writeFile.bind(handle),
            close: handle.close.bind(handle),
          });
        }) as SceneStoreFs['open'],
      };
      const store = await open({ fs: flaky });
      await store.capture('Kept', [light('d073d5000001')], { uuid: NIGHT });
      const bytes = await fs.readFile(file);
      const before = store.list();

      failRename = true;
      expect(await codeOf(store.capture('Lost', [light('d073d5000002')]))).to.equal('SCENE_STORE_FAILED');
      expect(await codeOf(store.remove(NIGHT))).to.equal('SCENE_STORE_FAILED');
      expect(await codeOf(store.rename(NIGHT, 'Gone'))).to.equal('SCENE_STORE_FAILED');
      failRename = false;
      failSync = true;
      expect(await codeOf(store.capture('Lost', [light('d073d5000002')]))).to.equal('SCENE_STORE_FAILED');

      expect(await fs.readFile(file)).to.deep.equal(bytes);
      expect(store.list()).to.deep.equal(before);
      expect(await fs.readdir(path.dirname(file))).to.deep.equal(['scenes.json']);

      failSync = false;
      await store.capture('Later', [light('d073d5000003')]);
      expect((await open()).list().map((s) => s.name)).to.deep.equal(['Kept', 'Later']);
    });
  });

  describe('a file shared with other processes', () => {

    it("keeps the other process's scenes: a change applies to the file as it is now, not as it was at open", async () => {
      const homebridge = await open();
      const cli = await open();
      await homebridge.capture('Evening', [light('d073d5000001')], { uuid: NIGHT });
      // The CLI's store was opened before: its change must not write over Evening.
      await cli.capture('Morning', [light('d073d5000002')], { uuid: WARM });
      expect(cli.list().map((s) => s.name)).to.deep.equal(['Evening', 'Morning']);
      expect((await open()).list().map((s) => s.name)).to.deep.equal(['Evening', 'Morning']);
      // And back: Homebridge renames its scene without losing Morning.
      await homebridge.rename(NIGHT, 'Night');
      expect((await open()).list().map((s) => s.name)).to.deep.equal(['Morning', 'Night']);
      expect(homebridge.list().map((s) => s.name)).to.deep.equal(['Morning', 'Night']);
    });

    it('reload() takes in a change made elsewhere, or a removed file (no scenes), and says whether anything changed', async () => {
      const store = await open();
      const other = await open();
      expect(await store.reload()).to.equal(false);
      await other.capture('Evening', [light('d073d5000001')], { uuid: NIGHT });
      expect(store.list()).to.deep.equal([]);
      expect(await store.reload()).to.equal(true);
      expect(store.list().map((s) => s.uuid)).to.deep.equal([NIGHT]);
      expect(store.get(NIGHT).name).to.equal('Evening');
      // Touched, the same scenes: nothing changed.
      await fs.utimes(file, new Date(), new Date(Date.now() + 5000));
      expect(await store.reload()).to.equal(false);
      await fs.rm(file);
      expect(await store.reload()).to.equal(true);
      expect(store.list()).to.deep.equal([]);
    });

    it('refuses to write over a file someone left invalid, changing nothing, and carries on once it is fixed', async () => {
      const store = await open();
      await store.capture('Evening', [light('d073d5000001')], { uuid: NIGHT });
      const good = await fs.readFile(file, 'utf8');
      const halfEdited = good.slice(0, good.length - 10);
      await fs.writeFile(file, halfEdited);
      const err = await rejection(store.capture('Morning', [light('d073d5000002')], { uuid: WARM }));
      expect(isLightwireError(err, 'SCENE_STORE_FAILED')).to.equal(true);
      expect((err as Error).message).to.match(/changed on disk and is not valid now/);
      expect(await codeOf(store.reload())).to.equal('SCENE_STORE_FAILED');
      expect(await fs.readFile(file, 'utf8')).to.equal(halfEdited);
      expect(store.list().map((s) => s.name)).to.deep.equal(['Evening']);
      // Fixed by hand, with a scene of its own: the next change keeps it.
      const fixed = JSON.parse(good) as { scenes: { name: string }[] };
      fixed.scenes[0]!.name = 'Dusk';
      await fs.writeFile(file, JSON.stringify(fixed));
      await store.capture('Morning', [light('d073d5000002')], { uuid: WARM });
      expect((await open()).list().map((s) => s.name)).to.deep.equal(['Dusk', 'Morning']);
    });

    it('watch() tells onChange listeners of scenes another process wrote, says a broken file once, and stops', async () => {
      // Its looks at the file, counted (each starts with a stat of it).
      let looks = 0;
      const store = await open({ fs: { ...fs, stat: ((...args: Parameters<typeof fs.stat>) => (looks++, fs.stat(...args))) as typeof fs.stat } });
      const other = await open();
      const heard: string[][] = [];
      const off = store.onChange((scenes) => heard.push(scenes.map((s) => s.name)));
      store.onChange(() => {
        throw new Error('a listener that throws');
      });
      const stop = store.watch({ intervalMs: 20 });
      await other.capture('Evening', [light('d073d5000001')], { uuid: NIGHT });
      await until(() => heard.length > 0, { timeoutMs: 1000, what: 'the change heard' });
      expect(heard).to.deep.equal([['Evening']]);
      expect(store.list().map((s) => s.name)).to.deep.equal(['Evening']);
      // A change made here is heard too.
      await store.capture('Morning', [light('d073d5000002')], { uuid: WARM });
      expect(heard).to.deep.equal([['Evening'], ['Evening', 'Morning']]);
      await fs.writeFile(file, '{ "version": 1, "scenes": [');
      await until(() => logged.some((m) => /not valid now/.test(m)), { what: 'the broken file logged' });
      // Said once, not at every look: five more looks at the broken file.
      const looked = looks;
      await until(() => looks >= looked + 5, { what: 'five more looks at the file' });
      expect(logged.filter((m) => /not valid now/.test(m))).to.have.length(1);
      expect(store.list().map((s) => s.name)).to.deep.equal(['Evening', 'Morning']);
      stop();
      off();
      await fs.rm(file);
      // A negative window: nothing heard once stopped. It outlasts five looks (intervalMs 20).
      await quietFor(100);
      expect(store.list().map((s) => s.name)).to.deep.equal(['Evening', 'Morning']);
      expect(heard).to.have.length(2);
      expect(codeOfSync(() => store.watch({ intervalMs: 0 }))).to.equal('OPTIONS_INVALID');
      expect(codeOfSync(() => store.watch({ onError: 'log' as never }))).to.equal('OPTIONS_INVALID');
    });
  });
});

describe('sceneStateToChange', () => {
  const state: SceneState = {
    brightness: 0.4,
    color: { hue: 120, saturation: 0.8, kelvin: 3500 },
    infrared: 0.6,
    power: 'on',
    selector: 'id:d073d5000001',
  };

  it('sends every stored value with the default 1 s duration when activated plainly', () => {
    expect(sceneStateToChange(state, {})).to.deep.equal({
      selector: 'id:d073d5000001',
      power: 'on',
      color: { hue: 120, saturation: 0.8, kelvin: 3500 },
      brightness: 0.4,
      infrared: 0.6,
      durationS: 1,
    });
    expect(sceneStateToChange({ selector: 'all' })).to.deep.equal({ selector: 'all', durationS: 1 });
    expect(Object.isFrozen(sceneStateToChange(state))).to.equal(true);
  });

  it('lets the activation duration override the stored one, which otherwise applies', () => {
    const stored: SceneState = { ...state, duration: 4 };
    expect(sceneStateToChange(stored).durationS).to.equal(4);
    expect(sceneStateToChange(stored, { durationS: 2 }).durationS).to.equal(2);
    expect(sceneStateToChange(stored, { durationS: 0 }).durationS).to.equal(0);
    expect(sceneStateToChange(stored, { durationS: 2, overrides: { durationS: 7 } }).durationS).to.equal(7);
  });

  // With a stored duration of 4 s: what each ignore key leaves of the scene.
  const stored: SceneState = { ...state, duration: 4 };
  const all = { selector: state.selector, power: 'on', color: state.color, brightness: 0.4, infrared: 0.6, durationS: 4 };
  const expectedWithout: Record<(typeof SCENE_IGNORE_KEYS)[number], Record<string, unknown>> = {
    power: { ...all, power: undefined },
    infrared: { ...all, infrared: undefined },
    duration: { ...all, durationS: 1 },
    intensity: { ...all, brightness: undefined },
    brightness: { ...all, brightness: undefined },
    hue: { ...all, color: { saturation: 0.8, kelvin: 3500 } },
    saturation: { ...all, color: { hue: 120, kelvin: 3500 } },
    kelvin: { ...all, color: { hue: 120, saturation: 0.8 } },
  };
  for (const key of SCENE_IGNORE_KEYS) {
    it(`leaves out the scene's ${key} when told to ignore it`, () => {
      const expected = Object.fromEntries(Object.entries(expectedWithout[key]).filter(([, v]) => v !== undefined));
      expect(sceneStateToChange(stored, { ignore: [key] })).to.deep.equal(expected);
    });
  }

  it('drops the colour when hue, saturation and kelvin are all ignored, and uses the activation duration when duration is', () => {
    const change = sceneStateToChange({ ...state, duration: 4 }, { ignore: ['hue', 'saturation', 'kelvin', 'duration'], durationS: 3 });
    expect(change).to.not.have.property('color');
    expect(change.durationS).to.equal(3);
  });

  it('replaces the scene values with the overrides, a colour string replacing the colour entirely', () => {
    expect(
      sceneStateToChange(state, { overrides: { power: 'off', color: 'blue saturation:0.5', brightness: 0.9, infrared: 0, durationS: 5 } }),
    ).to.deep.equal({
      selector: 'id:d073d5000001',
      power: 'off',
      colorString: 'blue saturation:0.5',
      brightness: 0.9,
      infrared: 0,
      durationS: 5,
    });
    expect(sceneStateToChange(state, { overrides: { brightness: 0.2 } })).to.deep.equal({
      selector: 'id:d073d5000001',
      power: 'on',
      color: { hue: 120, saturation: 0.8, kelvin: 3500 },
      brightness: 0.2,
      infrared: 0.6,
      durationS: 1,
    });
    const colourOnly = sceneStateToChange(state, { overrides: { color: 'kelvin:2700' } });
    expect(colourOnly.colorString).to.equal('kelvin:2700');
    expect(colourOnly).to.not.have.property('color');
    expect(colourOnly.brightness).to.equal(0.4);
  });

  it('applies overrides even to properties the activation ignores', () => {
    const change = sceneStateToChange(state, { ignore: ['power', 'brightness'], overrides: { power: 'off' } });
    expect(change.power).to.equal('off');
    expect(change).to.not.have.property('brightness');
  });

  it('rejects unknown ignore keys and out-of-range values with PARAMETER_INVALID, checked once by the parser', () => {
    const field = (activate: unknown): string | undefined => {
      try {
        sceneStateToChange(state, parseRequest('activateScene', activate, { vocabulary: 'library' }));
      } catch (err) {
        return isLightwireError(err, 'PARAMETER_INVALID') ? err.params.field : `not PARAMETER_INVALID: ${String(err)}`;
      }
      return undefined;
    };
    expect(field({ ignore: ['colour'] })).to.equal('ignore[0]');
    expect(field({ durationS: -1 })).to.equal('durationS');
    expect(field({ durationS: Number.NaN })).to.equal('durationS');
    expect(field({ overrides: { brightness: 2 } })).to.equal('overrides.brightness');
    expect(field({ overrides: { infrared: -0.1 } })).to.equal('overrides.infrared');
    expect(field({ overrides: { power: 'dim' } })).to.equal('overrides.power');
    expect(field({ overrides: { durationS: Infinity } })).to.equal('overrides.durationS');
  });
});
