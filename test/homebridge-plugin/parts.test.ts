// The Homebridge side of parts (issue 29 §1): `lights.parts` (on by default) and `accessories[].segments`, which become
// the service option `parts` by serial; segment names are checked as selectors take them; and a part's Lightbulb name.
import { expect } from 'chai';
import { parseConfig, serviceOptions } from '../../homebridge-plugin/config.js';
import { partTitle } from '../../homebridge-plugin/parts.js';
import { serialOf } from '../../homebridge-plugin/writer.js';

describe('homebridge parts: config and names', () => {
  it('offers parts by default, and turns accessories[].segments into the service option parts by serial', () => {
    const result = parseConfig({ platform: 'Lightwire', accessories: [{ serial: 'D073D5000001', segments: ['left', 'middle', 'right'] }, { serial: 'd073d5000002' }] });
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.config.lights.parts).to.equal(true);
    expect(serviceOptions(result.config, '/tmp').parts).to.deep.equal({ d073d5000001: ['left', 'middle', 'right'] });
    const none = parseConfig({ platform: 'Lightwire', lights: { parts: false } });
    expect(none.ok && none.config.lights.parts).to.equal(false);
    expect(none.ok && 'parts' in serviceOptions(none.config, '/tmp')).to.equal(false);
  });

  it('refuses a segment name a selector could not name (a zone range, one letter, a space), naming the entry', () => {
    for (const name of ['a-b', 'x', 'left side', '3rd']) {
      const result = parseConfig({ platform: 'Lightwire', accessories: [{ serial: 'd073d5000001', segments: [name] }] });
      expect(result.ok, name).to.equal(false);
      if (result.ok) continue;
      expect(result.errors.map((e) => [e.path, e.rule]), name).to.deep.equal([['accessories[0].segments[0]', 'pattern']]);
      expect(result.errors[0]!.message).to.contain('a part name');
    }
  });

  it('names a part after its light, and writes a part under serial|part', () => {
    expect(partTitle('uplight')).to.equal('Uplight');
    expect(partTitle('shelf_2')).to.equal('Shelf 2');
    expect(serialOf('d073d5000001|uplight')).to.equal('d073d5000001');
    expect(serialOf('d073d5000001')).to.equal('d073d5000001');
  });
});
