#!/usr/bin/env node
// The `lightwire` command: dispatches to one sub-command, wires SIGINT/SIGTERM to an AbortSignal.

import { packageInfo } from '../index.js';
import { didYouMean, nearest } from './args.js';
import { EXIT, type CliIO, type Command } from './command.js';
import { COMMANDS } from './commands.js';

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
    'Options:',
    '  -h, --help   show this help',
    '  --version    print the version',
    '',
    "Run 'lightwire help <command>' (or 'lightwire <command> --help') for the options of one command.",
  ].join('\n');
}

function unknownCommand(io: CliIO, name: string, commands: readonly Command[]): number {
  io.stderr(`lightwire: unknown command ${JSON.stringify(name)}${didYouMean(nearest(name, commands.map((c) => c.name)))}\n`);
  io.stderr("Run 'lightwire --help' for the commands.\n");
  return EXIT.USAGE;
}

export async function main(argv: readonly string[], io: CliIO, commands: readonly Command[] = COMMANDS): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(`${topHelp(commands)}\n`);
    return EXIT.USAGE;
  }
  if (name === '--help' || name === '-h' || (name === 'help' && rest.length === 0)) {
    io.stdout(`${topHelp(commands)}\n`);
    return EXIT.OK;
  }
  if (name === '--version' || name === '-v' || (name === 'help' && rest[0] === '--version')) {
    io.stdout(`${packageInfo().version}\n`);
    return EXIT.OK;
  }
  if (name === 'help') {
    // `lightwire help CMD`: the command's own --help.
    const command = commands.find((c) => c.name === rest[0]);
    if (command === undefined) return unknownCommand(io, rest[0]!, commands);
    io.stdout(`${command.help}\n`);
    return EXIT.OK;
  }
  if (name.startsWith('-')) {
    io.stderr(`lightwire: unknown option ${name}${didYouMean(nearest(name, ['--help', '--version']))}; options come after the command\n`);
    io.stderr("Run 'lightwire --help' for the commands.\n");
    return EXIT.USAGE;
  }
  const command = commands.find((c) => c.name === name);
  if (command === undefined) return unknownCommand(io, name, commands);
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
  // A reader that went away (`lightwire ... | head`) is an error on the stream, not a crash: output to stdout has
  // nowhere to go, so the command stops as if interrupted; a closed stderr (a log reader gone) only loses the log.
  let stdoutOpen = true;
  let stderrOpen = true;
  process.stdout.on('error', () => {
    stdoutOpen = false;
    stop();
  });
  process.stderr.on('error', () => {
    stderrOpen = false;
  });
  const io: CliIO = {
    stdout: (text) => void (stdoutOpen && process.stdout.write(text)),
    stderr: (text) => void (stderrOpen && process.stderr.write(text)),
    signal: controller.signal,
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
    (err: unknown) => {
      io.stderr(`lightwire: ${String(err)}\n`);
      process.exitCode = EXIT.FAILURE;
    },
  );
}
