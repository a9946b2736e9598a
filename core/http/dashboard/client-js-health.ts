// The dashboard script's last part: the health panel (/api/doctor), then the page starts and the function scope
// the parts share is closed.
// It must not contain a backtick or a dollar-brace (the string is a String.raw template); it is one
// part of DASHBOARD_JS (client-js.ts), whose parts share one function scope: test/http/dashboard checks that it parses.

export const HEALTH_JS = String.raw`// ---- the health panel (/api/doctor) ----
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
