// Text for people, shared by the CLI, the doctor's report and the option checks: what a light or a file names is
// shown escaped, never obeyed; a misspelt name gets the nearest known one.

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

/** Marks drawn on the character before them, joiners and variation selectors: no column of their own. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\u200b-\u200d\u2060\ufe00-\ufe0f]$/u;

/**
 * Code points a terminal draws two columns wide: East Asian wide and fullwidth letters (CJK, kana, hangul, fullwidth
 * forms) and emoji. A close reading of Unicode's East Asian Width, enough for labels.
 */
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

/** How many terminal columns `text` takes: CJK and emoji two, combining marks none, the rest one. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    if (ZERO_WIDTH.test(ch)) continue;
    width += isWide(ch.codePointAt(0)!) ? 2 : 1;
  }
  return width;
}

/** Left-aligned columns, two spaces apart, one string a line; every cell printable(); widths as a terminal draws them. */
export function tableLines(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const lines = [header, ...rows.map((r) => r.map(printable))].map((cells) => cells.map((text) => ({ text, width: displayWidth(text) })));
  const widths = header.map((_, i) => Math.max(...lines.map((cells) => cells[i]?.width ?? 0)));
  return lines.map((cells) => cells.map((c, i) => c.text + ' '.repeat(Math.max(0, widths[i]! - c.width))).join('  ').trimEnd());
}

/** Optimal string alignment distance (Levenshtein with adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate nearest to `word`, if it is near enough to be a typo: a prefix of it (at least three letters),
 * or at most a third of its letters away (at least one, at most three). Candidates map a name to what to suggest.
 */
export function nearest(word: string, candidates: ReadonlyMap<string, string> | readonly string[]): string | undefined {
  const map = Array.isArray(candidates) ? new Map(candidates.map((c) => [c, c])) : (candidates as ReadonlyMap<string, string>);
  const bare = (s: string): string => s.replace(/^-+/, '').toLowerCase();
  const w = bare(word);
  if (w === '') return undefined;
  let best: { distance: number; suggestion: string } | undefined;
  for (const [name, suggestion] of map) {
    const n = bare(name);
    const distance = w.length >= 3 && n.startsWith(w) ? 0.5 : editDistance(w, n);
    const limit = Math.min(3, Math.max(1, Math.floor(n.length / 3)));
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { distance, suggestion };
  }
  return best?.suggestion;
}

/** `(did you mean --brightness?)`, or nothing. */
export function didYouMean(suggestion: string | undefined): string {
  return suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`;
}

/**
 * The first key of an options object that is not one of `known`, and why (naming the nearest known key), or
 * undefined when every key is known. A misspelt option would otherwise fall back to its default silently.
 */
export function unknownOption(input: object, known: readonly string[], group: string): { key: string; reason: string } | undefined {
  for (const key of Object.keys(input)) {
    if (!known.includes(key)) return { key, reason: `is not ${group} option${didYouMean(nearest(key, known))}` };
  }
  return undefined;
}
