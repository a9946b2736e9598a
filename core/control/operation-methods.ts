// LightService's entry points for the catalogue's operations that take a selector and a request and nothing else
// (State Delta, the effects, Clean, Cycle, Paint Pixels, Paint Theme): one method per operation, made from this list,
// each `perform(name, selector, request, options)`. An operation that needs nothing more than that is a method of the
// service by adding its name here; its request type, checks and defaults are the catalogue's (requests.ts).

import type { SelectorOperationName } from './catalogue.js';
import type { RequestOf } from './requests.js';
import type { WriteOptions } from './service-types.js';
import type { LightResult } from './types.js';

export const OPERATION_METHODS = [
  'stateDelta',
  'breathe',
  'pulse',
  'move',
  'morph',
  'flame',
  'clouds',
  'sunrise',
  'sunset',
  'effectsOff',
  'clean',
  'cycle',
  'paint',
  'theme',
] as const satisfies readonly SelectorOperationName[];

export type OperationMethodName = (typeof OPERATION_METHODS)[number];

/** The request may be left out where every field of it is optional (`move(selector)`). */
type RequestArgs<N extends OperationMethodName> = object extends RequestOf<N>
  ? [request?: RequestOf<N>, options?: WriteOptions]
  : [request: RequestOf<N>, options?: WriteOptions];

/** One method per name: the operation on the lights the selector names, a result per light. */
export type OperationMethods = { readonly [N in OperationMethodName]: (selector: string, ...args: RequestArgs<N>) => Promise<LightResult[]> };

/** What a method calls: the service's own `perform`. */
interface Performer {
  perform(name: OperationMethodName, selector: string, request: object, options: WriteOptions): Promise<LightResult[]>;
}

/** Puts the methods on the service's prototype (once, where the class is defined). */
export function addOperationMethods(prototype: Performer): void {
  for (const name of OPERATION_METHODS) {
    Object.defineProperty(prototype, name, {
      value(this: Performer, selector: string, request: object = {}, options: WriteOptions = {}): Promise<LightResult[]> {
        return this.perform(name, selector, request, options);
      },
      writable: true,
      configurable: true,
    });
  }
}
