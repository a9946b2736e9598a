// The planner of each effect in the catalogue (catalogue.ts declares the operations as data; this binds each to the
// pure function that plans it for one light). Firmware effects get a fresh instance id per run, as photons sends:
// the firmware tells effects apart by it. The planners (effects.ts) load with the first effect run: most processes
// set colours and never run one, and every module loaded costs heap in every process (its source, its functions).

import { randomNonZeroUint32 } from '../builtins.js';
import type { EffectOperationName } from './catalogue.js';
import type { PlanFor } from './executor.js';
import type { Checked } from './requests.js';
import type { LightView, Plan } from './types.js';

type Planner<N extends EffectOperationName> = (request: Checked<N>) => PlanFor;

/** effects.ts, loaded on first use (require: synchronous; the package is CommonJS). */
const effects = (): typeof import('./effects.js') => require('./effects.js') as typeof import('./effects.js');

/** A waveform or device effect's planner (`plannerOf` picks it from effects.ts): the request as checked. */
const plain =
  <R extends object>(plannerOf: (planners: typeof import('./effects.js')) => (request: R, light: LightView) => Plan) =>
  (r: R): PlanFor => {
    const planner = plannerOf(effects());
    return (light) => planner(r, light);
  };

/**
 * A firmware effect's planner (`plannerOf` picks it from effects.ts): the run gets a fresh instance id, the same for
 * every light of the request.
 */
const firmware =
  <R extends object>(plannerOf: (planners: typeof import('./effects.js')) => (request: R & { readonly instanceId: number }, light: LightView) => Plan) =>
  (r: R): PlanFor => {
    const planner = plannerOf(effects());
    const request = { ...r, instanceId: randomNonZeroUint32() };
    return (light) => planner(request, light);
  };

/** Every effect of the catalogue and its planner; the compiler checks that none is missing. */
export const EFFECT_PLANNERS: { readonly [N in EffectOperationName]: Planner<N> } = Object.freeze({
  breathe: plain((e) => e.planBreathe),
  pulse: plain((e) => e.planPulse),
  move: firmware((e) => e.planMove),
  morph: firmware((e) => e.planMorph),
  flame: firmware((e) => e.planFlame),
  clouds: firmware((e) => e.planClouds),
  sunrise: firmware((e) => e.planSunrise),
  sunset: firmware((e) => e.planSunset),
  effectsOff: plain((e) => e.planEffectsOff),
  clean: plain((e) => e.planClean),
});

/** The per-light planner of one checked effect request. */
export function planEffect<N extends EffectOperationName>(name: N, request: Checked<N>): PlanFor {
  return (EFFECT_PLANNERS[name] as Planner<N>)(request);
}
