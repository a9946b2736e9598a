// Browser sessions for the dashboard (core/http/README.md, "Dashboard sessions").
//
// The v1 API refuses any request that carries an Origin header unless it presents a token, so that no web page
// can drive the lights. The dashboard is a web page, so it gets a credential of its own, which only our page can
// use:
// * a session id in an HttpOnly, SameSite=Strict cookie (scripts cannot read it; other sites' requests do not
//   carry it), named after the listening port because cookies are not port-scoped;
// * a CSRF token bound to the session, written into the page and sent back in a header by the page's own
//   requests. Another origin can neither read the page (no CORS) nor send the custom header without a CORS
//   preflight (never answered), so it cannot learn or present the token.
// A session starts from a one-time link (`serve` can print one, as notebook servers do), from a token typed into
// the sign-in form, or, when the server has no token at all (loopback only), from opening the page itself.
//
// Secrets are 32 random bytes (base64url). The store keeps SHA-256 digests of session ids and one-time keys, not
// the secrets, and compares CSRF tokens in constant time.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Scope } from '../schemas.js';

/** A session lasts this long after its last use. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** A one-time link works once, within this long. */
export const LINK_TTL_MS = 24 * 60 * 60 * 1000;
/** Sessions and unused links kept at most; the oldest go first. */
export const MAX_SESSIONS = 256;
export const MAX_LINKS = 64;

export const CSRF_HEADER = 'x-lightwire-csrf';

export interface Session {
  /** What the session may do: a one-time link or an open server grants control; a token grants its scopes. */
  readonly scopes: readonly Scope[];
  readonly csrf: string;
  lastUsedAtMs: number;
}

function secret(): string {
  return randomBytes(32).toString('base64url');
}

function digest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}

/** Constant-time equality of two strings (different lengths are simply unequal). */
export function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a, 'utf8').digest();
  const y = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(x, y) && a.length === b.length;
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();
  /** digest(key) -> expiry (epoch ms). */
  private readonly links = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A new one-time key for a link (`/session?key=...`). */
  mintKey(): string {
    const key = secret();
    if (this.links.size >= MAX_LINKS) this.links.delete(this.links.keys().next().value!);
    this.links.set(digest(key), this.now() + LINK_TTL_MS);
    return key;
  }

  /** Uses up a one-time key: true once, for a key this store minted that has not expired. */
  redeemKey(key: string): boolean {
    const d = digest(key);
    const expires = this.links.get(d);
    if (expires === undefined) return false;
    this.links.delete(d);
    return expires > this.now();
  }

  /** A new session; returns its id (for the cookie) and the session (for its CSRF token). */
  create(scopes: readonly Scope[]): { id: string; session: Session } {
    this.sweep();
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    const id = secret();
    const session: Session = { scopes: Object.freeze([...scopes]), csrf: secret(), lastUsedAtMs: this.now() };
    this.sessions.set(digest(id), session);
    return { id, session };
  }

  /** The live session of a cookie value, renewed; undefined for an unknown or expired one. */
  get(id: string | undefined): Session | undefined {
    if (id === undefined || id === '') return undefined;
    const d = digest(id);
    const session = this.sessions.get(d);
    if (session === undefined) return undefined;
    const now = this.now();
    if (now - session.lastUsedAtMs > SESSION_IDLE_MS) {
      this.sessions.delete(d);
      return undefined;
    }
    session.lastUsedAtMs = now;
    return session;
  }

  end(id: string | undefined): void {
    if (id !== undefined) this.sessions.delete(digest(id));
  }

  get size(): number {
    return this.sessions.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const [d, s] of this.sessions) if (now - s.lastUsedAtMs > SESSION_IDLE_MS) this.sessions.delete(d);
    for (const [d, expires] of this.links) if (expires <= now) this.links.delete(d);
  }
}

/** The cookie's name: per listening port, since browsers send a host's cookies to every port of it. */
export function cookieName(port: number): string {
  return `lightwire_session_${port}`;
}

/** One cookie's value from a Cookie header (first match; values are base64url, never quoted). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Set-Cookie for a session: HttpOnly, SameSite=Strict, Path=/, Secure over TLS; no Max-Age (ends with the browser). */
export function sessionCookie(name: string, id: string, secure: boolean): string {
  return `${name}=${id}; Path=/; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function clearedCookie(name: string, secure: boolean): string {
  return `${name}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}
