// The shape of one `lightwire` sub-command, and defineCommand, which gives every command the same parsing,
// --help, --version and error shape. Commands print through `io` (so tests capture output) and return an exit
// code instead of calling process.exit.

import { isLightwireError, packageInfo, printable } from '../index.js';
import { parseFlags, renderHelp, type FlagSpecs, type HelpText, type Parsed } from './args.js';

export interface CliIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Aborted on SIGINT/SIGTERM; long-running commands (simulate, serve) stop cleanly when it fires. */
  readonly signal: AbortSignal;
}

export interface Command {
  readonly name: string;
  /** One line for `lightwire --help`. */
  readonly summary: string;
  /** The full `--help` text of the command. */
  readonly help: string;
  run(args: readonly string[], io: CliIO): Promise<number>;
}

/** Exit codes shared by every command. */
export const EXIT = Object.freeze({ OK: 0, FAILURE: 1, USAGE: 2 });

/**
 * An error message as the terminal gets it: it may quote what the user typed or a light's label, so no control
 * character (an escape sequence) gets through; its own line breaks are kept.
 */
export function terminalText(message: string): string {
  return message.split('\n').map(printable).join('\n');
}

/**
 * A usage error (a bad flag, value or command): one line with its code, CLI_USAGE, like every other error, then one
 * line pointing to the help (never the whole help). `command` is undefined for the top level (`lightwire: ...`).
 */
export function printUsageError(io: CliIO, command: string | undefined, message: string): number {
  const who = command === undefined ? 'lightwire' : `lightwire ${command}`;
  const help = command === undefined ? "Run 'lightwire --help' for the commands." : `Run 'lightwire ${command} --help' for usage.`;
  io.stderr(`${who}: CLI_USAGE: ${terminalText(message)}\n${help}\n`);
  return EXIT.USAGE;
}

/**
 * Any other coded error as one line with its code. Not found (404) is 1; other request errors (a bad colour,
 * selector or parameter) are 2; everything else 1.
 */
export function printError(io: CliIO, command: string, err: unknown): number {
  if (isLightwireError(err, 'CLI_USAGE')) return printUsageError(io, command, err.message);
  if (isLightwireError(err)) {
    io.stderr(`lightwire ${command}: ${err.code}: ${terminalText(err.message)}\n`);
    return err.httpStatus === 404 || err.httpStatus >= 500 ? EXIT.FAILURE : EXIT.USAGE;
  }
  io.stderr(`lightwire ${command}: ${terminalText(err instanceof Error ? err.message : String(err))}\n`);
  return EXIT.FAILURE;
}

export interface CommandSpec<F extends FlagSpecs> extends HelpText {
  readonly name: string;
  readonly summary: string;
  readonly flags: F;
  /** Runs with parsed flags; throw a CLI_USAGE error (usageError) for a usage error. */
  run(parsed: Parsed<F>, io: CliIO): Promise<number>;
}

/** A command whose flags, --help, --version and error output follow the shared rules. */
export function defineCommand<F extends FlagSpecs>(spec: CommandSpec<F>): Command {
  const help = renderHelp(spec);
  return {
    name: spec.name,
    summary: spec.summary,
    help,
    async run(args, io) {
      try {
        const outcome = parseFlags(spec.flags, args);
        if (outcome.kind === 'help') {
          io.stdout(`${help}\n`);
          return EXIT.OK;
        }
        if (outcome.kind === 'version') {
          io.stdout(`${packageInfo().version}\n`);
          return EXIT.OK;
        }
        return await spec.run(outcome.parsed, io);
      } catch (err) {
        if (!isLightwireError(err) && !(err instanceof Error && 'code' in err)) throw err;
        return printError(io, spec.name, err);
      }
    },
  };
}
