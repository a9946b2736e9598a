import * as hap from '@homebridge/hap-nodejs';
import { expect } from 'chai';
import sinon from 'sinon';
import type { LightResult, LightView, SetStateRequest } from '../../core/index.js';
import { Writer, type WriteTarget } from '../../homebridge-plugin/writer.js';
import { lightOf } from '../helpers/light-view.js';

const FAILURE = hap.HAPStatus.SERVICE_COMMUNICATION_FAILURE;

interface Call {
  readonly serial: string;
  readonly request: SetStateRequest;
  readonly answer: (status: LightResult['status']) => void;
  readonly fail: (err: Error) => void;
}

/** A service whose setLightState answers only when the test says so. */
class FakeLights implements WriteTarget {
  readonly calls: Call[] = [];
  readonly views = new Map<string, LightView>();

  add(serial: string, online = true, infrared: number | null = null): void {
    this.views.set(serial, lightOf(109, { online, power: 'off', color: { hue: 0, saturation: 0, brightness: 1, kelvin: 3500 }, infrared }, serial));
  }

  light(serial: string): LightView | undefined {
    return this.views.get(serial);
  }

  setLightState(serial: string, request: SetStateRequest): Promise<LightResult[]> {
    return new Promise((resolve, reject) => {
      this.calls.push({
        serial,
        request,
        answer: (status) => resolve([{ id: serial, label: serial, status }]),
        fail: reject,
      });
    });
  }
}

type Outcome = { status: 'ok' } | { status: 'failed'; hapStatus: number | undefined };

function outcome(p: Promise<void>): { settled: Outcome | undefined } {
  const box: { settled: Outcome | undefined } = { settled: undefined };
  p.then(
    () => (box.settled = { status: 'ok' }),
    (err: unknown) => (box.settled = { status: 'failed', hapStatus: err instanceof hap.HapStatusError ? err.hapStatus : undefined }),
  );
  return box;
}

describe('homebridge write merger', () => {
  let clock: sinon.SinonFakeTimers;
  let lights: FakeLights;
  let writer: Writer;

  beforeEach(() => {
    clock = sinon.useFakeTimers();
    lights = new FakeLights();
    lights.add('d073d5000001');
    lights.add('d073d5000002');
    writer = new Writer(lights, {
      mergeWindowMs: 30,
      responseTimeoutMs: 1000,
      durationS: (serial) => (serial === 'd073d5000002' ? 0 : 0.5),
      failure: () => new hap.HapStatusError(FAILURE),
    });
  });

  afterEach(() => {
    writer.stop();
    clock.restore();
  });

  it('turns On, Brightness, Hue and Saturation written together into one setState, colour with power', async () => {
    const writes = [
      outcome(writer.write('d073d5000001', { power: 'on' })),
      outcome(writer.write('d073d5000001', { brightness: 0.4 })),
      outcome(writer.write('d073d5000001', { hue: 240 })),
      outcome(writer.write('d073d5000001', { saturation: 1 })),
    ];
    // Nothing goes out during the turn that wrote them (HAP-NodeJS calls one PUT's handlers in one turn) ...
    expect(lights.calls).to.have.length(0);
    // ... and everything goes out together at its end, no window waited for.
    await clock.tickAsync(0);
    expect(lights.calls.map((c) => [c.serial, c.request])).to.deep.equal([
      ['d073d5000001', { power: 'on', color: { hue: 240, saturation: 1 }, brightness: 0.4, durationS: 0.5 }],
    ]);
    expect(writes.map((w) => w.settled)).to.deep.equal([undefined, undefined, undefined, undefined]);
    lights.calls[0]!.answer('ok');
    await clock.tickAsync(0);
    expect(writes.map((w) => w.settled?.status)).to.deep.equal(['ok', 'ok', 'ok', 'ok']);
    expect(writer.stats).to.deep.equal({ writes: 4, changes: 1 });
  });

  it('sends a write at the end of the turn that made it, with no timer to wait for', async () => {
    lights.views.set('d073d5000001', { ...lights.views.get('d073d5000001')!, power: 'on' });
    const write = outcome(writer.write('d073d5000001', { brightness: 0.3 }));
    await clock.tickAsync(0);
    expect(clock.now).to.equal(0);
    expect(lights.calls.map((c) => c.request)).to.deep.equal([{ brightness: 0.3, durationS: 0.5 }]);
    lights.calls[0]!.answer('ok');
    await clock.tickAsync(0);
    expect(write.settled?.status).to.equal('ok');
    // A power-on of a light that is on cannot show an old colour: it does not wait either.
    void writer.write('d073d5000001', { power: 'on' });
    await clock.tickAsync(0);
    expect(lights.calls.map((c) => c.request)).to.deep.equal([
      { brightness: 0.3, durationS: 0.5 },
      { power: 'on', durationS: 0.5 },
    ]);
  });

  it('holds a power-on of a light that is off for the window, so a colour written separately goes with it (first)', async () => {
    const on = outcome(writer.write('d073d5000001', { power: 'on' }));
    await clock.tickAsync(10);
    expect(lights.calls).to.have.length(0);
    // The colour in a request of its own, 10 ms later: sent at the end of its turn, with the power-on.
    const hue = outcome(writer.write('d073d5000001', { hue: 120, saturation: 1 }));
    await clock.tickAsync(0);
    expect(clock.now).to.equal(10);
    expect(lights.calls.map((c) => c.request)).to.deep.equal([{ power: 'on', color: { hue: 120, saturation: 1 }, durationS: 0.5 }]);
    lights.calls[0]!.answer('ok');
    await clock.tickAsync(0);
    expect([on.settled?.status, hue.settled?.status]).to.deep.equal(['ok', 'ok']);
    expect(clock.countTimers()).to.equal(0);
  });

  it('sends a power-on of a light that is off, with no colour coming, once the window is over', async () => {
    void writer.write('d073d5000001', { power: 'on' });
    await clock.tickAsync(20);
    // Brightness is no colour: the hue may still come.
    void writer.write('d073d5000001', { brightness: 0.6 });
    await clock.tickAsync(9);
    expect(lights.calls).to.have.length(0);
    await clock.tickAsync(1);
    expect(lights.calls.map((c) => c.request)).to.deep.equal([{ power: 'on', brightness: 0.6, durationS: 0.5 }]);
  });

  it('sends a power-on of a light that is off at once when its colour is in the same turn, and without a window at 0', async () => {
    void writer.write('d073d5000001', { power: 'on' });
    void writer.write('d073d5000001', { kelvin: 2700 });
    await clock.tickAsync(0);
    expect(lights.calls.map((c) => c.request)).to.deep.equal([{ power: 'on', color: { kelvin: 2700 }, durationS: 0.5 }]);
    const unwindowed = new Writer(lights, { mergeWindowMs: 0, responseTimeoutMs: 1000, durationS: () => 0, failure: () => new hap.HapStatusError(FAILURE) });
    try {
      void unwindowed.write('d073d5000002', { power: 'on' });
      await clock.tickAsync(0);
      expect(lights.calls.map((c) => [c.serial, c.request])).to.deep.equal([
        ['d073d5000001', { power: 'on', color: { kelvin: 2700 }, durationS: 0.5 }],
        ['d073d5000002', { power: 'on', durationS: 0 }],
      ]);
    } finally {
      unwindowed.stop();
    }
  });

  it('sends writes further apart than the window as separate changes, with each light its own transition', async () => {
    void writer.write('d073d5000001', { brightness: 0.2 });
    await clock.tickAsync(30);
    lights.calls[0]!.answer('ok');
    await clock.tickAsync(100);
    void writer.write('d073d5000001', { brightness: 0.3 });
    void writer.write('d073d5000002', { brightness: 0.3 });
    await clock.tickAsync(30);
    expect(lights.calls.map((c) => [c.serial, c.request])).to.deep.equal([
      ['d073d5000001', { brightness: 0.2, durationS: 0.5 }],
      ['d073d5000001', { brightness: 0.3, durationS: 0.5 }],
      ['d073d5000002', { brightness: 0.3, durationS: 0 }],
    ]);
  });

  it('sends a change with the transition its write carried (a Matter command\'s), merged writes keeping it, the next change the setting again', async () => {
    void writer.write('d073d5000001', { brightness: 0.2 }, 2.5);
    void writer.write('d073d5000001', { power: 'on' });
    await clock.tickAsync(30);
    lights.calls[0]!.answer('ok');
    await clock.tickAsync(0);
    void writer.write('d073d5000001', { brightness: 0.3 });
    await clock.tickAsync(30);
    expect(lights.calls.map((c) => c.request)).to.deep.equal([
      { power: 'on', brightness: 0.2, durationS: 2.5 },
      { brightness: 0.3, durationS: 0.5 },
    ]);
  });

  it('folds writes made while a change is on its way into the next one, latest value winning', async () => {
    const first = outcome(writer.write('d073d5000001', { brightness: 0.1 }));
    await clock.tickAsync(30);
    const later = [0.2, 0.3, 0.4].map((b) => outcome(writer.write('d073d5000001', { brightness: b })));
    await clock.tickAsync(200);
    expect(lights.calls).to.have.length(1);
    lights.calls[0]!.answer('ok');
    await clock.tickAsync(0);
    expect(first.settled?.status).to.equal('ok');
    expect(lights.calls).to.have.length(2);
    expect(lights.calls[1]!.request).to.deep.equal({ brightness: 0.4, durationS: 0.5 });
    lights.calls[1]!.answer('ok');
    await clock.tickAsync(0);
    expect(later.map((w) => w.settled?.status)).to.deep.equal(['ok', 'ok', 'ok']);
  });

  it('answers a write to an offline or unknown light at once with SERVICE_COMMUNICATION_FAILURE (-70402)', async () => {
    lights.add('d073d5000003', false);
    const offline = outcome(writer.write('d073d5000003', { power: 'on' }));
    const unknown = outcome(writer.write('d073d5000009', { power: 'on' }));
    await clock.tickAsync(0);
    expect(offline.settled).to.deep.equal({ status: 'failed', hapStatus: -70402 });
    expect(unknown.settled).to.deep.equal({ status: 'failed', hapStatus: -70402 });
    expect(lights.calls).to.have.length(0);
  });

  it('answers a light that does not confirm within the response timeout with -70402, while another light is not held up', async () => {
    const silent = outcome(writer.write('d073d5000001', { power: 'on' }));
    await clock.tickAsync(30);
    const other = outcome(writer.write('d073d5000002', { power: 'on' }));
    await clock.tickAsync(30);
    lights.calls[1]!.answer('ok');
    await clock.tickAsync(0);
    expect(other.settled?.status).to.equal('ok');
    expect(silent.settled).to.equal(undefined);
    await clock.tickAsync(939);
    expect(silent.settled).to.equal(undefined);
    await clock.tickAsync(1);
    expect(silent.settled).to.deep.equal({ status: 'failed', hapStatus: -70402 });
  });

  it('fails the writes of a change the light reports timed out or offline, or that throws', async () => {
    const timedOut = outcome(writer.write('d073d5000001', { power: 'on' }));
    const thrown = outcome(writer.write('d073d5000002', { power: 'on' }));
    await clock.tickAsync(30);
    lights.calls[0]!.answer('timed_out');
    lights.calls[1]!.fail(new Error('LIGHTS_NOT_FOUND'));
    await clock.tickAsync(0);
    expect(timedOut.settled).to.deep.equal({ status: 'failed', hapStatus: -70402 });
    expect(thrown.settled).to.deep.equal({ status: 'failed', hapStatus: -70402 });
  });

  it('turns the night-vision On into the last level, and Off into 0', async () => {
    lights.add('d073d5000004', true, 0.35);
    void writer.write('d073d5000004', { infraredOn: true });
    await clock.tickAsync(30);
    lights.calls[0]!.answer('ok');
    await clock.tickAsync(0);
    void writer.write('d073d5000004', { infraredOn: false });
    await clock.tickAsync(30);
    expect(lights.calls.map((c) => c.request.infrared)).to.deep.equal([0.35, 0]);
  });

  it('leaves no timer behind on stop and answers what was waiting', async () => {
    const pending = outcome(writer.write('d073d5000001', { power: 'on' }));
    writer.stop();
    await clock.tickAsync(0);
    expect(pending.settled).to.deep.equal({ status: 'failed', hapStatus: -70402 });
    expect(clock.countTimers()).to.equal(0);
    expect(lights.calls).to.have.length(0);
  });
});
