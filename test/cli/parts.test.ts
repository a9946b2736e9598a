// `lightwire set 'label:Ceiling|uplight' --color red` (issue 29 §1): the CLI paints a part of a virtual 8 x 8 Ceiling,
// pixel 63 alone, and names the parts a light has when the part is unknown.
import { expect } from 'chai';
import { setCommand } from '../../core/cli/lights.js';
import { Fleet } from '../../core/simulator/fleet.js';
import { captureIO } from '../helpers/cli-io.js';

const CEILING = 'd073d5000041';

describe('lightwire set on a part', function () {
  this.timeout(20_000);
  let fleet: Fleet;
  let finding: string[];
  before(async () => {
    fleet = new Fleet({ lights: [{ serial: CEILING, product: 176, label: 'Ceiling', power: 'on', color: { hue: 0, saturation: 0, brightness: 1, kelvin: 3500 } }] }, { port: 0 });
    await fleet.start();
    finding = ['--broadcast', '127.255.255.255', '--lan-port', String(fleet.port), '--wait-ms', '3000', '--expect', '1'];
  });
  after(() => fleet.stop());

  it("sets 'label:Ceiling|uplight' red: only pixel 63 changes", async () => {
    const io = captureIO();
    expect(await setCommand.run(['label:Ceiling|uplight', '--color', 'red', '--duration', '0', ...finding], io), io.err()).to.equal(0);
    expect(io.out()).to.match(new RegExp(`${CEILING}\\s+.*\\s+ok`));
    const pixels = fleet.light(CEILING).state.tiles![0]!;
    expect(pixels.flatMap((c, i) => (c.saturation > 0 ? [i] : []))).to.deep.equal([63]);
  });

  it('names the parts of the light when the part is unknown (exit 1)', async () => {
    const io = captureIO();
    expect(await setCommand.run(['label:Ceiling|rear', '--color', 'red', ...finding], io)).to.not.equal(0);
    expect(io.err()).to.contain('PART_UNKNOWN').and.to.contain('downlight, uplight');
  });
});
