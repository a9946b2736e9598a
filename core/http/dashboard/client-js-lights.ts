// The dashboard script's first part: the page's state, and the light cards grouped by location and group,
// rendered in one animation frame (colour swatches, filter, summary, empty state). It opens the function scope
// the other parts run in.
// It must not contain a backtick or a dollar-brace (the string is a String.raw template); it is one
// part of DASHBOARD_JS (client-js.ts), whose parts share one function scope: test/http/dashboard checks that it parses.

export const LIGHTS_JS = String.raw`(function () {
'use strict';
var csrf = (document.querySelector('meta[name="lightwire-csrf"]') || {}).content || '';
// A session with the read scope only: the page shows the lights, with every control disabled.
var canControl = ((document.querySelector('meta[name="lightwire-scopes"]') || {}).content || 'control').split(' ').indexOf('control') >= 0;
var $ = function (id) { return document.getElementById(id); };
// The effect buttons: [{name, title, needs}], from the server's operation catalogue.
var EFFECTS = JSON.parse((document.querySelector('meta[name="lightwire-effects"]') || {}).content || '[]');
var main = $('lights'), statusEl = $('status'), filterEl = $('filter'), panel = $('panel'), toastEl = $('toast');
// The slider's range as the page set it (the widest any product has), before any panel narrows it.
var KELVIN_MIN = Number($('kelvin').min), KELVIN_MAX = Number($('kelvin').max);
var lights = new Map();      // serial -> light record from the server
var cards = new Map();       // serial -> card elements
var groups = new Map();      // group key -> {el, grid, title, count, toggle}
var locations = new Map();   // location key -> {el, body, title}
var pending = new Map();     // serial -> record waiting for the next frame
var frameQueued = false;
var clockSkewMs = 0;         // server clock - page clock
var scenes = [];
var current = null;          // what the panel controls: {kind, selector, title, serials}
var metrics = window.lightwireMetrics = { snapshots: 0, events: 0, firstRenderMs: null, lights: 0, lastEventAt: 0, lastFlushMs: 0, maxFlushMs: 0 };

function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

// ---- colour ----
function kelvinRgb(k) {
  var t = k / 100, r, g, b;
  if (t <= 66) { r = 255; g = 99.47 * Math.log(t) - 161.12; b = t <= 19 ? 0 : 138.52 * Math.log(t - 10) - 305.04; }
  else { r = 329.7 * Math.pow(t - 60, -0.1332); g = 288.12 * Math.pow(t - 60, -0.0755); b = 255; }
  return [clamp(r, 0, 255), clamp(g, 0, 255), clamp(b, 0, 255)];
}
function hueRgb(h) {
  var x = (h % 360) / 60, c = 255, m = c * (1 - Math.abs((x % 2) - 1)), i = Math.floor(x);
  return [[c, m, 0], [m, c, 0], [0, c, m], [0, m, c], [m, 0, c], [c, 0, m]][i] || [c, 0, 0];
}
function clamp(v, lo, hi) { return v < lo ? lo : v > hi ? hi : v; }
function cssColor(color, dim) {
  if (!color) return '#777';
  var w = kelvinRgb(color[3]), h = hueRgb(color[0]), s = color[1];
  var v = (0.12 + 0.88 * color[2]) * (dim || 1);
  var rgb = [0, 1, 2].map(function (i) { return Math.round((w[i] * (1 - s) + h[i] * s) * v); });
  return 'rgb(' + rgb.join(',') + ')';
}

// ---- time ----
function ago(ms) {
  var s = Math.max(0, Math.round((Date.now() + clockSkewMs - ms) / 1000));
  if (s < 3) return 'just now';
  if (s < 90) return s + ' s ago';
  if (s < 5400) return Math.round(s / 60) + ' min ago';
  if (s < 172800) return Math.round(s / 3600) + ' h ago';
  return Math.round(s / 86400) + ' d ago';
}

// ---- grouping ----
function locKey(l) { return l.location ? l.location.id : '-'; }
function groupKey(l) { return locKey(l) + '/' + (l.group ? l.group.id : '-'); }
function byName(a, b) { return a.localeCompare(b, undefined, { numeric: true }); }

function locationSection(l) {
  var key = locKey(l), loc = locations.get(key);
  var name = l.location ? l.location.name || 'Unnamed location' : 'No location';
  if (loc) {
    // Renamed in the vendor app: the id stays, the name changes.
    if (loc.title.textContent !== name) { loc.title.textContent = name; loc.el.dataset.name = name; insertSorted(main, loc.el, byDataName); }
    return loc;
  }
  var section = el('section', 'location');
  var h = el('h2', null, name);
  section.dataset.name = name;
  var body = el('div', 'groups');
  section.appendChild(h); section.appendChild(body);
  loc = { el: section, body: body, title: h };
  locations.set(key, loc);
  insertSorted(main, section, byDataName);
  return loc;
}

function groupSection(l) {
  var key = groupKey(l), g = groups.get(key);
  var loc = locationSection(l);
  var name = l.group ? l.group.name || 'Unnamed group' : 'No group';
  if (g) {
    if (g.title.textContent !== name) {
      g.title.textContent = name; g.title.title = name; g.el.dataset.name = name;
      if (g.toggle) g.toggle.setAttribute('aria-label', 'Toggle group ' + name);
      insertSorted(loc.body, g.el, byDataName);
    }
    return g;
  }
  var section = el('div', 'group');
  var head = el('div', 'group-head');
  var title = el('h3', null, name);
  title.title = name; // in full: a long name is cut short
  var count = el('span', 'count');
  head.appendChild(title); head.appendChild(count);
  var selector = l.group ? 'group_id:' + l.group.id : null;
  var toggle = null;
  if (selector) {
    toggle = el('button', 'group-toggle', 'Toggle');
    toggle.type = 'button';
    toggle.disabled = !canControl;
    toggle.setAttribute('aria-label', 'Toggle group ' + title.textContent);
    toggle.addEventListener('click', function () { act({ op: 'toggle', selector: selector }, 'Toggle ' + title.textContent); });
    var more = el('button', 'group-more', 'Adjust');
    more.type = 'button';
    more.addEventListener('click', function () { openPanel({ kind: 'group', selector: selector, title: title.textContent, key: key }); });
    head.appendChild(toggle); head.appendChild(more);
  }
  var grid = el('div', 'grid');
  section.appendChild(head); section.appendChild(grid);
  section.dataset.name = title.textContent;
  g = { el: section, grid: grid, count: count, title: title, toggle: toggle, key: key, loc: locKey(l) };
  groups.set(key, g);
  insertSorted(loc.body, section, byDataName);
  return g;
}

function byDataName(n) { return n.dataset.name; }

function insertSorted(parent, node, name) {
  var key = name(node), kids = parent.children;
  for (var i = 0; i < kids.length; i++) {
    if (kids[i] !== node && byName(key, name(kids[i])) < 0) { parent.insertBefore(node, kids[i]); return; }
  }
  parent.appendChild(node);
}

function dropEmpty(g) {
  if (g.grid.children.length > 0) return;
  g.el.remove(); groups.delete(g.key);
  var loc = locations.get(g.loc);
  if (loc && loc.body.children.length === 0) { loc.el.remove(); locations.delete(g.loc); }
}

// ---- cards ----
function makeCard(serial) {
  var card = el('div', 'light');
  card.dataset.serial = serial;
  var swatch = el('button', 'swatch');
  swatch.type = 'button';
  swatch.disabled = !canControl;
  var info = el('div', 'info');
  info.tabIndex = 0;
  info.setAttribute('role', 'button');
  var label = el('div', 'label');
  var meta = el('div', 'meta');
  var seen = el('div', 'seen');
  info.appendChild(label); info.appendChild(meta); info.appendChild(seen);
  var badge = el('span', 'badge');
  var result = el('span', 'result');
  card.appendChild(swatch); card.appendChild(info); card.appendChild(badge); card.appendChild(result);
  swatch.addEventListener('click', function (ev) {
    ev.stopPropagation();
    var l = lights.get(serial);
    act({ op: 'toggle', selector: 'id:' + serial }, 'Toggle ' + (l ? l.label || serial : serial));
  });
  var open = function () {
    var l = lights.get(serial);
    openPanel({ kind: 'light', selector: 'id:' + serial, title: l ? l.label || serial : serial, serial: serial });
  };
  info.addEventListener('click', open);
  info.addEventListener('keydown', function (ev) {
    if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); open(); }
  });
  return { el: card, swatch: swatch, info: info, label: label, meta: meta, seen: seen, badge: badge, result: result, group: null };
}

function renderCard(l) {
  var c = cards.get(l.serial);
  if (!c) { c = makeCard(l.serial); cards.set(l.serial, c); }
  var key = groupKey(l);
  var sortName = (l.label || l.serial);
  var g = groupSection(l); // every time: it also takes a new name of the group or location
  if (c.group !== key || c.el.dataset.name !== sortName) {
    var old = c.group ? groups.get(c.group) : null;
    c.el.dataset.name = sortName;
    insertSorted(g.grid, c.el, byDataName);
    c.group = key;
    if (old && old !== g) { dropEmpty(old); old.count.textContent = countText(old); }
    g.count.textContent = countText(g);
  }
  var on = l.power === 'on', offline = !l.online;
  c.el.className = 'light' + (offline ? ' offline' : on ? ' on' : ' off');
  drawPicture(c, l, offline, on);
  c.swatch.setAttribute('aria-label', 'Toggle ' + (l.label || l.serial) + ' (' + (offline ? 'offline' : on ? 'on' : 'off') + ')');
  c.swatch.setAttribute('aria-pressed', on ? 'true' : 'false');
  c.label.textContent = l.label || l.serial;
  c.info.setAttribute('aria-label', 'Adjust ' + (l.label || l.serial));
  var meta = [l.product || 'unknown product'];
  if (l.signal) meta.push('signal ' + l.signal);
  // The sensor's raw reading: not calibrated, and with the light on it mostly measures the light itself.
  if (l.lux !== null && l.lux !== undefined) meta.push(l.lux + ' lux');
  c.meta.textContent = meta.join(' \u00b7 ');
  c.seen.textContent = 'seen ' + ago(l.lastSeenAt);
  c.badge.textContent = offline ? 'offline' : on ? (l.color ? Math.round(l.color[2] * 100) + '%' : 'on') : 'off';
  c.el.title = l.serial + (l.firmware ? ' \u00b7 firmware ' + l.firmware : '') + (l.effect && l.effect !== 'OFF' ? ' \u00b7 effect ' + l.effect : '') +
    (l.lux !== null && l.lux !== undefined ? ' \u00b7 ambient light ' + l.lux + ' lux (raw sensor reading, best with the light off)' : '');
  applyFilter(c, l);
}

function plural(n, word) { return n + ' ' + word + (n === 1 ? '' : 's'); }
function countText(g) { return plural(g.grid.children.length, 'light'); }

function applyFilter(c, l) {
  var q = filterEl.value.trim().toLowerCase();
  var hit = !q || [l.label, l.product, l.serial, l.group && l.group.name, l.location && l.location.name]
    .some(function (s) { return s && s.toLowerCase().indexOf(q) >= 0; });
  c.el.hidden = !hit;
}

// A group shows iff it has a card that shows, a location iff it has a group that shows: after every render too,
// since a change (a renamed light, a light moved to another group) can change what the filter matches.
function applyGroupFilter() {
  groups.forEach(function (g) {
    var any = false;
    for (var i = 0; i < g.grid.children.length; i++) if (!g.grid.children[i].hidden) { any = true; break; }
    g.el.hidden = !any;
  });
  locations.forEach(function (loc) {
    var any = false;
    for (var i = 0; i < loc.body.children.length; i++) if (!loc.body.children[i].hidden) { any = true; break; }
    loc.el.hidden = !any;
  });
}

// A device that is no light (a LIFX Switch) has no card: the page, like /v1, lists lights. One shown as a light
// before its product was known is taken away when the server says what it is.
function dropLight(serial) {
  var c = cards.get(serial);
  lights.delete(serial);
  if (!c) return;
  cards.delete(serial);
  c.el.remove();
  var g = c.group ? groups.get(c.group) : null;
  if (g) { g.count.textContent = countText(g); dropEmpty(g); }
}

function queue(list) {
  for (var i = 0; i < list.length; i++) pending.set(list[i].serial, list[i]);
  if (!frameQueued) { frameQueued = true; requestAnimationFrame(flush); }
}

function flush() {
  var started = performance.now();
  frameQueued = false;
  pending.forEach(function (l) {
    if (!l.caps.light) { dropLight(l.serial); return; }
    lights.set(l.serial, l); renderCard(l);
  });
  pending.clear();
  applyGroupFilter();
  metrics.lights = lights.size;
  if (current) refreshPanel();
  summary();
  emptyState();
  metrics.lastFlushMs = performance.now() - started;
  if (metrics.lastFlushMs > metrics.maxFlushMs) metrics.maxFlushMs = metrics.lastFlushMs;
}

function summary() {
  var online = 0, on = 0;
  lights.forEach(function (l) { if (l.online) { online++; if (l.power === 'on') on++; } });
  $('summary').textContent = plural(lights.size, 'light') + ' \u00b7 ' + on + ' on \u00b7 ' + (lights.size - online) + ' offline';
}

// An empty page says why: no light found yet (the server keeps looking, and Health tells what it sees), or none
// matches the filter.
function emptyState() {
  var box = $('empty'), q = filterEl.value.trim(), shown = false;
  locations.forEach(function (loc) { if (!loc.el.hidden) shown = true; });
  if (lights.size === 0) box.textContent = 'No lights found yet. Lights show here as soon as they answer; if none do, open Health to see why.';
  else if (!shown) box.textContent = 'No light matches \u201c' + q + '\u201d.';
  box.hidden = lights.size > 0 && shown;
}

function resetAll() {
  lights.clear(); cards.clear(); groups.clear(); locations.clear(); pending.clear();
  main.textContent = '';
}

`;
