// The package's own name and version, read from package.json whether running from source or from dist/.

import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface PackageInfo {
  readonly name: string;
  readonly version: string;
  readonly root: string;
}

let cached: PackageInfo | undefined;

export function packageInfo(): PackageInfo {
  if (cached) return cached;
  let dir = __dirname;
  for (;;) {
    try {
      const json = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (json.name === 'homebridge-lightwire') {
        cached = Object.freeze({ name: json.name, version: json.version ?? '0.0.0', root: dir });
        return cached;
      }
    } catch {
      // no package.json here; keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return Object.freeze({ name: 'homebridge-lightwire', version: '0.0.0', root: __dirname });
    dir = parent;
  }
}
