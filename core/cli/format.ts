// Small text helpers shared by the CLI commands.

import { tableLines, type Hsbk } from '../index.js';

export { printable } from '../index.js';

/** Left-aligned columns, two spaces apart; every cell printable(). */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return tableLines(header, rows).join('\n');
}

/** Unix seconds as an ISO time, or the number itself when no date has it (a hand-edited file). */
export function isoSeconds(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString();
}

export function formatColor(color: Hsbk | undefined): string {
  if (!color) return '-';
  if (color.saturation === 0) return `white ${color.kelvin}K ${Math.round(color.brightness * 100)}%`;
  return `hue ${Math.round(color.hue)} sat ${color.saturation.toFixed(2)} ${Math.round(color.brightness * 100)}%`;
}

/** Resolves after `ms`, or as soon as the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Resolves once the signal aborts (Ctrl-C / SIGTERM for long-running commands). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
}
