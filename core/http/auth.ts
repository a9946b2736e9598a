// Access tokens and scopes (https://api.developer.lifx.com/docs/authentication).
// Tokens come from configuration as `TOKEN[:SCOPES]`; a request presents one as `Authorization: Bearer TOKEN` or
// as HTTP Basic with the token as the user name and an empty password (`curl -u TOKEN:`).
// Scopes (our choice where the cloud has only OAuth's `remote_control:all`):
// * `read`    List Lights, List Scenes, Validate Color, the /selectors helpers.
// * `control` everything (read included). The cloud's `remote_control:all` means control; a token given
//   without scopes is a control token, like a cloud personal token.
// Comparison is constant-time: every configured token's SHA-256 is compared with the presented token's
// SHA-256 through crypto.timingSafeEqual, all of them, without stopping at a match.
//
// Without any token the API is open, and only while it is reachable from this machine alone: the
// server refuses to bind elsewhere (server.ts), and the plugin still answers 401 to a peer that is not
// loopback, 403 to a request whose Host is not a loopback name (DNS rebinding) and 403 to a request that
// carries an Origin header (a web page posting a form to 127.0.0.1, which needs no CORS preflight).

import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { LightwireError } from '../index.js';
import type { Scope } from './schemas.js';

export const SCOPES: readonly Scope[] = Object.freeze(['read', 'control']);
/** Scope names accepted in configuration, and what each grants. */
const SCOPE_ALIASES: Readonly<Record<string, readonly Scope[]>> = Object.freeze({
  read: ['read'],
  control: ['read', 'control'],
  'remote_control:all': ['read', 'control'],
});
/** Tokens are sent in a header: printable ASCII without spaces; no `:` because Basic auth splits on it. */
const TOKEN_TEXT = /^[\x21-\x39\x3b-\x7e]{1,512}$/;

export interface TokenSpec {
  readonly token: string;
  readonly scopes: readonly Scope[];
}

function invalid(reason: string): LightwireError<'OPTIONS_INVALID'> {
  return new LightwireError('OPTIONS_INVALID', { option: 'token', reason });
}

/** `TOKEN`, `TOKEN:read`, `TOKEN:read,control`, `TOKEN:remote_control:all`. The scope list splits on `,`. */
export function parseTokenSpec(text: string): TokenSpec {
  const colon = text.indexOf(':');
  const token = colon < 0 ? text : text.slice(0, colon);
  if (!TOKEN_TEXT.test(token)) {
    throw invalid('must be 1 to 512 printable ASCII characters without spaces or ":" (give scopes after a ":", like TOKEN:read)');
  }
  if (colon < 0) return Object.freeze({ token, scopes: SCOPE_ALIASES.control! });
  const names = text.slice(colon + 1).split(',').map((s) => s.trim());
  const scopes = new Set<Scope>();
  for (const name of names) {
    const granted = Object.hasOwn(SCOPE_ALIASES, name) ? SCOPE_ALIASES[name] : undefined;
    if (granted === undefined) throw invalid(`scope ${JSON.stringify(name)} is not one of ${Object.keys(SCOPE_ALIASES).join(', ')}`);
    for (const s of granted) scopes.add(s);
  }
  return Object.freeze({ token, scopes: Object.freeze(SCOPES.filter((s) => scopes.has(s))) });
}

function checkTokenSpec(spec: TokenSpec): TokenSpec {
  if (typeof spec !== 'object' || spec === null || !Array.isArray(spec.scopes)) throw invalid('must be { token, scopes }');
  const parsed = parseTokenSpec(spec.scopes.length === 0 ? `${spec.token}:` : `${spec.token}:${spec.scopes.join(',')}`);
  return parsed;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** The token a request presents (Bearer or Basic), undefined when it has no Authorization header. */
export function presentedToken(header: string | undefined): string | undefined | null {
  if (header === undefined) return undefined;
  const space = header.indexOf(' ');
  if (space < 0) return null;
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (scheme === 'bearer') return value;
  if (scheme === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    // The token is the user name; the password should be empty, and is ignored if it is not.
    return colon < 0 ? decoded : decoded.slice(0, colon);
  }
  return null;
}

export type AuthOutcome =
  | { readonly ok: true; readonly identity: string; readonly scopes: readonly Scope[] }
  | { readonly ok: false; readonly error: LightwireError };

export class TokenSet {
  private readonly entries: readonly { readonly hash: Buffer; readonly scopes: readonly Scope[] }[];

  constructor(tokens: readonly (TokenSpec | string)[]) {
    const specs = tokens.map((t) => (typeof t === 'string' ? parseTokenSpec(t) : checkTokenSpec(t)));
    const seen = new Set<string>();
    for (const s of specs) {
      if (seen.has(s.token)) throw invalid('the same token is given twice');
      seen.add(s.token);
    }
    this.entries = Object.freeze(specs.map((s) => Object.freeze({ hash: sha256(s.token), scopes: s.scopes })));
  }

  get size(): number {
    return this.entries.length;
  }

  /** Which configured token (index) `token` is, comparing every entry in constant time. */
  private match(token: string): number {
    const hash = sha256(token);
    let found = -1;
    for (let i = 0; i < this.entries.length; i++) {
      if (timingSafeEqual(hash, this.entries[i]!.hash) && found < 0) found = i;
    }
    return found;
  }

  /** Who is asking: `token:<index>` for a valid token; an error for a missing or wrong one. */
  authenticate(header: string | undefined): AuthOutcome {
    const token = presentedToken(header);
    if (token === undefined) {
      return { ok: false, error: new LightwireError('UNAUTHORIZED', { reason: 'send "Authorization: Bearer <token>"' }) };
    }
    if (token === null) {
      return { ok: false, error: new LightwireError('UNAUTHORIZED', { reason: 'the Authorization header must be Bearer <token> or Basic' }) };
    }
    const index = this.match(token);
    if (index < 0) return { ok: false, error: new LightwireError('UNAUTHORIZED', { reason: 'the token is not one this server knows' }) };
    return { ok: true, identity: `token:${index}`, scopes: this.entries[index]!.scopes };
  }
}

/**
 * Why `host` cannot be an address to listen on, or null when it can: an IP address (IPv6 with or without brackets) or
 * a host name (RFC 1123 labels, the last one not all digits, so 999.999.1.1 is a mistyped address, not a name).
 */
export function listenHostProblem(host: string): string | null {
  const bracketed = host.startsWith('[') && host.endsWith(']');
  const h = bracketed ? host.slice(1, -1) : host;
  if (!bracketed && /^[^:]+:\d*$/.test(h)) return 'has a port in it; give the address alone, and the port on its own';
  if (bracketed || h.includes(':')) return isIP(h) === 6 ? null : 'is not an IPv6 address';
  if (isIP(h) === 4) return null;
  const labels = h.split('.');
  if (h.length > 253 || labels.some((l) => !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i.test(l))) return 'is not an IP address or a host name';
  if (/^\d+$/.test(labels[labels.length - 1]!)) return 'is not an IPv4 address (four numbers from 0 to 255)';
  return null;
}

/** 127.0.0.0/8, ::1, IPv4-mapped loopback (::ffff:127.x.y.z), and the name localhost. */
export function isLoopbackHost(host: string): boolean {
  const h = (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host).toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.split('.')[0] === '127';
  if (isIP(h) !== 6) return false;
  // The URL parser writes IPv6 in its canonical form: [::1], [::ffff:7f00:1] for ::ffff:127.0.0.1.
  const canonical = new URL(`http://[${h}]/`).hostname;
  if (canonical === '[::1]') return true;
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}\]$/.exec(canonical);
  return mapped !== null && parseInt(mapped[1]!, 16) >> 8 === 127;
}

/** The host name of a Host header (`127.0.0.1:3000`, `[::1]:3000`, `localhost`). */
export function hostOfHeader(header: string): string {
  if (header.startsWith('[')) {
    const end = header.indexOf(']');
    return end < 0 ? header : header.slice(0, end + 1);
  }
  const colon = header.lastIndexOf(':');
  return colon < 0 ? header : header.slice(0, colon);
}
