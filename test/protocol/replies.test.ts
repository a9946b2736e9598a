// The replies in the message tables: every request declares what answers it, every declared reply is a message of the
// tables, and the requests answered by several messages say when they are complete. Expectations from the vendor's
// docs (https://lan.developer.lifx.com/docs/querying-the-device-for-data, .../multizone-light-control,
// .../tile-control) and photons' messages (multi=), as summarised in the project's protocol fact sheet (2026-11-24).

import { expect } from 'chai';
import { MESSAGES, MESSAGE_NAMES, isMessageName, type MessageName, type MessageSpec } from '../../core/protocol/index.js';
import type { ReplyOf } from '../../core/transport/requester.js';

const spec = (name: MessageName): MessageSpec => MESSAGES[name] as MessageSpec;
const isRequest = (name: string): boolean => /^(Get|Set)/.test(name) || name === 'EchoRequest' || name === 'CopyFrameBuffer';

// Compile-time: a reply is typed by the message it answers.
const color: ReplyOf<'GetColor'>['name'] = 'LightState';
const zones: ReplyOf<'GetColorZones'>['name'][] = ['StateZone', 'StateMultiZone'];
// @ts-expect-error GetPower is answered by StatePower, never LightState
const wrong: ReplyOf<'GetPower'>['name'] = 'LightState';

describe('Message tables: replies', () => {
  it('types replies by their request', () => {
    expect([color, ...zones, wrong]).to.have.length(4);
  });

  it('declares a reply for every Get', () => {
    const gets = MESSAGE_NAMES.filter((n) => n.startsWith('Get'));
    expect(gets.length).to.be.greaterThan(20);
    for (const name of gets) expect(spec(name).replies, name).to.not.be.empty;
  });

  it('declares a State reply for every Set but the two the docs give none (SetReboot, SetUserPosition)', () => {
    const silent = MESSAGE_NAMES.filter((n) => n.startsWith('Set') && spec(n).replies.length === 0);
    expect(silent).to.deep.equal(['SetReboot', 'SetUserPosition']);
  });

  it('declares only replies that exist in the tables and are no requests; no reply declares one', () => {
    for (const name of MESSAGE_NAMES) {
      for (const reply of spec(name).replies) {
        expect(isMessageName(reply), `${name} -> ${reply}`).to.equal(true);
        expect(isRequest(reply), `${name} -> ${reply}`).to.equal(false);
        expect(spec(reply as MessageName).replies, reply).to.be.empty;
      }
      if (!isRequest(name)) expect(spec(name).replies, name).to.be.empty;
    }
  });

  it('pairs each Set with the reply of its Get, where both exist', () => {
    for (const name of MESSAGE_NAMES.filter((n) => n.startsWith('Set'))) {
      const get = `Get${name.slice(3)}`;
      if (isMessageName(get) && spec(name).replies.length > 0) expect(spec(name).replies, name).to.deep.equal(spec(get).replies);
    }
  });

  it('gives the replies the docs give, with the multi-reply rule of those answered by several', () => {
    const table = (name: MessageName): unknown => ({ replies: [...spec(name).replies], multi: spec(name).multi });
    expect(table('GetColor')).to.deep.equal({ replies: ['LightState'], multi: undefined });
    expect(table('GetDeviceChain')).to.deep.equal({ replies: ['StateDeviceChain'], multi: undefined });
    expect(table('GetService')).to.deep.equal({ replies: ['StateService'], multi: { until: 'gap', identity: ['service', 'port'] } });
    const zonesAsked = { until: 'zones', identity: ['index'], fromField: 'startIndex', toField: 'endIndex' };
    expect(table('GetColorZones')).to.deep.equal({ replies: ['StateZone', 'StateMultiZone'], multi: zonesAsked });
    expect(table('SetColorZones')).to.deep.equal({ replies: ['StateZone', 'StateMultiZone'], multi: zonesAsked });
    expect(table('GetExtendedColorZones')).to.deep.equal({ replies: ['StateExtendedColorZones'], multi: { until: 'zones', identity: ['index'] } });
    const tiles = { until: 'count', identity: ['tileIndex'], countField: 'length' };
    expect(table('Get64')).to.deep.equal({ replies: ['State64'], multi: tiles });
    expect(table('Set64')).to.deep.equal({ replies: ['State64'], multi: tiles });
  });

  it('names only fields that exist in its multi-reply rules: the request counted, each reply identified', () => {
    const fields = (name: string): (string | undefined)[] => spec(name as MessageName).payload.fields.map((f) => f.name);
    for (const name of MESSAGE_NAMES) {
      const multi = spec(name).multi;
      if (multi === undefined) continue;
      const asked = multi.until === 'count' ? [multi.countField] : multi.until === 'zones' ? [multi.fromField, multi.toField] : [];
      for (const f of asked) if (f !== undefined) expect(fields(name), `${name}.${f}`).to.include(f);
      for (const reply of spec(name).replies) for (const f of multi.identity) expect(fields(reply), `${reply}.${f}`).to.include(f);
    }
  });
});
