// The dashboard's stylesheet, served as /dashboard.css. One column of cards on a phone, a grid on wider screens;
// the control panel is a bottom sheet on narrow screens and a side panel on wide ones.

export const DASHBOARD_CSS = String.raw`
:root { color-scheme: dark; --bg: #111418; --card: #1b2027; --line: #2b323c; --text: #e8ecf1; --dim: #98a2b3; --ok: #3fb950; --bad: #f85149; --accent: #4c8dff; }
* { box-sizing: border-box; -webkit-tap-highlight-color: transparent; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji"; background: var(--bg); color: var(--text); }
header { position: sticky; top: 0; z-index: 5; display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: center; padding: 10px 14px; background: #0c0f13ee; border-bottom: 1px solid var(--line); }
header h1 { font-size: 17px; margin: 0; }
#summary { color: var(--dim); }
.status { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: var(--line); }
.status.live { background: #143d22; color: #7ee29a; }
.status.reconnecting, .status.ended { background: #4a1d1d; color: #ffb3ad; }
.status a { color: inherit; }
body.disconnected main, body.disconnected #scenes { opacity: .45; filter: grayscale(1); }
button:disabled { opacity: .5; cursor: default; }
button:disabled:hover { border-color: var(--line); }
#filter { flex: 1 1 160px; min-width: 0; padding: 6px 10px; border-radius: 8px; border: 1px solid var(--line); background: var(--card); color: var(--text); }
button { font: inherit; color: var(--text); background: #26303b; border: 1px solid var(--line); border-radius: 8px; padding: 5px 10px; cursor: pointer; }
button:hover { border-color: var(--accent); }
#scenes { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 8px 14px; border-bottom: 1px solid var(--line); }
.scenes-title { color: var(--dim); margin-right: 4px; }
main { padding: 6px 14px 80px; }
.location > h2 { font-size: 15px; margin: 16px 0 4px; color: var(--dim); text-transform: uppercase; letter-spacing: .04em; overflow-wrap: anywhere; }
.groups { display: flex; flex-wrap: wrap; gap: 4px 28px; }
.group { flex: 1 1 440px; min-width: 0; content-visibility: auto; contain-intrinsic-size: auto 160px; margin-bottom: 10px; }
.group-head { display: flex; align-items: center; gap: 8px; margin: 8px 0 6px; }
/* A long group name is cut short: the group's buttons stay in reach. */
.group-head h3 { font-size: 15px; margin: 0; min-width: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.group-head button { flex: none; }
.count { flex: none; color: var(--dim); font-size: 12px; margin-right: auto; white-space: nowrap; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(210px, 1fr)); gap: 8px; }
.light { position: relative; display: flex; align-items: center; gap: 10px; padding: 8px; background: var(--card); border: 1px solid var(--line); border-radius: 10px; min-width: 0; }
.swatch { flex: none; width: 44px; height: 44px; border-radius: 50%; padding: 0; border: 2px solid #0006; box-shadow: inset 0 0 0 1px #fff2; }
.light.on .swatch { box-shadow: 0 0 14px -2px currentColor, inset 0 0 0 1px #fff3; }
.light.off .swatch { border-color: #555; }
/* A strip shows its zones as a band, a matrix light its pixels as a grid (client-js-picture.ts). */
.swatch.band { width: 64px; height: 18px; border-radius: 4px; }
.swatch.grid { width: 48px; height: 48px; border-radius: 4px; overflow: hidden; display: flex; align-items: center; justify-content: center; }
.swatch canvas.pixels, canvas.pixel-editor { image-rendering: pixelated; width: 100%; height: auto; display: block; }
canvas.pixel-editor { max-width: 320px; cursor: crosshair; border: 1px solid var(--line); }
#theme { flex: 1; padding: 4px; background: var(--bg); color: var(--text); border: 1px solid var(--line); border-radius: 6px; }
.light.offline { opacity: .55; border-style: dashed; }
.light.offline .swatch { background: repeating-linear-gradient(45deg, #333 0 6px, #222 6px 12px); }
.info { flex: 1; min-width: 0; cursor: pointer; }
.label { font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.meta, .seen { font-size: 12px; color: var(--dim); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.badge { font-size: 12px; padding: 1px 7px; border-radius: 9px; background: var(--line); }
.light.on .badge { background: #2a3a1f; }
.light.offline .badge { background: #4a1d1d; color: #ffb3ad; }
.result { position: absolute; top: 2px; right: 6px; font-size: 11px; }
.result.ok { color: var(--ok); }
.result.bad { color: var(--bad); }
.panel { position: fixed; z-index: 10; right: 0; top: var(--header-h, 0px); bottom: 0; width: min(380px, 100%); overflow: auto; padding: 14px; background: #161b22; border-left: 1px solid var(--line); box-shadow: -8px 0 24px #0008; }
.panel h2 { margin: 0 30px 2px 0; font-size: 17px; overflow-wrap: anywhere; }
.panel .sub { color: var(--dim); font-size: 12px; margin-bottom: 10px; overflow-wrap: anywhere; }
.panel .close { position: absolute; right: 10px; top: 10px; }
.row { display: flex; gap: 6px; flex-wrap: wrap; margin: 10px 0; align-items: center; }
.row label { width: 100%; color: var(--dim); font-size: 12px; display: flex; justify-content: space-between; }
.row input[type=range] { width: 100%; -webkit-appearance: none; appearance: none; height: 14px; border-radius: 7px; background: linear-gradient(90deg, #222, #fff); margin: 4px 0; }
input[type=range]::-webkit-slider-thumb { -webkit-appearance: none; width: 22px; height: 22px; border-radius: 50%; background: #fff; border: 2px solid #0009; box-shadow: 0 1px 4px #000a; }
input[type=range]::-moz-range-thumb { width: 22px; height: 22px; border-radius: 50%; background: #fff; border: 2px solid #0009; }
#hue { background: linear-gradient(90deg, red, #ff0, lime, cyan, blue, #f0f, red); }
#saturation { background: linear-gradient(90deg, #fff, #e33); }
#kelvin { background: linear-gradient(90deg, #ff8a12, #fff4e6, #cfe0ff); }
#panel-results { list-style: none; padding: 0; margin: 8px 0; font-size: 12px; overflow-wrap: anywhere; }
.empty { margin: 24px 14px; color: var(--dim); }
li.ok, p.ok { color: var(--ok); }
li.bad, p.bad, tr.bad td:last-child { color: var(--bad); }
.health { width: min(980px, 100%); }
.table-wrap { overflow-x: auto; }
.health-table { border-collapse: collapse; font-size: 12px; width: 100%; }
.health-table th, .health-table td { text-align: left; padding: 3px 6px; border-bottom: 1px solid var(--line); white-space: nowrap; }
.net, .problems { font-size: 12px; padding-left: 18px; overflow-wrap: anywhere; }
.toast { position: fixed; left: 50%; bottom: 16px; transform: translateX(-50%); max-width: 92%; overflow-wrap: anywhere; padding: 8px 14px; border-radius: 8px; background: #26303b; border: 1px solid var(--line); opacity: 0; pointer-events: none; transition: opacity .2s; }
.toast.show { opacity: 1; }
.toast.bad { border-color: var(--bad); }
.toast.ok { border-color: var(--ok); }
.signin { max-width: 460px; margin: 12vh auto; padding: 20px; background: var(--card); border: 1px solid var(--line); border-radius: 12px; }
.signin input { width: 100%; padding: 8px; margin: 8px 0; border-radius: 8px; border: 1px solid var(--line); background: var(--bg); color: var(--text); }
.signin .error { color: var(--bad); }
code { background: #0008; padding: 1px 4px; border-radius: 4px; }
[hidden] { display: none !important; }
@media (max-width: 640px) {
  .grid { grid-template-columns: 1fr; }
  .panel { top: auto; max-height: min(80vh, calc(100vh - var(--header-h, 0px))); width: 100%; border-left: 0; border-top: 1px solid var(--line); border-radius: 14px 14px 0 0; }
  main { padding: 4px 8px 80px; }
}
`;
