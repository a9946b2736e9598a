// decode is total (lifx-lan-client, by contrast, throws on a known type with a short payload): random, truncated and mutated
// datagrams never throw, every failure carries one of the three decode codes, and a short payload is read with the
// missing bytes as zeros. 100,000+ datagrams from a
// seeded generator (reproducible, and fast enough for every CI run) plus fast-check properties.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  HEADER_BYTES,
  MESSAGES,
  MESSAGE_NAMES,
  MESSAGE_NAME_BY_TYPE,
  PROTOCOL_NUMBER,
  decode,
  encode,
  type DecodeResult,
  type MessageSpec,
  type PacketInput,
} from '../../core/protocol/index.js';
import { headerInputArbitrary, payloadArbitrary } from './helpers.js';

const DECODE_CODES = new Set(['DATAGRAM_TOO_SHORT', 'SIZE_MISMATCH', 'PROTOCOL_UNSUPPORTED']);

/** xorshift32: a tiny seeded generator, so a failure reproduces from the printed seed and index. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

/** Valid datagrams of every message (zero payloads, unicast and broadcast) as mutation seeds. */
function seeds(): Buffer[] {
  return MESSAGE_NAMES.flatMap((name) => {
    const payload = (MESSAGES[name] as MessageSpec).payload.zero();
    return [
      encode({ name, header: { source: 0x2a2a2a2a, sequence: 7 }, payload } as unknown as PacketInput),
      encode({ name, header: { source: 1, sequence: 255, target: 'd073d5001337', ackRequired: true }, payload } as unknown as PacketInput),
    ];
  });
}

function setSize(buf: Buffer): void {
  if (buf.length >= 2) buf.writeUInt16LE(buf.length & 0xffff, 0);
}

/** Checks one decode result against the datagram; returns the outcome for the tally. */
function check(bytes: Buffer, result: DecodeResult): string {
  if (!result.ok) {
    assert.ok(DECODE_CODES.has(result.error.code), `unexpected code ${result.error.code}`);
    return result.error.code;
  }
  const { packet } = result;
  assert.equal(packet.header.sizeBytes, bytes.length);
  assert.equal(packet.header.protocol, PROTOCOL_NUMBER);
  if (packet.name === null) {
    assert.equal(MESSAGE_NAME_BY_TYPE.has(packet.header.type), false);
    assert.deepEqual(packet.payload, new Uint8Array(bytes.subarray(HEADER_BYTES)));
    return 'unknown type';
  }
  assert.equal(MESSAGE_NAME_BY_TYPE.get(packet.header.type), packet.name);
  const missing = (MESSAGES[packet.name] as MessageSpec).payload.sizeBytes - (bytes.length - HEADER_BYTES);
  assert.equal(result.missingBytes, Math.max(0, missing));
  return missing > 0 ? 'short payload' : 'ok';
}

describe('decode on random, truncated and mutated datagrams', () => {
  it('never throws on 120,000 generated datagrams and fails only with a decode code', () => {
    const seed = 0x1f2e3d4c;
    const next = rng(seed);
    const base = seeds();
    const tally = new Map<string, number>();
    const TOTAL = 120_000;
    for (let i = 0; i < TOTAL; i++) {
      const r = next();
      let bytes: Buffer;
      switch (r % 6) {
        case 0: {
          // Pure noise of any length up to 1,000 bytes.
          bytes = Buffer.alloc(next() % 1000);
          for (let j = 0; j < bytes.length; j++) bytes[j] = next() & 0xff;
          break;
        }
        case 1: {
          // Noise with a plausible header: size and protocol right, random type (often unknown).
          bytes = Buffer.alloc(HEADER_BYTES + (next() % 200));
          for (let j = 0; j < bytes.length; j++) bytes[j] = next() & 0xff;
          setSize(bytes);
          bytes.writeUInt16LE(PROTOCOL_NUMBER | (next() & 0xf000), 2);
          if (next() % 2 === 0) bytes.writeUInt16LE(next() % 1024, 32);
          break;
        }
        case 2: {
          // A valid datagram truncated anywhere, size field fixed half the time.
          const s = base[next() % base.length]!;
          bytes = Buffer.from(s.subarray(0, next() % (s.length + 1)));
          if (next() % 2 === 0) setSize(bytes);
          break;
        }
        case 3: {
          // A valid datagram with random extra bytes appended (newer firmware may append fields).
          const s = base[next() % base.length]!;
          const extra = Buffer.alloc(next() % 64);
          for (let j = 0; j < extra.length; j++) extra[j] = next() & 0xff;
          bytes = Buffer.concat([s, extra]);
          if (next() % 4 !== 0) setSize(bytes);
          break;
        }
        default: {
          // A valid datagram with 1-8 random bytes changed, size field fixed half the time.
          const s = base[next() % base.length]!;
          bytes = Buffer.from(s);
          const flips = 1 + (next() % 8);
          for (let j = 0; j < flips; j++) bytes[next() % bytes.length] = next() & 0xff;
          if (next() % 2 === 0) setSize(bytes);
          break;
        }
      }
      let result: DecodeResult;
      try {
        result = decode(bytes);
      } catch (err) {
        assert.fail(`decode threw on datagram #${i} (seed ${seed}) ${bytes.toString('hex')}: ${String(err)}`);
      }
      const outcome = check(bytes, result);
      tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
    }
    // Every path was exercised, so the run is not vacuous.
    for (const outcome of ['ok', 'short payload', 'unknown type', ...DECODE_CODES]) {
      assert.ok((tally.get(outcome) ?? 0) > 100, `${outcome} happened ${tally.get(outcome) ?? 0} times`);
    }
    assert.equal([...tally.values()].reduce((a, b) => a + b, 0), TOTAL);
  });

  it('decodes any byte string without throwing (fast-check, 20,000 runs)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 1200 }), (bytes) => {
        check(Buffer.from(bytes), decode(bytes));
      }),
      { numRuns: 20_000 },
    );
  });

  it('decodes a plain Uint8Array (not a Buffer) and a view into a larger buffer the same way', () => {
    const bytes = encode({ name: 'SetPower', header: { source: 5, sequence: 6 }, payload: { level: 65535 } });
    const big = new Uint8Array(bytes.length + 20);
    big.set(bytes, 7);
    const view = big.subarray(7, 7 + bytes.length);
    const a = decode(new Uint8Array(bytes));
    const b = decode(view);
    assert.ok(a.ok && b.ok);
    assert.deepEqual(a.packet, b.packet);
    assert.deepEqual(a.packet.payload, { level: 65535 });
  });

  it('decodes an unknown type (406, as real bulbs send) with its raw payload', () => {
    const bytes = Buffer.from(encode({ name: 'StatePower', header: { source: 9, sequence: 1, target: 'd073d5001337' }, payload: { level: 0 } }));
    bytes.writeUInt16LE(406, 32);
    bytes[36] = 0xab;
    bytes[37] = 0xcd;
    const result = decode(bytes);
    assert.ok(result.ok);
    assert.equal(result.packet.name, null);
    assert.equal(result.packet.header.type, 406);
    assert.deepEqual(result.packet.payload, new Uint8Array([0xab, 0xcd]));
  });

  it('decodes every message with a longer payload than its table, ignoring the extra bytes (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...MESSAGE_NAMES).chain((name) =>
          fc.tuple(fc.constant(name), headerInputArbitrary, payloadArbitrary(name), fc.uint8Array({ minLength: 1, maxLength: 100 })),
        ),
        ([name, header, payload, extra]) => {
          const longer = Buffer.concat([encode({ name, header, payload } as unknown as PacketInput), extra]);
          setSize(longer);
          const result = decode(longer);
          assert.ok(result.ok, `${name} with ${extra.length} extra bytes decodes`);
          assert.equal(result.packet.name, name);
          assert.deepEqual(result.packet.payload, payload);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('decodes every message with a shorter payload than its table, the missing bytes read as zeros and counted (fast-check)', () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...MESSAGE_NAMES.filter((n) => (MESSAGES[n] as MessageSpec).payload.sizeBytes > 0))
          .chain((name) =>
            fc.tuple(
              fc.constant(name),
              headerInputArbitrary,
              payloadArbitrary(name),
              fc.integer({ min: 1, max: (MESSAGES[name] as MessageSpec).payload.sizeBytes }),
            ),
          ),
        ([name, header, payload, cut]) => {
          const full = encode({ name, header, payload } as unknown as PacketInput);
          const short = Buffer.from(full.subarray(0, full.length - cut));
          setSize(short);
          const result = decode(short);
          assert.ok(result.ok, `${name} ${cut} bytes short decodes`);
          assert.equal(result.missingBytes, cut);
          assert.equal(result.packet.name, name);
          assert.equal(result.packet.header.sizeBytes, short.length);
          // What the full datagram with its last `cut` bytes zeroed decodes to.
          const zeroed = Buffer.from(full);
          zeroed.fill(0, full.length - cut);
          const expected = decode(zeroed);
          assert.ok(expected.ok);
          assert.equal(expected.missingBytes, 0);
          assert.deepEqual(result.packet.payload, expected.packet.payload);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('reports 35 bytes as DATAGRAM_TOO_SHORT, a wrong size field as SIZE_MISMATCH and protocol 1023 as PROTOCOL_UNSUPPORTED', () => {
    const good = encode({ name: 'GetService', header: { source: 1, sequence: 0 }, payload: {} });
    const tooShort = decode(good.subarray(0, 35));
    assert.ok(!tooShort.ok);
    assert.equal(tooShort.error.code, 'DATAGRAM_TOO_SHORT');
    assert.deepEqual(tooShort.error.params, { lengthBytes: 35 });

    const wrongSize = Buffer.from(good);
    wrongSize.writeUInt16LE(37, 0);
    const mismatch = decode(wrongSize);
    assert.ok(!mismatch.ok);
    assert.equal(mismatch.error.code, 'SIZE_MISMATCH');
    assert.deepEqual(mismatch.error.params, { sizeField: 37, lengthBytes: 36 });

    const oldProtocol = Buffer.from(good);
    oldProtocol.writeUInt16LE((oldProtocol.readUInt16LE(2) & 0xf000) | 1023, 2);
    const unsupported = decode(oldProtocol);
    assert.ok(!unsupported.ok);
    assert.equal(unsupported.error.code, 'PROTOCOL_UNSUPPORTED');
    assert.deepEqual(unsupported.error.params, { protocol: 1023 });
  });
});
