// Field groups shared by several messages and the enums (https://lan.developer.lifx.com/docs/field-types).

import {
  array, bool, bytes, enumOf, f32, field, hexBytes, i16, label, reserved, struct, u16, u32, u64, u8, type FieldSpec, type StructType,
} from '../field-types.js';

export const ENUMS = {
  DeviceService: { 1: 'UDP', 2: 'RESERVED_2', 3: 'RESERVED_3', 4: 'RESERVED_4', 5: 'RESERVED_5' },
  LightWaveform: { 0: 'SAW', 1: 'SINE', 2: 'HALF_SINE', 3: 'TRIANGLE', 4: 'PULSE' },
  LightLastHevCycleResult: {
    0: 'SUCCESS', 1: 'BUSY', 2: 'INTERRUPTED_BY_RESET', 3: 'INTERRUPTED_BY_HOMEKIT', 4: 'INTERRUPTED_BY_LAN',
    5: 'INTERRUPTED_BY_CLOUD', 255: 'NONE',
  },
  MultiZoneApplicationRequest: { 0: 'NO_APPLY', 1: 'APPLY', 2: 'APPLY_ONLY' },
  MultiZoneEffectType: { 0: 'OFF', 1: 'MOVE', 2: 'RESERVED_2', 3: 'RESERVED_3' },
  // COLOR_SWEEP (6): upstream protocol.yml after the stored snapshot (fe8871b); lifx-emulator's regenerated
  // protocol_types.py and lifx-async's FirmwareEffect carry it.
  TileEffectType: { 0: 'OFF', 1: 'RESERVED_1', 2: 'MORPH', 3: 'FLAME', 4: 'RESERVED_4', 5: 'SKY', 6: 'COLOR_SWEEP' },
  TileEffectSkyType: { 0: 'SUNRISE', 1: 'SUNSET', 2: 'CLOUDS' },
  TileEffectSkyPalette: {
    0: 'CLOUDS_SKY', 1: 'NIGHT_SKY', 2: 'DAWN_SKY', 3: 'DAWN_SUN', 4: 'FULL_SUN', 5: 'FINAL_SUN', 6: 'NUM_COLOURS',
  },
  ButtonGesture: {
    1: 'PRESS', 2: 'HOLD', 3: 'PRESS_PRESS', 4: 'PRESS_HOLD', 5: 'HOLD_HOLD', 6: 'PRESS_RELEASE', 7: 'HOLD_RELEASE',
    8: 'PRESS_TOUCH', 9: 'HOLD_TOUCH', 10: 'PRESS_TOUCH_REPEAT', 11: 'HOLD_TOUCH_REPEAT', 12: 'PRESS_FAST_REPEAT',
  },
  ButtonTargetType: {
    2: 'POWER_TOGGLE_RELAYS', 3: 'POWER_TOGGLE_DEVICE', 4: 'POWER_TOGGLE_LOCATION', 5: 'POWER_TOGGLE_GROUP',
    6: 'SCENE', 7: 'POWER_TOGGLE_DEVICE_RELAYS', 8: 'BRIGHTNESS_DOWN_DEVICE', 9: 'BRIGHTNESS_DOWN_GROUP',
    10: 'BRIGHTNESS_DOWN_LOCATION', 11: 'BRIGHTNESS_UP_DEVICE', 12: 'BRIGHTNESS_UP_GROUP', 13: 'BRIGHTNESS_UP_LOCATION',
    14: 'DEMO_EFFECT_CYCLE', 15: 'DEMO_EFFECT_CYCLE_STOP', 16: 'DEMO_SUNRISE_SUNSET', 17: 'POWER_ON_DEVICE',
    18: 'POWER_ON_LOCATION', 19: 'POWER_ON_GROUP', 20: 'POWER_ON_RELAYS', 21: 'POWER_OFF_DEVICE',
    22: 'POWER_OFF_LOCATION', 23: 'POWER_OFF_GROUP', 24: 'POWER_OFF_RELAYS', 28: 'POWER_TOGGLE_LOCAL_DEVICE',
    29: 'BRIGHTNESS_DOWN_LOCAL_DEVICE', 30: 'BRIGHTNESS_UP_LOCAL_DEVICE',
    // Upstream after fe8871b (lifx-emulator's regenerated protocol_types.py); 32-35 are reserved there.
    31: 'KELVIN_STEP_LOCAL_DEVICE',
  },
} as const satisfies Record<string, Record<number, string>>;

/**
 * A value of an enum by its name, or by its number when the table has no name for it: firmware newer than our tables
 * reports values we do not know (an effect added upstream), and those are shown as what they are, never as another.
 */
export function enumName(names: Readonly<Record<number, string>>, value: number): string {
  return names[value] ?? String(value);
}

/** LightHsbk: wire units; core/protocol/units.ts converts. */
export const Hsbk = struct([
  field('hue', u16, 'hue'),
  field('saturation', u16, 'fraction'),
  field('brightness', u16, 'fraction'),
  field('kelvin', u16, 'kelvin'),
]);

export const Label = label(32);
/** Group and location ids are 16 bytes (a UUID), shown as 32 hex digits. */
export const Id16 = hexBytes(16);

export const Firmware = struct([
  field('buildNs', u64, 'epochNs'),
  reserved(8),
  field('versionMinor', u16),
  field('versionMajor', u16),
]);

export const Version = struct([
  field('vendor', u32),
  field('product', u32),
  reserved(4),
]);

export const EffectParameters = array(u32, 8);

export const MultiZoneEffectSettings = struct([
  field('instanceid', u32),
  field('type', enumOf(u8, ENUMS.MultiZoneEffectType)),
  reserved(2),
  field('speedMs', u32, 'ms'),
  field('durationNs', u64, 'ns'),
  reserved(4),
  reserved(4),
  // MOVE keeps its direction in parameters[1] (0 = towards the controller, 1 = away; photons names them RIGHT/LEFT).
  field('parameters', EffectParameters),
]);

// No pad after `type` here, unlike the multizone settings.
export const TileEffectSettings = struct([
  field('instanceid', u32),
  field('type', enumOf(u8, ENUMS.TileEffectType)),
  field('speedMs', u32, 'ms'),
  field('durationNs', u64, 'ns'),
  reserved(4),
  reserved(4),
  // SKY: parameters[0] byte 0 = sky type, parameters[1] = cloud saturation min, parameters[2] = max (photons' fields).
  field('parameters', EffectParameters),
  field('paletteCount', u8),
  field('palette', array(Hsbk, 16)),
]);

export const AccelMeas = struct([
  field('x', i16),
  field('y', i16),
  field('z', i16),
]);

export const TileDevice = struct([
  field('accelMeas', AccelMeas),
  reserved(1),
  reserved(1),
  field('userX', f32),
  field('userY', f32),
  field('width', u8),
  field('height', u8),
  reserved(1),
  field('deviceVersion', Version),
  field('firmware', Firmware),
  reserved(4),
]);

export const TileBufferRect = struct([
  field('fbIndex', u8),
  field('x', u8),
  field('y', u8),
  field('width', u8),
]);

// ---- button targets: protocol.yml's ButtonTarget union, 16 bytes whose meaning targetType chooses ----

/** Relays of the device itself (relays[0..relaysCount-1] are relay indexes). */
export const ButtonTargetRelays = struct([field('relaysCount', u8), field('relays', array(u8, 15))]);
/** Another device, by serial. */
export const ButtonTargetDevice = struct([field('serial', hexBytes(6)), reserved(10)]);
/** Relays of another device. */
export const ButtonTargetDeviceRelays = struct([field('serial', hexBytes(6)), field('relaysCount', u8), field('relays', array(u8, 9))]);
/**
 * Kelvin steps of the device itself (upstream after fe8871b: lifx-emulator's ButtonTargetKelvinStep). protocol.yml
 * gives `Duration` no unit, so the name carries none.
 */
export const ButtonTargetKelvinStep = struct([
  reserved(6),
  field('minKelvin', u16, 'kelvin'),
  field('maxKelvin', u16, 'kelvin'),
  field('kelvinStep', u16),
  field('duration', u16),
  reserved(2),
]);
/** A location, group or scene, by its 16-byte id. */
export const ButtonTargetLocation = struct([field('location', Id16)]);
export const ButtonTargetGroup = struct([field('group', Id16)]);
export const ButtonTargetScene = struct([field('scene', Id16)]);
/** Targets of the device itself that carry nothing (the 16 bytes are unused). */
export const ButtonTargetNone = struct([reserved(16)]);

/** How the target of each ButtonTargetType is laid out: the union's members, by target type. */
export const BUTTON_TARGETS = {
  2: ButtonTargetRelays,
  3: ButtonTargetDevice,
  4: ButtonTargetLocation,
  5: ButtonTargetGroup,
  6: ButtonTargetScene,
  7: ButtonTargetDeviceRelays,
  8: ButtonTargetDevice,
  9: ButtonTargetGroup,
  10: ButtonTargetLocation,
  11: ButtonTargetDevice,
  12: ButtonTargetGroup,
  13: ButtonTargetLocation,
  14: ButtonTargetNone,
  15: ButtonTargetNone,
  16: ButtonTargetNone,
  17: ButtonTargetDevice,
  18: ButtonTargetLocation,
  19: ButtonTargetGroup,
  20: ButtonTargetDeviceRelays,
  21: ButtonTargetDevice,
  22: ButtonTargetLocation,
  23: ButtonTargetGroup,
  24: ButtonTargetDeviceRelays,
  28: ButtonTargetNone,
  29: ButtonTargetNone,
  30: ButtonTargetNone,
  31: ButtonTargetKelvinStep,
} as const satisfies Record<keyof typeof ENUMS.ButtonTargetType, StructType<readonly FieldSpec[]>>;

export type ButtonTargetSpec = (typeof BUTTON_TARGETS)[keyof typeof BUTTON_TARGETS];

// The 16-byte target is a union chosen by targetType: raw bytes on the wire, read through BUTTON_TARGETS.
export const ButtonAction = struct([
  field('gesture', enumOf(u16, ENUMS.ButtonGesture)),
  field('targetType', enumOf(u16, ENUMS.ButtonTargetType)),
  field('target', bytes(16)),
]);

export const Button = struct([
  field('actionsCount', u8),
  field('actions', array(ButtonAction, 5)),
]);

export { bool, bytes, enumOf, f32, field, i16, reserved, struct, u16, u32, u64, u8, array };
