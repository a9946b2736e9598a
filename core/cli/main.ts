#!/usr/bin/env node
// The `lightwire` command: dispatches to one sub-command, wires SIGINT/SIGTERM to an AbortSignal.

import { packageInfo } from '../index.js';
import { didYouMean, nearest, shown } from './args.js';
import { printable } from './format.js';
import { EXIT, printUsageError, terminalText, type CliIO, type Command } from './command.js';
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
  return printUsageError(io, undefined, `unknown command ${shown(name)}${didYouMean(nearest(name, commands.map((c) => c.name)))}`);
}

export async function main(argv: readonly string[], io: CliIO, commands: readonly Command[] = COMMANDS): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(`${topHelp(commands)}\n`);
    return EXIT.USAGE;
  }
  if (name === '--help' || name === '-h' || (name === 'help' && (rest.length === 0 || ['help', '--help', '-h'].includes(rest[0]!)))) {
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
    return printUsageError(io, undefined, `unknown option ${printable(name)}${didYouMean(nearest(name, ['--help', '--version']))}; options come after the command`);
  }
  const command = commands.find((c) => c.name === name);
  if (command === undefined) return unknownCommand(io, name, commands);
  try {
    return await command.run(rest, io);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    io.stderr(`lightwire ${name}: ${typeof code === 'string' ? `${code}: ` : ''}${terminalText(String((err as Error).message))}\n`);
    return EXIT.FAILURE;
  }
}

/**
 * After Ctrl-C or SIGTERM, how long a command may take to stop cleanly (serve lets requests finish for 2 s) before the
 * process exits anyway: work that cannot be interrupted must not keep a stopped command running.
 */
export const STOP_GRACE_MS = 5000;
/** After a command has finished, how long anything left behind may keep the process alive before it exits. */
export const EXIT_GRACE_MS = 2000;

if (require.main === module) {
  const controller = new AbortController();
  let forced: NodeJS.Timeout | undefined;
  const stop = (why: string): void => {
    controller.abort();
    forced ??= setTimeout(() => {
      io.stderr(`lightwire: still busy ${STOP_GRACE_MS / 1000} s after ${why}; exiting without a clean stop.\n`);
      process.exit(EXIT.FAILURE);
    }, STOP_GRACE_MS).unref();
  };
  const onSignal = (signal: NodeJS.Signals): void => stop(signal);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // A reader that went away (`lightwire ... | head`) is an error on the stream, not a crash: output to stdout has
  // nowhere to go, so the command stops as if interrupted; a closed stderr (a log reader gone) only loses the log.
  let stdoutOpen = true;
  let stderrOpen = true;
  process.stdout.on('error', () => {
    stdoutOpen = false;
    stop('its output was closed');
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
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      // The command is done: a handle left open (a socket, a timer, a file operation that never returns) must not
      // keep the process running. Unref'd, this fires only when something else still holds the process.
      setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
    },
    (err: unknown) => {
      io.stderr(`lightwire: ${String(err)}\n`);
      process.exitCode = EXIT.FAILURE;
      setTimeout(() => process.exit(EXIT.FAILURE), EXIT_GRACE_MS).unref();
    },
  );
}
