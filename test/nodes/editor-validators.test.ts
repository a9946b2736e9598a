// The editor's checks against the runtime's: every value the edit dialog lets through must deploy, and every value
// the runtime refuses must be flagged in the dialog. The .html files cannot import the TypeScript, so they carry
// copies of the ranges and the number grammar; this file reads those copies and compares them with the runtime's
// (CONFIG_RANGES, DURATION_RANGE, DECIMAL_NUMBER), then runs each editor validator and the runtime's check on the
// same values and expects the same answer.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { CONFIG_RANGES, DECIMAL_NUMBER, configOptions, type NumberRange } from '../../nodes/config-options.js';
import { DURATION_RANGE, optionalSecondsProp } from '../../nodes/node-props.js';
import { REPO_ROOT } from '../helpers/packed.js';

type Validator = (this: Record<string, unknown>, value: unknown, opt?: unknown) => unknown;

function source(type: string): string {
  return readFileSync(path.join(REPO_ROOT, 'nodes', `${type}.html`), 'utf8');
}

function scripts(html: string): string[] {
  return [...html.matchAll(/<script[^>]*type=["']text\/javascript["'][^>]*>([\s\S]*?)<\/script>/gi)].map((m) => m[1]!);
}

/** An edit dialog's checkboxes: id -> checked. */
type Boxes = Record<string, boolean>;

interface Editor {
  readonly validators: Record<string, Validator>;
  /** Opens the edit dialog of `node` (its oneditprepare runs) holding these checkboxes. */
  open(node: Record<string, unknown>, boxes: Boxes): void;
  /**
   * Ends the open dialog the way Node-RED does: oneditsave, oneditcancel or oneditdelete. Its DOM stays, as it does
   * while Node-RED validates the saved node.
   */
  close(how: 'oneditsave' | 'oneditcancel' | 'oneditdelete', self?: Record<string, unknown>): void;
}

/**
 * An editor file run against a stub RED and a stub jQuery whose DOM is the open edit dialog's checkboxes. Without
 * an open dialog the validators see no dialog and read the node's stored values, as the editor does when it checks
 * the flows.
 */
function editor(type: string): Editor {
  let def: { defaults: Record<string, { validate?: Validator }>; oneditprepare?: (this: unknown) => void } & Record<string, unknown> = { defaults: {} };
  let dialog: Boxes | undefined;
  const $ = (selector: string) => {
    const id = /^#([\w-]+)$/.exec(selector)?.[1];
    const present = dialog !== undefined && id !== undefined && Object.hasOwn(dialog, id);
    const found = { length: present ? 1 : 0, is: () => (present ? dialog![id!]! : false), val: () => undefined, on: () => found, toggle: () => found };
    return found;
  };
  const sandbox = {
    RED: {
      nodes: {
        registerType: (registered: string, d: typeof def) => {
          if (registered === type) def = d;
        },
      },
      // The files must not lean on Node-RED's own number validator: it takes "0x10", "0b1" and "NaN".
      validators: {
        number: () => () => expect.fail('RED.validators.number() takes values the runtime refuses'),
        regex: () => () => true,
      },
      _: (key: string) => key,
    },
    $,
    window: {},
    URL,
  };
  for (const script of scripts(source(type))) vm.runInNewContext(script, sandbox);
  const out: Record<string, Validator> = {};
  for (const [name, prop] of Object.entries(def.defaults)) if (prop.validate !== undefined) out[name] = prop.validate;
  return {
    validators: out,
    open(node, boxes) {
      dialog = boxes;
      def.oneditprepare?.call(node);
    },
    close(how, self) {
      (def[how] as ((this: unknown) => void) | undefined)?.call(self ?? {});
    },
  };
}

/** The validators of an editor file, with the edit dialog of `dialog.node` open when it is given. */
function validators(type: string, dialog?: { node: Record<string, unknown>; boxes: Boxes }): Record<string, Validator> {
  const e = editor(type);
  if (dialog !== undefined) e.open(dialog.node, dialog.boxes);
  return e.validators;
}

/** A `var NAME = ...;` literal in an editor file, evaluated. */
function literal(type: string, name: string): unknown {
  const match = new RegExp(`var ${name} = ([\\s\\S]*?);\\n`).exec(source(type));
  expect(match, `var ${name} in ${type}.html`).to.not.equal(null);
  return vm.runInNewContext(`(${match![1]!})`);
}

/** Values around a range's edges and in every form a typed-in or hand-edited value takes. */
function samples(range: NumberRange): unknown[] {
  const { min, max } = range;
  const numbers = [min, max, min - 1, max + 1, min - 0.001, max + 0.001, min + 0.5, Math.round((min + max) / 2), 0, 1, -1, -5, 1.5, 16, 1000, 120];
  return [
    ...numbers,
    ...numbers.map(String),
    ...numbers.map((n) => ` ${n} `),
    '0x10', '0X10', '0b1', '0o7', '1e3', '1E2', '.5', '5.', '+3', '-0', '1e', 'e3', '.', '', ' ', 'NaN', 'Infinity', '-Infinity', 'abc', '12abc', '1,5', '1_000',
    Number.NaN, Number.POSITIVE_INFINITY, true, false, null, undefined, [], {},
  ];
}

function accepts(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch {
    return false;
  }
}

/** Whether the editor lets a value through (true) or flags it (false or a message). */
function editorAccepts(validate: Validator, node: Record<string, unknown>, value: unknown): boolean {
  return validate.call(node, value, {}) === true;
}

/** How each config number property is switched on, for the runtime and the editor. */
const SECTIONS: Record<keyof typeof CONFIG_RANGES, Record<string, unknown>> = {
  virtualLights: { virtual: true },
  lanPort: { virtual: false },
  refreshS: {},
  durationS: {},
  timeoutS: {},
  httpPort: { http: true },
};

describe('editor validators: the same answers as the runtime', () => {
  describe('lightwire-config', () => {
    it('carries the runtime ranges and number grammar', () => {
      expect(literal('lightwire-config', 'RANGES')).to.deep.equal(CONFIG_RANGES);
      expect((literal('lightwire-config', 'DECIMAL_NUMBER') as RegExp).source).to.equal(DECIMAL_NUMBER.source);
    });

    it('checks every number property the runtime checks, and no other way', () => {
      expect(Object.keys(validators('lightwire-config')).sort()).to.deep.equal([...Object.keys(CONFIG_RANGES), 'httpHost'].sort());
    });

    for (const [name, range] of Object.entries(CONFIG_RANGES) as Array<[keyof typeof CONFIG_RANGES, NumberRange]>) {
      it(`accepts in ${name} exactly what the runtime accepts (${range.integer ? 'integers' : 'numbers'} from ${range.min} to ${range.max})`, () => {
        const validate = validators('lightwire-config')[name]!;
        const section = SECTIONS[name];
        let refused = 0;
        for (const value of samples(range)) {
          const runtime = accepts(() => configOptions({ ...section, [name]: value }));
          expect(editorAccepts(validate, { ...section, [name]: value }, value), `${name} = ${JSON.stringify(value) ?? String(value)}: runtime ${runtime ? 'accepts' : 'refuses'}`).to.equal(runtime);
          if (!runtime) refused++;
        }
        expect(refused, 'the samples reach the refusals').to.be.greaterThan(10);
      });
    }

    it('refuses what the audit found passing in the editor and failing at deploy', () => {
      const v = validators('lightwire-config');
      const cases: Array<[keyof typeof CONFIG_RANGES, unknown]> = [
        ['virtualLights', '0'], ['virtualLights', '1000'], ['timeoutS', '0'], ['timeoutS', '120'], ['refreshS', '-5'],
        ['lanPort', '70000'], ['lanPort', '1.5'], ['lanPort', '0x10'], ['httpPort', '70000'], ['httpPort', '1.5'], ['refreshS', 'NaN'],
      ];
      for (const [name, value] of cases) {
        const node = { ...SECTIONS[name], [name]: value };
        expect(v[name]!.call(node, value, {}), `${name} = ${String(value)}`).to.be.a('string').and.match(/ from /);
        expect(accepts(() => configOptions(node)), `runtime ${name} = ${String(value)}`).to.equal(false);
      }
    });

    it('does not check a section that is switched off, in the dialog or in the stored node, like the runtime', () => {
      const cases: Array<{ prop: string; value: unknown; off: Record<string, unknown>; box: string; checked: boolean }> = [
        { prop: 'virtualLights', value: '0', off: { virtual: false }, box: 'node-config-input-virtual', checked: false },
        { prop: 'lanPort', value: '70000', off: { virtual: true, virtualLights: 2 }, box: 'node-config-input-virtual', checked: true },
        { prop: 'httpPort', value: '1.5', off: { http: false }, box: 'node-config-input-http', checked: false },
        { prop: 'httpHost', value: 'http://pc', off: { http: false }, box: 'node-config-input-http', checked: false },
      ];
      for (const c of cases) {
        const what = `${c.prop} = ${String(c.value)} with ${JSON.stringify(c.off)}`;
        expect(accepts(() => configOptions({ ...c.off, [c.prop]: c.value })), `runtime: ${what}`).to.equal(true);
        expect(editorAccepts(validators('lightwire-config')[c.prop]!, { ...c.off, [c.prop]: c.value }, c.value), `stored: ${what}`).to.equal(true);
        // In the dialog the checkbox counts, not the stored value: ticking the section on flags the value at once.
        const stale = { ...c.off, virtual: !c.off.virtual, http: !c.off.http };
        expect(editorAccepts(validators('lightwire-config', { node: stale, boxes: { [c.box]: c.checked } })[c.prop]!, stale, c.value), `dialog, off: ${what}`).to.equal(true);
        expect(editorAccepts(validators('lightwire-config', { node: c.off, boxes: { [c.box]: !c.checked } })[c.prop]!, c.off, c.value), `dialog, on: ${what}`).to.equal(false);
      }
    });

    it('reads the dialog only for the node being edited: another config node checked meanwhile keeps its own sections', () => {
      // Node-RED validates every lightwire-config node while one dialog is open (the sidebar, the nodes using them).
      const cases: Array<{ prop: string; value: unknown; off: Record<string, unknown>; box: string }> = [
        { prop: 'virtualLights', value: '0', off: { virtual: false }, box: 'node-config-input-virtual' },
        { prop: 'lanPort', value: '70000', off: { virtual: true }, box: 'node-config-input-virtual' },
        { prop: 'httpPort', value: '1.5', off: { http: false }, box: 'node-config-input-http' },
        { prop: 'httpHost', value: 'http://pc', off: { http: false }, box: 'node-config-input-http' },
      ];
      for (const c of cases) {
        const what = `${c.prop} = ${String(c.value)} with ${JSON.stringify(c.off)}`;
        const on = { ...c.off, virtual: !c.off.virtual, http: !c.off.http };
        // The dialog shows the section on for the node being edited; another node has it off, and one has it on.
        const edited = { id: 'edited', ...on, [c.prop]: c.value };
        const other = { id: 'other', ...c.off, [c.prop]: c.value };
        const otherOn = { id: 'other-on', ...on, [c.prop]: c.value };
        // The checkbox state that switches the property's section on.
        const boxOn = !(c.off as Record<string, boolean>)[c.box.replace('node-config-input-', '')];
        const e = editor('lightwire-config');
        const validate = e.validators[c.prop]!;
        e.open(edited, { [c.box]: boxOn });
        expect(editorAccepts(validate, edited, c.value), `edited: ${what}`).to.equal(false);
        expect(editorAccepts(validate, other, c.value), `other, section off: ${what}`).to.equal(true);
        // The same the other way round: the dialog has the section off, a node with it on is still checked.
        e.close('oneditcancel');
        const editedOff = { id: 'edited', ...c.off, [c.prop]: c.value };
        e.open(editedOff, { [c.box]: !boxOn });
        expect(editorAccepts(validate, editedOff, c.value), `edited, section off: ${what}`).to.equal(true);
        expect(editorAccepts(validate, otherOn, c.value), `other, section on: ${what}`).to.equal(false);
        // A new node's cancel passes only its id; by id counts as the node being edited while the dialog is open.
        expect(editorAccepts(validate, { ...otherOn, id: 'edited' }, c.value), `edited by id: ${what}`).to.equal(true);
        // Closed (saved, cancelled, deleted): the stored values count again, for the node that was edited too.
        for (const how of ['oneditsave', 'oneditcancel', 'oneditdelete'] as const) {
          e.open(editedOff, { [c.box]: !boxOn });
          e.close(how, how === 'oneditcancel' ? { id: 'edited' } : editedOff);
          expect(editorAccepts(validate, { ...otherOn, id: 'edited' }, c.value), `after ${how}: ${what}`).to.equal(false);
        }
      }
    });

    it('accepts in httpHost exactly what the runtime accepts, and says what is expected', () => {
      const validate = validators('lightwire-config').httpHost!;
      const hosts: unknown[] = [
        '127.0.0.1', '0.0.0.0', '192.168.1.20', ' 10.0.0.1 ', '255.255.255.255', '256.1.1.1', '01.2.3.4', '1.2.3', '999.999.1.1',
        '::1', '::', '[::1]', '[127.0.0.1]', 'fe80::1%eth0', 'fe80::1%', '::ffff:127.0.0.1', '::ffff:01.2.3.4', '1::2::3', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8:9',
        'localhost', 'lights.local', 'my-pc', '-pc', 'pc-', 'a'.repeat(64), `${'a.'.repeat(127)}a`, `${'a.'.repeat(126)}a`, 'host_name', 'lights host',
        'http://pc', 'https://127.0.0.1', 'HTTP://pc', 'pc:8080', '127.0.0.1:3000', 'pc:', '[::1]:3000', 'pc/path', '1.2.3.4.5', '10.0.0', 'x.123',
        '', '  ', undefined, null, 7, true,
      ];
      let refused = 0;
      for (const httpHost of hosts) {
        const runtime = accepts(() => configOptions({ http: true, httpHost }));
        const editor = validate.call({ http: true, httpHost }, httpHost, {});
        expect(editor === true, `httpHost ${JSON.stringify(httpHost) ?? 'undefined'}: runtime ${runtime ? 'accepts' : 'refuses'}`).to.equal(runtime);
        if (!runtime) {
          refused++;
          expect(editor).to.be.a('string').and.contain('127.0.0.1');
        }
      }
      expect(refused).to.be.greaterThan(15);
    });
  });

  describe('lightwire-set-state', () => {
    it('carries the runtime range and number grammar of the transition', () => {
      expect(literal('lightwire-set-state', 'DURATION')).to.deep.equal(DURATION_RANGE);
      expect((literal('lightwire-set-state', 'DECIMAL_NUMBER') as RegExp).source).to.equal(DECIMAL_NUMBER.source);
      expect(Object.keys(validators('lightwire-set-state'))).to.deep.equal(['duration']);
    });

    it('accepts in duration exactly what the runtime accepts (-1 and NaN refused, empty = the config node\'s)', () => {
      const validate = validators('lightwire-set-state').duration!;
      let refused = 0;
      for (const value of [...samples(DURATION_RANGE), '1e12', 3_155_760_000.5]) {
        const runtime = accepts(() => optionalSecondsProp('duration', value));
        expect(editorAccepts(validate, { duration: value }, value), `duration = ${JSON.stringify(value) ?? String(value)}: runtime ${runtime ? 'accepts' : 'refuses'}`).to.equal(runtime);
        if (!runtime) refused++;
      }
      expect(refused).to.be.greaterThan(10);
      for (const value of ['-1', 'NaN', '0x10']) expect(validate.call({}, value, {}), value).to.be.a('string');
    });
  });
});
