// Sensor namespace, types 401-402: the ambient light sensor of newer lights. protocol.yml's sensor packets
// (https://github.com/LIFX/public-protocol); the stored snapshot at fe8871b predates them, so the entries follow the
// regenerated tables of lifx-emulator (packets.py, Sensor.GetAmbientLight / StateAmbientLight) and lifx-async.
// `lux` is the sensor's raw reading, not calibrated; with the light on it measures mostly the light's own output,
// so it reads best while the light is off.

import { message } from './message.js';
import { f32, field } from './structs.js';

export const SENSOR = {
  GetAmbientLight: message(401, [], { reply: 'StateAmbientLight' }),
  StateAmbientLight: message(402, [field('lux', f32)]),
} as const;
