import { expect } from 'chai';
import fc from 'fast-check';
import type { Capabilities } from '../../core/protocol/index.js';
import {
  formatSelector,
  MAX_SELECTORS,
  parseSelectors,
  resolveSelectors,
  type ResolveSelectorsOptions,
} from '../../core/control/selectors.js';
import type { GroupRef, LightView, ResolvedLight, Selector, SelectorKind } from '../../core/control/types.js';
import { isLightwireError, type ErrorCode, type LightwireError } from '../../core/errors.js';

function thrown<C extends ErrorCode>(code: C, fn: () => unknown): LightwireError<C> {
  try {
    fn();
  } catch (err) {
    if (isLightwireError(err, code)) return err;
    throw new Error(`expected ${code}, got ${String(err)}`);
  }
  throw new Error(`expected ${code}, nothing was thrown`);
}

const PLAIN: Capabilities = Object.freeze({
  color: true,
  variableColorTemp: true,
  kelvinRange: { minK: 1500, maxK: 9000 },
  infrared: false,
  multizone: false,
  extendedMultizone: false,
  matrix: false,
  chain: false,
  hev: false,
  relays: false,
  buttons: false,
  unhandled: false,
  isLight: true,
});
const MULTIZONE: Capabilities = Object.freeze({ ...PLAIN, multizone: true, extendedMultizone: true });

const UPSTAIRS: GroupRef = { id: '1c8de82b81f445e7cfaafae49b259c71', name: 'Upstairs' };
const DOWNSTAIRS: GroupRef = { id: '2c8de82b81f445e7cfaafae49b259c72', name: 'Downstairs' };
const HOME: GroupRef = { id: '1d6fe8ef0fde4c6d77b0012dc736662c', name: 'Home' };
const CABIN: GroupRef = { id: '2d6fe8ef0fde4c6d77b0012dc736662d', name: 'Cabin' };

function light(
  serial: string,
  label: string,
  more: { group?: GroupRef | null; location?: GroupRef | null; multizone?: boolean; online?: boolean } = {},
): LightView {
  return Object.freeze({
    serial,
    label,
    online: more.online ?? true,
    group: more.group ?? null,
    location: more.location ?? null,
    product: null,
    capabilities: more.multizone === true ? MULTIZONE : PLAIN,
    power: 'on',
    color: null,
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
  });
}

const BEDROOM = light('d073d5000001', 'Bedroom', { group: UPSTAIRS, location: HOME });
const OFFICE = light('d073d5000002', 'Office', { group: DOWNSTAIRS, location: HOME });
const STRIP = light('d073d5000003', 'Strip', { group: UPSTAIRS, location: HOME, multizone: true });
const LOWER_BEDROOM = light('d073d5000004', 'bedroom', { group: DOWNSTAIRS, location: CABIN });
const BEDROOM_OFFLINE = light('d073d5000005', 'Bedroom', { group: UPSTAIRS, location: CABIN, online: false });
const BEDROOM_LAMP = light('d073d5000006', 'Bedroom Lamp');
const PERCENT = light('d073d5000007', '100%');
const FLEET: readonly LightView[] = [STRIP, OFFICE, BEDROOM_LAMP, BEDROOM_OFFLINE, LOWER_BEDROOM, BEDROOM, PERCENT];

/** Resolves `text` against the fleet and lists `serial` or `serial zones` per light. */
function resolve(text: string, options?: ResolveSelectorsOptions, lights: readonly LightView[] = FLEET): string[] {
  return resolveSelectors(parseSelectors(text), lights, options).map(summary);
}

function summary(r: ResolvedLight): string {
  return r.zones === null ? r.light.serial : `${r.light.serial} ${r.zones.map((z) => `${z.start}-${z.end}`).join(',')}`;
}

function one(text: string): Selector {
  const list = parseSelectors(text);
  expect(list).to.have.length(1);
  return list[0] as Selector;
}

describe('parseSelectors', () => {
  it('refuses a selector that is no string (a JavaScript caller) with SELECTOR_INVALID, never a TypeError', () => {
    for (const bad of [5, null, undefined, {}, ['all']]) {
      let err: unknown;
      try {
        parseSelectors(bad as never);
      } catch (e) {
        err = e;
      }
      expect(isLightwireError(err, 'SELECTOR_INVALID'), String(bad)).to.equal(true);
      expect((err as Error).message).to.contain('a selector is a string');
    }
  });

  describe('the documented selector types', () => {
    it('reads all as every light, with no value, no random and no zones', () => {
      expect(parseSelectors('all')).to.deep.equal([{ kind: 'all', value: '', random: false, zones: null, text: 'all' }]);
    });

    it('reads label:[value] with the label as written', () => {
      expect(one('label:Bedroom')).to.deep.equal({ kind: 'label', value: 'Bedroom', random: false, zones: null, text: 'label:Bedroom' });
    });

    it('reads id:[value] and stores the serial in lowercase', () => {
      expect(one('id:d073d5141876')).to.include({ kind: 'id', value: 'd073d5141876' });
      expect(one('id:D073D5141876')).to.include({ kind: 'id', value: 'd073d5141876', text: 'id:D073D5141876' });
    });

    it('reads group_id:, group:, location_id:, location: and scene_id:', () => {
      expect(one('group_id:1c8de82b81f445e7cfaafae49b259c71')).to.include({ kind: 'group_id', value: UPSTAIRS.id });
      expect(one('group:Upstairs')).to.include({ kind: 'group', value: 'Upstairs' });
      expect(one('location_id:1d6fe8ef0fde4c6d77b0012dc736662c')).to.include({ kind: 'location_id', value: HOME.id });
      expect(one('location:Home')).to.include({ kind: 'location', value: 'Home' });
      expect(one('scene_id:1d52671c-99ba-4631-a563-2c31809b700d')).to.include({
        kind: 'scene_id',
        value: '1d52671c-99ba-4631-a563-2c31809b700d',
      });
    });

    it('stores group_id: and location_id: in lowercase', () => {
      expect(one('group_id:1C8DE82B81F445E7CFAAFAE49B259C71').value).to.equal(UPSTAIRS.id);
      expect(one('location_id:1D6FE8EF0FDE4C6D77B0012DC736662C').value).to.equal(HOME.id);
    });

    it('reads the documented :random examples all:random, group:[value]:random and location_id:[value]:random', () => {
      expect(one('all:random')).to.include({ kind: 'all', value: '', random: true });
      expect(one('group:Upstairs:random')).to.include({ kind: 'group', value: 'Upstairs', random: true });
      expect(one(`location_id:${HOME.id}:random`)).to.include({ kind: 'location_id', value: HOME.id, random: true });
    });

    it('accepts :random on group_id, location and scene_id too', () => {
      expect(one(`group_id:${UPSTAIRS.id}:random`)).to.include({ kind: 'group_id', random: true });
      expect(one('location:Home:random')).to.include({ kind: 'location', value: 'Home', random: true });
      expect(one('scene_id:abc:random')).to.include({ kind: 'scene_id', value: 'abc', random: true });
    });

    it('reads a group named "random" as a name, not as the suffix', () => {
      expect(one('group:random')).to.include({ kind: 'group', value: 'random', random: false });
    });

    it('recognises :random only as the final suffix', () => {
      expect(one('group:a:random:b')).to.include({ value: 'a:random:b', random: false });
      expect(one('group:a:random:random')).to.include({ value: 'a:random', random: true });
    });

    it('keeps :random after a label as part of the label, since labels take no suffix', () => {
      expect(one('label:x:random')).to.include({ kind: 'label', value: 'x:random', random: false });
    });

    it('rejects :random after an id, since ids take no suffix', () => {
      expect(thrown('SELECTOR_INVALID', () => parseSelectors('id:d073d5141876:random')).params.part).to.equal(
        'id:d073d5141876:random',
      );
    });

    it('accepts the legacy bare random as all:random', () => {
      expect(one('random')).to.include({ kind: 'all', random: true });
    });
  });

  describe('lists', () => {
    it('combines label:Bedroom,label:Office additively, in the order written', () => {
      expect(parseSelectors('label:Bedroom,label:Office').map((s) => s.value)).to.deep.equal(['Bedroom', 'Office']);
    });

    it('accepts 25 selectors', () => {
      const text = Array.from({ length: 25 }, (_, i) => `label:L${i}`).join(',');
      expect(parseSelectors(text)).to.have.length(MAX_SELECTORS);
    });

    it('refuses 26 selectors with SELECTOR_TOO_MANY giving the count and the limit', () => {
      const text = Array.from({ length: 26 }, (_, i) => `label:L${i}`).join(',');
      expect(thrown('SELECTOR_TOO_MANY', () => parseSelectors(text)).params).to.deep.equal({ count: 26, max: 25 });
    });

    it('ignores whitespace around each selector of a list', () => {
      expect(parseSelectors('label:Bedroom, label:Office ,all').map((s) => s.text)).to.deep.equal([
        'label:Bedroom',
        'label:Office',
        'all',
      ]);
    });

    it('keeps whitespace inside a value', () => {
      expect(one('label:Living  Room').value).to.equal('Living  Room');
    });

    for (const text of ['label:a,,label:b', 'label:a,', ',label:a', 'label:a, ,label:b', '', '   ']) {
      it(`rejects the empty list item in ${JSON.stringify(text)}`, () => {
        expect(thrown('SELECTOR_INVALID', () => parseSelectors(text)).params.part).to.equal('');
      });
    }
  });

  describe('percent-decoding', () => {
    it('decodes label:Living%20Room to the label "Living Room"', () => {
      expect(one('label:Living%20Room')).to.include({ value: 'Living Room', text: 'label:Living Room' });
    });

    it('decodes %2F, %23 and multi-byte UTF-8 in labels', () => {
      expect(one('label:AC%2FDC').value).to.equal('AC/DC');
      expect(one('label:%23hash').value).to.equal('#hash');
      expect(one('label:K%C3%BCche').value).to.equal('Küche');
    });

    it('decodes the type and colon too', () => {
      expect(one('label%3AKitchen')).to.include({ kind: 'label', value: 'Kitchen' });
    });

    it('decodes only once', () => {
      expect(one('label:100%2525').value).to.equal('100%25');
    });

    it('splits on a %2C after decoding, so a comma inside a label cannot be addressed', () => {
      expect(parseSelectors('label:a%2Clabel:b').map((s) => s.value)).to.deep.equal(['a', 'b']);
    });

    it('splits on a %7C after decoding, so it starts zones', () => {
      expect(one('label:Strip%7C0-3').zones).to.deep.equal([{ start: 0, end: 3 }]);
    });

    for (const [text, part] of [
      ['label:100%', '%'],
      ['label:%zz', '%zz'],
      ['label:%4', '%4'],
      ['label:%E0%A4%A', '%A'],
      ['label:%FF', '%FF'],
    ] as const) {
      it(`rejects the malformed escape in ${text}, naming ${part}`, () => {
        const err = thrown('SELECTOR_INVALID', () => parseSelectors(text));
        expect(err.params).to.include({ selector: text, part });
      });
    }

    it('takes already-decoded text as is when told to', () => {
      expect(parseSelectors('label:100%', { percentDecode: false })[0]).to.include({ value: '100%' });
      expect(parseSelectors('label:a%20b', { percentDecode: false })[0]).to.include({ value: 'a%20b' });
    });
  });

  describe('zones', () => {
    it('reads label:Strip|0-5|10 as the ranges 0-5 and 10-10', () => {
      expect(one('label:Strip|0-5|10')).to.deep.equal({
        kind: 'label',
        value: 'Strip',
        random: false,
        zones: [
          { start: 0, end: 5 },
          { start: 10, end: 10 },
        ],
        text: 'label:Strip|0-5|10',
      });
    });

    it("reads the R client's one-zone-per-bar form label:kitchen|1|2|3", () => {
      expect(one('label:kitchen|1|2|3').zones).to.deep.equal([
        { start: 1, end: 1 },
        { start: 2, end: 2 },
        { start: 3, end: 3 },
      ]);
    });

    it('accepts zones after all, after an id and after a :random suffix', () => {
      expect(one('all|0-5').zones).to.deep.equal([{ start: 0, end: 5 }]);
      expect(one('id:d073d5000003|7').zones).to.deep.equal([{ start: 7, end: 7 }]);
      expect(one('group:Upstairs:random|2-4')).to.deep.include({ value: 'Upstairs', random: true, zones: [{ start: 2, end: 4 }] });
    });

    it('accepts a one-zone range a-a and the largest zone index 65535', () => {
      expect(one('label:S|4-4').zones).to.deep.equal([{ start: 4, end: 4 }]);
      expect(one('label:S|65535').zones).to.deep.equal([{ start: 65535, end: 65535 }]);
    });

    for (const text of [
      'label:Strip|5-3',
      'label:Strip|',
      'label:Strip|0-5|',
      'label:Strip||3',
      'label:Strip|a',
      'label:Strip|-1',
      'label:Strip|1-',
      'label:Strip|1-2-3',
      'label:Strip| 1',
      'label:Strip|65536',
      'label:Strip|0-65536',
      'group:Upstairs|0-5:random',
    ]) {
      it(`rejects the zone part of ${text}`, () => {
        expect(thrown('SELECTOR_INVALID', () => parseSelectors(text)).params.part).to.equal(text);
      });
    }
  });

  describe('invalid selectors', () => {
    for (const text of ['label:', 'id:', 'group:', 'group_id:', 'location:', 'location_id:', 'scene_id:', 'group::random', 'label:|0-3']) {
      it(`rejects the empty value of ${text}`, () => {
        expect(thrown('SELECTOR_INVALID', () => parseSelectors(text)).params.part).to.equal(text);
      });
    }

    it('rejects the unknown type foo:bar, naming the offending part of the list', () => {
      const err = thrown('SELECTOR_INVALID', () => parseSelectors('label:Bedroom,foo:bar'));
      expect(err.params).to.include({ selector: 'label:Bedroom,foo:bar', part: 'foo:bar' });
    });

    for (const text of ['kitchen', 'Label:Bedroom', 'ALL', 'all:foo', 'all:random:random', ':Bedroom', 'tag:Bedroom']) {
      it(`rejects ${text}`, () => {
        expect(thrown('SELECTOR_INVALID', () => parseSelectors(text)).params.part).to.equal(text);
      });
    }

    for (const text of ['id:d073d51418', 'id:d073d51418760', 'id:d073d514187g', 'id:d0:73:d5:14:18:76']) {
      it(`rejects ${text}, which is not 12 hex digits`, () => {
        expect(thrown('SELECTOR_INVALID', () => parseSelectors(text)).params.part).to.equal(text);
      });
    }

    for (const text of ['group_id:Upstairs', 'group_id:1c8de82b81f445e7', 'location_id:1d6fe8ef-0fde-4c6d-77b0-012dc736662c']) {
      it(`rejects ${text}, which is not 32 hex digits`, () => {
        expect(thrown('SELECTOR_INVALID', () => parseSelectors(text)).params.part).to.equal(text);
      });
    }

    it('gives SELECTOR_INVALID an HTTP status of 422', () => {
      expect(thrown('SELECTOR_INVALID', () => parseSelectors('foo:bar')).httpStatus).to.equal(422);
    });
  });

  it('returns frozen selectors', () => {
    const list = parseSelectors('label:Strip|0-5');
    expect(Object.isFrozen(list)).to.equal(true);
    expect(Object.isFrozen(list[0])).to.equal(true);
    expect(Object.isFrozen(list[0]?.zones)).to.equal(true);
  });
});

describe('formatSelector', () => {
  it('writes each kind back in its canonical form', () => {
    const texts = [
      'all',
      'all:random',
      'label:Living Room',
      'id:d073d5141876',
      `group_id:${UPSTAIRS.id}:random`,
      'group:Upstairs',
      `location_id:${HOME.id}`,
      'location:Home:random',
      'scene_id:abc',
      'label:Strip|0-5|10',
    ];
    expect(texts.map((t) => formatSelector(one(t)))).to.deep.equal(texts);
  });

  it('normalises the legacy random, id case and one-zone ranges', () => {
    expect(formatSelector(one('random'))).to.equal('all:random');
    expect(formatSelector(one('id:D073D5141876'))).to.equal('id:d073d5141876');
    expect(formatSelector(one('label:S|3-3'))).to.equal('label:S|3');
  });
});

describe('resolveSelectors', () => {
  it('resolves all to every light, ordered by label then id', () => {
    expect(resolve('all')).to.deep.equal([
      'd073d5000007', // 100%
      'd073d5000001', // Bedroom
      'd073d5000005', // Bedroom
      'd073d5000006', // Bedroom Lamp
      'd073d5000002', // Office
      'd073d5000003', // Strip
      'd073d5000004', // bedroom (lowercase sorts after uppercase)
    ]);
  });

  it('orders all again when a label changed since the last call, and not when nothing did', () => {
    const before = resolve('all');
    expect(resolve('all')).to.deep.equal(before);
    // Office renamed "Attic": it comes first now.
    const renamed = FLEET.map((l) => (l.serial === 'd073d5000002' ? { ...l, label: 'Attic' } : l));
    expect(resolve('all', undefined, renamed)).to.deep.equal(['d073d5000007', 'd073d5000002', ...before.filter((s) => s !== 'd073d5000007' && s !== 'd073d5000002')]);
    // A light fewer, and the same lights in another order, are ordered afresh.
    expect(resolve('all', undefined, FLEET.slice(1))).to.deep.equal(before.filter((s) => s !== FLEET[0]!.serial));
    expect(resolve('all', undefined, [...FLEET].reverse())).to.deep.equal(before);
  });

  describe('label:', () => {
    it('matches every light carrying the label, offline ones included', () => {
      expect(resolve('label:Bedroom')).to.deep.equal(['d073d5000001', 'd073d5000005']);
    });

    it('prefers an exact match over a case-insensitive one', () => {
      expect(resolve('label:bedroom')).to.deep.equal(['d073d5000004']);
    });

    it('falls back to a case-insensitive match when nothing matches exactly', () => {
      expect(resolve('label:BEDROOM')).to.deep.equal(['d073d5000001', 'd073d5000005', 'd073d5000004']);
      expect(resolve('label:office')).to.deep.equal(['d073d5000002']);
    });

    it('never matches a substring', () => {
      expect(thrown('LIGHTS_NOT_FOUND', () => resolve('label:Bed')).params.selector).to.equal('label:Bed');
      expect(thrown('LIGHTS_NOT_FOUND', () => resolve('label:Bedroom Lamp Two')).params.selector).to.equal('label:Bedroom Lamp Two');
    });

    it('matches a decoded label holding a percent sign', () => {
      expect(resolve('label:100%25')).to.deep.equal(['d073d5000007']);
    });
  });

  describe('id:', () => {
    it('returns the light with that serial as a one-element list', () => {
      expect(resolve('id:d073d5000002')).to.deep.equal(['d073d5000002']);
    });

    it('compares serials case-insensitively', () => {
      const upper = light('D073D50000AB', 'Upper');
      expect(resolve('id:d073d50000ab', {}, [upper])).to.deep.equal(['D073D50000AB']);
      expect(resolve('id:D073D50000AB', {}, [upper])).to.deep.equal(['D073D50000AB']);
    });
  });

  describe('group and location', () => {
    it('matches group:[name] by name', () => {
      expect(resolve('group:Upstairs')).to.deep.equal(['d073d5000001', 'd073d5000005', 'd073d5000003']);
    });

    it('matches group names case-insensitively when nothing matches exactly, never by substring', () => {
      expect(resolve('group:upstairs')).to.deep.equal(['d073d5000001', 'd073d5000005', 'd073d5000003']);
      expect(() => resolve('group:Up')).to.throw().that.has.property('code', 'LIGHTS_NOT_FOUND');
    });

    it('matches group_id:[id] by id, in any case', () => {
      expect(resolve(`group_id:${DOWNSTAIRS.id.toUpperCase()}`)).to.deep.equal(['d073d5000002', 'd073d5000004']);
    });

    it('matches location:[name] and location_id:[id]', () => {
      expect(resolve('location:Cabin')).to.deep.equal(['d073d5000005', 'd073d5000004']);
      expect(resolve('location:cabin')).to.deep.equal(['d073d5000005', 'd073d5000004']);
      expect(resolve(`location_id:${HOME.id}`)).to.deep.equal(['d073d5000001', 'd073d5000002', 'd073d5000003']);
    });

    it('skips lights whose group or location is not known yet', () => {
      expect(resolve('group:Upstairs', {}, [BEDROOM_LAMP, BEDROOM])).to.deep.equal(['d073d5000001']);
      expect(resolve(`location_id:${HOME.id}`, {}, [BEDROOM_LAMP, BEDROOM])).to.deep.equal(['d073d5000001']);
    });

    it('matches a group id stored in uppercase in the light view', () => {
      const shouting = light('d073d50000cc', 'Shout', { group: { id: UPSTAIRS.id.toUpperCase(), name: 'Upstairs' } });
      expect(resolve(`group_id:${UPSTAIRS.id}`, {}, [shouting])).to.deep.equal(['d073d50000cc']);
    });
  });

  describe('lists', () => {
    it('returns the union without duplicates, in label-then-id order', () => {
      expect(resolve('label:Strip,group:Upstairs,id:d073d5000001,label:Office')).to.deep.equal([
        'd073d5000001',
        'd073d5000005',
        'd073d5000002',
        'd073d5000003',
      ]);
    });

    it('returns what the other parts matched when one part matches nothing', () => {
      expect(resolve('label:Nowhere,label:Office')).to.deep.equal(['d073d5000002']);
    });

    it('throws LIGHTS_NOT_FOUND with the selector text when nothing matched at all', () => {
      const err = thrown('LIGHTS_NOT_FOUND', () => resolve('label:Nowhere, id:d073d5999999'));
      expect(err.params).to.deep.equal({ selector: 'label:Nowhere,id:d073d5999999' });
      expect(err.httpStatus).to.equal(404);
    });

    it('throws LIGHTS_NOT_FOUND for all when there are no lights', () => {
      expect(thrown('LIGHTS_NOT_FOUND', () => resolve('all', {}, [])).params.selector).to.equal('all');
    });

    it('keeps one entry per serial when the light list repeats a light', () => {
      expect(resolve('all', {}, [OFFICE, OFFICE, BEDROOM])).to.deep.equal(['d073d5000001', 'd073d5000002']);
    });
  });

  describe(':random', () => {
    it('picks one light of all with the injected generator, in label-then-id order, skipping offline lights', () => {
      expect(resolve('all:random', { random: () => 0 })).to.deep.equal(['d073d5000007']);
      // online in order: 100%, Bedroom(1), Bedroom Lamp, Office, Strip, bedroom
      expect(resolve('all:random', { random: () => 0.2 })).to.deep.equal(['d073d5000001']);
      expect(resolve('all:random', { random: () => 0.34 })).to.deep.equal(['d073d5000006']);
      expect(resolve('all:random', { random: () => 0.999 })).to.deep.equal(['d073d5000004']);
    });

    it('picks one light of a group', () => {
      expect(resolve('group:Upstairs:random', { random: () => 0 })).to.deep.equal(['d073d5000001']);
      expect(resolve('group:Upstairs:random', { random: () => 0.9 })).to.deep.equal(['d073d5000003']);
    });

    it('picks among offline lights when none of the set is online', () => {
      expect(resolve('location:Cabin:random', { random: () => 0 }, [BEDROOM_OFFLINE])).to.deep.equal(['d073d5000005']);
    });

    it('stays inside the set when the generator returns 1 or less than 0', () => {
      expect(resolve('group:Upstairs:random', { random: () => 1 })).to.deep.equal(['d073d5000003']);
      expect(resolve('group:Upstairs:random', { random: () => -0.5 })).to.deep.equal(['d073d5000001']);
    });

    it('draws once per random selector of a list', () => {
      const draws = [0, 0.99];
      const random = (): number => draws.shift() ?? 0;
      expect(resolve('group:Upstairs:random,group:Downstairs:random', { random })).to.deep.equal([
        'd073d5000001',
        'd073d5000004',
      ]);
    });

    it('falls back to Math.random and still returns exactly one light', () => {
      expect(resolve('all:random')).to.have.length(1);
    });

    it('finds nothing when the set is empty', () => {
      expect(thrown('LIGHTS_NOT_FOUND', () => resolve('group:Attic:random', { random: () => 0 })).params.selector).to.equal(
        'group:Attic:random',
      );
    });
  });

  describe('scene_id:', () => {
    const scenes: Record<string, readonly string[]> = {
      night: ['id:d073d5000001', 'label:Office'],
      loop: ['scene_id:loop', 'id:d073d5000002'],
      broken: ['foo:bar', 'label:Strip'],
      literal: ['label:100%'],
      upstairs: ['group:Upstairs|0-3'],
    };
    const sceneSelectors = (id: string): readonly string[] | undefined => scenes[id];

    it("resolves to the union of the lights named by the scene's stored selectors", () => {
      expect(resolve('scene_id:night', { sceneSelectors })).to.deep.equal(['d073d5000001', 'd073d5000002']);
    });

    it('gives no lights for an unknown scene', () => {
      expect(resolve('scene_id:nope,label:Strip', { sceneSelectors })).to.deep.equal(['d073d5000003']);
      expect(thrown('LIGHTS_NOT_FOUND', () => resolve('scene_id:nope', { sceneSelectors })).params.selector).to.equal(
        'scene_id:nope',
      );
    });

    it('gives no lights when no scene lookup was supplied', () => {
      expect(() => resolve('scene_id:night')).to.throw().that.has.property('code', 'LIGHTS_NOT_FOUND');
    });

    it('ignores a scene_id inside a scene, so a scene naming itself does not loop', () => {
      expect(resolve('scene_id:loop', { sceneSelectors })).to.deep.equal(['d073d5000002']);
    });

    it('skips a stored selector that no longer parses', () => {
      expect(resolve('scene_id:broken', { sceneSelectors })).to.deep.equal(['d073d5000003']);
    });

    it('reads stored selectors without percent-decoding them', () => {
      expect(resolve('scene_id:literal', { sceneSelectors })).to.deep.equal(['d073d5000007']);
    });

    it('picks one light of the scene with :random', () => {
      expect(resolve('scene_id:night:random', { sceneSelectors, random: () => 0.9 })).to.deep.equal(['d073d5000002']);
    });

    it("takes zones from the scene_id selector, not from the scene's stored selectors", () => {
      expect(resolve('scene_id:upstairs', { sceneSelectors })).to.deep.equal(['d073d5000001', 'd073d5000005', 'd073d5000003']);
      expect(resolve('scene_id:upstairs|5-6', { sceneSelectors })).to.deep.equal([
        'd073d5000001',
        'd073d5000005',
        'd073d5000003 5-6',
      ]);
    });
  });

  describe('zones', () => {
    it('gives a multizone light the zones of its selector', () => {
      expect(resolve('label:Strip|0-5|10')).to.deep.equal(['d073d5000003 0-5,10-10']);
    });

    it('gives other lights the whole light', () => {
      expect(resolve('group:Upstairs|0-5')).to.deep.equal(['d073d5000001', 'd073d5000005', 'd073d5000003 0-5']);
    });

    it('merges the zones of several matching selectors, joining overlapping and adjacent ranges', () => {
      expect(resolve('label:Strip|8|0-2,group:Upstairs|3-4|1-2|20-22|21')).to.deep.equal([
        'd073d5000001',
        'd073d5000005',
        'd073d5000003 0-4,8-8,20-22',
      ]);
    });

    it('acts on the whole light when any matching selector had no zones', () => {
      expect(resolve('label:Strip|0-5,all')).to.include('d073d5000003');
      expect(resolve('all,label:Strip|0-5')).to.include('d073d5000003');
    });

    it('returns frozen zone lists', () => {
      const [strip] = resolveSelectors(parseSelectors('label:Strip|0-5'), FLEET);
      expect(Object.isFrozen(strip?.zones)).to.equal(true);
    });
  });

  describe('properties', () => {
    const hex = (n: number): fc.Arbitrary<string> =>
      fc.array(fc.constantFrom(...'0123456789abcdef'), { minLength: n, maxLength: n }).map((d) => d.join(''));
    const groups = [UPSTAIRS, DOWNSTAIRS, HOME, CABIN];
    const lightArb = fc.record({
      serial: hex(12),
      label: fc.constantFrom('A', 'a', 'B', 'Bed', 'bed', 'Bed room', 'C'),
      group: fc.option(fc.constantFrom(...groups), { nil: null }),
      location: fc.option(fc.constantFrom(...groups), { nil: null }),
      multizone: fc.boolean(),
      online: fc.boolean(),
    });
    const fleetArb = fc
      .uniqueArray(lightArb, { selector: (l) => l.serial, maxLength: 12 })
      .map((ls) => ls.map((l) => light(l.serial, l.label, l)));

    const zonesArb = fc.option(
      fc.array(
        fc.tuple(fc.nat(60), fc.nat(60)).map(([a, b]) => ({ start: Math.min(a, b), end: Math.max(a, b) })),
        { minLength: 1, maxLength: 3 },
      ),
      { nil: null },
    );
    const valueArb = fc.stringMatching(/^[A-Za-z0-9 _%#/:.-]{1,12}$/).filter((v) => v.trim() === v && !v.endsWith(':random'));
    const selectorArb: fc.Arbitrary<Selector> = fc
      .record({
        kind: fc.constantFrom<SelectorKind>('all', 'id', 'label', 'group', 'group_id', 'location', 'location_id', 'scene_id'),
        name: fc.oneof(valueArb, fc.constantFrom('A', 'bed', 'Bed room', 'Upstairs', 'home')),
        serial: hex(12),
        groupId: fc.oneof(hex(32), fc.constantFrom(...groups.map((g) => g.id))),
        random: fc.boolean(),
        zones: zonesArb,
      })
      .map(({ kind, name, serial, groupId, random, zones }) => {
        const value = kind === 'all' ? '' : kind === 'id' ? serial : kind === 'group_id' || kind === 'location_id' ? groupId : name;
        const canRandom = kind !== 'id' && kind !== 'label';
        const selector = { kind, value, random: canRandom && random, zones, text: '' };
        return { ...selector, text: formatSelector(selector) };
      });

    it('parses every generated valid selector list, and reads back what was formatted', () => {
      fc.assert(
        fc.property(fc.array(selectorArb, { minLength: 1, maxLength: 25 }), (list) => {
          const text = list.map((s) => encodeURIComponent(formatSelector(s))).join(',');
          expect(parseSelectors(text)).to.deep.equal(list);
        }),
        { numRuns: 300 },
      );
    });

    it('never returns a light twice and always orders by label then id, whatever the order of the lights', () => {
      const scenes: Record<string, readonly string[]> = { s1: ['label:A', 'group:Upstairs'], s2: ['all:random'] };
      fc.assert(
        fc.property(
          fleetArb,
          fc.array(selectorArb, { minLength: 1, maxLength: 6 }),
          fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
          (fleet, selectors, r) => {
            const options: ResolveSelectorsOptions = { sceneSelectors: (id) => scenes[id], random: () => r };
            let forward: ResolvedLight[];
            try {
              forward = resolveSelectors(selectors, fleet, options);
            } catch (err) {
              if (!isLightwireError(err, 'LIGHTS_NOT_FOUND')) throw err;
              expect(() => resolveSelectors(selectors, [...fleet].reverse(), options)).to.throw();
              return;
            }
            const serials = forward.map((x) => x.light.serial);
            expect(new Set(serials).size).to.equal(serials.length);
            const keys = forward.map((x) => [x.light.label, x.light.serial] as const);
            const sorted = [...keys].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
            expect(keys).to.deep.equal(sorted);
            expect(resolveSelectors(selectors, [...fleet].reverse(), options)).to.deep.equal(forward);
            for (const x of forward) if (!x.light.capabilities.multizone) expect(x.zones).to.equal(null);
          },
        ),
        { numRuns: 300 },
      );
    });
  });
});
