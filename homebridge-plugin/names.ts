// Names the plugin gives HomeKit (accessory names, service names, scene switches) follow HomeKit's naming rule.
// LIFX labels are free text ("Lamp 💡", "Desk (left)", "#2 Hall", "A"); HAP-NodeJS warns about a name that breaks
// the rule, and the Home app may refuse to add such an accessory or stop answering for it. Labels are cleaned
// here; logs keep the label as the light reports it.

/**
 * HomeKit's rule, exactly as HAP-NodeJS checks it (lib/util/checkName.ts, the "invalid 'Name'" warning): starts
 * and ends with a Unicode letter or number; in between, letters, numbers, space separators (\p{Zs}, not line
 * breaks), apostrophes (' and U+2019) and & ! . _ : ; ( ) / , -. At least two characters.
 */
export const HOMEKIT_NAME = /^[\p{L}\p{N}][\p{L}\p{N}\p{Zs}\u2019'&!._:;()/,-]*[\p{L}\p{N}]$/u;

/** A character HomeKit accepts inside a name. */
const INNER = /^[\p{L}\p{N}\p{Zs}\u2019'&!._:;()/,-]$/u;
/** What a name may not start or end with. */
const EDGES = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

export function isHomeKitName(name: string): boolean {
  return HOMEKIT_NAME.test(name);
}

/** Parentheses that open before they close and all close (else "Desk (left" would remain of "Desk (left)"). */
function balanced(text: string): boolean {
  let depth = 0;
  for (const c of text) {
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

/**
 * The usable part of a text: characters HomeKit refuses become spaces (an emoji between two words must not join
 * them), runs of spaces become one, the edges are trimmed to a letter or number, and unbalanced parentheses go.
 * '' when nothing is left; one character when only one is (HomeKit wants two: the caller decides).
 */
function clean(text: string): string {
  // NFC first: a decomposed "é" (e + combining accent) is one letter HomeKit accepts, the accent alone is not.
  const kept = Array.from(text.normalize('NFC'), (c) => (INNER.test(c) ? c : ' ')).join('');
  const trimmed = kept.replace(/\p{Zs}+/gu, ' ').replace(EDGES, '');
  return balanced(trimmed) ? trimmed : trimmed.replace(/[()]/g, ' ').replace(/\p{Zs}+/gu, ' ').replace(EDGES, '');
}

/**
 * The name HomeKit gets for a label: the label itself when HomeKit accepts it, else its cleaned form. A single
 * letter or number is prefixed with `noun` ("A" becomes "Light A"); a label with nothing usable (empty, only
 * emoji or symbols) gets `fallback`, cleaned the same way, and `noun` when even that has nothing usable.
 * `noun` must itself be a valid name ("Light", "Switch", "Scene").
 */
export function homeKitName(label: string, fallback: string, noun: string): string {
  if (HOMEKIT_NAME.test(label)) return label;
  for (const candidate of [clean(label), clean(fallback)]) {
    if (HOMEKIT_NAME.test(candidate)) return candidate;
    if (candidate !== '') return `${noun} ${candidate}`;
  }
  return noun;
}

/** Whether anything of a label is usable in a name: else homeKitName gives the fallback. */
export function usableLabel(label: string): boolean {
  return clean(label) !== '';
}

/** The name of a light whose label has nothing usable: its product and the last 6 hex digits of its serial. */
export function lightFallbackName(serial: string, productName: string | undefined): string {
  return `${productName ?? 'LIFX'} ${serial.slice(-6)}`;
}

/** The HomeKit name of a light or switch device: its label made valid, else its product and serial. */
export function lightName(label: string, serial: string, productName: string | undefined, isLight: boolean): string {
  return homeKitName(label, lightFallbackName(serial, productName), isLight ? 'Light' : 'Switch');
}
