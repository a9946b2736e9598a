// `lightwire list` describes a light whose product the registry does not know (a strip newer than the bundled
// registry: virtual lights with the fleet's `features`) within its wait, like any other.

import { expect } from 'chai';
import { listCommand, setCommand } from '../../core/cli/lights.js';
import type { V1Light } from '../../core/control/views.js';
import { Fleet } from '../../core/simulator/fleet.js';
import { captureIO } from '../helpers/cli-io.js';

const STRIP = 'd073d5000031';
const BULB = 'd073d5000032';

describe('lightwire list and a product the registry does not know', function () {
  this.timeout(20_000);
  let fleet: Fleet;
  before(async () => {
    fleet = new Fleet(
      {
        lights: [
          {
            serial: STRIP, product: 9001, label: 'New strip', features: { multizone: true, extended_multizone: true }, zoneCount: 20,
            group: { label: 'Office' }, location: { label: 'Home' }, color: { hue: 120, saturation: 1, brightness: 1, kelvin: 3500 },
          },
          { serial: BULB, product: 91, label: 'Bulb', group: { label: 'Office' }, location: { label: 'Home' } },
        ],
      },
      { port: 0 },
    );
    await fleet.start();
  });
  after(() => fleet.stop());

  it('lists an unknown strip with its product id, group, location and zones within the default wait', async () => {
    const io = captureIO();
    // The default wait (3000 ms) and read timeout (3000 ms): the capability probes must fit inside them.
    expect(await listCommand.run(['--json', '--broadcast', '127.255.255.255', '--lan-port', String(fleet.port)], io)).to.equal(0);
    const lights = JSON.parse(io.out()) as V1Light[];
    const strip = lights.find((l) => l.id === STRIP);
    expect(strip, io.err()).to.not.equal(undefined);
    expect(strip!).to.include({ label: 'New strip', connected: true });
    expect(strip!.product).to.include({ vendor_id: 1, product_id: 9001 });
    expect(strip!.product.capabilities).to.include({ has_multizone: true, has_ir: false, has_hev: false });
    expect(strip!.group.name).to.equal('Office');
    expect(strip!.location.name).to.equal('Home');
    expect(strip!.zones!.count).to.equal(20);
    expect(io.err()).to.not.match(/offline|not listed/);
    expect(io.err()).to.match(/2 lights answered in \d+ ms\./);
    // Each capability the strip lacks was asked once, not retransmitted until a read timeout.
    expect(fleet.light(STRIP).receivedCount('GetHevCycle')).to.equal(1);
    expect(fleet.light(STRIP).receivedCount('GetInfrared')).to.equal(1);
  });

  it('does not call a light offline that answered its state read but was still being described when the wait ended', async () => {
    const io = captureIO();
    // The strip lacks HEV and infrared: its probes wait CAPABILITY_PROBE_TIMEOUT_MS (1000 ms), longer than this wait.
    expect(await listCommand.run(['--broadcast', '127.255.255.255', '--lan-port', String(fleet.port), '--wait-ms', '400'], io)).to.equal(0);
    expect(io.err()).to.match(new RegExp(`not listed: ${STRIP} at 127\\.0\\.0\\.\\d+:${fleet.port} answered its state read but was still being described after \\d+ ms`));
    expect(io.err()).to.not.contain(`offline: ${STRIP}`);
  });

  it("paints only the zones a selector names on it: set 'label:New strip|0-3'", async () => {
    const io = captureIO();
    const args = ['label:New strip|0-3', '--color', 'red', '--duration', '0', '--broadcast', '127.255.255.255', '--lan-port', String(fleet.port)];
    expect(await setCommand.run(args, io), io.err()).to.equal(0);
    const zones = fleet.light(STRIP).state.zones!;
    expect(zones.slice(0, 4).every((z) => z.hue === 0 && z.saturation === 1)).to.equal(true);
    expect(zones.slice(4).every((z) => z.hue === 120)).to.equal(true);
    expect(fleet.light(STRIP).receivedCount('SetColor')).to.equal(0);
  });
});
