// The shape of one `lightwire` sub-command. Commands parse their own flags with node:util parseArgs,
// print through `io` (so tests capture output), and return an exit code instead of calling process.exit.

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
