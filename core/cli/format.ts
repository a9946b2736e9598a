// Small text helpers shared by the CLI commands.

import type { Hsbk } from '../index.js';

/**
 * Control characters (C0, DEL, C1) and the bidirectional overrides as escapes: text a light, a fleet file or a scene
 * names (anyone on the LAN can set a label) cannot move the cursor, clear the screen, retitle the terminal, break a
 * table's lines or reverse what is shown.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Left-aligned columns, two spaces apart; every cell printable(). */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const safe = rows.map((r) => r.map(printable));
  const widths = header.map((h, i) => Math.max(h.length, ...safe.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), ...safe.map(line)].join('\n');
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
