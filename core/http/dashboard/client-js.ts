// The dashboard page's script, served as /dashboard.js: plain browser JavaScript (ES2019, no framework, no build
// step), kept in a string so that tsc carries it into the build output with everything else. It must not contain
// a backtick or a dollar-brace (the string is a String.raw template). test/http/dashboard checks that it parses.
//
// What it does: reads the CSRF token from the page, opens the event stream (/events), keeps one card per light
// grouped by location and group, applies changes in one animation frame, and sends the user's actions to
// /api/action with the CSRF header. The health panel reads /api/doctor.

export const DASHBOARD_JS = String.raw`(function () {
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
  c.swatch.style.background = offline ? '' : cssColor(l.color, on ? 1 : 0.25);
  c.swatch.setAttribute('aria-label', 'Toggle ' + (l.label || l.serial) + ' (' + (offline ? 'offline' : on ? 'on' : 'off') + ')');
  c.swatch.setAttribute('aria-pressed', on ? 'true' : 'false');
  c.label.textContent = l.label || l.serial;
  c.info.setAttribute('aria-label', 'Adjust ' + (l.label || l.serial));
  var meta = [l.product || 'unknown product'];
  if (l.signal) meta.push('signal ' + l.signal);
  c.meta.textContent = meta.join(' \u00b7 ');
  c.seen.textContent = 'seen ' + ago(l.lastSeenAt);
  c.badge.textContent = offline ? 'offline' : on ? (l.color ? Math.round(l.color[2] * 100) + '%' : 'on') : 'off';
  c.el.title = l.serial + (l.firmware ? ' \u00b7 firmware ' + l.firmware : '') + (l.effect && l.effect !== 'OFF' ? ' \u00b7 effect ' + l.effect : '');
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

// ---- the event stream ----
// While the stream is down the cards are marked stale (body.disconnected) and the browser retries. A server that
// refuses the stream (it restarted and no longer knows this session, or the session ended) is asked for the page:
// an open server hands a new session to it (cookie and CSRF token), and the stream resumes; a server with tokens
// answers with its sign-in form, and the page says so.
var source = null, probeTimer = null, probeDelayMs = 1000;
function connect() {
  if (source) source.close();
  source = new EventSource('/events');
  source.onopen = function () { probeDelayMs = 1000; setStatus('live', 'live'); document.body.classList.remove('disconnected'); };
  source.onerror = function () {
    document.body.classList.add('disconnected');
    setStatus('reconnecting', 'disconnected \u2014 reconnecting\u2026');
    // Closed for good: the server answered, but not with the stream (the browser does not retry that).
    if (source.readyState === 2) probeSoon();
  };
  source.addEventListener('snapshot', function (e) {
    var d = JSON.parse(e.data);
    clockSkewMs = d.now - Date.now();
    resetAll();
    setScenes(d.scenes);
    queue(d.lights);
    metrics.snapshots++;
    if (metrics.firstRenderMs === null) {
      requestAnimationFrame(function () { metrics.firstRenderMs = performance.now(); });
    }
  });
  source.addEventListener('lights', function (e) {
    var d = JSON.parse(e.data);
    clockSkewMs = d.now - Date.now();
    metrics.events++; metrics.lastEventAt = Date.now();
    queue(d.lights);
  });
  source.addEventListener('seen', function (e) {
    var d = JSON.parse(e.data);
    clockSkewMs = d.now - Date.now();
    Object.keys(d.seen).forEach(function (serial) {
      var l = lights.get(serial);
      if (l) l.lastSeenAt = d.seen[serial];
    });
    refreshSeen();
  });
  source.addEventListener('scenes', function (e) { setScenes(JSON.parse(e.data).scenes); });
}

function probeSoon() {
  clearTimeout(probeTimer);
  probeTimer = setTimeout(probe, probeDelayMs);
  probeDelayMs = Math.min(probeDelayMs * 2, 30000);
}

function probe() {
  loadSession().then(function (state) {
    if (state === 'changed' || state === 'same') connect();
  }, function () {
    setStatus('reconnecting', 'disconnected \u2014 the server does not answer; retrying\u2026');
    probeSoon();
  });
}

// Asks for the page again and takes its session's CSRF token: 'changed' (a new session, or another tab's), 'same',
// 'ended' (the sign-in page: said on the status line) or 'reload' (another version of the page). One load at a time:
// the stream's probe and a click refused for want of a session may ask together, and on an open server each load
// without a session starts one.
var sessionLoad = null;
function loadSession() {
  if (sessionLoad) return sessionLoad;
  sessionLoad = fetch('/', { credentials: 'same-origin', cache: 'no-store' }).then(function (res) {
    return res.text().then(function (html) {
      var token = /<meta name="lightwire-csrf" content="([^"]+)">/.exec(html);
      if (!token) { sessionEnded(res.status); return 'ended'; }
      // A server of another version serves other assets: load them.
      var script = document.querySelector('script[src^="/dashboard.js"]');
      if (script && html.indexOf(script.getAttribute('src')) < 0) { location.reload(); return 'reload'; }
      var changed = token[1] !== csrf;
      csrf = token[1];
      return changed ? 'changed' : 'same';
    });
  });
  var done = function () { sessionLoad = null; };
  sessionLoad.then(done, done);
  return sessionLoad;
}

function sessionEnded(status) {
  statusEl.className = 'status ended';
  statusEl.textContent = status === 200 ? 'session ended \u2014 ' : 'the server refused this page (HTTP ' + status + ') \u2014 ';
  var a = el('a', null, status === 200 ? 'sign in again' : 'reload');
  a.href = '/';
  statusEl.appendChild(a);
  if (status === 200) statusEl.appendChild(document.createTextNode(' with an access token or a new dashboard link'));
}

function refreshSeen() {
  cards.forEach(function (c, serial) {
    var l = lights.get(serial);
    if (l) c.seen.textContent = 'seen ' + ago(l.lastSeenAt);
  });
}

function setStatus(kind, text) {
  statusEl.className = 'status ' + kind;
  statusEl.textContent = text;
}

// ---- scenes ----
function setScenes(list) {
  scenes = list || [];
  var box = $('scenes');
  box.textContent = '';
  box.hidden = scenes.length === 0;
  if (scenes.length === 0) return;
  box.appendChild(el('span', 'scenes-title', 'Scenes'));
  scenes.forEach(function (s) {
    var b = el('button', 'scene', s.name);
    b.type = 'button';
    b.disabled = !canControl;
    b.addEventListener('click', function () { act({ op: 'scene', scene: s.id }, 'Scene ' + s.name); });
    box.appendChild(b);
  });
}

// ---- requests ----
// A request of the page, with its CSRF token. Refused for want of a session (the server restarted and the stream has
// not noticed yet) or for a token that is not the session's (another tab of this browser took a new session), it
// takes the page's session again and, when that gave another token, is sent once more.
function send(url, init, retried) {
  init.credentials = 'same-origin';
  init.headers = init.headers || {};
  init.headers['x-lightwire-csrf'] = csrf;
  return fetch(url, init).then(function (res) {
    return res.json().then(function (json) { return { res: res, json: json }; }, function () { return { res: res, json: null }; });
  }).then(function (r) {
    if (r.res.ok && r.json) return r.json;
    var code = r.json && r.json.code;
    var failed = new Error((r.json && (r.json.error || r.json.message)) || ('HTTP ' + r.res.status));
    if (retried || (code !== 'SESSION_REQUIRED' && code !== 'FORBIDDEN')) throw failed;
    return loadSession().then(function (state) {
      if (state !== 'changed') throw failed;
      // The stream of the old session may be refused for good: open it with the new one.
      if (!source || source.readyState === 2) connect();
      return send(url, init, true);
    });
  });
}

// ---- actions ----
function post(body) {
  return send('/api/action', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    .then(function (json) { return json.results || []; });
}

function act(body, what) {
  return post(body).then(function (results) { showResults(what, results); return results; },
    function (err) { toast(what + ': ' + err.message, 'bad'); });
}

function showResults(what, results) {
  var counts = {};
  results.forEach(function (r) {
    counts[r.status] = (counts[r.status] || 0) + 1;
    var c = cards.get(r.id);
    if (c) {
      c.result.textContent = r.status === 'ok' ? '\u2713' : r.status.replace('_', ' ');
      c.result.className = 'result ' + (r.status === 'ok' ? 'ok' : 'bad');
      clearTimeout(c.resultTimer);
      c.resultTimer = setTimeout(function () { c.result.textContent = ''; c.result.className = 'result'; }, 4000);
    }
  });
  var parts = Object.keys(counts).map(function (k) { return counts[k] + ' ' + k.replace('_', ' '); });
  toast(what + ': ' + (parts.join(', ') || 'no lights'), counts.ok === results.length ? 'ok' : 'bad');
  if (current) {
    var list = $('panel-results');
    list.textContent = '';
    results.forEach(function (r) {
      var li = el('li', r.status === 'ok' ? 'ok' : 'bad', (r.label || r.id) + ': ' + r.status);
      list.appendChild(li);
    });
  }
}

var toastTimer = null;
function toast(text, kind) {
  toastEl.textContent = text;
  toastEl.className = 'toast show ' + (kind || '');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(function () { toastEl.className = 'toast'; }, 4000);
}

// Sliders: at most one request in flight per control; the newest value waits and wins.
var inflight = {};
function sendLatest(key, body) {
  var slot = inflight[key] || (inflight[key] = { busy: false, next: null });
  if (slot.busy) { slot.next = body; return; }
  slot.busy = true;
  post(body).then(function (results) { if (!slot.next) showResults(current ? current.title : 'Change', results); },
    function (err) { toast(err.message, 'bad'); })
    .then(function () {
      slot.busy = false;
      var next = slot.next; slot.next = null;
      if (next) sendLatest(key, next);
    });
}

// ---- the control panel ----
function targets() {
  if (!current) return [];
  if (current.kind === 'light') { var l = lights.get(current.serial); return l ? [l] : []; }
  var out = [];
  lights.forEach(function (l) { if (groupKey(l) === current.key) out.push(l); });
  return out;
}

function openPanel(target) {
  current = target;
  $('panel-title').textContent = target.title;
  $('panel-results').textContent = '';
  panel.hidden = false;
  refreshPanel(true);
}

function refreshPanel(reset) {
  var list = targets();
  if (list.length === 0) { $('panel-sub').textContent = 'not known'; return; }
  var first = list[0];
  var color = list.some(function (l) { return l.caps.color; });
  // A light without a range of its own takes the widest any product has (not the slider's: the last panel set it).
  var kmin = Math.max.apply(null, list.map(function (l) { return l.caps.kelvinMin || KELVIN_MIN; }));
  var kmax = Math.min.apply(null, list.map(function (l) { return l.caps.kelvinMax || KELVIN_MAX; }));
  var sub = current.kind === 'light'
    ? [first.product || 'unknown product', first.online ? (first.power || '?') : 'offline', first.signal ? 'signal ' + first.signal : null,
       first.firmware ? 'firmware ' + first.firmware : null, first.serial].filter(Boolean).join(' \u00b7 ')
    : list.length + (list.length === 1 ? ' light' : ' lights');
  $('panel-sub').textContent = sub;
  $('row-color').hidden = !color;
  $('row-sat').hidden = !color;
  var k = $('kelvin');
  k.min = String(kmin); k.max = String(Math.max(kmin, kmax));
  $('kelvin-range').textContent = kmin + '\u2013' + kmax + ' K';
  if (reset && first.color) {
    $('brightness').value = String(Math.round(first.color[2] * 100));
    $('hue').value = String(Math.round(first.color[0]));
    $('saturation').value = String(Math.round(first.color[1] * 100));
    k.value = String(clamp(first.color[3], kmin, kmax));
  }
  var fx = $('effects');
  if (reset) {
    fx.textContent = '';
    // An effect shows when one of the lights can run it (the server's catalogue says what each needs).
    var names = EFFECTS.filter(function (e) {
      return !e.needs || list.some(function (l) { return l.caps[e.needs]; });
    }).map(function (e) { return e.name; });
    names.forEach(function (name) {
      var b = el('button', 'effect', name);
      b.type = 'button';
      b.disabled = !canControl;
      b.addEventListener('click', function () {
        act({ op: 'effect', selector: current.selector, effect: name, color: pickedColor() }, name + ' on ' + current.title);
      });
      fx.appendChild(b);
    });
  }
}

function pickedColor() {
  return 'hue:' + $('hue').value + ' saturation:' + (Number($('saturation').value) / 100);
}

function wire() {
  $('panel-close').addEventListener('click', function () { panel.hidden = true; current = null; });
  $('power-on').addEventListener('click', function () { act({ op: 'power', selector: current.selector, power: 'on' }, 'On: ' + current.title); });
  $('power-off').addEventListener('click', function () { act({ op: 'power', selector: current.selector, power: 'off' }, 'Off: ' + current.title); });
  $('power-toggle').addEventListener('click', function () { act({ op: 'toggle', selector: current.selector }, 'Toggle ' + current.title); });
  $('effects-off').addEventListener('click', function () { act({ op: 'effectsOff', selector: current.selector }, 'Stop effects: ' + current.title); });
  $('brightness').addEventListener('input', function () {
    sendLatest('b', { op: 'state', selector: current.selector, brightness: Number(this.value) / 100 });
  });
  var colorInput = function () {
    // A hue on a white light (no saturation) would show nothing: moving the hue brings the colour in.
    if (this.id === 'hue' && Number($('saturation').value) === 0) $('saturation').value = '100';
    sendLatest('c', { op: 'state', selector: current.selector, hue: Number($('hue').value), saturation: Number($('saturation').value) / 100 });
  };
  $('hue').addEventListener('input', colorInput);
  $('saturation').addEventListener('input', colorInput);
  $('kelvin').addEventListener('input', function () {
    // A colour temperature makes the light white: the saturation slider says so.
    $('saturation').value = '0';
    sendLatest('k', { op: 'state', selector: current.selector, kelvin: Number(this.value), saturation: 0 });
  });
  filterEl.addEventListener('input', function () {
    cards.forEach(function (c, serial) { applyFilter(c, lights.get(serial)); });
    applyGroupFilter();
    if (metrics.snapshots > 0) emptyState();
  });
  if (!canControl) {
    panel.querySelectorAll('.row button, .row input').forEach(function (e) { e.disabled = true; });
    $('summary').title = 'This session may only look (its token has the read scope).';
  }
  // The panels start below the header (its height varies as it wraps), so its Health button stays in reach.
  var header = document.querySelector('header');
  var placePanels = function () { document.documentElement.style.setProperty('--header-h', header.offsetHeight + 'px'); };
  placePanels();
  if (window.ResizeObserver) new ResizeObserver(placePanels).observe(header); else window.addEventListener('resize', placePanels);
  $('health-open').addEventListener('click', function () { $('health').hidden = false; loadHealth(0); });
  $('health-close').addEventListener('click', function () { $('health').hidden = true; });
  $('health-probe').addEventListener('click', function () { loadHealth(20); });
  setInterval(refreshSeen, 5000);
}

// ---- the health panel (/api/doctor) ----
function loadHealth(probeCount) {
  var box = $('health-body'), button = $('health-probe');
  box.textContent = probeCount > 0 ? 'Measuring\u2026' : 'Loading\u2026';
  // One report at a time: a second click would start a second measurement and race the first to the panel.
  button.disabled = true;
  send('/api/doctor' + (probeCount > 0 ? '?probeCount=' + probeCount : ''), { method: 'GET' })
    .then(function (report) { renderHealth(box, report); }, function (err) { box.textContent = 'Could not load: ' + err.message; })
    .then(function () { button.disabled = false; });
}

function fmt(v, unit) { return v === null || v === undefined ? '\u2013' : v + (unit || ''); }

function renderHealth(box, r) {
  box.textContent = '';
  var head = el('p', r.healthy ? 'ok' : 'bad', (r.healthy ? 'Healthy' : 'Problems found') + ': ' + r.summary);
  box.appendChild(head);
  var net = el('ul', 'net');
  (r.interfaces || []).forEach(function (i) {
    net.appendChild(el('li', null, i.name + ' ' + i.address + ' broadcast ' + i.broadcast + (i.usedForDiscovery ? ' (discovery)' : '')));
  });
  if (r.port) net.appendChild(el('li', r.port.bindable || r.port.heldByThisProcess ? null : 'bad', 'UDP ' + r.port.port + ': ' + r.port.detail));
  box.appendChild(net);
  if (r.problems && r.problems.length) {
    var pl = el('ul', 'problems');
    r.problems.forEach(function (p) { pl.appendChild(el('li', 'bad', p.subject + ': ' + p.cause)); });
    box.appendChild(pl);
  }
  var table = el('table', 'health-table');
  var hr = el('tr');
  ['Light', 'Address', 'RTT median', 'RTT p99', 'Loss', 'Retransmits', 'Signal', 'Firmware', 'Uptime', 'Last seen', 'Moves', 'Status']
    .forEach(function (h) { hr.appendChild(el('th', null, h)); });
  table.appendChild(hr);
  (r.lights || []).forEach(function (l) {
    var tr = el('tr', l.healthy ? '' : 'bad');
    [l.label || l.serial, l.address, fmt(l.rttMedianMs, ' ms'), fmt(l.rttP99Ms, ' ms'),
     l.lossRate === null ? '\u2013' : Math.round(l.lossRate * 1000) / 10 + ' %', fmt(l.retransmits),
     l.signal ? l.signal + (l.rssi !== null ? ' (' + l.rssi + ')' : '') : '\u2013', fmt(l.firmware),
     l.uptimeS === null ? '\u2013' : l.uptimeS < 3600 ? Math.round(l.uptimeS / 60) + ' min' : Math.round(l.uptimeS / 3600) + ' h', l.lastSeenAt ? ago(l.lastSeenAt) : '\u2013',
     fmt(l.addressChanges), l.healthy ? (l.kind ? 'ok \u00b7 ' + l.kind.replace('_', ' ') : 'ok') : (l.kind || 'unhealthy')]
      .forEach(function (v) { tr.appendChild(el('td', null, String(v))); });
    if (l.cause) tr.title = l.cause;
    table.appendChild(tr);
  });
  var wrap = el('div', 'table-wrap');
  wrap.appendChild(table);
  box.appendChild(wrap);
}

wire();
connect();
})();
`;
