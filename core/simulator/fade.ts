// Values that change over a transition, computed from timestamps rather than timers: a virtual light holds
// where a value came from, where it is going and when, and evaluates it whenever it is asked (so a stopped
// fleet has no timer to clear and tests can move an injected clock). All values are wire units.

import type { WireHsbk } from '../protocol/units.js';

const HUE_STEPS = 0x10000;

function progress(startMs: number, durationMs: number, nowMs: number): number {
  if (durationMs <= 0 || nowMs >= startMs + durationMs) return 1;
  if (nowMs <= startMs) return 0;
  return (nowMs - startMs) / durationMs;
}

/** One u16 level (power) moving linearly. */
export class LevelFade {
  constructor(
    readonly from: number,
    readonly to: number,
    readonly startMs: number,
    readonly durationMs: number,
  ) {}

  static still(level: number): LevelFade {
    return new LevelFade(level, level, 0, 0);
  }

  at(nowMs: number): number {
    const t = progress(this.startMs, this.durationMs, nowMs);
    return t === 1 ? this.to : Math.round(this.from + (this.to - this.from) * t);
  }

  /** A fade from wherever this one is now to `to`. */
  toward(to: number, nowMs: number, durationMs: number): LevelFade {
    return new LevelFade(this.at(nowMs), to, nowMs, Math.max(0, durationMs));
  }
}

/** One HSBK colour moving; hue takes the shorter way round the circle, like the firmware. */
export class ColorFade {
  constructor(
    readonly from: Readonly<WireHsbk>,
    readonly to: Readonly<WireHsbk>,
    readonly startMs: number,
    readonly durationMs: number,
  ) {}

  static still(color: Readonly<WireHsbk>): ColorFade {
    return new ColorFade(color, color, 0, 0);
  }

  at(nowMs: number): WireHsbk {
    const t = progress(this.startMs, this.durationMs, nowMs);
    if (t === 1) return { ...this.to };
    const { from, to } = this;
    // Signed shortest distance on the 65536-step hue circle.
    const dh = ((((to.hue - from.hue) % HUE_STEPS) + HUE_STEPS + HUE_STEPS / 2) % HUE_STEPS) - HUE_STEPS / 2;
    return {
      hue: (Math.round(from.hue + dh * t) + HUE_STEPS) % HUE_STEPS,
      saturation: Math.round(from.saturation + (to.saturation - from.saturation) * t),
      brightness: Math.round(from.brightness + (to.brightness - from.brightness) * t),
      kelvin: Math.round(from.kelvin + (to.kelvin - from.kelvin) * t),
    };
  }

  toward(to: Readonly<WireHsbk>, nowMs: number, durationMs: number): ColorFade {
    return new ColorFade(this.at(nowMs), to, nowMs, Math.max(0, durationMs));
  }
}

export const BLACK: Readonly<WireHsbk> = Object.freeze({ hue: 0, saturation: 0, brightness: 0, kelvin: 0 });
