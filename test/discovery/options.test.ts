import { expect } from 'chai';
import {
  discoveryOptions,
  interfaceBroadcastAddresses,
  parseHost,
  subnetHosts,
} from '../../core/discovery/options.js';
import { isLightwireError } from '../../core/errors.js';
import { transportOptions } from '../../core/transport/options.js';

const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return isLightwireError(err) ? err.code : 'not coded';
  }
  return undefined;
};

describe('discovery options', () => {
  it('derives the broadcast address of every IPv4 interface, skipping loopback and IPv6', () => {
    // Parser inputs only; nothing is sent to these addresses.
    const interfaces = {
      lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', internal: true, mac: '', cidr: null }],
      eth0: [
        { address: '172.20.4.17', netmask: '255.255.255.0', family: 'IPv4', internal: false, mac: '', cidr: null },
        { address: 'fe80::1', netmask: 'ffff:ffff:ffff:ffff::', family: 'IPv6', internal: false, mac: '', cidr: null, scopeid: 1 },
      ],
      wlan0: [{ address: '172.21.9.3', netmask: '255.255.252.0', family: 'IPv4', internal: false, mac: '', cidr: null }],
    } as unknown as Parameters<typeof interfaceBroadcastAddresses>[0];
    expect(interfaceBroadcastAddresses(interfaces)).to.deep.equal(['172.20.4.255', '172.21.11.255']);
  });

  it('parses static hosts with and without a port', () => {
    expect(parseHost('127.0.0.5')).to.deep.equal({ address: '127.0.0.5', port: 56700 });
    expect(parseHost(' 127.0.0.5:56800 ')).to.deep.equal({ address: '127.0.0.5', port: 56800 });
    expect(code(() => parseHost('lamp.local'))).to.equal('OPTIONS_INVALID');
    expect(code(() => parseHost('127.0.0.5:70000'))).to.equal('OPTIONS_INVALID');
  });

  it('lists the hosts of a subnet to sweep, without network and broadcast addresses', () => {
    const hosts = subnetHosts('172.20.4.0/29');
    expect(hosts).to.deep.equal(['172.20.4.1', '172.20.4.2', '172.20.4.3', '172.20.4.4', '172.20.4.5', '172.20.4.6']);
    expect(subnetHosts('172.20.4.77/22')).to.have.length(1022);
    expect(subnetHosts('172.20.4.77/22')[0]).to.equal('172.20.4.1');
    expect(code(() => subnetHosts('172.20.0.0/16'))).to.equal('OPTIONS_INVALID');
    expect(code(() => subnetHosts('not a subnet'))).to.equal('OPTIONS_INVALID');
  });

  it('freezes validated options and rejects bad ones with a coded error', () => {
    const o = discoveryOptions({ broadcastAddresses: ['127.255.255.255'], staticHosts: ['127.0.0.9'] });
    expect(Object.isFrozen(o)).to.equal(true);
    expect(o.staticHosts).to.deep.equal([{ address: '127.0.0.9', port: 56700 }]);
    expect(o.offlineAfterMisses).to.be.greaterThan(1);
    expect(code(() => discoveryOptions({ broadcastAddresses: ['everywhere'] }))).to.equal('OPTIONS_INVALID');
    expect(code(() => discoveryOptions({ broadcastAddresses: [], offlineAfterMisses: 0 }))).to.equal('OPTIONS_INVALID');
    expect(code(() => discoveryOptions({ broadcastAddresses: [], heartbeatMs: 1.5 }))).to.equal('OPTIONS_INVALID');
  });
});

describe('transport options', () => {
  it('defaults to an ephemeral port, 20 messages a second and a first retry at 200 ms', () => {
    const o = transportOptions();
    expect(o.bindPort).to.equal(0);
    expect(o.maxMessagesPerSecond).to.equal(20);
    expect(o.retryScheduleMs[0]).to.equal(200);
    expect(Object.isFrozen(o) && Object.isFrozen(o.retryScheduleMs)).to.equal(true);
  });

  it('rejects values that make no sense, naming the option', () => {
    expect(code(() => transportOptions({ requestTimeoutMs: 0 }))).to.equal('OPTIONS_INVALID');
    expect(code(() => transportOptions({ retryScheduleMs: [] }))).to.equal('OPTIONS_INVALID');
    expect(code(() => transportOptions({ bindPort: 70000 }))).to.equal('OPTIONS_INVALID');
    expect(code(() => transportOptions({ maxMessagesPerSecond: 2, broadcastReservePerSecond: 2 }))).to.equal('OPTIONS_INVALID');
  });
});
