#!/usr/bin/env node
// The `lightwire` command: dispatches to one sub-command, wires SIGINT/SIGTERM to an AbortSignal.

import { EXIT, type CliIO, type Command } from './command.js';
import { COMMANDS } from './commands.js';
import { packageInfo } from '../package-info.js';

function topHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: lightwire <command> [options]',
    '',
    'Local control for LIFX LAN lights.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    "Run 'lightwire <command> --help' for the options of one command.",
  ].join('\n');
}

export async function main(argv: readonly string[], io: CliIO, commands: readonly Command[] = COMMANDS): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const out = name === undefined ? io.stderr : io.stdout;
    out(`${topHelp(commands)}\n`);
    return name === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${packageInfo().version}\n`);
    return EXIT.OK;
  }
  const command = commands.find((c) => c.name === name);
  if (command === undefined) {
    io.stderr(`lightwire: unknown command ${JSON.stringify(name)}\n\n${topHelp(commands)}\n`);
    return EXIT.USAGE;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    io.stderr(`lightwire ${name}: ${typeof code === 'string' ? `${code}: ` : ''}${(err as Error).message}\n`);
    return EXIT.FAILURE;
  }
}

if (require.main === module) {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  const io: CliIO = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    signal: controller.signal,
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
    (err: unknown) => {
      process.stderr.write(`lightwire: ${String(err)}\n`);
      process.exitCode = EXIT.FAILURE;
    },
  );
}
