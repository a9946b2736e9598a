import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { discoverCommand } from '../../core/cli/discover.js';
import { defaultFleet, defaultSerial } from '../../core/simulator/default-fleet.js';
import { Fleet } from '../../core/simulator/fleet.js';
import { captureIO } from '../helpers/cli-io.js';

describe('lightwire discover', function () {
  this.timeout(15_000);
  let fleet: Fleet;
  before(async () => {
    fleet = new Fleet(defaultFleet(3), { port: 0 });
    await fleet.start();
  });
  after(() => fleet.stop());

  it('lists every light with its label, product, power, group and firmware as JSON', async () => {
    const io = captureIO();
    const code = await discoverCommand.run(['--broadcast', '127.255.255.255', '--lan-port', String(fleet.port), '--wait-ms', '800', '--json'], io);
    expect(code).to.equal(0);
    const lights = JSON.parse(io.out()) as { serial: string; label: string; product: string; power: string; group: string; firmware: string; address: string; online: boolean }[];
    expect(lights.map((l) => l.serial)).to.deep.equal([defaultSerial(0), defaultSerial(1), defaultSerial(2)]);
    const first = fleet.light(defaultSerial(0));
    expect(lights[0]).to.include({ label: first.state.label, product: 'LIFX Color 800lm', power: 'on', firmware: '3.70', address: first.address, online: true });
    expect(lights[0]!.group).to.be.a('string').and.not.equal('');
    expect(io.err()).to.contain('Looking for lights (broadcast 127.255.255.255');
  });

  it('names lights from --products FILE, laid over the bundled registry', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-cli-products-'));
    try {
      const file = path.join(dir, 'products.json');
      await writeFile(file, JSON.stringify([{ vid: 1, name: 'LIFX', products: [{ pid: 91, name: 'LIFX Colour (from the file)', features: { color: true, temperature_range: [1500, 9000] } }] }]));
      const io = captureIO();
      expect(await discoverCommand.run(['--broadcast', '127.255.255.255', '--lan-port', String(fleet.port), '--wait-ms', '800', '--json', '--products', file], io)).to.equal(0);
      const lights = JSON.parse(io.out()) as { serial: string; product: string }[];
      expect(lights.find((l) => l.serial === defaultSerial(0))!.product).to.equal('LIFX Colour (from the file)');
      expect(lights.find((l) => l.serial === defaultSerial(1))!.product).to.equal('LIFX Mini 3.1 WW US');
      expect(io.err()).to.not.contain('PRODUCTS_FILE_INVALID');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('warns with PRODUCTS_FILE_INVALID about a --products file it cannot use, and lists the lights with the bundled registry', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'lightwire-cli-products-'));
    try {
      const file = path.join(dir, 'products.json');
      await writeFile(file, '{"not": "a registry"');
      const io = captureIO();
      expect(await discoverCommand.run(['--broadcast', '127.255.255.255', '--lan-port', String(fleet.port), '--wait-ms', '800', '--json', '--products', file], io)).to.equal(0);
      expect(io.err()).to.contain(`warning: PRODUCTS_FILE_INVALID: products file ${file} cannot be used (the bundled product registry stays in use): not JSON`);
      const lights = JSON.parse(io.out()) as { serial: string; product: string }[];
      expect(lights.find((l) => l.serial === defaultSerial(0))!.product).to.equal('LIFX Color 800lm');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('prints a table by default', async () => {
    const io = captureIO();
    expect(await discoverCommand.run(['--broadcast', '127.255.255.255', '--lan-port', String(fleet.port), '--wait-ms', '600'], io)).to.equal(0);
    const lines = io.out().trim().split('\n');
    expect(lines[0]).to.match(/^SERIAL\s+ADDRESS\s+LABEL\s+PRODUCT\s+POWER/);
    expect(lines).to.have.length(4);
    expect(io.err()).to.contain('3 lights found.');
  });

  it('says which addresses it tried when nothing answers, and exits 1', async () => {
    const io = captureIO();
    // A port where no virtual light listens.
    const code = await discoverCommand.run(['--broadcast', '127.255.255.255', '--light', '127.0.0.250', '--lan-port', '9', '--wait-ms', '300'], io);
    expect(code).to.equal(1);
    expect(io.err()).to.contain('No light answered. Tried broadcast 127.255.255.255:9, light 127.0.0.250:9.');
  });

  it('stops looking once --expect N lights answered, well before --wait-ms', async () => {
    const io = captureIO();
    const started = performance.now();
    const code = await discoverCommand.run(['--broadcast', '127.255.255.255', '--lan-port', String(fleet.port), '--wait-ms', '60000', '--expect', '3', '--json'], io);
    expect(code).to.equal(0);
    expect(performance.now() - started).to.be.below(5000);
    expect((JSON.parse(io.out()) as unknown[]).length).to.equal(3);
    expect(io.err()).to.contain('for 60000 ms, or until 3 answered...');
  });

  it('still takes the old names --timeout-ms, --port and --host', async () => {
    const io = captureIO();
    expect(await discoverCommand.run(['--broadcast', '127.255.255.255', '--port', String(fleet.port), '--timeout-ms', '400', '--host', `127.0.0.2:${fleet.port}`, '--json'], io)).to.equal(0);
    expect((JSON.parse(io.out()) as unknown[]).length).to.equal(3);
    expect(io.err()).to.contain(`light 127.0.0.2:${fleet.port}`);
  });

  it('exits 2 on bad options, naming the flag as typed', async () => {
    const io = captureIO();
    expect(await discoverCommand.run(['--wait-ms', 'soon'], io)).to.equal(2);
    expect(io.err()).to.equal('lightwire discover: CLI_USAGE: --wait-ms "soon": must be an integer from 0 to 600000\nRun \'lightwire discover --help\' for usage.\n');
    const old = captureIO();
    expect(await discoverCommand.run(['--timeout-ms', 'soon'], old)).to.equal(2);
    expect(old.err()).to.match(/^lightwire discover: CLI_USAGE: --timeout-ms "soon": /);
    const host = captureIO();
    expect(await discoverCommand.run(['--host', 'not-an-ip', '--broadcast', '127.255.255.255'], host)).to.equal(2);
    expect(host.err()).to.match(/^lightwire discover: CLI_USAGE: --host "not-an-ip": not an IPv4 address with an optional :PORT/);
    expect(host.err()).to.not.contain('staticHosts');
  });
});
