// `lightwire label`, `lightwire group` and `lightwire location`: renaming from a terminal, through the service's
// renaming operations (the catalogue's setLabel, setGroup, setLocation, renameGroup, renameLocation), which write
// labels as the device protocol asks (https://lan.developer.lifx.com/docs/changing-a-device).

import { NAMING_OPERATIONS, parseRequest, type LightResult, type LightService, type NamingOperationName } from '../index.js';
import { shown, usageError, type FlagSpecs } from './args.js';
import { defineCommand, type CliIO, type Command } from './command.js';
import { defaultScenesPath, findingFlags, findingFrom, idSerials, openScenesToRead, SCENES_FLAG, withLights, type Finding, type Unanswered } from './connect.js';
import { checkSelector, namedUnanswered, printNoResults, printResults, writeOrOffline } from './lights.js';

const JSON_FLAG = { json: { type: 'boolean', help: 'print JSON instead of a table' } } as const satisfies FlagSpecs;
const FINDING_HELP = `Lights are looked for until the first discovery round has been read, until --expect N lights have
answered, or until every light an id: selector names has answered, and at most --wait-ms.`;
const LABEL_RULE = 'A name is 1 to 32 bytes of UTF-8 (surrounding spaces dropped); a longer one is refused (LABEL_TOO_LONG), never cut.';

/** What a command runs once the lights are found: a write on a selector, or a rename (no selector). */
interface Job {
  readonly operation: NamingOperationName;
  /** The selector, or undefined for a rename: every light is looked for then. */
  readonly selector: string | undefined;
  readonly run: (service: LightService) => Promise<LightResult[]>;
}

/** How a command looks for lights and prints: from its flags. */
interface Output {
  readonly finding: Finding;
  readonly json: boolean;
  readonly scenesPath: string | undefined;
}

/** Runs a job as `set` runs its write: lights looked for, one result line per light, the exit code of the results. */
async function runJob(command: string, job: Job, out: Output, io: CliIO): Promise<number> {
  const { selector } = job;
  const scenes = await openScenesToRead(out.scenesPath ?? defaultScenesPath(), io);
  const look = {
    command,
    wanted: () => (selector === undefined ? null : idSerials(selector)),
    onNone: (unanswered: readonly Unanswered[]) => printNoResults(io, selector === undefined ? [] : namedUnanswered(selector, unanswered), out.json),
    ...(scenes ? { scenes } : {}),
  };
  return withLights(out.finding, io, look, async ({ service, unanswered }) => {
    const missing = selector === undefined ? [] : namedUnanswered(selector, unanswered);
    return printResults(io, await writeOrOffline(() => job.run(service), missing), out.json);
  });
}

const FLAGS = { ...JSON_FLAG, ...SCENES_FLAG, ...findingFlags(true) } as const satisfies FlagSpecs;
const GROUP_FLAGS = { rename: { type: 'boolean', help: 'rename the group OLD to NEW (every member that answers) instead of moving lights' }, ...FLAGS } as const satisfies FlagSpecs;

function operation(name: NamingOperationName): (typeof NAMING_OPERATIONS)[number] {
  return NAMING_OPERATIONS.find((o) => o.name === name)!;
}

/** The request of a renaming operation from its positional values, checked by the service's parser. */
function checked(name: NamingOperationName, values: readonly string[]): Record<string, string> {
  const request = Object.fromEntries(operation(name).params.map((param, i) => [param.key, values[i]!]));
  parseRequest(name, request, { vocabulary: 'library' });
  return request;
}

export const labelCommand = defineCommand({
  name: 'label',
  summary: 'rename one light (its label)',
  usage: 'lightwire label SELECTOR TEXT [--json] [finding options]',
  description: `Sets the label of the one light a selector names (SetLabel, acknowledged and answered). A selector
that names more than one light is refused (SELECTOR_NOT_ONE_LIGHT): name it by id: or by its label.
${LABEL_RULE}

${FINDING_HELP}`,
  footer: 'Exit codes: 0 renamed, 1 the light did not answer or nothing matched, 2 bad options, name or selector.',
  flags: FLAGS,
  async run(p, io) {
    if (p.positionals.length !== 2) throw usageError(`give a selector and the new label, got ${p.positionals.map((s) => shown(s)).join(' ') || 'nothing'}`);
    const [selector, text] = p.positionals as [string, string];
    checkSelector(selector);
    const { label } = checked('setLabel', [text]);
    const out = { finding: findingFrom(p), json: p.values.json, scenesPath: p.values.scenes };
    return runJob('label', { operation: 'setLabel', selector, run: (service) => service.setLabel(selector, label!) }, out, io);
  },
});

/** `lightwire group` and `lightwire location`: move lights by name, or --rename OLD NEW. */
function groupingCommand(kind: 'group' | 'location'): Command {
  const move = kind === 'group' ? 'setGroup' : 'setLocation';
  const rename = kind === 'group' ? 'renameGroup' : 'renameLocation';
  return defineCommand({
    name: kind,
    summary: `move lights to a ${kind} by name, or rename a ${kind} (--rename OLD NEW)`,
    usage: `lightwire ${kind} SELECTOR NAME [--json] [finding options]
       lightwire ${kind} --rename OLD NEW [--json] [finding options]`,
    description: `Moves the lights a selector names to the ${kind} called NAME: the ${kind} that has the name keeps its
id and its label; when none has it, a new ${kind} is made with a fresh random id. With --rename, every ${kind}
called OLD (any case) is renamed NEW on every member that answers, with one updated_at; a member that is
offline is corrected when it is read again. ${LABEL_RULE}

${FINDING_HELP}`,
    footer: 'Exit codes: 0 every light ok, 1 some light not ok or nothing matched, 2 bad options or name.',
    flags: GROUP_FLAGS,
    async run(p, io) {
      if (p.positionals.length !== 2) {
        const what = p.values.rename ? 'the old and the new name' : 'a selector and the name';
        throw usageError(`give ${what}, got ${p.positionals.map((s) => shown(s)).join(' ') || 'nothing'}`);
      }
      const [first, second] = p.positionals as [string, string];
      const out = { finding: findingFrom(p), json: p.values.json, scenesPath: p.values.scenes };
      if (p.values.rename) {
        const { from, to } = checked(rename, [first, second]);
        return runJob(kind, { operation: rename, selector: undefined, run: (service) => service.rename(rename, { from: from!, to: to! }) }, out, io);
      }
      checkSelector(first);
      const name = checked(move, [second])[kind]!;
      return runJob(kind, { operation: move, selector: first, run: (service) => (kind === 'group' ? service.setGroup(first, name) : service.setLocation(first, name)) }, out, io);
    },
  });
}

export const groupCommand = groupingCommand('group');
export const locationCommand = groupingCommand('location');
