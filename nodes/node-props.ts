// The flow-node side shared by set-state, get-info and discover: finding the config node, checking the node's
// own properties again at runtime, and the error every input gets when either is wrong.

import type { Node, NodeAPI } from 'node-red';
import { DURATION_MAX_S, LightwireError, isLightwireError, quoted, type LightService, type V1Light } from '../core/index.js';
import type { Connection } from './connection.js';
import { isConfigNode } from './config-node.js';

function invalid(option: string, reason: string): LightwireError<'OPTIONS_INVALID'> {
  return new LightwireError('OPTIONS_INVALID', { option, reason });
}

/** The config node a flow node names; OPTIONS_INVALID when it names none or a node of another type. */
export function connectionOf(RED: NodeAPI, configId: unknown): Connection {
  if (typeof configId !== 'string' || configId === '') throw invalid('config', 'no Lightwire config node is selected');
  const config: unknown = RED.nodes.getNode(configId);
  if (!isConfigNode(config)) throw invalid('config', `${quoted(configId)} is not a deployed lightwire-config node`);
  return config.connection;
}

/** A selector property: a string, possibly empty (the message then has to give one). */
export function selectorProp(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw invalid('selector', `must be a string, got ${quoted(value)}`);
  return value.trim();
}

/** An optional duration in seconds (at most what a light takes, DURATION_MAX_S): '' or missing = none. */
export function optionalSecondsProp(option: string, value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n) || n < 0 || n > DURATION_MAX_S) {
    throw invalid(option, `must be a number of seconds from 0 to ${DURATION_MAX_S}, got ${quoted(value)}`);
  }
  return n;
}

export function flagProp(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null || value === '') return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw invalid(option, `must be true or false, got ${quoted(value)}`);
}

export function choiceProp<T extends string>(option: string, value: unknown, choices: readonly T[], fallback: T): T {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    throw invalid(option, `must be one of ${choices.join(', ')}, got ${quoted(value)}`);
  }
  return value as T;
}

/** Reports a problem found when the node starts: red status and a log line; inputs then fail with it. */
export function reportSetupError(node: Node, err: unknown): void {
  const code = err instanceof LightwireError ? err.code : 'error';
  node.status({ fill: 'red', shape: 'ring', text: code });
  node.error(err instanceof Error ? `${code}: ${err.message}` : String(err));
}

/**
 * A message failed: its error goes to Catch nodes with the message (done(err)). Should even that throw (a message
 * Node-RED cannot copy, e.g. a property whose getter throws), the error is logged without the message rather than
 * left to escape into the runtime, which would stop Node-RED.
 */
export function failMessage(node: Node, done: (err?: Error) => void, err: unknown): void {
  const error = err instanceof Error ? err : new Error(String(err));
  try {
    done(error);
  } catch (copyError) {
    const code = error instanceof LightwireError ? `${error.code}: ` : '';
    node.error(`${code}${error.message} (the message could not be handed to Catch nodes: ${copyError instanceof Error ? copyError.message : 'it cannot be copied'})`);
  }
}

/** The lights a selector names now; none (not an error) when it names no light yet. */
export function listOrNone(service: LightService, selector: string): V1Light[] {
  try {
    return service.list(selector);
  } catch (err) {
    if (isLightwireError(err, 'LIGHTS_NOT_FOUND')) return [];
    throw err;
  }
}

export const READ_MODES = ['cache', 'fresh'] as const;
export type ReadMode = (typeof READ_MODES)[number];

/** msg.fresh (true/false) overrides a get-info node's read mode for one message. */
export function readModeOf(msgFresh: unknown, mode: ReadMode): ReadMode {
  if (msgFresh === undefined || msgFresh === null) return mode;
  if (typeof msgFresh !== 'boolean') throw new LightwireError('PARAMETER_INVALID', { field: 'msg.fresh', reason: 'must be true or false' });
  return msgFresh ? 'fresh' : 'cache';
}
