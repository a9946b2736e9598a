// The flags of every `lightwire` command, declared once as data: node:util parseArgs reads them, this module
// checks what parseArgs lets through (unknown flags, missing values), names the flag as the user typed it in
// every error, suggests the nearest flag for a typo, and renders the option part of `--help` from the same
// table. Old flag names live on as hidden aliases.

import { isIPv4 } from 'node:net';
import { parseArgs } from 'node:util';
import { didYouMean, LightwireError, nearest, PORT_MAX, printable, quoted } from '../index.js';

export { didYouMean, nearest } from '../index.js';

export interface FlagSpec {
  readonly type: 'string' | 'boolean';
  /** Repeatable: every value is kept, in order. */
  readonly multiple?: boolean;
  /** One-letter alias, e.g. 'h'. */
  readonly short?: string;
  /** The value's placeholder in help, e.g. 'IP[:PORT]'. */
  readonly value?: string;
  /** One line of help; a '\n' starts an indented continuation line. */
  readonly help: string;
  /** Old names still accepted, never shown in help. */
  readonly aliases?: readonly string[];
  /** The heading the flag is listed under in help (default "Options"). */
  readonly section?: string;
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

type ValueOf<S extends FlagSpec> = S['type'] extends 'boolean'
  ? boolean
  : S['multiple'] extends true
    ? string[]
    : string | undefined;

export type FlagValues<F extends FlagSpecs> = { readonly [K in keyof F]: ValueOf<F[K]> };

export interface Parsed<F extends FlagSpecs> {
  readonly values: FlagValues<F>;
  readonly positionals: readonly string[];
  /** The flag as the user typed it (`--host` for `light` given by its old name), or `--name` when not given. */
  flag(name: keyof F & string): string;
  /** Whether the flag was given at all. */
  given(name: keyof F & string): boolean;
}

export type ParseOutcome<F extends FlagSpecs> =
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'ok'; readonly parsed: Parsed<F> };

/** The two flags every command has. */
const BUILTIN: FlagSpecs = {
  help: { type: 'boolean', short: 'h', help: 'show this help' },
  version: { type: 'boolean', help: 'print the version' },
};

export function usageError(reason: string, flag?: string): LightwireError<'CLI_USAGE'> {
  return new LightwireError('CLI_USAGE', flag === undefined ? { reason } : { reason, flag });
}

/** Text the user typed, as an error repeats it: in quotes, cut when long, with no character a terminal would act on. */
export function shown(text: string): string {
  return printable(quoted(text));
}

/** `--light "x": reason`: the error for a value, naming the flag as typed. */
export function valueError(flag: string, text: string, reason: string): LightwireError<'CLI_USAGE'> {
  return usageError(`${flag} ${shown(text)}: ${reason}`, flag);
}

/** Parses `args` against `flags` (plus --help and --version). Throws CLI_USAGE naming the flag as typed. */
export function parseFlags<F extends FlagSpecs>(flags: F, args: readonly string[]): ParseOutcome<F> {
  const all: FlagSpecs = { ...flags, ...BUILTIN };
  /** Every accepted name (canonical, alias) -> canonical. */
  const canonical = new Map<string, string>();
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = {};
  for (const [name, spec] of Object.entries(all)) {
    for (const n of [name, ...(spec.aliases ?? [])]) {
      canonical.set(n, name);
      options[n] = { type: spec.type, ...(spec.multiple ? { multiple: true } : {}), ...(n === name && spec.short ? { short: spec.short } : {}) };
    }
    if (spec.short) canonical.set(spec.short, name);
  }
  const { tokens } = parseArgs({ args: [...args], options, strict: false, allowPositionals: true, tokens: true });
  const names = tokens.flatMap((t) => (t.kind === 'option' ? [canonical.get(t.name)] : []));
  if (names.includes('help')) return { kind: 'help' };
  if (names.includes('version')) return { kind: 'version' };

  const values: Record<string, string | string[] | boolean | undefined> = {};
  for (const [name, spec] of Object.entries(flags)) values[name] = spec.type === 'boolean' ? false : spec.multiple ? [] : undefined;
  const typed = new Map<string, string>();
  const positionals: string[] = [];
  const suggestions = new Map<string, string>();
  for (const [name, spec] of Object.entries(all)) {
    suggestions.set(`--${name}`, `--${name}`);
    for (const alias of spec.aliases ?? []) suggestions.set(`--${alias}`, `--${name}`);
  }
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind !== 'option') continue;
    const name = canonical.get(token.name);
    if (name === undefined) {
      // What the user typed is shown as text: a control character in it must not reach the terminal.
      throw usageError(`unknown option ${printable(token.rawName)}${didYouMean(nearest(token.rawName, suggestions))}`, token.rawName);
    }
    const spec = all[name]!;
    if (spec.type === 'boolean') {
      if (token.value !== undefined) throw usageError(`${token.rawName} takes no value (got ${token.rawName}=${printable(token.value)})`, token.rawName);
      values[name] = true;
    } else {
      const value = token.value;
      const placeholder = spec.value ?? 'VALUE';
      // parseArgs takes the next word even when it is a flag: `--color --fast` has lost its value.
      if (value === undefined || (!token.inlineValue && /^-[^\d.]/.test(value))) {
        throw usageError(`${token.rawName} needs a value: ${token.rawName} ${placeholder}`, token.rawName);
      }
      if (spec.multiple) (values[name] as string[]).push(value);
      else values[name] = value;
    }
    typed.set(name, token.rawName);
  }
  const parsed: Parsed<F> = {
    values: values as FlagValues<F>,
    positionals,
    flag: (name) => typed.get(name) ?? `--${name}`,
    given: (name) => typed.has(name),
  };
  return { kind: 'ok', parsed };
}

// ---- values, checked with the flag as typed in every message ----

/** An integer in [min, max], or undefined when the flag was not given. */
export function intValue<F extends FlagSpecs>(p: Parsed<F>, name: keyof F & string, min: number, max: number): number | undefined {
  const text = p.values[name] as string | undefined;
  if (text === undefined) return undefined;
  // Digits only: Number() would take 0x10, 1e3 and 1.0 as integers, none of which a count or port is written as.
  const n = /^\s*[+-]?\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw valueError(p.flag(name), text, `must be an integer from ${min} to ${max}`);
  return n;
}

/** A finite number (in [min, max] when given), or undefined when the flag was not given. */
export function numberValue<F extends FlagSpecs>(
  p: Parsed<F>,
  name: keyof F & string,
  range: { min?: number; max?: number; what?: string } = {},
): number | undefined {
  const text = p.values[name] as string | undefined;
  if (text === undefined) return undefined;
  const n = Number(text);
  const { min = -Infinity, max = Infinity } = range;
  if (text.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    const bounds = min > -Infinity && max < Infinity ? ` from ${min} to ${max}` : min > -Infinity ? ` of at least ${min}` : '';
    throw valueError(p.flag(name), text, `must be ${range.what ?? 'a number'}${bounds}`);
  }
  return n;
}

/** One of `choices`, or undefined when the flag was not given. */
export function choiceValue<F extends FlagSpecs, C extends string>(p: Parsed<F>, name: keyof F & string, choices: readonly C[]): C | undefined {
  const text = p.values[name] as string | undefined;
  if (text === undefined) return undefined;
  if (!(choices as readonly string[]).includes(text)) {
    throw valueError(p.flag(name), text, `must be ${choices.slice(0, -1).join(', ')}${choices.length > 1 ? ' or ' : ''}${choices.at(-1)!}${didYouMean(nearest(text, choices))}`);
  }
  return text as C;
}

/** Every value of a repeatable IPv4 flag. */
export function ipv4Values<F extends FlagSpecs>(p: Parsed<F>, name: keyof F & string): string[] {
  const list = p.values[name] as string[];
  for (const text of list) if (!isIPv4(text)) throw valueError(p.flag(name), text, 'not an IPv4 address (like 192.168.1.255)');
  return list;
}

/** Every value of a repeatable `IP[:PORT]` flag. */
export function hostValues<F extends FlagSpecs>(p: Parsed<F>, name: keyof F & string): string[] {
  const list = p.values[name] as string[];
  for (const text of list) {
    const match = /^([^:]+)(?::(\d+))?$/.exec(text.trim());
    if (!match || !isIPv4(match[1]!)) throw valueError(p.flag(name), text, 'not an IPv4 address with an optional :PORT (like 192.168.1.20 or 192.168.1.20:56700)');
    const port = match[2] === undefined ? 1 : Number(match[2]);
    if (port < 1 || port > PORT_MAX) throw valueError(p.flag(name), text, `the port must be from 1 to ${PORT_MAX}`);
  }
  return list;
}

// ---- help ----

export interface HelpText {
  /** The usage line(s), after "Usage: ". */
  readonly usage: string;
  readonly description: string;
  readonly flags: FlagSpecs;
  /** Exit codes, examples. */
  readonly footer?: string;
}

function flagLabel(name: string, spec: FlagSpec): string {
  const long = `--${name}${spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : ''}`;
  return spec.short ? `-${spec.short}, ${long}` : long;
}

/** The whole `--help` text: usage, description, the flags by section (from the table), footer. */
export function renderHelp(text: HelpText): string {
  const all: FlagSpecs = { ...text.flags, ...BUILTIN };
  const sections = new Map<string, [string, FlagSpec][]>();
  for (const [name, spec] of Object.entries(text.flags)) {
    const section = spec.section ?? 'Options';
    sections.set(section, [...(sections.get(section) ?? []), [name, spec]]);
  }
  sections.set('General', Object.entries(BUILTIN));
  const width = Math.min(26, Math.max(...Object.entries(all).map(([n, s]) => flagLabel(n, s).length)) + 2);
  const lines = [`Usage: ${text.usage}`, '', text.description];
  for (const [section, entries] of sections) {
    lines.push('', `${section}:`);
    for (const [name, spec] of entries) {
      const label = `  ${flagLabel(name, spec)}`;
      const [first = '', ...more] = spec.help.split('\n');
      const pad = ' '.repeat(width + 2);
      if (label.length >= width + 2) lines.push(label, `${pad}${first}`);
      else lines.push(`${label.padEnd(width + 2)}${first}`);
      for (const line of more) lines.push(`${pad}${line}`);
    }
  }
  if (text.footer) lines.push('', text.footer);
  return lines.join('\n');
}
