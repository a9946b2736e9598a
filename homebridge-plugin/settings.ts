// Names Homebridge and HomeKit know the platform by. PLATFORM_NAME is the `pluginAlias` of config.schema.json
// and the `platform` users write in config.json; PLUGIN_NAME must equal package.json's name.

export const PLATFORM_NAME = 'Lightwire';
export const PLUGIN_NAME = 'homebridge-lightwire';

/** Accessory UUIDs are derived from these seeds (api.hap.uuid.generate), so they survive restarts. */
export const LIGHT_UUID_SEED = 'lightwire:light:';
export const SCENES_UUID_SEED = 'lightwire:scenes';
/** Matter accessory UUIDs (api.matter.uuid.generate), from the serial (and a Switch's relay). */
export const MATTER_UUID_SEED = 'lightwire:matter:';

/** Service subtypes: one accessory may hold several services of one type. */
export const SUBTYPE = Object.freeze({
  infrared: 'infrared',
  ambientLight: 'ambient-light',
  relay: (index: number): string => `relay-${index}`,
  effect: (kind: string): string => `effect-${kind}`,
  theme: (name: string): string => `theme-${name}`,
  scene: (uuid: string): string => `scene-${uuid}`,
  /** A part of a light (homebridge-plugin/parts.ts): `part-uplight`. */
  part: (name: string): string => `part-${name}`,
});
