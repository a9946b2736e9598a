// One table of bad values through every face (the library, HTTP, Node-RED, the dashboard): each gets the same code
// and the same text, with the field named in the face's own vocabulary (the library's `powerOn`, HTTP's and
// Node-RED's `power_on`). Nothing reaches a light.

import { expect } from 'chai';
import { isLightwireError, type LightService } from '../../core/index.js';
import { parseAction, runAction } from '../../core/http/dashboard/actions.js';
import { parsePayload } from '../../nodes/payload.js';
import { apiRig, contractFleet, DESK, type ApiRig } from './helpers.js';

interface Refusal {
  readonly code: string;
  readonly field: string;
  readonly text: string;
}

interface Row {
  readonly name: string;
  /** The operation's HTTP method and path under /v1/lights/id:DESK. */
  readonly http: readonly ['PUT' | 'POST', string];
  /** The body in the HTTP API's names (also a Node-RED payload, with `effect` for effects). */
  readonly v1: Record<string, unknown>;
  /** The same request in the library's names, with the operation it goes to. */
  readonly library: readonly [operation: 'setState' | 'breathe' | 'move' | 'clean' | 'effectsOff', request: Record<string, unknown>];
  /** Node-RED's `effect`, for effects. */
  readonly effect?: string;
  /** The dashboard's action with the same bad value, where the page can send it. */
  readonly dashboard?: Record<string, unknown>;
  /** The field in the v1 names and in the library's. */
  readonly fields: readonly [v1: string, library: string];
}

const ROWS: readonly Row[] = [
  {
    name: 'a brightness above 1',
    http: ['PUT', '/state'],
    v1: { brightness: 1.5 },
    library: ['setState', { brightness: 1.5 }],
    dashboard: { op: 'state', brightness: 1.5 },
    fields: ['brightness', 'brightness'],
  },
  {
    name: 'power that is not on or off',
    http: ['PUT', '/state'],
    v1: { power: 'dim' },
    library: ['setState', { power: 'dim' }],
    dashboard: { op: 'power', power: 'dim' },
    fields: ['power', 'power'],
  },
  {
    name: 'a negative transition',
    http: ['PUT', '/state'],
    v1: { power: 'on', duration: -2 },
    library: ['setState', { power: 'on', durationS: -2 }],
    dashboard: { op: 'state', brightness: 0.5, durationS: -2 },
    fields: ['duration', 'durationS'],
  },
  {
    name: 'a breathe peak above 1',
    http: ['POST', '/effects/breathe'],
    v1: { color: 'red', peak: 2 },
    library: ['breathe', { color: 'red', peak: 2 }],
    effect: 'breathe',
    fields: ['peak', 'peak'],
  },
  {
    name: 'power_on that is not a boolean',
    http: ['POST', '/effects/breathe'],
    v1: { color: 'red', power_on: 'yes' },
    library: ['breathe', { color: 'red', powerOn: 'yes' }],
    effect: 'breathe',
    fields: ['power_on', 'powerOn'],
  },
  {
    name: 'a move direction that is no direction',
    http: ['POST', '/effects/move'],
    v1: { direction: 'left' },
    library: ['move', { direction: 'left' }],
    effect: 'move',
    fields: ['direction', 'direction'],
  },
  {
    name: 'a negative cleaning time',
    http: ['POST', '/clean'],
    v1: { duration: -1 },
    library: ['clean', { durationS: -1 }],
    effect: 'clean',
    fields: ['duration', 'durationS'],
  },
  {
    name: 'power_off that is not a boolean',
    http: ['POST', '/effects/off'],
    v1: { power_off: 1 },
    library: ['effectsOff', { powerOff: 1 }],
    effect: 'off',
    fields: ['power_off', 'powerOff'],
  },
];

function refusalOf(err: unknown, prefix = ''): Refusal {
  if (!isLightwireError(err, 'PARAMETER_INVALID')) throw new Error(`not PARAMETER_INVALID: ${String(err)}`);
  const field = err.params.field.startsWith(prefix) ? err.params.field.slice(prefix.length) : err.params.field;
  return { code: err.code, field, text: err.params.reason };
}

async function refused(run: () => unknown, prefix = ''): Promise<Refusal> {
  try {
    await run();
  } catch (err) {
    return refusalOf(err, prefix);
  }
  throw new Error('nothing was refused');
}

/** Writes (Set* messages) the virtual lights received: background reads do not count. */
function writesReceived(rig: ApiRig): number {
  return rig.fleet.lights.reduce((n, l) => n + l.received().filter((p) => p.name?.startsWith('Set') === true).length, 0);
}

describe('one bad value, one code and one text on every face', function () {
  this.timeout(20_000);
  let rig: ApiRig;
  let service: LightService;

  before(async () => {
    rig = await apiRig(contractFleet());
    service = rig.service;
  });
  after(() => rig.close());

  for (const row of ROWS) {
    it(`refuses ${row.name} alike from the library, HTTP, Node-RED${row.dashboard ? ' and the dashboard' : ''}`, async () => {
      const sentBefore = writesReceived(rig);
      const [operation, request] = row.library;
      const library = await refused(() => service.perform(operation, `id:${DESK}`, request as never));

      const res = await rig.call({ method: row.http[0], url: `/v1/lights/id:${DESK}${row.http[1]}`, payload: row.v1 });
      expect(res.statusCode, row.name).to.equal(422);
      const body = res.json() as { code: string; errors: { field: string; message: string[] }[] };
      const http: Refusal = { code: body.code, field: body.errors[0]!.field, text: body.errors[0]!.message[0]! };

      const nodeRed = await refused(() => parsePayload(row.effect ? { effect: row.effect, ...row.v1 } : row.v1, { fast: false }), 'payload.');

      expect(library).to.deep.equal({ code: 'PARAMETER_INVALID', field: row.fields[1], text: library.text });
      expect(http).to.deep.equal({ ...library, field: row.fields[0] });
      expect(nodeRed).to.deep.equal({ ...library, field: row.fields[0] });
      if (row.dashboard) {
        const dashboard = await refused(() => runAction(service as never, parseAction({ selector: `id:${DESK}`, ...row.dashboard })));
        // The dashboard speaks the library's names (durationS), and a colour component is a colour's part.
        expect({ ...dashboard, field: dashboard.field.replace(/^color\./, '') }).to.deep.equal(library);
      }
      // Refused before anything was sent.
      expect(writesReceived(rig)).to.equal(sentBefore);
    });
  }
});
