// Matter's units and the service's, both ways, as pure functions: the Matter face (matter.ts) only calls these.
// Matter speaks the Level Control cluster's level (1-254 for lights), the Color Control cluster's hue and saturation
// (0-254), CIE xy (0-65535 for 0-1), mireds and transition times in tenths of a second (Matter Application Cluster
// Specification 1.4, §1.6 Level Control and §3.2 Color Control, https://csa-iot.org/developer-resource/specifications-download-request/);
// the service speaks 0-1 fractions, degrees, kelvin and seconds (https://lan.developer.lifx.com/docs/representing-color-with-hsbk).
//
// "Exactly" means a value Matter sends comes back as the same value once the light has it: level -> brightness ->
// level, hue -> degrees -> hue, saturation and mireds (within the light's range) round-trip unchanged
// (test/homebridge-plugin/matter-mapping.test.ts checks every value through the 16-bit wire form).

import type { Capabilities, KelvinRange } from '../core/index.js';
import { kelvinToLightMireds, miredsRange, miredsToLightKelvin } from './characteristics.js';

/** Level Control with the Lighting feature: 1 is the dimmest a light goes while on, 254 the brightest. */
export const LEVEL_MIN = 1;
export const LEVEL_MAX = 254;
/** Color Control's CurrentHue and CurrentSaturation run 0-254 (254 is 360° and full saturation). */
export const HUE_SAT_MAX = 254;
/** CurrentX and CurrentY are the CIE coordinate times 65536. */
export const XY_SCALE = 65536;

const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, value));

/** A Matter level (0-254) as the service's brightness (0-1). */
export function levelToBrightness(level: number): number {
  return clamp(level, 0, LEVEL_MAX) / LEVEL_MAX;
}

/** The service's brightness as a Matter level: a light that is on is never below LEVEL_MIN. */
export function brightnessToLevel(brightness: number): number {
  return clamp(Math.round(brightness * LEVEL_MAX), LEVEL_MIN, LEVEL_MAX);
}

/** Matter hue (0-254) as degrees (0-360). */
export function hueToDegrees(hue: number): number {
  return (clamp(hue, 0, HUE_SAT_MAX) * 360) / HUE_SAT_MAX;
}

/** Degrees as Matter hue; 360° is 0° on the light, so it reads back as 0. */
export function degreesToHue(degrees: number): number {
  return clamp(Math.round((((degrees % 360) + 360) % 360) * HUE_SAT_MAX / 360), 0, HUE_SAT_MAX);
}

/** Matter saturation (0-254) as a fraction. */
export function saturationToFraction(saturation: number): number {
  return clamp(saturation, 0, HUE_SAT_MAX) / HUE_SAT_MAX;
}

export function fractionToSaturation(fraction: number): number {
  return clamp(Math.round(fraction * HUE_SAT_MAX), 0, HUE_SAT_MAX);
}

/** Mireds Matter asks for as kelvin this light can show (its product's range). */
export function miredsToKelvin(mireds: number, range: KelvinRange): number {
  return miredsToLightKelvin(mireds, range);
}

/** The light's kelvin as mireds within its range (Matter's ColorTempPhysicalMin/MaxMireds). */
export function kelvinToMireds(kelvin: number, range: KelvinRange): number {
  return kelvinToLightMireds(kelvin, range);
}

/** ColorTempPhysicalMinMireds (coolest) and ColorTempPhysicalMaxMireds (warmest) of a range. */
export function miredsLimits(range: KelvinRange): { readonly minMireds: number; readonly maxMireds: number } {
  const { minValue, maxValue } = miredsRange(range);
  return { minMireds: minValue, maxMireds: maxValue };
}

/** A command's transition (tenths of a second; null: none given) in seconds, or undefined for the light's setting. */
export function transitionToSeconds(tenths: number | null | undefined): number | undefined {
  return tenths === null || tenths === undefined || !Number.isFinite(tenths) ? undefined : Math.max(0, tenths) / 10;
}

// ---- illuminance (Illuminance Measurement cluster, Matter Application Cluster Specification 1.4, §2.2) ----

/** MeasuredValue 1 is 1 lx; 0xFFFE (3.576 Mlx) is the largest a MeasuredValue holds (0xFFFF is null). */
export const ILLUMINANCE_MIN = 1;
export const ILLUMINANCE_MAX = 0xfffe;

/**
 * Lux as the cluster's MeasuredValue: 10000 * log10(lux) + 1, rounded and clamped to 1-0xFFFE; 0 is "too low to be
 * measured", which darkness (0 lx) and no reading are. Below 1 lx the formula falls under 1: that is 0 too.
 */
export function luxToIlluminance(lux: number | null): number {
  if (lux === null || !(lux > 0)) return 0;
  const value = Math.round(10000 * Math.log10(lux) + 1);
  return value < ILLUMINANCE_MIN ? 0 : Math.min(value, ILLUMINANCE_MAX);
}

// ---- CIE xy and hue/saturation (sRGB primaries, D65 white: IEC 61966-2-1) ----

const gammaEncode = (c: number): number => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
const gammaDecode = (c: number): number => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

/** Matter's CurrentX/CurrentY as hue (degrees) and saturation (0-1); colours outside sRGB land on its edge. */
export function xyToHueSaturation(x: number, y: number): { readonly hue: number; readonly saturation: number } {
  const cx = clamp(x, 0, XY_SCALE - 1) / XY_SCALE;
  const cy = Math.max(clamp(y, 0, XY_SCALE - 1) / XY_SCALE, 1e-6);
  const X = cx / cy;
  const Z = (1 - cx - cy) / cy;
  const linear = [3.2406 * X - 1.5372 - 0.4986 * Z, -0.9689 * X + 1.8758 + 0.0415 * Z, 0.0557 * X - 0.204 + 1.057 * Z].map((c) => Math.max(0, c));
  const top = Math.max(...linear);
  const [r, g, b] = linear.map((c) => gammaEncode(top > 0 ? c / top : 1)) as [number, number, number];
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const delta = max - min;
  let hue = 0;
  if (delta > 0) {
    if (max === r) hue = 60 * (((g - b) / delta) % 6);
    else if (max === g) hue = 60 * ((b - r) / delta + 2);
    else hue = 60 * ((r - g) / delta + 4);
  }
  return { hue: (hue + 360) % 360, saturation: max === 0 ? 0 : delta / max };
}

/** Hue (degrees) and saturation (0-1) at full value as Matter's CurrentX/CurrentY. */
export function hueSaturationToXy(hue: number, saturation: number): { readonly x: number; readonly y: number } {
  const h = (((hue % 360) + 360) % 360) / 60;
  const s = clamp(saturation, 0, 1);
  const f = (n: number): number => {
    const k = (n + h) % 6;
    return 1 - s * Math.max(0, Math.min(k, 4 - k, 1));
  };
  const [r, g, b] = [f(5), f(3), f(1)].map(gammaDecode) as [number, number, number];
  const X = 0.4124 * r + 0.3576 * g + 0.1805 * b;
  const Y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const Z = 0.0193 * r + 0.1192 * g + 0.9505 * b;
  const sum = X + Y + Z;
  return { x: clamp(Math.round((X / sum) * XY_SCALE), 0, 0xfeff), y: clamp(Math.round((Y / sum) * XY_SCALE), 0, 0xfeff) };
}

// ---- device types ----

/** The Matter device type a light becomes (Matter Device Library Specification 1.4, §4 Lighting, §5 Smart Plugs). */
export type MatterKind = 'extendedColor' | 'colorTemperature' | 'dimmable' | 'plug';

/**
 * Colour lights are Extended Color Lights, white lights with an adjustable temperature Color Temperature Lights,
 * other white lights Dimmable Lights; a LIFX Switch's relays are On/Off Plug-in Units. Anything else is not offered.
 */
export function matterKindOf(caps: Capabilities): MatterKind | undefined {
  if (caps.isLight) {
    if (caps.color) return 'extendedColor';
    return caps.variableColorTemp && caps.kelvinRange !== null ? 'colorTemperature' : 'dimmable';
  }
  return caps.relays ? 'plug' : undefined;
}
