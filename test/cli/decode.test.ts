import { expect } from 'chai';
import { decodeCommand, parseHex } from '../../core/cli/decode.js';
import { isLightwireError } from '../../core/errors.js';
import fc from 'fast-check';
import { encode, MESSAGES, type MessageName, type PacketInput } from '../../core/protocol/index.js';
import { captureIO } from '../helpers/cli-io.js';
import { payloadArbitrary } from '../protocol/helpers.js';

// Vector V6 (from photons' test_colour.py): SetColor unicast with ack+res.
const V6 = '3100001480dd8f29d073d522932200000000000000000301000000000000000066000000001c079919ff7fc409e8030000';

describe('lightwire decode', () => {
  it('prints a SetColor datagram with hue in degrees, fractions and seconds', async () => {
    const io = captureIO();
    const code = await decodeCommand.run([V6], io);
    expect(code).to.equal(0);
    const out = JSON.parse(io.out());
    expect(out.message).to.equal('SetColor');
    expect(out.header).to.include({ source: 697294208, target: 'd073d5229322', ackRequired: true, resRequired: true, sequence: 1, type: 102 });
    expect(out.payload).to.deep.equal({ color: { hue: 10, saturation: 0.1, brightness: 0.5, kelvin: 2500 }, durationS: 1 });
  });

  it('decodes a payload shorter than its message (what aiolifx sends), saying how many bytes were read as zeros', async () => {
    const io = captureIO();
    // GetTileEffect without its two reserved bytes.
    expect(await decodeCommand.run(['2400001478563412d073d5000003000000000000000001040000000000000000ce020000'], io)).to.equal(0);
    expect(JSON.parse(io.out()).message).to.equal('GetTileEffect');
    expect(io.err()).to.equal("note: the payload is 2 bytes short of GetTileEffect's size; they were read as zeros\n");
  });

  it('prints wire units with --wire', async () => {
    const io = captureIO();
    expect(await decodeCommand.run(['--wire', V6], io)).to.equal(0);
    expect(JSON.parse(io.out()).payload).to.deep.equal({
      color: { hue: 1820, saturation: 6553, brightness: 32767, kelvin: 2500 },
      durationMs: 1000,
    });
  });

  it('accepts hex split by spaces and colons, with a 0x prefix', async () => {
    const io = captureIO();
    const spaced = `0x${V6.match(/../g)!.join(' ')}`;
    expect(await decodeCommand.run(spaced.split(' '), io)).to.equal(0);
    expect(JSON.parse(io.out()).message).to.equal('SetColor');
    expect(parseHex('24:00').equals(Buffer.from([0x24, 0]))).to.equal(true);
  });

  it('shows an unknown message type with its raw payload', async () => {
    // A 38-byte datagram of type 406 (seen unsolicited on real networks).
    const hex = '260000140000000000000000000000000000000000000000000000000000000096010000abcd';
    const io = captureIO();
    expect(await decodeCommand.run([hex], io)).to.equal(0);
    const out = JSON.parse(io.out());
    expect(out.message).to.equal('Unknown(406)');
    expect(out.payload).to.equal('abcd');
  });

  it('exits 2 with a clear message for input that is not hex', async () => {
    const io = captureIO();
    expect(await decodeCommand.run(['24zz'], io)).to.equal(2);
    expect(io.err()).to.match(/not a hex datagram: character "z"/);
    expect(io.out()).to.equal('');
  });

  it('exits 2 naming the error code for a datagram that does not decode', async () => {
    const io = captureIO();
    expect(await decodeCommand.run(['240000'], io)).to.equal(2);
    expect(io.err()).to.contain('DATAGRAM_TOO_SHORT');
  });

  it('exits 2 for an odd number of hex digits and for no input', async () => {
    const odd = captureIO();
    expect(await decodeCommand.run(['240'], odd)).to.equal(2);
    expect(odd.err()).to.contain('odd number of hex digits');
    const none = captureIO();
    expect(await decodeCommand.run([], none)).to.equal(2);
    expect(none.err()).to.equal("lightwire decode: CLI_USAGE: give the datagram as hex\nRun 'lightwire decode --help' for usage.\n");
  });

  it('throws coded errors from parseHex', () => {
    expect(() => parseHex('')).to.throw().that.satisfies((e: unknown) => isLightwireError(e, 'HEX_INVALID'));
  });

  it('prints its help with --help and exits 0', async () => {
    const io = captureIO();
    expect(await decodeCommand.run(['--help'], io)).to.equal(0);
    expect(io.out()).to.contain('Usage: lightwire decode');
  });

  it('prints every message of the protocol, with any payload, as JSON (user and wire units), exit 0', async () => {
    for (const name of Object.keys(MESSAGES) as MessageName[]) {
      await fc.assert(
        fc.asyncProperty(payloadArbitrary(name), async (payload) => {
          const hex = Buffer.from(encode({ name, header: { source: 7, sequence: 1 }, payload } as unknown as PacketInput)).toString('hex');
          for (const args of [[hex], ['--wire', hex]]) {
            const io = captureIO();
            expect(await decodeCommand.run(args, io), `${name} ${args.join(' ')}: ${io.err()}`).to.equal(0);
            const out = JSON.parse(io.out()) as { message: string };
            expect(out.message).to.equal(name);
            expect(io.err()).to.equal('');
          }
        }),
        { numRuns: 15 },
      );
    }
  });
});
