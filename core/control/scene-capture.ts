// Capture Scene: what the lights a selector names show now, read afresh (state, a strip's zones, a matrix light's
// pixels) with the firmware effect each strip or matrix light runs and its settings (GetMultiZoneEffect, GetTileEffect:
// https://lan.developer.lifx.com/docs/multizone-light-control, https://lan.developer.lifx.com/docs/tile-control), kept
// as a scene (scene-store.ts; the picture beside each state: scene-picture.ts).

import type { LightClient } from '../discovery/client.js';
import { LightwireError } from '../errors.js';
import { hsbkFromWire } from '../protocol/index.js';
import { NO_PAYLOAD } from '../transport/requester.js';
import type { Scene } from './scene-file.js';
import { effectOfSettings, type SceneEffect } from './scene-picture.js';
import type { SceneStore } from './scene-store.js';
import type { LightView, ResolvedLight } from './types.js';

/** What a capture needs of the service. */
export interface CaptureContext {
  readonly client: LightClient;
  readonly deadlineMs: number;
  resolve(selector: string): ResolvedLight[];
}

/**
 * The effect a strip or matrix light runs, as it reports it; undefined for other lights, when none runs, or when it
 * did not answer (the picture is then kept without one).
 */
async function effectOf(client: LightClient, light: LightView, timeoutMs: number): Promise<SceneEffect | undefined> {
  const device = client.addressOf(light.serial);
  const caps = light.capabilities;
  if (device === undefined || (!caps.multizone && !caps.matrix)) return undefined;
  try {
    const settings = caps.multizone
      ? (await client.requester.get(device, 'GetMultiZoneEffect', NO_PAYLOAD, { timeoutMs })).payload.settings
      : (await client.requester.get(device, 'GetTileEffect', NO_PAYLOAD as never, { timeoutMs })).payload.settings;
    return effectOfSettings(settings, !caps.multizone, hsbkFromWire);
  } catch (err) {
    if (err instanceof LightwireError) return undefined;
    throw err;
  }
}

/** Captures the lights a selector names (online ones, read now) as the scene `name` in `store`. */
export async function captureScene(store: SceneStore, name: string, selector: string, context: CaptureContext): Promise<Scene> {
  const { client, deadlineMs } = context;
  const targets = context.resolve(selector).filter((t) => t.light.online);
  const effects = new Map<string, SceneEffect>();
  // Capture what the lights show now, not what the cache last saw.
  await Promise.all(
    targets.map(async (t) => {
      const [, effect] = await Promise.all([client.refreshState(t.light.serial, deadlineMs), effectOf(client, t.light, deadlineMs)]);
      if (effect !== undefined) effects.set(t.light.serial.toLowerCase(), effect);
    }),
  );
  const fresh = context.resolve(selector).filter((t) => t.light.online).map((t) => t.light);
  if (fresh.length === 0) throw new LightwireError('LIGHTS_NOT_FOUND', { selector });
  return store.capture(name, fresh, { effects });
}
