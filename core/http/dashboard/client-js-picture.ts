// The dashboard script's picture part: what a strip or a matrix light really shows, drawn on its card (a strip's
// zones as a band, a matrix light's pixels as a grid, instead of one swatch), the theme picker, and the pixel editor
// of a matrix light (click a pixel to paint it with the panel's colour; Paint Pixels over /api/action).
// It must not contain a backtick or a dollar-brace (the string is a String.raw template); it is one
// part of DASHBOARD_JS (client-js.ts), whose parts share one function scope: test/http/dashboard checks that it parses.

export const PICTURE_JS = String.raw`// ---- pictures: zones as a band, pixels as a grid ----
// The theme names, from the server's palette file.
var THEMES = JSON.parse((document.querySelector('meta[name="lightwire-themes"]') || {}).content || '[]');

// A strip's zones as hard colour stops, zone 0 on the left.
function bandCss(zones, dim) {
  var n = zones.length, stops = [];
  for (var i = 0; i < n; i++) {
    var c = cssColor(zones[i], dim);
    stops.push(c + ' ' + (i * 100 / n).toFixed(2) + '% ' + ((i + 1) * 100 / n).toFixed(2) + '%');
  }
  return 'linear-gradient(90deg, ' + stops.join(', ') + ')';
}

// A matrix light's tiles side by side (as the server's canvas lays them out) into a canvas element, one cell a pixel.
function drawTiles(canvas, tiles, dim) {
  var width = 0, height = 0;
  tiles.forEach(function (t) { width += t.width; height = Math.max(height, t.height); });
  if (canvas.width !== width) canvas.width = width;
  if (canvas.height !== height) canvas.height = height;
  var ctx = canvas.getContext && canvas.getContext('2d');
  if (!ctx) return;
  ctx.fillStyle = '#000';
  ctx.fillRect(0, 0, width, height);
  var left = 0;
  tiles.forEach(function (t) {
    for (var i = 0; i < t.colors.length; i++) {
      ctx.fillStyle = cssColor(t.colors[i], dim);
      ctx.fillRect(left + (i % t.width), Math.floor(i / t.width), 1, 1);
    }
    left += t.width;
  });
}

// The card's swatch shows what the light shows: a band for a strip, a grid for a matrix, one colour otherwise.
function drawPicture(c, l, offline, on) {
  var dim = on ? 1 : 0.25;
  var kind = offline ? '' : l.tiles ? 'grid' : l.zones ? 'band' : '';
  c.swatch.classList.toggle('band', kind === 'band');
  c.swatch.classList.toggle('grid', kind === 'grid');
  if (kind === 'grid') {
    if (!c.canvas) { c.canvas = el('canvas', 'pixels'); c.swatch.appendChild(c.canvas); }
    c.swatch.style.background = '#000';
    drawTiles(c.canvas, l.tiles, dim);
    return;
  }
  if (c.canvas) { c.canvas.remove(); c.canvas = null; }
  c.swatch.style.background = offline ? '' : kind === 'band' ? bandCss(l.zones, dim) : cssColor(l.color, dim);
}

// ---- the panel: themes and the pixel editor ----
function refreshPicturePanel(list, reset) {
  var editor = $('pixel-editor'), row = $('row-pixels');
  var l = current && current.kind === 'light' ? list[0] : null;
  row.hidden = !(l && l.tiles);
  if (l && l.tiles) drawTiles(editor, l.tiles, 1);
  if (reset) $('theme-row').hidden = list.length === 0;
}

function wirePicture() {
  var select = $('theme');
  THEMES.forEach(function (name) { var o = el('option', null, name.replace(/_/g, ' ')); o.value = name; select.appendChild(o); });
  $('theme-apply').addEventListener('click', function () {
    act({ op: 'theme', selector: current.selector, theme: select.value }, 'Theme ' + select.value.replace(/_/g, ' ') + ' on ' + current.title);
  });
  var editor = $('pixel-editor');
  editor.addEventListener('click', function (ev) {
    if (!current || current.kind !== 'light' || !canControl) return;
    var box = editor.getBoundingClientRect();
    var x = Math.floor((ev.clientX - box.left) / box.width * editor.width);
    var y = Math.floor((ev.clientY - box.top) / box.height * editor.height);
    if (x < 0 || y < 0 || x >= editor.width || y >= editor.height) return;
    // kelvin first: in the colour grammar a later kelvin makes the colour white (saturation 0).
    var color = 'kelvin:' + $('kelvin').value + ' ' + pickedColor() + ' brightness:' + (Number($('brightness').value) / 100);
    act({ op: 'paint', selector: current.selector, color: color, x: x, y: y, width: 1, height: 1 }, 'Pixel ' + x + ',' + y + ' on ' + current.title);
  });
}

`;
