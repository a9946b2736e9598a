// `lightwire list` and `lightwire set`: the light service from a terminal.

import { allOk, isLightwireError, OPERATIONS, parseSelectors, type LightResult, type LightService, type SetStateRequest, type V1Light } from '../index.js';
import { choiceValue, numberValue, shown, usageError, valueError, type FlagSpecs } from './args.js';
import { defineCommand, EXIT, type CliIO } from './command.js';
import { defaultScenesPath, findingFlags, findingFrom, idSerials, openScenesToRead, PRODUCTS_FLAG, SCENES_FLAG, withLights, type Unanswered } from './connect.js';
import { formatColor, table } from './format.js';

/** Throws CLI_USAGE for a selector the service would refuse, before any light is looked for. */
export function checkSelector(selector: string): void {
  try {
    parseSelectors(selector, { percentDecode: false });
  } catch (err) {
    // Its message quotes the selector already.
    if (isLightwireError(err)) throw usageError(err.message);
    throw err;
  }
}

/** The unanswered lights a selector names: every one for `all`, the named ones for id: selectors. */
export function namedUnanswered(selector: string, unanswered: readonly Unanswered[]): Unanswered[] {
  if (selector.trim() === 'all') return [...unanswered];
  const ids = idSerials(selector);
  return ids === null ? [] : unanswered.filter((u) => ids.has(u.serial));
}

/** Results for lights that did not answer: reported offline, never dropped. */
export function offlineResults(results: readonly LightResult[], missing: readonly Unanswered[]): LightResult[] {
  const have = new Set(results.map((r) => r.id));
  return [...results, ...missing.filter((m) => !have.has(m.serial)).map((m): LightResult => ({ id: m.serial, label: '', status: 'offline' }))];
}

/** Runs a write; a selector that matched only lights that did not answer gives their offline results. */
export async function writeOrOffline(write: () => Promise<LightResult[]>, missing: readonly Unanswered[]): Promise<LightResult[]> {
  let results: LightResult[] = [];
  try {
    results = await write();
  } catch (err) {
    if (!(isLightwireError(err, 'LIGHTS_NOT_FOUND') && missing.length > 0)) throw err;
  }
  return offlineResults(results, missing);
}

/** With --json, the results document of a write that reached no light (every light it names offline, if any). */
export function printNoResults(io: CliIO, missing: readonly Unanswered[], json: boolean): void {
  if (json) io.stdout(`${JSON.stringify({ results: offlineResults([], missing) }, null, 2)}\n`);
}

export function printResults(io: CliIO, results: readonly LightResult[], json: boolean): number {
  if (json) io.stdout(`${JSON.stringify({ results }, null, 2)}\n`);
  else io.stdout(`${table(['ID', 'LABEL', 'STATUS'], results.map((r) => [r.id, r.label || '-', r.status + (r.power ? ` (${r.power})` : '')]))}\n`);
  return allOk(results) ? EXIT.OK : EXIT.FAILURE;
}

const JSON_FLAG = { json: { type: 'boolean', help: 'print JSON instead of a table' } } as const satisfies FlagSpecs;
const SELECTORS_HELP = `Selectors: all, id:d073d5000001, label:Desk, group:Office, location:Home, ..., comma lists; zones
label:Strip|0-9; a part label:Ceiling|uplight (Ceiling: downlight, uplight; Mirror: front, rear).`;
const FINDING_HELP = `Lights are looked for until the first discovery round has been read, until --expect N lights have
answered, or until every light an id: selector names has answered, and at most --wait-ms.`;

const LIST_FLAGS = { ...JSON_FLAG, ...SCENES_FLAG, ...findingFlags(true), ...PRODUCTS_FLAG } as const satisfies FlagSpecs;

export const listCommand = defineCommand({
  name: 'list',
  summary: 'list lights by selector (the HTTP API v1 light records)',
  usage: 'lightwire list [SELECTOR] [--json] [finding options]',
  description: `Lists the lights a selector names (default: all) in the shape of the LIFX HTTP API v1 (--json) or as
a table. Lights that did not answer are never left out: the table lists them as offline; --json holds the
records of the lights that answered (the HTTP API's shape needs a read), and stderr names the others.

${SELECTORS_HELP}

${FINDING_HELP}`,
  footer: 'Exit codes: 0 listed, 1 nothing matched, no light answered or a light named by id did not answer, 2 bad options.',
  flags: LIST_FLAGS,
  async run(p, io) {
    if (p.positionals.length > 1) throw usageError(`give at most one selector, got ${p.positionals.map((s) => shown(s)).join(' ')}`);
    const selector = p.positionals[0] ?? 'all';
    checkSelector(selector);
    const finding = findingFrom(p);
    const json = p.values.json;
    const scenes = await openScenesToRead(p.values.scenes ?? defaultScenesPath(), io);
    const look = {
      command: 'list',
      products: p.values.products,
      wanted: () => idSerials(selector),
      // A script reading --json gets an empty list when no light answered, as when the selector matches nothing.
      ...(json ? { onNone: () => io.stdout('[]\n') } : {}),
      ...(scenes ? { scenes } : {}),
    };
    return withLights(finding, io, look, async ({ service, unanswered }) => {
      const missing = namedUnanswered(selector, unanswered);
      let lights: V1Light[] = [];
      try {
        lights = service.list(selector);
      } catch (err) {
        if (!isLightwireError(err, 'LIGHTS_NOT_FOUND')) throw err;
        if (missing.length === 0) {
          // A script reading --json gets an empty list, as from discover; the reason goes to stderr.
          if (json) io.stdout('[]\n');
          throw err;
        }
      }
      if (json) {
        io.stdout(`${JSON.stringify(lights, null, 2)}\n`);
      } else {
        const rows = lights.map((l) => [
          l.id,
          l.label,
          l.connected ? l.power : 'offline',
          formatColor({ ...l.color, brightness: l.brightness }),
          l.group.name || '-',
          l.location.name || '-',
          l.product.name,
        ]);
        for (const m of missing) if (!lights.some((l) => l.id === m.serial)) rows.push([m.serial, '-', 'offline', '-', '-', '-', '-']);
        io.stdout(`${table(['ID', 'LABEL', 'POWER', 'COLOUR', 'GROUP', 'LOCATION', 'PRODUCT'], rows)}\n`);
      }
      return idSerials(selector) !== null && missing.length > 0 ? EXIT.FAILURE : EXIT.OK;
    });
  },
});

const SET_FLAGS = {
  power: { type: 'string', value: 'on|off', help: 'power' },
  color: { type: 'string', value: 'STR', help: 'a colour string: "blue", "hue:120 saturation:1", "kelvin:2700", "#ff8800", ...', aliases: ['colour'] },
  brightness: { type: 'string', value: 'F', help: '0.0 to 1.0 (overrides the brightness in --color)' },
  infrared: { type: 'string', value: 'F', help: '0.0 to 1.0, lights with infrared only' },
  duration: { type: 'string', value: 'S', help: 'seconds the change takes (default 1)' },
  fast: { type: 'boolean', help: 'send the end state only, do not wait for the lights' },
  ...JSON_FLAG,
  ...SCENES_FLAG,
  ...findingFlags(true),
  ...PRODUCTS_FLAG,
} as const satisfies FlagSpecs;

/** Which flag a request field came from, for errors the service raises while checking it. */
const FIELD_FLAGS: Readonly<Record<string, keyof typeof SET_FLAGS>> = Object.fromEntries(
  OPERATIONS.setState.params.map((p) => [p.key, p.v1 as keyof typeof SET_FLAGS]),
);

/** Checks a request with the service's own rules; errors name the flag (as typed) and its value. */
export function checkRequest(service: LightService, request: SetStateRequest, flag: (name: keyof typeof SET_FLAGS) => string, text: (name: keyof typeof SET_FLAGS) => string): void {
  try {
    service.stateChange(request);
  } catch (err) {
    if (isLightwireError(err, 'COLOR_INVALID')) throw valueError(flag('color'), text('color'), err.message);
    if (isLightwireError(err, 'PARAMETER_INVALID') || isLightwireError(err, 'PARAMETER_MISSING')) {
      const name = FIELD_FLAGS[err.params.field.split('.')[0]!];
      if (name !== undefined) throw valueError(flag(name), text(name), err.message.replace(`${err.params.field} `, ''));
    }
    throw err;
  }
}

export const setCommand = defineCommand({
  name: 'set',
  summary: 'change power, colour, brightness or infrared of lights by selector',
  usage: `lightwire set SELECTOR [--power on|off] [--color STR] [--brightness F] [--infrared F]
                     [--duration S] [--fast] [--json] [finding options]`,
  description: `Changes the lights a selector names, like PUT /v1/lights/:selector/state, and prints one line per
light with its result (ok, timed_out, offline; a light that did not answer is offline). Without --fast
the current state is read first and a light that is off gets its new colour before it is powered on.

${SELECTORS_HELP}

${FINDING_HELP}`,
  footer: 'Exit codes: 0 every light ok, 1 some light not ok or nothing matched, 2 bad options.',
  flags: SET_FLAGS,
  async run(p, io) {
    if (p.positionals.length !== 1) {
      throw usageError(p.positionals.length === 0 ? 'give a selector (e.g. all, label:Desk)' : `give exactly one selector, got ${p.positionals.map((s) => shown(s)).join(' ')}`);
    }
    const selector = p.positionals[0]!;
    checkSelector(selector);
    const v = p.values;
    const power = choiceValue(p, 'power', ['on', 'off'] as const);
    const brightness = numberValue(p, 'brightness');
    const infrared = numberValue(p, 'infrared');
    const durationS = numberValue(p, 'duration');
    const request: SetStateRequest = {
      ...(power !== undefined ? { power } : {}),
      ...(v.color !== undefined ? { color: v.color } : {}),
      ...(brightness !== undefined ? { brightness } : {}),
      ...(infrared !== undefined ? { infrared } : {}),
      ...(durationS !== undefined ? { durationS } : {}),
    };
    if (Object.keys(request).filter((k) => k !== 'durationS').length === 0) {
      throw usageError('nothing to change: give --power, --color, --brightness or --infrared');
    }
    const finding = findingFrom(p);
    const scenes = await openScenesToRead(v.scenes ?? defaultScenesPath(), io);
    return withLights(
      finding,
      io,
      {
        command: 'set',
        products: v.products,
        wanted: () => idSerials(selector),
        onNone: (unanswered) => printNoResults(io, namedUnanswered(selector, unanswered), v.json),
        ...(scenes ? { scenes } : {}),
        before: (service) => checkRequest(service, request, (n) => p.flag(n), (n) => String(v[n] ?? '')),
      },
      async ({ service, unanswered }) => {
        let results: LightResult[];
        try {
          results = await writeOrOffline(() => service.setState(selector, request, { fast: v.fast }), namedUnanswered(selector, unanswered));
        } catch (err) {
          // The selector matched nothing: --json still prints its (empty) document; the error goes to stderr.
          if (isLightwireError(err, 'LIGHTS_NOT_FOUND')) printNoResults(io, [], v.json);
          throw err;
        }
        return printResults(io, results, v.json);
      },
    );
  },
});
