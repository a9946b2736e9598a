// Byte field types: raw bytes, bytes shown as hex (serials, group and location ids) and NUL-padded UTF-8 labels.
// Compiled as described in field-types.ts.

import { compiled, fail, lit, plus, src, type FieldType } from './field-compiler.js';

const readBytes = (b: Buffer, o: number, n: number): Uint8Array => new Uint8Array(b.subarray(o, o + n));
function writeBytes(b: Buffer, o: number, v: Uint8Array, n: number): void {
  b.set(v, o);
  if (v.length < n) b.fill(0, o + v.length, o + n);
}

/** Raw bytes of a fixed length, as a plain Uint8Array copy. Shorter input is zero-padded. */
export function bytes(sizeBytes: number): FieldType<Uint8Array> {
  return compiled(`bytes(${sizeBytes})`, sizeBytes, () => new Uint8Array(sizeBytes), {
    read: (c, at) => `${c.ref(readBytes)}(b, ${src(at)}, ${sizeBytes})`,
    write: (c, at, v, path) => {
      c.emit(
        `if (!(${v} instanceof Uint8Array) || ${v}.length > ${sizeBytes}) ` +
          `${c.ref(fail)}(${path}, ${v}, ${lit(`at most ${sizeBytes} bytes`)});`,
      );
      c.emit(`${c.ref(writeBytes)}(b, ${src(at)}, ${v}, ${sizeBytes});`);
    },
  });
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** Up to this many bytes, hex is joined from HEX (V8 keeps strings under 13 characters flat when joining). */
const SHORT_HEX_BYTES = 6;
/** Char code -> nibble value, -1 for anything that is not a hex digit. */
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  NIBBLE[i.toString(16).charCodeAt(0)] = i;
  NIBBLE[i.toString(16).toUpperCase().charCodeAt(0)] = i;
}

/** Writes `n` bytes from 2n hex digits; false (with nothing promised about the bytes) when `v` is not that. */
export function writeHex(b: Buffer, o: number, v: unknown, n: number): boolean {
  if (typeof v !== 'string' || v.length !== n * 2) return false;
  for (let i = 0; i < n; i++) {
    const hi = v.charCodeAt(2 * i);
    const lo = v.charCodeAt(2 * i + 1);
    const h = hi < 128 ? NIBBLE[hi]! : -1;
    const l = lo < 128 ? NIBBLE[lo]! : -1;
    if ((h | l) < 0) return false;
    b[o + i] = (h << 4) | l;
  }
  return true;
}

/** How many serials readSerial keeps (then it starts afresh): more than a LAN has lights. */
const SERIALS_KEPT = 4096;
/**
 * Serials read lately, by their last four bytes as a signed 32-bit integer: the hex of all six. The first two bytes are
 * checked against the hex itself, so an entry is the string alone (no object per light beside it).
 */
const SERIALS = new Map<number, string>();

/** Each byte's two lowercase hex digits as char codes, the first in the high byte: HEX, for comparing without a string. */
const HEX_CODES = Uint16Array.from(HEX, (h) => (h.charCodeAt(0) << 8) | h.charCodeAt(1));

/** Whether the first two bytes of `hex` (as readSerial wrote it) are `b0` and `b1`. */
function headIs(hex: string, b0: number, b1: number): boolean {
  return ((hex.charCodeAt(0) << 8) | hex.charCodeAt(1)) === HEX_CODES[b0] && ((hex.charCodeAt(2) << 8) | hex.charCodeAt(3)) === HEX_CODES[b1];
}

/**
 * A serial (6 bytes) as 12 hex digits: the same string as last time for the same bytes. Every header carries one (the
 * target), and a fleet's packets name the same few hundred, so a packet usually builds no string for it.
 */
function readSerial(b: Buffer, o: number): string {
  const key = b[o + 2]! | (b[o + 3]! << 8) | (b[o + 4]! << 16) | (b[o + 5]! << 24);
  const known = SERIALS.get(key);
  if (known !== undefined && headIs(known, b[o]!, b[o + 1]!)) return known;
  const hex = HEX[b[o]!]! + HEX[b[o + 1]!]! + HEX[b[o + 2]!]! + HEX[b[o + 3]!]! + HEX[b[o + 4]!]! + HEX[b[o + 5]!]!;
  if (SERIALS.size >= SERIALS_KEPT) SERIALS.clear();
  SERIALS.set(key, hex);
  return hex;
}

/** Bytes shown as lowercase hex (serials, group and location ids). */
export function hexBytes(sizeBytes: number): FieldType<string> {
  const zero = '00'.repeat(sizeBytes);
  return compiled(`hex(${sizeBytes})`, sizeBytes, () => zero, {
    read: (c, at) => {
      // A serial is read through its cache (readSerial). Other short ones are fastest joined from a table; a longer id
      // (16 bytes: group, location) would be built as a chain of a dozen string pieces that stays in memory as long as
      // the id does, so it is read flat, in one call.
      if (sizeBytes === 6) return `${c.ref(readSerial)}(b, ${src(at)})`;
      if (sizeBytes > SHORT_HEX_BYTES) return `b.toString('hex', ${src(at)}, ${src(plus(at, sizeBytes))})`;
      const table = c.ref(HEX);
      return `(${Array.from({ length: sizeBytes }, (_, i) => `${table}[b[${src(plus(at, i))}]]`).join(' + ')})`;
    },
    write: (c, at, v, path) => {
      c.emit(
        `if (!${c.ref(writeHex)}(b, ${src(at)}, ${v}, ${sizeBytes})) ` +
          `${c.ref(fail)}(${path}, ${v}, ${lit(`${sizeBytes * 2} hex digits`)});`,
      );
    },
  });
}

// ignoreBOM: a label that starts with U+FEFF keeps it; invalid sequences become U+FFFD.
const utf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** Truncates UTF-8 to at most `maxBytes` without splitting a character (photons can cut one mid-character). */
export function utf8Truncated(text: string, maxBytes: number): Buffer {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= maxBytes) return encoded;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the character that does not fit.
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end);
}

// Buffer's own latin1 slicer (what toString('latin1') ends in), without toString's argument handling; it is
// not documented, so toString stands in should a Node release drop it.
type Slice = (this: Buffer, start: number, end: number) => string;
const latin1: Slice =
  (Buffer.prototype as unknown as { latin1Slice?: Slice }).latin1Slice ??
  function (this: Buffer, start: number, end: number): string {
    return this.toString('latin1', start, end);
  };

/** Reads up to the first NUL or `n` bytes; pure ASCII (the common case) skips the UTF-8 decoder. */
function readLabel(b: Buffer, o: number, n: number): string {
  const end = o + n;
  let ascii = 0;
  let i = o;
  for (; i < end; i++) {
    const c = b[i]!;
    if (c === 0) break;
    ascii |= c;
  }
  if (i === o) return '';
  return ascii < 0x80 ? latin1.call(b, o, i) : utf8.decode(b.subarray(o, i));
}

/** Writes UTF-8 cut on a character boundary and NUL-padded; ASCII that fits is stored directly. */
function writeLabel(b: Buffer, o: number, v: string, n: number): void {
  const length = v.length;
  let i = 0;
  if (length <= n) {
    for (; i < length; i++) {
      const c = v.charCodeAt(i);
      if (c > 0x7f) break;
      b[o + i] = c;
    }
  }
  if (i !== length || length > n) {
    const encoded = utf8Truncated(v, n);
    b.set(encoded, o);
    i = encoded.length;
  }
  for (; i < n; i++) b[o + i] = 0;
}

/** A NUL-padded UTF-8 string: truncated on a character boundary, read up to the first NUL (apps NUL-terminate). */
export function label(sizeBytes: number): FieldType<string> {
  return compiled(`label(${sizeBytes})`, sizeBytes, () => '', {
    read: (c, at) => `${c.ref(readLabel)}(b, ${src(at)}, ${sizeBytes})`,
    write: (c, at, v, path) => {
      c.emit(`if (typeof ${v} !== 'string') ${c.ref(fail)}(${path}, ${v}, 'a string');`);
      c.emit(`${c.ref(writeLabel)}(b, ${src(at)}, ${v}, ${sizeBytes});`);
    },
  });
}
