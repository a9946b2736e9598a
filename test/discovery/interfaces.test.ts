// Discovery with no broadcast addresses configured follows the host's interfaces as they are at each round: a host
// that starts before its network is up says so once, then finds its lights when an interface appears. The
// interfaces are stubbed; the one that "comes up" is loopback (the network rule: 127.255.255.255 only).

import { expect } from 'chai';
import os from 'node:os';
import sinon from 'sinon';
import { LightClient } from '../../core/discovery/client.js';
import { isLightwireError } from '../../core/errors.js';
import { Fleet } from '../../core/simulator/index.js';
import { until } from '../helpers/wait.js';

describe('discovery on the interfaces of the moment', function () {
  this.timeout(10_000);
  afterEach(() => sinon.restore());

  it('says once that there is no network yet, and finds the lights once an interface is up', async () => {
    const fleet = new Fleet({ lights: [{ serial: 'd073d5000001', product: 91, label: 'Desk' }] }, { port: 0 });
    await fleet.start();
    const interfaces = sinon.stub(os, 'networkInterfaces').returns({});
    const client = new LightClient({ discovery: { port: fleet.port, burstScheduleMs: [0], heartbeatMs: 100, refreshIntervalMs: 0 } });
    const errors: unknown[] = [];
    client.on('error', (err) => errors.push(err));
    try {
      await client.start();
      // Three rounds (heartbeatMs 100) look for an interface and find none: the error is said once, not each round.
      await until(() => interfaces.callCount >= 3 && errors.length > 0, { what: 'three discovery rounds without a network' });
      expect(errors).to.have.length(1);
      expect(isLightwireError(errors[0], 'NO_BROADCAST_ADDRESS')).to.equal(true);
      expect(client.registry.size).to.equal(0);
      interfaces.returns({
        eth0: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '00:00:00:00:00:00', internal: false, cidr: '127.0.0.1/8' }],
      });
      const found = await client.waitForLights(1, 3000);
      expect(found.map((l) => l.serial)).to.deep.equal(['d073d5000001']);
      expect(errors).to.have.length(1);
    } finally {
      await client.stop();
      await fleet.stop();
    }
  });
});
