// Every `lightwire` sub-command, in the order `--help` lists them.

import type { Command } from './command.js';
import { decodeCommand } from './decode.js';
import { discoverCommand } from './discover.js';
import { doctorCommand } from './doctor.js';
import { listCommand, setCommand } from './lights.js';
import { groupCommand, labelCommand, locationCommand } from './naming.js';
import { sceneCommand } from './scene.js';
import { serveCommand } from './serve.js';
import { simulateCommand } from './simulate.js';
import { themeCommand, themesCommand } from './theme.js';

export const COMMANDS: readonly Command[] = [
  serveCommand,
  simulateCommand,
  discoverCommand,
  listCommand,
  setCommand,
  themeCommand,
  themesCommand,
  labelCommand,
  groupCommand,
  locationCommand,
  sceneCommand,
  doctorCommand,
  decodeCommand,
];
