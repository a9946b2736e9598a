// `lightwire theme` and `lightwire themes`: Paint Theme from a terminal, and the themes it knows.

import { themeList, type LightResult } from '../index.js';
import { numberValue, shown, usageError, type FlagSpecs } from './args.js';
import { defineCommand, EXIT } from './command.js';
import { defaultScenesPath, findingFlags, findingFrom, idSerials, openScenesToRead, SCENES_FLAG, withLights } from './connect.js';
import { table } from './format.js';
import { checkSelector, namedUnanswered, printNoResults, printResults, writeOrOffline } from './lights.js';

const THEME_FLAGS = {
  duration: { type: 'string', value: 'S', help: 'seconds the change takes (default 1)' },
  fast: { type: 'boolean', help: 'send the end state only, do not wait for the lights' },
  json: { type: 'boolean', help: 'print JSON instead of a table' },
  ...SCENES_FLAG,
  ...findingFlags(true),
} as const satisfies FlagSpecs;

export const themeCommand = defineCommand({
  name: 'theme',
  summary: 'paint a named theme over lights by selector (zones of strips, pixels of matrix lights, lights of a group)',
  usage: 'lightwire theme SELECTOR NAME [--duration S] [--fast] [--json] [finding options]',
  description: `Paints a theme (a palette of the LIFX app's themes, as Home Assistant's lifx.paint_theme offers them;
\`lightwire themes\` lists them) over the lights a selector names, like PUT /lightwire/lights/:selector/theme: a
gradient through the palette over the zones of a strip and the pixels of a matrix light, and each light of the
selection one colour further along the palette than the one before, so neighbours differ. Prints one line per light
with its result (ok, timed_out, offline).`,
  footer: 'Exit codes: 0 every light ok, 1 some light not ok or nothing matched, 2 bad options or an unknown theme.',
  flags: THEME_FLAGS,
  async run(p, io) {
    if (p.positionals.length !== 2) {
      throw usageError(`give a selector and a theme (e.g. lightwire theme group:Office autumn), got ${p.positionals.map((s) => shown(s)).join(' ') || 'nothing'}`);
    }
    const [selector, theme] = p.positionals as [string, string];
    checkSelector(selector);
    const durationS = numberValue(p, 'duration');
    const request = { theme, ...(durationS !== undefined ? { durationS } : {}) };
    const scenes = await openScenesToRead(p.values.scenes ?? defaultScenesPath(), io);
    return withLights(
      findingFrom(p),
      io,
      {
        command: 'theme',
        wanted: () => idSerials(selector),
        onNone: (unanswered) => printNoResults(io, namedUnanswered(selector, unanswered), p.values.json),
        ...(scenes ? { scenes } : {}),
        // An unknown theme (THEME_UNKNOWN, with the names closest to it) or a bad duration, before looking for lights.
        before: (service) => void service.check('theme', request),
      },
      async ({ service, unanswered }) => {
        const results: LightResult[] = await writeOrOffline(() => service.theme(selector, request, { fast: p.values.fast }), namedUnanswered(selector, unanswered));
        return printResults(io, results, p.values.json);
      },
    );
  },
});

export const themesCommand = defineCommand({
  name: 'themes',
  summary: 'list the themes `lightwire theme` paints',
  usage: 'lightwire themes [--json]',
  description: 'Lists every theme by name with its palette (hue, saturation, brightness, kelvin of each colour).',
  footer: 'Exit codes: 0 listed, 2 bad options.',
  flags: { json: { type: 'boolean', help: 'print JSON instead of a table' } } as const satisfies FlagSpecs,
  async run(p, io) {
    if (p.positionals.length > 0) throw usageError(`takes no arguments, got ${p.positionals.map((s) => shown(s)).join(' ')}`);
    const themes = themeList();
    if (p.values.json) io.stdout(`${JSON.stringify(themes, null, 2)}\n`);
    else io.stdout(`${table(['THEME', 'COLOURS', 'HUES'], themes.map((t) => [t.name, String(t.palette.length), t.palette.map((c) => Math.round(c.hue)).join(' ')]))}\n`);
    return EXIT.OK;
  },
});
