// `lightwire scene capture|list|activate`: local scenes, as the HTTP API's scenes.

import { DURATION_MAX_S, LightwireError, SceneStore, sceneNameProblem, type Scene } from '../index.js';
import { didYouMean, nearest, numberValue, shown, usageError, type FlagSpecs } from './args.js';
import { defineCommand, EXIT } from './command.js';
import { defaultScenesPath, findingFlags, findingFrom, idSerials, plural, PRODUCTS_FLAG, SCENES_FLAG, withLights, type Unanswered } from './connect.js';
import { isoSeconds, printable, table } from './format.js';
import { checkSelector, namedUnanswered, printNoResults, printResults, writeOrOffline } from './lights.js';

/** The scene a UUID or name names; a name that several scenes have (a hand-edited file) is refused, never guessed. */
function findScene(scenes: readonly Scene[], key: string): Scene | undefined {
  const k = key.toLowerCase();
  const byUuid = scenes.find((s) => s.uuid === k);
  if (byUuid !== undefined) return byUuid;
  for (const named of [scenes.filter((s) => s.name === key), scenes.filter((s) => s.name.toLowerCase() === k)]) {
    if (named.length > 1) throw usageError(`${named.length} scenes are named ${shown(key)} (${named.map((s) => s.uuid).join(', ')}): give the UUID of one`);
    if (named.length === 1) return named[0];
  }
  return undefined;
}

/** The serials a scene's states name when every state names its lights by id; null otherwise. */
export function sceneSerials(scene: Scene): Set<string> | null {
  const serials = new Set<string>();
  for (const state of scene.states) {
    const ids = idSerials(state.selector);
    if (ids === null) return null;
    for (const s of ids) serials.add(s);
  }
  return serials.size > 0 ? serials : null;
}

const SCENE_FLAGS = {
  duration: { type: 'string', value: 'S', help: 'activate: seconds the change takes (default: as stored)' },
  fast: { type: 'boolean', help: 'activate: send the end states only, do not wait for the lights' },
  json: { type: 'boolean', help: 'print JSON instead of a table (list: the HTTP API List Scenes body)' },
  ...SCENES_FLAG,
  ...findingFlags(true),
  ...PRODUCTS_FLAG,
} as const satisfies FlagSpecs;

const ACTIONS = ['capture', 'list', 'activate'] as const;

export const sceneCommand = defineCommand({
  name: 'scene',
  summary: 'capture, list and activate local scenes',
  usage: `lightwire scene capture NAME [SELECTOR] [finding options]
       lightwire scene list [--json] [--scenes FILE]
       lightwire scene activate UUID|NAME [--duration S] [--fast] [--json] [finding options]`,
  description: `capture   stores the current state of the lights a selector names (default all) as a scene;
          capturing under an existing name replaces that scene; nothing is stored when a light
          named by id did not answer
list      shows the stored scenes
activate  sets every light of a scene to its stored state; a light that did not answer is offline

Lights are looked for until the first discovery round has been read, until --expect N lights have
answered, or until every light the scene (or an id: selector) names has answered, and at most --wait-ms.`,
  footer: 'Exit codes: 0 done, 1 a light was not ok, did not answer or nothing matched, 2 bad options.',
  flags: SCENE_FLAGS,
  async run(p, io) {
    const v = p.values;
    const [action, ...rest] = p.positionals;
    const scenesFile = v.scenes ?? defaultScenesPath();
    if (action === 'list') {
      if (rest.length > 0) throw usageError(`list takes no arguments, got ${rest.map((r) => shown(r)).join(' ')}`);
      // A file that does not parse is said, and left where it is: listing changes nothing.
      const store = await SceneStore.open(scenesFile, { readOnly: true });
      if (store.problem !== null) throw store.problem;
      const scenes = store.list();
      if (v.json) io.stdout(`${JSON.stringify(scenes, null, 2)}\n`);
      else if (scenes.length === 0) io.stderr(`No scenes in ${store.filePath}.\n`);
      else io.stdout(`${table(['UUID', 'NAME', 'LIGHTS', 'UPDATED'], scenes.map((s) => [s.uuid, s.name, String(s.states.length), isoSeconds(s.updated_at)]))}\n`);
      return EXIT.OK;
    }
    if (action === 'capture') {
      if (rest.length < 1 || rest.length > 2) throw usageError('capture takes NAME and an optional SELECTOR');
      const [name, selector = 'all'] = rest as [string, string?];
      const problem = sceneNameProblem(name);
      if (problem !== null) throw usageError(`the scene name ${shown(name)} ${problem}`);
      checkSelector(selector);
      return withLights(findingFrom(p), io, { command: 'scene', products: v.products, wanted: () => idSerials(selector), scenes: scenesFile }, async ({ service, unanswered }) => {
        const missing = idSerials(selector) === null ? [] : namedUnanswered(selector, unanswered);
        if (missing.length > 0) {
          io.stderr(`lightwire scene: not captured: ${missing.map((m) => m.serial).join(', ')} did not answer (try a longer --wait-ms, or leave ${missing.length === 1 ? 'it' : 'them'} out of the selector)\n`);
          return EXIT.FAILURE;
        }
        const scene = await service.captureScene(name, selector);
        io.stdout(`${v.json ? JSON.stringify(scene, null, 2) : `captured "${printable(scene.name)}" (${scene.uuid}) with ${plural(scene.states.length, 'light')}`}\n`);
        return EXIT.OK;
      });
    }
    if (action === 'activate') {
      if (rest.length !== 1) throw usageError('activate takes one scene UUID or name');
      const key = rest[0]!;
      const durationS = numberValue(p, 'duration', { min: 0, max: DURATION_MAX_S });
      // The scene must exist before any light is looked for.
      const store = await SceneStore.open(scenesFile, { readOnly: true });
      if (store.problem !== null) throw store.problem;
      const scene = findScene(store.list(), key);
      if (!scene) throw new LightwireError('SCENE_NOT_FOUND', { sceneId: key });
      const serials = sceneSerials(scene);
      const missingOf = (unanswered: readonly Unanswered[]): Unanswered[] => (serials === null ? [] : unanswered.filter((u) => serials.has(u.serial)));
      const look = { command: 'scene', products: v.products, wanted: () => serials, scenes: store, onNone: (unanswered: readonly Unanswered[]) => printNoResults(io, missingOf(unanswered), v.json) };
      return withLights(findingFrom(p), io, look, async ({ service, unanswered }) => {
        const results = await writeOrOffline(
          () => service.activateScene(scene.uuid, durationS === undefined ? {} : { durationS }, { fast: v.fast }),
          missingOf(unanswered),
        );
        if (results.length === 0) {
          // Lights answered, but none the scene names: nothing was changed, which is not success.
          printNoResults(io, [], v.json);
          throw new LightwireError('LIGHTS_NOT_FOUND', { selector: `scene_id:${scene.uuid}` });
        }
        return printResults(io, results, v.json);
      });
    }
    throw usageError(
      action === undefined
        ? 'give an action: capture, list or activate'
        : `unknown action ${shown(action)}${didYouMean(nearest(action, ACTIONS))}; the actions are capture, list and activate`,
    );
  },
});
