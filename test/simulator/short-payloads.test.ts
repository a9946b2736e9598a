// Virtual lights act on datagrams whose payload is shorter than the message's size, as real lights do, and count
// them (stats.shortPayloads): the aiolifx datagrams of test/protocol/short-vectors.ts sent over loopback by a test
// client. And Lightwire's own client reads such replies. Before, each was dropped as undecodable: no ack, no reply.

import { expect } from 'chai';
import { createSocket, type Socket } from 'node:dgram';
import { decode, encode } from '../../core/protocol/index.js';
import { transportOptions } from '../../core/transport/options.js';
import { Requester } from '../../core/transport/requester.js';
import { UdpEndpoint } from '../../core/transport/udp.js';
import { hue, vector } from '../protocol/short-vectors.js';
import { TestClient } from './client.js';
import { rig, type Rig } from './helpers.js';

const STRIP16 = 'd073d5000001';
const STRIP120 = 'd073d5000002';
const TILES = 'd073d5000003';
/** The vectors' source: their replies come back to it. */
const SOURCE = 0x12345678;
const START = { hue: 30, saturation: 0.5, brightness: 0.5, kelvin: 3500 };

/** The vectors' Sets fade over 500 ms: their end state is read once it is over. */
const faded = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 550));

/** Each zone's hue is the wire hue asked for (the view shows degrees, rounded). */
function huesAre(zones: readonly { hue: number }[], wire: readonly number[]): boolean {
  return zones.length === wire.length && zones.every((z, i) => Math.abs(z.hue - (wire[i]! * 360) / 65536) < 0.01);
}

/** A vector's datagram addressed to another light (bytes 8-13 are the target). */
function to(serial: string, datagram: Buffer): Buffer {
  const copy = Buffer.from(datagram);
  copy.write(serial, 8, 'hex');
  return copy;
}

describe('virtual lights and short payloads (aiolifx datagrams)', () => {
  let r: Rig;
  let client: TestClient;

  beforeEach(async () => {
    r = await rig({
      lights: [
        { serial: STRIP16, product: 32, firmware: { major: 3, minor: 70 }, zoneCount: 16, color: START },
        { serial: STRIP120, product: 117, zoneCount: 120, color: START },
        { serial: TILES, product: 55, tileCount: 2, color: START },
      ],
    });
    client = await TestClient.open({ source: SOURCE });
  });
  afterEach(async () => {
    await client.close();
    await r.close();
  });

  const acked = (sequence: number): Promise<boolean> =>
    client.waitUntil(() => client.repliesTo(sequence).some((x) => x.packet.name === 'Acknowledgement'), 1000);

  it('paints a 16-zone strip from a 172-byte SetExtendedColorZones with 16 colours, acknowledges it and counts it', async () => {
    client.sendRaw(vector('S1'), r.at(STRIP16));
    expect(await acked(1)).to.equal(true);
    await faded();
    const light = r.fleet.light(STRIP16);
    expect(huesAre(light.state.zones!, Array.from({ length: 16 }, (_, i) => hue(i, 4096)))).to.equal(true);
    expect(light.state.zones!.every((z) => z.brightness === 0.8 && z.saturation === 1)).to.equal(true);
    expect(light.stats).to.include({ shortPayloads: 1, undecodable: 0 });
    expect(light.receivedCount('SetExtendedColorZones')).to.equal(1);
  });

  it('paints zones 82-119 of a 120-zone strip from the 348-byte second segment with 38 colours, and no other zone', async () => {
    client.sendRaw(to(STRIP120, vector('S2')), r.at(STRIP120));
    expect(await acked(2)).to.equal(true);
    await faded();
    const zones = r.fleet.light(STRIP120).state.zones!;
    expect(huesAre(zones.slice(82), Array.from({ length: 38 }, (_, i) => hue(i, 1724)))).to.equal(true);
    expect(zones.slice(0, 82).every((z) => z.hue === START.hue && z.brightness === START.brightness)).to.equal(true);
    expect(r.fleet.light(STRIP120).stats.shortPayloads).to.equal(1);
  });

  it('runs a morph from a SetTileEffect with a 3-colour palette and tells it to a GetTileEffect without its reserved bytes', async () => {
    client.sendRaw(vector('S3'), r.at(TILES));
    expect(await acked(3)).to.equal(true);
    client.sendRaw(vector('S4'), r.at(TILES));
    expect(await client.waitUntil(() => client.repliesTo(4).length > 0, 1000)).to.equal(true);
    const state = client.repliesTo(4)[0]!.packet;
    expect(state.name).to.equal('StateTileEffect');
    if (state.name !== 'StateTileEffect') return;
    expect(state.payload.settings).to.include({ type: 2, speedMs: 3000, paletteCount: 3 });
    expect(state.payload.settings.palette.slice(0, 3).map((c) => c.hue)).to.deep.equal([0, 21845, 43690]);
    expect(r.fleet.light(TILES).stats).to.include({ shortPayloads: 2, undecodable: 0 });
  });

  it('still drops a datagram shorter than the header, as undecodable', async () => {
    client.sendRaw(vector('S1').subarray(0, 30), r.at(STRIP16));
    await client.waitUntil(() => r.fleet.light(STRIP16).stats.undecodable > 0, 500);
    expect(r.fleet.light(STRIP16).stats).to.include({ undecodable: 1, shortPayloads: 0 });
    expect(client.inbox).to.deep.equal([]);
  });
});

describe("Lightwire's client and a short reply", () => {
  let device: Socket;
  let endpoint: UdpEndpoint;
  let requester: Requester;

  beforeEach(async () => {
    device = createSocket('udp4');
    await new Promise<void>((resolve) => device.bind({ address: '127.0.0.1', port: 0 }, resolve));
    endpoint = await UdpEndpoint.open({ bindAddress: '127.0.0.1', bindPort: 0, receiveBufferBytes: 1 << 16 });
    requester = new Requester(endpoint, transportOptions({ requestTimeoutMs: 2000 }));
  });
  afterEach(async () => {
    requester.close();
    await endpoint.close();
    await new Promise<void>((resolve) => device.close(() => resolve()));
  });

  it('reads a LightState without its 8 trailing reserved bytes, counting it', async () => {
    // A device that answers GetColor with a LightState cut after the label.
    device.on('message', (msg, rinfo) => {
      const req = decode(msg);
      if (!req.ok || req.packet.name !== 'GetColor') return;
      const full = encode({
        name: 'LightState',
        header: { source: req.packet.header.source, sequence: req.packet.header.sequence, target: 'd073d5000009' },
        payload: { color: { hue: 21845, saturation: 65535, brightness: 32768, kelvin: 3500 }, power: 65535, label: 'Short' },
      });
      const short = Buffer.from(full.subarray(0, full.length - 8));
      short.writeUInt16LE(short.length, 0);
      device.send(short, rinfo.port, rinfo.address);
    });
    const reply = await requester.get({ serial: 'd073d5000009', address: '127.0.0.1', port: device.address().port }, 'GetColor', {});
    expect(reply.name).to.equal('LightState');
    if (reply.name !== 'LightState') return;
    expect(reply.payload).to.deep.include({ power: 65535, label: 'Short' });
    expect(reply.payload.color.hue).to.equal(21845);
    expect(requester.stats).to.include({ shortPayloads: 1, malformed: 0 });
  });
});
