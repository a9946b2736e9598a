// The ambient light sensor (SensorGetAmbientLight 401 -> SensorStateAmbientLight 402): answered by a light whose
// model has a reading (a fleet entry's `lux`); one without stays silent, as real lights without the sensor do.

import { reply, type HandlerTable } from './types.js';

export const SENSOR_HANDLERS: HandlerTable = {
  GetAmbientLight: { family: 'light', run: ({ model }) => (model.lux === null ? [] : [reply('StateAmbientLight', { lux: model.lux })]) },
};
