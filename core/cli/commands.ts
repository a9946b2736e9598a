// Every `lightwire` sub-command, in the order `--help` lists them.

import type { Command } from './command.js';
import { decodeCommand } from './decode.js';
import { discoverCommand } from './discover.js';
import { listCommand, setCommand } from './lights.js';
import { sceneCommand } from './scene.js';
import { simulateCommand } from './simulate.js';

export const COMMANDS: readonly Command[] = [simulateCommand, discoverCommand, listCommand, setCommand, sceneCommand, decodeCommand];
