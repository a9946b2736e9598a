// Issue 12 §3: "the light changed but its ack was lost", through LightService. Replies are lost only once the light
// has acted on the Set (the fleet's randomness looks at what the light received), so the read goes through, the
// colour is applied, and every acknowledgement of it, retransmissions included, is lost.

import { expect } from 'chai';
import { emptyTally, faultRig, shows, type FaultRig } from './rig.js';

describe('a Set applied whose acknowledgements are lost', function () {
  this.timeout(20_000);
  let rig: FaultRig;
  /** Whether the next reply is lost; asked by the fleet for every reply of a light with lossOutProbability on. */
  let loseReplies = (): boolean => false;

  before(async () => {
    rig = await faultRig({ lights: 2, deadlineMs: 1500, fleetRandom: () => (loseReplies() ? 0 : 0.999) });
  });
  after(() => rig?.close());

  it('answers timed_out (not ok), though the light shows the new state; the other light is ok', async () => {
    const [hit, spared] = rig.serials as [string, string];
    const light = rig.fleet.light(hit);
    light.setFaults({ lossOutProbability: 0.5 });
    light.clearRecords();
    // From the moment the light took the Set, every reply it sends is lost (the draw comes after the light acted).
    loseReplies = () => light.receivedCount('SetColor') > 0;
    const want = rig.target('on');
    const tally = emptyTally();
    try {
      const statuses = await rig.write(`id:${hit},id:${spared}`, want, [hit, spared], tally);
      expect(statuses.get(hit)).to.equal('timed_out');
      expect(statuses.get(spared)).to.equal('ok');
    } finally {
      loseReplies = () => false;
    }
    expect(tally).to.include({ ok: 1, timedOut: 1, changedButTimedOut: 1 });
    expect(shows(light.state, want)).to.equal(true);
    // It heard the Set more than once (retransmissions), acted on each, and every ack was lost.
    expect(light.receivedCount('SetColor')).to.be.at.least(2);
    expect(light.stats.lostReplies).to.be.at.least(light.receivedCount('SetColor'));
    // Nothing after the Set reached the client: the only replies sent are to a read before it (when the service read
    // the light rather than planning from what it knew).
    expect(light.stats.sent).to.equal(light.receivedCount('GetColor'));
  });
});
