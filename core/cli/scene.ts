// `lightwire scene capture|list|activate`: local scenes, as the HTTP API's scenes.

import { parseArgs } from 'node:util';
import { SceneStore, type Scene } from '../control/scene-store.js';
import { LightwireError } from '../errors.js';
import { EXIT, type CliIO, type Command } from './command.js';
import { CONNECT_HELP, CONNECT_OPTIONS, clientFromFlags, defaultScenesPath, withService } from './connect.js';
import { table } from './format.js';
import { printResults, reportError } from './lights.js';

const HELP = `Usage: lightwire scene capture NAME [SELECTOR] [finding options]
       lightwire scene list [--json] [--scenes FILE]
       lightwire scene activate UUID|NAME [--duration S] [--fast] [finding options]

capture   stores the current state of the lights a selector names (default all) as a scene;
          capturing under an existing name replaces that scene
list      shows the stored scenes (--json: the HTTP API's List Scenes body)
activate  sets every light of a scene to its stored state over --duration seconds

${CONNECT_HELP}

Exit codes: 0 done, 1 a light was not ok or nothing matched, 2 bad options.`;

function findScene(scenes: readonly Scene[], key: string): Scene | undefined {
  const k = key.toLowerCase();
  return scenes.find((s) => s.uuid === k) ?? scenes.find((s) => s.name === key) ?? scenes.find((s) => s.name.toLowerCase() === k);
}

export const sceneCommand: Command = {
  name: 'scene',
  summary: 'capture, list and activate local scenes',
  help: HELP,
  async run(args, io: CliIO) {
    let parsed;
    try {
      parsed = parseArgs({
        args: [...args],
        allowPositionals: true,
        options: {
          ...CONNECT_OPTIONS,
          duration: { type: 'string' },
          fast: { type: 'boolean' },
          json: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
        },
      });
    } catch (err) {
      io.stderr(`lightwire scene: ${(err as Error).message}\n\n${HELP}\n`);
      return EXIT.USAGE;
    }
    const v = parsed.values;
    const [action, ...rest] = parsed.positionals;
    if (v.help) {
      io.stdout(`${HELP}\n`);
      return EXIT.OK;
    }
    const usage = (message: string): number => {
      io.stderr(`lightwire scene: ${message}\n\n${HELP}\n`);
      return EXIT.USAGE;
    };
    try {
      if (action === 'list') {
        if (rest.length > 0) return usage('list takes no arguments');
        const store = await SceneStore.open(v.scenes ?? defaultScenesPath(), { log: (m) => io.stderr(`${m}\n`) });
        const scenes = store.list();
        if (v.json) io.stdout(`${JSON.stringify(scenes, null, 2)}\n`);
        else if (scenes.length === 0) io.stderr(`No scenes in ${store.filePath}.\n`);
        else io.stdout(`${table(['UUID', 'NAME', 'LIGHTS', 'UPDATED'], scenes.map((s) => [s.uuid, s.name, String(s.states.length), new Date(s.updated_at * 1000).toISOString()]))}\n`);
        return EXIT.OK;
      }
      if (action === 'capture') {
        if (rest.length < 1 || rest.length > 2) return usage('capture takes NAME and an optional SELECTOR');
        const [name, selector = 'all'] = rest as [string, string?];
        const prepared = clientFromFlags(v);
        return await withService(v, io, async (service) => {
          const scene = await service.captureScene(name, selector);
          io.stdout(`${v.json ? JSON.stringify(scene, null, 2) : `captured "${scene.name}" (${scene.uuid}) with ${scene.states.length} light${scene.states.length === 1 ? '' : 's'}`}\n`);
          return EXIT.OK;
        }, prepared);
      }
      if (action === 'activate') {
        if (rest.length !== 1) return usage('activate takes one scene UUID or name');
        let durationS: number | undefined;
        if (v.duration !== undefined) {
          durationS = Number(v.duration);
          if (v.duration.trim() === '' || !Number.isFinite(durationS)) return usage(`--duration must be a number, got ${JSON.stringify(v.duration)}`);
        }
        const prepared = clientFromFlags(v);
        return await withService(v, io, async (service) => {
          const scene = findScene(service.listScenes(), rest[0]!);
          if (!scene) throw new LightwireError('SCENE_NOT_FOUND', { sceneId: rest[0]! });
          const results = await service.activateScene(scene.uuid, durationS === undefined ? {} : { durationS }, { fast: v.fast === true });
          return printResults(io, results, v.json === true);
        }, prepared);
      }
      return usage(action === undefined ? 'give an action: capture, list or activate' : `unknown action ${JSON.stringify(action)}`);
    } catch (err) {
      if (err instanceof LightwireError) return reportError(io, 'scene', err);
      if (err instanceof Error && !(err instanceof TypeError) && !(err instanceof RangeError)) return usage(err.message);
      throw err;
    }
  },
};
