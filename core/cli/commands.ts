// Every `lightwire` sub-command, in the order `--help` lists them.

import type { Command } from './command.js';
import { decodeCommand } from './decode.js';

export const COMMANDS: readonly Command[] = [decodeCommand];
