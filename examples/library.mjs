// Lightwire as a library: find the lights, show them, follow changes, set a colour, stop.
// LIFX_BROADCAST and LIFX_PORT are optional (default: every interface's broadcast address, port 56700).
import { LightService } from 'homebridge-lightwire';

const service = await LightService.start({
  discovery: {
    ...(process.env.LIFX_BROADCAST ? { broadcastAddresses: [process.env.LIFX_BROADCAST] } : {}),
    ...(process.env.LIFX_PORT ? { port: Number(process.env.LIFX_PORT) } : {}),
  },
});
await service.ready; // every light of the first discovery round is read

for (const light of service.views()) {
  console.log(`${light.serial} ${light.label}: ${light.power}, ${light.product?.name ?? 'unknown product'}`);
}
service.on('changed', (light, fields) => console.log(`${light.label} changed: ${fields.join(', ')}`));

// A colour as numbers (or a string such as "kelvin:2700"), faded over one second: colour first, then power.
const results = await service.setState('all', { power: 'on', color: { hue: 120, saturation: 1 }, brightness: 0.5, durationS: 1 });
for (const r of results) console.log(`${r.label}: ${r.status}`);

await service.stop();
