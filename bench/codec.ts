// Codec throughput: Lightwire's table-driven codec against lifx-lan-client 2.1.2's hand-written one, in one run.
// Usage: npm run bench:codec  (or: node --import tsx bench/codec.ts [--quick])
//
// Same work on both sides: encode = a complete datagram (36-byte header + payload) into a fresh Buffer;
// decode = header and payload of a complete datagram into an object. Every result is folded into a checksum
// that is printed, so nothing can be optimised away. Each operation is warmed up, then measured in several
// timed rounds interleaved between the two libraries; the table shows the median round.

import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { machine, type BenchResult } from './lib/figures.js';
import { decode, encode, isPacket, type MessageName, type PacketInput, type Payload } from '../core/protocol/index.js';

interface LlcPacket {
  toBuffer(obj: Record<string, unknown>): Buffer | false;
  toObject(buf: Buffer): Record<string, unknown> | Error;
}

const requireCjs = createRequire(__filename);
// lifx-lan-client has no codec export; this is the module its client uses for every datagram.
const Llc = requireCjs('lifx-lan-client/src/lifx/packet') as LlcPacket;

const QUICK = process.argv.includes('--quick');
const ROUND_MS = QUICK ? 40 : 150;
const ROUNDS = QUICK ? 3 : 7;
const WARMUP_MS = QUICK ? 40 : 250;

const SOURCE = 0x2a2a2a2a;
const SOURCE_HEX = '2a2a2a2a'; // lifx-lan-client takes source as the 4 header bytes in hex (copied byte for byte to offset 4)
const TARGET = 'd073d5001337';

const green = { hue: 21845, saturation: 65535, brightness: 65535, kelvin: 3500 };
const zones = Array.from({ length: 8 }, (_, i) => ({ hue: 32768 + 4096 * i, saturation: 65535, brightness: 32768, kelvin: 3500 }));

interface Case {
  readonly message: string;
  readonly ours: OurCodec;
  /** The same message for lifx-lan-client's Packet.toBuffer. */
  readonly theirs: () => Record<string, unknown>;
  /** A number deep in each library's decoded object (the last colour's kelvin, the port), consumed by the checksum. */
  // lifx-lan-client's decoded objects are untyped JavaScript.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly pickTheirs: (obj: any) => number;
}

const header = { source: SOURCE, target: TARGET, sequence: 7, resRequired: true };
interface OurCodec {
  encode(): Buffer;
  /** Decodes and returns the picked number. */
  decode(bytes: Buffer): { value: number; target: string; packet: object };
}

/** Our codec for one fixed message (closures keep each message's payload type exact). */
function ours<N extends MessageName>(name: N, payload: Payload<N>, pick: (p: Payload<N>) => number): OurCodec {
  const input: PacketInput<N> = { name, header, payload };
  return {
    encode: () => encode(input),
    decode: (bytes) => {
      const r = decode(bytes);
      if (!r.ok || !isPacket(r.packet, name)) throw new Error(`${name} did not decode`);
      return { value: pick(r.packet.payload as Payload<N>), target: r.packet.header.target, packet: r.packet };
    },
  };
}
const llcHeader = { source: SOURCE_HEX, target: TARGET, sequence: 7, resRequired: true };

const CASES: Case[] = [
  {
    message: 'SetColor',
    ours: ours('SetColor', { color: green, durationMs: 1024 }, (p) => p.color.kelvin + p.durationMs),
    theirs: () => ({ ...llcHeader, type: 'setColor', size: 49, ...green, duration: 1024 }),
    pickTheirs: (o) => o.color.kelvin + o.duration,
  },
  {
    message: 'LightState',
    ours: ours('LightState', { color: green, power: 65535, label: 'Kitchen ceiling' }, (p) => p.color.kelvin + p.label.length),
    theirs: () => ({
      ...llcHeader, type: 'stateLight', size: 88, color: { ...green }, dim: 0, power: 65535, label: 'Kitchen ceiling',
      tags: Buffer.alloc(8),
    }),
    pickTheirs: (o) => o.color.kelvin + o.label.length,
  },
  {
    message: 'StateService',
    ours: ours('StateService', { service: 1, port: 56700 }, (p) => p.port),
    theirs: () => ({ ...llcHeader, type: 'stateService', size: 41, service: 1, port: 56700 }),
    pickTheirs: (o) => o.port,
  },
  {
    message: 'StateMultiZone',
    ours: ours('StateMultiZone', { count: 16, index: 8, colors: zones }, (p) => p.colors[7]!.kelvin),
    theirs: () => ({ ...llcHeader, type: 'stateMultiZone', size: 102, count: 16, index: 8, color: zones.map((z) => ({ ...z })) }),
    pickTheirs: (o) => o.color[7].kelvin,
  },
];

let sink = 0;
// Every result is also stored here, so it escapes and must really be built (no escape-analysis shortcuts).
const kept: unknown[] = new Array(64).fill(null);
let keptAt = 0;

function consumeBuffer(buf: Buffer | false): void {
  if (buf === false) throw new Error('encoder returned false');
  kept[keptAt++ & 63] = buf;
  sink = (sink + buf.length + buf[buf.length - 1]!) | 0;
}

/** Folds a payload value and the header's target into the checksum: both decoders must have produced them. */
function consumeDecoded(whole: unknown, value: number, target: unknown): void {
  kept[keptAt++ & 63] = whole;
  sink = (sink + value + (typeof target === 'string' ? target.length : 0)) | 0;
}

/** Runs `fn` for about `ms` milliseconds and returns operations per second. */
function measure(fn: () => void, ms: number): number {
  let ops = 0;
  const start = performance.now();
  const end = start + ms;
  let now = start;
  do {
    for (let i = 0; i < 256; i++) fn();
    ops += 256;
    now = performance.now();
  } while (now < end);
  return (ops * 1000) / (now - start);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** A failure of the other library is reported, not hidden: the row shows why there is no figure. */
function probe(fn: () => void): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  }
}

interface Row {
  readonly message: string;
  readonly op: 'encode' | 'decode';
  readonly ours: number;
  readonly theirs: number | null;
  readonly note: string | null;
}

function compare(message: string, op: Row['op'], ours: () => void, theirs: () => void): Row {
  const failure = probe(theirs);
  for (let w = 0; w < 2; w++) {
    measure(ours, WARMUP_MS);
    if (failure === null) measure(theirs, WARMUP_MS);
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(measure(ours, ROUND_MS));
    if (failure === null) b.push(measure(theirs, ROUND_MS));
  }
  return { message, op, ours: median(a), theirs: failure === null ? median(b) : null, note: failure };
}

function main(): void {
  const rows: Row[] = [];
  for (const c of CASES) {
    const ourBytes = c.ours.encode();
    const theirInput = c.theirs();
    rows.push(compare(c.message, 'encode', () => consumeBuffer(c.ours.encode()), () => consumeBuffer(Llc.toBuffer(theirInput))));
    // Both decoders read the same bytes: ours, which are valid LIFX datagrams for both libraries.
    rows.push(
      compare(
        c.message,
        'decode',
        () => {
          const r = c.ours.decode(ourBytes);
          consumeDecoded(r.packet, r.value, r.target);
        },
        () => {
          const o = Llc.toObject(ourBytes) as Record<string, unknown>;
          consumeDecoded(o, c.pickTheirs(o), o.target);
        },
      ),
    );
  }
  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
  const lines = [
    `| message | op | Lightwire ops/s | lifx-lan-client ops/s | ratio |`,
    `|---|---|---:|---:|---:|`,
    ...rows.map((r) =>
      r.theirs === null
        ? `| ${r.message} | ${r.op} | ${fmt(r.ours)} | n/a (${r.note}) | n/a |`
        : `| ${r.message} | ${r.op} | ${fmt(r.ours)} | ${fmt(r.theirs)} | ${(r.ours / r.theirs).toFixed(2)}x |`,
    ),
  ];
  console.log(`node ${process.version}, ${ROUNDS} rounds of ${ROUND_MS} ms after warm-up; median round shown`);
  console.log(lines.join('\n'));
  console.log(`checksum ${sink}`);
  // --json FILE: the table for docs/PERFORMANCE.md (bench/report.ts).
  const at = process.argv.indexOf('--json');
  if (at >= 0 && process.argv[at + 1]) {
    const result: BenchResult = {
      bench: 'codec',
      title: 'Codec',
      machine: machine(),
      method:
        `Encode (a complete datagram into a fresh Buffer) and decode (header and payload into an object) per second, Lightwire's ` +
        `table-driven codec against lifx-lan-client 2.1.2's, in one process, interleaved; ${ROUNDS} rounds of ${ROUND_MS} ms after warm-up, ` +
        `the median round shown.`,
      figures: [],
      details: lines.join('\n'),
    };
    writeFileSync(process.argv[at + 1]!, `${JSON.stringify(result, null, 2)}\n`);
  }
}

main();
