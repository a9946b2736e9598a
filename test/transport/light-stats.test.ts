// Per-light statistics: which ended exchanges count, lost transmissions, and the ring of recent round trips.

import { expect } from 'chai';
import { LightwireError } from '../../core/errors.js';
import { LightStatsBook, RTT_SAMPLES_KEPT } from '../../core/transport/light-stats.js';

const S = 'd073d5000001';

describe('LightStatsBook', () => {
  it('knows nothing of a light never asked', () => {
    const book = new LightStatsBook();
    expect(book.of(S)).to.equal(undefined);
    expect(book.lostAttempts(S)).to.equal(0);
    expect(book.answered(S)).to.equal(0);
  });

  it('counts answers (refusals too) and timeouts, with the transmissions each lost; not superseded or cancelled ones', () => {
    const book = new LightStatsBook();
    book.ended(S, 1, 'done', 12);
    book.ended(S, 3, 'done', undefined);
    book.ended(S, 1, new LightwireError('UNHANDLED_BY_DEVICE', { serial: S, message: 'GetColor' }), 4);
    book.ended(S, 4, new LightwireError('REQUEST_TIMED_OUT', { serial: S, message: 'GetColor', timeoutMs: 1000 }), undefined);
    book.ended(S, 2, 'superseded', undefined);
    book.ended(S, 2, new LightwireError('REQUEST_CANCELLED', { serial: S, message: 'GetColor' }), undefined);
    expect(book.of(S)).to.deep.equal({
      requests: 4,
      answered: 3,
      timeouts: 1,
      attempts: 9,
      lostAttempts: 6,
      retransmits: 5,
      rttSamples: 2,
      recentRttMs: [12, 4],
    });
    expect(book.lostAttempts(S)).to.equal(6);
    expect(book.answered(S)).to.equal(3);
  });

  it('keeps the most recent samples, oldest first, and gives a copy', () => {
    const book = new LightStatsBook();
    for (let i = 0; i < RTT_SAMPLES_KEPT + 3; i++) book.ended(S, 1, 'done', i);
    const stats = book.of(S)!;
    expect(stats.rttSamples).to.equal(RTT_SAMPLES_KEPT + 3);
    expect(stats.recentRttMs).to.have.length(RTT_SAMPLES_KEPT);
    expect(stats.recentRttMs[0]).to.equal(3);
    expect(stats.recentRttMs.at(-1)).to.equal(RTT_SAMPLES_KEPT + 2);
    (stats.recentRttMs as number[]).length = 0;
    expect(book.of(S)!.recentRttMs).to.have.length(RTT_SAMPLES_KEPT);
  });
});
