// Build step for the Node-RED nodes: tsc compiles nodes/*.ts to dist/nodes/*.js, and Node-RED wants each
// node's editor file (.html), its message catalogues (locales/) and its icons (icons/) beside that .js.
// Copies exactly those from nodes/ to dist/nodes/ (run by `npm run build` and before packing).

import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const from = path.join(root, 'nodes');
const to = path.join(root, 'dist', 'nodes');

mkdirSync(to, { recursive: true });
let copied = 0;
for (const name of readdirSync(from)) {
  if (name.endsWith('.html')) {
    cpSync(path.join(from, name), path.join(to, name));
    copied++;
  }
}
for (const dir of ['locales', 'icons']) {
  if (!existsSync(path.join(from, dir))) continue;
  cpSync(path.join(from, dir), path.join(to, dir), { recursive: true });
  copied++;
}
if (copied === 0) {
  console.error('copy-node-assets: nothing to copy from nodes/');
  process.exit(1);
}
