// Regenerates config.schema.json from the option table (homebridge-plugin/config.ts):
//   node --import tsx test/homebridge-plugin/write-config-schema.ts
// config.test.ts fails while the committed file differs from what this writes.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { configSchema } from '../../homebridge-plugin/config.js';

export const CONFIG_SCHEMA_PATH = path.resolve(__dirname, '../../config.schema.json');

export function configSchemaText(): string {
  return `${JSON.stringify(configSchema(), null, 2)}\n`;
}

if (require.main === module) {
  writeFileSync(CONFIG_SCHEMA_PATH, configSchemaText());
  process.stdout.write(`wrote ${CONFIG_SCHEMA_PATH}\n`);
}
