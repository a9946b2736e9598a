import type { CliIO } from '../../core/cli/command.js';

export interface CapturedIO extends CliIO {
  readonly out: () => string;
  readonly err: () => string;
  readonly abort: () => void;
}

/** A CliIO that records what a command prints, with an AbortController to stop long-running commands. */
export function captureIO(): CapturedIO {
  let out = '';
  let err = '';
  const controller = new AbortController();
  return {
    stdout: (text) => { out += text; },
    stderr: (text) => { err += text; },
    signal: controller.signal,
    out: () => out,
    err: () => err,
    abort: () => controller.abort(),
  };
}
