// Local scenes as Switches on one "Lightwire Scenes" accessory. A scene switch is momentary: turning it on
// activates the scene with its fade and the switch falls back to Off a second later (a scene has no "off").

import type { CharacteristicValue, HAP, PlatformAccessory, Service } from 'homebridge';
import type { LightResult, LightService, Scene } from '../core/index.js';
import type { LightwireConfig } from './config.js';
import { homeKitName } from './names.js';
import { SUBTYPE } from './settings.js';

export const SCENE_SWITCH_RESET_MS = 1000;

export interface ScenesContext {
  readonly kind: 'scenes';
}

export function isScenesContext(context: unknown): context is ScenesContext {
  return typeof context === 'object' && context !== null && (context as { kind?: unknown }).kind === 'scenes';
}

export interface SceneDeps {
  readonly hap: HAP;
  readonly lights: Pick<LightService, 'listScenes' | 'activateScene'>;
  readonly config: LightwireConfig;
  /** Bounds the activation by the response timeout; rejects with the HAP failure when a light fails or is late. */
  readonly bounded: (key: string, work: () => Promise<LightResult[]>) => Promise<void>;
}

/** The fade of a scene: its own entry (by name or id), else the platform's scene fade. */
export function sceneFadeS(config: LightwireConfig, scene: Pick<Scene, 'uuid' | 'name'>): number {
  const own = config.scenes.fades.find((f) => f.scene === scene.uuid || f.scene.toLowerCase() === scene.name.toLowerCase());
  return own?.fadeS ?? config.scenes.fadeS;
}

/**
 * A scene's switch name, valid for HomeKit (names.ts): "Movie 🎬" becomes "Movie"; a name with nothing usable
 * becomes "Scene" and the first 6 letters or digits of the scene's id.
 */
export function sceneSwitchName(scene: Pick<Scene, 'uuid' | 'name'>): string {
  return homeKitName(scene.name, `Scene ${scene.uuid.replace(/[^0-9A-Za-z]/g, '').slice(0, 6)}`, 'Scene');
}

export class SceneSwitches {
  private readonly resets = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    private readonly deps: SceneDeps,
    readonly accessory: PlatformAccessory,
  ) {}

  /** One switch per scene of the store; switches of scenes that are gone are removed. Returns the scene count. */
  sync(): number {
    const { Service, Characteristic } = this.deps.hap;
    const scenes = this.deps.lights.listScenes();
    const keep = new Set(scenes.map((s) => SUBTYPE.scene(s.uuid)));
    for (const service of [...this.accessory.services]) {
      if (service.UUID === Service.Switch.UUID && !keep.has(service.subtype ?? '')) this.accessory.removeService(service);
    }
    for (const scene of scenes) {
      const subtype = SUBTYPE.scene(scene.uuid);
      const name = sceneSwitchName(scene);
      let service: Service | undefined = this.accessory.getServiceById(Service.Switch, subtype);
      if (service === undefined) service = this.accessory.addService(Service.Switch, name, subtype);
      service.setCharacteristic(Characteristic.Name, name);
      const on = service.getCharacteristic(Characteristic.On);
      on.onGet(() => false);
      on.onSet(async (value: CharacteristicValue) => {
        if (value !== true && value !== 1) return;
        await this.deps.bounded(`scene:${scene.uuid}`, () => this.deps.lights.activateScene(scene.uuid, { durationS: sceneFadeS(this.deps.config, scene) }));
        const timer = setTimeout(() => {
          this.resets.delete(timer);
          on.updateValue(false);
        }, SCENE_SWITCH_RESET_MS);
        this.resets.add(timer);
      });
    }
    return scenes.length;
  }

  dispose(): void {
    for (const timer of this.resets) clearTimeout(timer);
    this.resets.clear();
  }
}
