// The planner of each effect in the catalogue (catalogue.ts declares the operations as data; this binds each to the
// pure function that plans it for one light). Firmware effects get a fresh instance id per run, as photons sends:
// the firmware tells effects apart by it.

import { randomNonZeroUint32 } from '../builtins.js';
import type { EffectOperationName } from './catalogue.js';
import {
  planBreathe,
  planClean,
  planClouds,
  planEffectsOff,
  planFlame,
  planMorph,
  planMove,
  planPulse,
  planSunrise,
  planSunset,
} from './effects.js';
import type { PlanFor } from './executor.js';
import type { Checked } from './requests.js';

type Planner<N extends EffectOperationName> = (request: Checked<N>) => PlanFor;

const withInstance = <R extends object>(request: R): R & { readonly instanceId: number } => ({ ...request, instanceId: randomNonZeroUint32() });

/** Every effect of the catalogue and its planner; the compiler checks that none is missing. */
export const EFFECT_PLANNERS: { readonly [N in EffectOperationName]: Planner<N> } = Object.freeze({
  breathe: (r) => (light) => planBreathe(r, light),
  pulse: (r) => (light) => planPulse(r, light),
  move: (r) => {
    const request = withInstance(r);
    return (light) => planMove(request, light);
  },
  morph: (r) => {
    const request = withInstance(r);
    return (light) => planMorph(request, light);
  },
  flame: (r) => {
    const request = withInstance(r);
    return (light) => planFlame(request, light);
  },
  clouds: (r) => {
    const request = withInstance(r);
    return (light) => planClouds(request, light);
  },
  sunrise: (r) => {
    const request = withInstance(r);
    return (light) => planSunrise(request, light);
  },
  sunset: (r) => {
    const request = withInstance(r);
    return (light) => planSunset(request, light);
  },
  effectsOff: (r) => (light) => planEffectsOff(r, light),
  clean: (r) => (light) => planClean(r, light),
});

/** The per-light planner of one checked effect request. */
export function planEffect<N extends EffectOperationName>(name: N, request: Checked<N>): PlanFor {
  return (EFFECT_PLANNERS[name] as Planner<N>)(request);
}
