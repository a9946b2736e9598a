// What a write's results add up to, said once for every face: HomeKit answers a characteristic write, a Node-RED
// message gets `msg.ok`, the CLI its exit code.

import type { LightResult } from './types.js';

/** Whether a write reached at least one light and every light confirmed it (`ok`). */
export function allOk(results: readonly LightResult[]): boolean {
  return results.length > 0 && results.every((r) => r.status === 'ok');
}
