// The doctor's own GetService prober on loopback: answers no light could give are ignored (a forged port beyond
// 65535 once stopped the whole doctor), and more probes in flight than its 256 sequence numbers still each get
// their own answers.

import { expect } from 'chai';
import { createSocket, type Socket } from 'node:dgram';
import { Prober } from '../../core/doctor/probe.js';
import { decode, encode } from '../../core/protocol/index.js';
import { defaultFleet, defaultSerial, Fleet } from '../../core/simulator/index.js';

const BROADCAST = '127.255.255.255';

/** Answers every GetService with each of `answers` (serial, advertised port), from 127.0.0.7. */
async function responder(answers: readonly { target: string; port: number }[]): Promise<Socket> {
  const socket = createSocket({ type: 'udp4' });
  socket.on('message', (msg, rinfo) => {
    const r = decode(msg);
    if (!r.ok || r.packet.name !== 'GetService') return;
    for (const a of answers) {
      const reply = encode({ name: 'StateService', header: { source: r.packet.header.source, sequence: r.packet.header.sequence, target: a.target }, payload: { service: 1, port: a.port } });
      socket.send(reply, rinfo.port, rinfo.address);
    }
  });
  await new Promise<void>((resolve) => socket.bind({ address: '127.0.0.7', port: 0 }, () => resolve()));
  return socket;
}

describe('doctor: the GetService prober', function () {
  this.timeout(20_000);

  it('ignores a StateService with a port UDP does not have, or with the all-devices target', async () => {
    const fake = await responder([
      { target: 'd073d5000bad', port: 70_000 },
      { target: '000000000000', port: 56700 },
      { target: 'd073d5000bad', port: 0 },
      { target: 'd073d5000001', port: 56700 },
    ]);
    const prober = await Prober.open();
    try {
      const answers = await prober.ask(['127.0.0.7'], fake.address().port);
      expect(answers).to.deep.equal([{ serial: 'd073d5000001', at: { address: '127.0.0.7', port: 56700 } }]);
    } finally {
      await prober.close();
      fake.close();
    }
  });

  it('gives each of 300 probes in flight its own answers, past its 256 sequence numbers', async () => {
    const fleet = new Fleet(defaultFleet(300), { port: 0, listenAddress: BROADCAST });
    await fleet.start();
    const prober = await Prober.open();
    try {
      const answers = await Promise.all(fleet.lights.map((l) => prober.ask([l.address], fleet.port)));
      const wrong = answers
        .map((a, i) => ({ want: defaultSerial(i), got: a.map((x) => x.serial) }))
        .filter((x) => x.got.length !== 1 || x.got[0] !== x.want);
      expect(wrong).to.deep.equal([]);
    } finally {
      await prober.close();
      await fleet.stop();
    }
  });
});
