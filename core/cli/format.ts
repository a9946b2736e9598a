// Small text helpers shared by the CLI commands.

import type { Hsbk } from '../index.js';

/** Left-aligned columns, two spaces apart. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
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
