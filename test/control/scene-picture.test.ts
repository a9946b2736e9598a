// A scene's pictures without a network: the file's picture keys checked as they load (a bad one is no valid file), and
// the restore planner's choices (messages, steps, the activation's ignore and overrides) for one light.
import { expect } from 'chai';
import { parseFile } from '../../core/control/scene-file.js';
import { picturesOf, type LightPicture } from '../../core/control/scene-picture.js';
import { planPicture, pictureJob } from '../../core/control/scene-restore.js';
import { sceneStateToChange } from '../../core/control/scene-activation.js';
import { parseRequest, trustedChange } from '../../core/control/requests.js';
import type { LightView } from '../../core/control/types.js';
import { PRODUCTS, hsbkFromWire, type Hsbk } from '../../core/protocol/index.js';

const SCENE = { uuid: '1d52671c-99ba-4631-a563-2c31809b700d', name: 'Evening', account: { uuid: '00000000-0000-0000-0000-000000000000' }, created_at: 1, updated_at: 1 };
const fileWith = (state: Record<string, unknown>): string => JSON.stringify({ version: 1, scenes: [{ ...SCENE, states: [{ selector: 'id:d073d5000001', ...state }] }] });
const red: Hsbk = { hue: 0, saturation: 1, brightness: 1, kelvin: 3500 };
const blue: Hsbk = { hue: 240, saturation: 1, brightness: 0.5, kelvin: 3500 };

function matrix(over: Partial<LightView> = {}): LightView {
  const product = PRODUCTS.get(1, 176);
  return {
    serial: 'd073d5000001', label: 'Ceiling', online: true, group: null, location: null, product, capabilities: product.capabilities, power: 'on',
    color: red, infrared: null, zones: null, matrix: { tiles: [{ width: 8, height: 8 }], zoneCount: 64 }, pixels: null, lastSeenAt: 0, address: '127.0.0.2',
    effect: 'OFF', relays: null, firmware: null, wifi: null, ambientLux: null, buttons: null, ...over,
  };
}

/** Plans a picture for `light` with an activation (user units, checked as the service checks it). */
function planFor(picture: LightPicture, light: LightView, activation: Record<string, unknown> = {}, fast = false) {
  const checked = parseRequest('activateScene', activation, { vocabulary: 'v1' });
  const change = sceneStateToChange({ selector: `id:${light.serial}`, power: 'on' }, checked);
  const job = pictureJob(picture, change, checked);
  return job === undefined ? undefined : planPicture(job, trustedChange({ power: 'on', durationS: change.durationS }), light, fast);
}

describe('scene pictures', () => {
  it('loads the picture keys of a state, and refuses a bad colour, effect or tile list', () => {
    const pixels = [Array.from({ length: 64 }, (_, i) => [i, 1, 0.5, 3500])];
    const scenes = parseFile(fileWith({ pixels, effect: { type: 'MORPH', period: 7, duration: 0, parameters: [0, 0, 0, 0, 0, 0, 0, 0], palette: [[0, 1, 1, 3500]] } }));
    const picture = picturesOf(scenes.get(SCENE.uuid)!)[0]!;
    expect(picture.pixels![0]![3]).to.deep.equal({ hue: 3, saturation: 1, brightness: 0.5, kelvin: 3500 });
    expect(picture.effect).to.deep.equal({ type: 'MORPH', periodS: 7, durationS: 0, parameters: [0, 0, 0, 0, 0, 0, 0, 0], palette: [red] });
    expect(Object.keys(scenes.get(SCENE.uuid)!.states[0]!)).to.deep.equal(['selector']);
    for (const [state, message] of [
      [{ zones: [[0, 1, 1]] }, /zones\[0\] must be \[hue, saturation, brightness, kelvin\]/],
      [{ zones: [[0, 2, 1, 3500]] }, /zones\[0\] must be \[hue 0-360/],
      [{ pixels: [] }, /pixels must be a list of 1 to 16 tiles/],
      [{ effect: { type: 'SPIN', period: 1, duration: 0, parameters: [0, 0, 0, 0, 0, 0, 0, 0] } }, /effect.type must be one of MOVE/],
      [{ effect: { type: 'MOVE', period: 1, duration: 0, parameters: [0] } }, /effect.parameters must be 8 integers/],
      [{ effect: { type: 'MOVE', period: 1, duration: 0, parameters: [0, 0, 0, 0, 0, 0, 0, 0], speed: 1 } }, /effect has an unknown key "speed"/],
    ] as const) {
      expect(() => parseFile(fileWith(state))).to.throw(message);
    }
  });

  it('plans a picture in one Set64 for an 8 x 8 light, the effect stopped first, and one SetColor for a picture in one colour', () => {
    const frame = Array.from({ length: 64 }, (_, i) => (i % 2 === 0 ? red : blue));
    const steps = planFor({ pixels: [frame] }, matrix(), { duration: 3 })!.steps;
    expect(steps.map((s) => s.map((m) => m.name))).to.deep.equal([['SetTileEffect', 'Set64', 'SetLightPower']]);
    expect((steps[0]![1]!.payload as { durationMs: number }).durationMs).to.equal(3000);
    const flat = planFor({ pixels: [frame.map(() => blue)] }, matrix(), { duration: 0 })!.steps;
    expect(flat.map((s) => s.map((m) => m.name))).to.deep.equal([['SetTileEffect', 'SetColor', 'SetLightPower']]);
    // A light whose tiles differ from the picture's is restored flat (the state's colour); a captured effect follows.
    const other = matrix({ matrix: { tiles: [{ width: 5, height: 6 }], zoneCount: 30 } });
    const withEffect: LightPicture = { pixels: [frame], effect: { type: 'FLAME', periodS: 4, durationS: 0, parameters: [0, 0, 0, 0, 0, 0, 0, 0], palette: [] } };
    expect(planFor(withEffect, other)!.steps.map((s) => s.map((m) => m.name))).to.deep.equal([['SetLightPower'], ['SetTileEffect']]);
  });

  it('dims a picture as a whole for an override brightness, keeps what each pixel shows for ignored components, and paints flat for an override colour', () => {
    const frame = Array.from({ length: 64 }, (_, i) => (i % 2 === 0 ? red : blue));
    const set64Colors = (plan: ReturnType<typeof planFor>): Hsbk[] => ((plan!.steps[0]!.find((m) => m.name === 'Set64')!.payload as unknown as { colors: Parameters<typeof hsbkFromWire>[0][] }).colors).map(hsbkFromWire);
    const dimmed = set64Colors(planFor({ pixels: [frame] }, matrix(), { overrides: { brightness: 0.5 } }));
    expect([dimmed[0]!.brightness, dimmed[1]!.brightness]).to.deep.equal([0.5, 0.25]);
    const shown = [Array.from({ length: 64 }, (_, i) => ({ hue: 100 + i, saturation: 0.2, brightness: 0.1, kelvin: 3500 }))];
    const kept = set64Colors(planFor({ pixels: [frame] }, matrix({ pixels: shown }), { ignore: ['hue', 'intensity'] }));
    expect(kept[1]).to.deep.equal({ hue: 101, saturation: 1, brightness: 0.1, kelvin: 3500 });
    expect(planFor({ pixels: [frame] }, matrix(), { overrides: { color: 'green' } })).to.equal(undefined);
  });

  it('paints a light that is off while dark, then powers it on over the duration; fast mode sends it all in one step', () => {
    const frame = Array.from({ length: 64 }, (_, i) => (i % 2 === 0 ? red : blue));
    const off = planFor({ pixels: [frame] }, matrix({ power: 'off' }), { duration: 2 })!.steps;
    expect(off.map((s) => s.map((m) => [m.name, (m.payload as { durationMs?: number }).durationMs]))).to.deep.equal([
      [['SetTileEffect', undefined], ['Set64', 0]],
      [['SetLightPower', 2000]],
    ]);
    expect(planFor({ pixels: [frame] }, matrix({ power: 'off' }), { duration: 2 }, true)!.steps).to.have.length(1);
  });
});
