// The dashboard's HTML: the page itself (with the session's CSRF token) and the sign-in page. Both load only
// same-origin assets; the Content-Security-Policy allows nothing else (no inline script, no frames).

import { createHash } from 'node:crypto';
import { KELVIN_MAX, KELVIN_MIN, THEME_NAMES } from '../../index.js';
import type { Scope } from '../schemas.js';
import { DASHBOARD_EFFECTS } from './actions.js';
import { DASHBOARD_JS } from './client-js.js';
import { DASHBOARD_CSS } from './styles.js';

/** Short content hashes: the assets are cached for good under a versioned URL. */
const JS_VERSION = createHash('sha256').update(DASHBOARD_JS).digest('hex').slice(0, 12);
const CSS_VERSION = createHash('sha256').update(DASHBOARD_CSS).digest('hex').slice(0, 12);

export const JS_PATH = '/dashboard.js';
export const CSS_PATH = '/dashboard.css';

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function head(title: string, extra = ''): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width,initial-scale=1">' +
    `<meta name="referrer" content="same-origin">${extra}<title>${escapeHtml(title)}</title>` +
    // No icon of our own: without this the browser asks for /favicon.ico and logs the 404.
    '<link rel="icon" href="data:,">' +
    `<link rel="stylesheet" href="${CSS_PATH}?v=${CSS_VERSION}">`
  );
}

/** The dashboard, for a signed-in session; without the control scope the page disables its controls. */
export function dashboardPage(csrf: string, scopes: readonly Scope[] = ['read', 'control']): string {
  return (
    head(
      'Lightwire',
      `<meta name="lightwire-csrf" content="${escapeHtml(csrf)}"><meta name="lightwire-scopes" content="${escapeHtml(scopes.join(' '))}">` +
        // The effect buttons, as data from the operation catalogue (the page holds no list of its own).
        `<meta name="lightwire-effects" content="${escapeHtml(JSON.stringify(DASHBOARD_EFFECTS))}">` +
        `<meta name="lightwire-themes" content="${escapeHtml(JSON.stringify(THEME_NAMES))}">`,
    ) +
    `<script defer src="${JS_PATH}?v=${JS_VERSION}"></script></head><body>` +
    '<header><h1>Lightwire</h1><span id="status" class="status">connecting…</span><span id="summary"></span>' +
    '<input id="filter" type="search" placeholder="Filter lights" aria-label="Filter lights">' +
    '<button id="health-open" type="button">Health</button></header>' +
    '<nav id="scenes" aria-label="Scenes" hidden></nav>' +
    '<p id="empty" class="empty" role="status" hidden></p>' +
    '<main id="lights" aria-live="off"></main>' +
    '<aside id="panel" class="panel" hidden aria-label="Controls">' +
    '<button id="panel-close" class="close" type="button" aria-label="Close">✕</button>' +
    '<h2 id="panel-title"></h2><div id="panel-sub" class="sub"></div>' +
    '<form id="rename-form" class="row"><label for="rename">Name</label><input id="rename" type="text" autocomplete="off" required>' +
    '<button id="rename-save" type="submit">Rename</button></form>' +
    '<div class="row" id="row-parts" hidden aria-label="Parts"></div>' +
    '<div class="row"><button id="power-on" type="button">On</button><button id="power-off" type="button">Off</button>' +
    '<button id="power-toggle" type="button">Toggle</button></div>' +
    '<div class="row"><label for="brightness">Brightness</label><input id="brightness" type="range" min="0" max="100" step="1"></div>' +
    '<div class="row" id="row-color"><label for="hue">Hue</label><input id="hue" type="range" min="0" max="360" step="1"></div>' +
    '<div class="row" id="row-sat"><label for="saturation">Saturation</label><input id="saturation" type="range" min="0" max="100" step="1"></div>' +
    '<div class="row"><label for="kelvin">Colour temperature <span id="kelvin-range"></span></label>' +
    `<input id="kelvin" type="range" min="${KELVIN_MIN}" max="${KELVIN_MAX}" step="50"></div>` +
    '<div class="row" id="effects" aria-label="Effects"></div>' +
    '<div class="row"><button id="effects-off" type="button">Stop effects</button></div>' +
    '<div class="row" id="theme-row"><label for="theme">Theme</label><select id="theme"></select>' +
    '<button id="theme-apply" type="button">Paint theme</button></div>' +
    '<div class="row" id="row-pixels" hidden><label for="pixel-editor">Pixels: click one to paint it the colour above</label>' +
    '<canvas id="pixel-editor" class="pixel-editor" width="8" height="8"></canvas></div>' +
    '<ul id="panel-results" aria-live="polite"></ul></aside>' +
    '<aside id="health" class="panel health" hidden aria-label="Health">' +
    '<button id="health-close" class="close" type="button" aria-label="Close">✕</button>' +
    '<h2>Health</h2><div class="row"><button id="health-probe" type="button">Measure now</button></div>' +
    '<div id="health-body"></div></aside>' +
    '<div id="toast" class="toast" role="status" aria-live="polite"></div>' +
    '</body></html>'
  );
}

export interface SignInPageOptions {
  /** Whether the server has tokens (the form asks for one) or is open on loopback (one button). */
  readonly tokens: boolean;
  readonly error?: string;
}

/** The page shown without a session: how to get one. */
export function signInPage(options: SignInPageOptions): string {
  const error = options.error ? `<p class="error">${escapeHtml(options.error)}</p>` : '';
  const form = options.tokens
    ? '<form method="post" action="/session"><label for="token">Access token</label>' +
      '<input id="token" name="token" type="password" autocomplete="current-password" required>' +
      '<button type="submit">Sign in</button></form>' +
      '<p>Or open the one-time dashboard link that <code>lightwire serve</code> printed.</p>'
    : '<form method="post" action="/session"><button type="submit">Open the dashboard</button></form>';
  return (
    head('Lightwire: sign in') +
    '</head><body><div class="signin"><h1>Lightwire</h1>' +
    error +
    form +
    '</div></body></html>'
  );
}
