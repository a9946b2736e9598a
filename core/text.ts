// Text for terminals, shared by the CLI and the doctor's report: what a light or a file names is shown, never obeyed.

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

/** Left-aligned columns, two spaces apart, one string a line; every cell printable(). */
export function tableLines(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const safe = rows.map((r) => r.map(printable));
  const widths = header.map((h, i) => Math.max(h.length, ...safe.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), ...safe.map(line)];
}
