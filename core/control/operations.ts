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
  breathe: (r) => {
    const { planBreathe } = effects();
    return (light) => planBreathe(r, light);
  },
  pulse: (r) => {
    const { planPulse } = effects();
    return (light) => planPulse(r, light);
  },
  move: firmware((e) => e.planMove),
  morph: firmware((e) => e.planMorph),
  flame: firmware((e) => e.planFlame),
  clouds: firmware((e) => e.planClouds),
  sunrise: firmware((e) => e.planSunrise),
  sunset: firmware((e) => e.planSunset),
  effectsOff: (r) => {
    const { planEffectsOff } = effects();
    return (light) => planEffectsOff(r, light);
  },
  clean: (r) => {
    const { planClean } = effects();
    return (light) => planClean(r, light);
  },
});

/** The per-light planner of one checked effect request. */
export function planEffect<N extends EffectOperationName>(name: N, request: Checked<N>): PlanFor {
  return (EFFECT_PLANNERS[name] as Planner<N>)(request);
}
