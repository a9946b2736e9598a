// The dashboard script's second part: talking to the server and the user's actions. The event stream and the
// session behind it, requests with the CSRF header, scene buttons, the actions sent to /api/action, the control
// panel, and wiring the page's controls.
// It must not contain a backtick or a dollar-brace (the string is a String.raw template); it is one
// part of DASHBOARD_JS (client-js.ts), whose parts share one function scope: test/http/dashboard checks that it parses.

export const CONTROL_JS = String.raw`// ---- the event stream ----
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
  // What the name field renames: the light's label, or the group's name (every member of it).
  $('rename').value = target.kind === 'light' ? (lights.get(target.serial) || {}).label || '' : target.title;
  $('rename').setAttribute('aria-label', target.kind === 'light' ? 'Light name' : 'Group name');
  $('panel-results').textContent = '';
  panel.hidden = false;
  showParts(target);
  refreshPanel(true);
}

// A light with parts (a Ceiling's downlight and uplight, a strip's segments): a button each, and one for the whole
// light; the panel's power, sliders and toggle then set the part chosen (id:SERIAL|PART).
function showParts(target) {
  var row = $('row-parts');
  row.textContent = '';
  var l = target.kind === 'light' ? lights.get(target.serial) : null;
  var parts = l && l.parts ? l.parts : [];
  row.hidden = parts.length === 0;
  if (parts.length === 0) return;
  var whole = 'id:' + target.serial;
  var name = l.label || target.serial;
  [''].concat(parts).forEach(function (part) {
    var b = el('button', 'part', part === '' ? 'Whole light' : part);
    b.type = 'button';
    b.setAttribute('data-part', part);
    b.setAttribute('aria-pressed', String(target.selector === (part === '' ? whole : whole + '|' + part)));
    b.addEventListener('click', function () {
      if (current !== target) return;
      target.selector = part === '' ? whole : whole + '|' + part;
      target.title = part === '' ? name : name + ' \u00b7 ' + part;
      $('panel-title').textContent = target.title;
      row.querySelectorAll('button').forEach(function (o) { o.setAttribute('aria-pressed', String(o === b)); });
    });
    row.appendChild(b);
  });
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
  refreshPicturePanel(list, reset);
  var fx = $('effects');
  if (reset) {
    fx.textContent = '';
    // An effect shows when one of the lights can run it (the server's catalogue says what each needs, capability
    // and firmware: the sky effects need firmware 4 or later).
    var names = EFFECTS.filter(function (e) {
      return !e.needs || list.some(function (l) {
        return l.caps[e.needs] && (!e.minFirmware || (l.firmware !== null && parseInt(l.firmware, 10) >= e.minFirmware));
      });
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
  wirePicture();
  $('power-on').addEventListener('click', function () { act({ op: 'power', selector: current.selector, power: 'on' }, 'On: ' + current.title); });
  $('power-off').addEventListener('click', function () { act({ op: 'power', selector: current.selector, power: 'off' }, 'Off: ' + current.title); });
  $('power-toggle').addEventListener('click', function () { act({ op: 'toggle', selector: current.selector }, 'Toggle ' + current.title); });
  $('effects-off').addEventListener('click', function () { act({ op: 'effectsOff', selector: current.selector }, 'Stop effects: ' + current.title); });
  $('rename-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var name = $('rename').value.trim(), target = current;
    if (!target || name === '' || name === target.title) return;
    var body = target.kind === 'light' ? { op: 'label', selector: 'id:' + target.serial, label: name } : { op: 'rename', kind: 'group', from: target.title, to: name };
    act(body, 'Rename ' + target.title).then(function (results) {
      if (!results || !results.some(function (r) { return r.status === 'ok'; }) || current !== target) return;
      target.title = name;
      $('panel-title').textContent = name;
    });
  });
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

`;
