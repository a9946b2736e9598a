// The flow-node side shared by set-state, get-info and discover: finding the config node, checking the node's
// own properties again at runtime, the error every input gets when either is wrong, and the messages in flight
// when a node closes (MessagesInFlight).

import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { DURATION_MAX_S, LightwireError, isLightwireError, quoted, type LightService, type V1Light } from '../core/index.js';
import type { Connection } from './connection.js';
import { isConfigNode } from './config-node.js';
import { inRange, numberIn, type NumberRange } from './config-options.js';
import { errorStatus, type NodeStatus } from './status.js';

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

/**
 * The set-state node's transition: seconds, at most what a light takes (DURATION_MAX_S). Its editor
 * (lightwire-set-state.html) carries a copy, held to this one by test/nodes/editor-validators.test.ts.
 */
export const DURATION_RANGE: NumberRange = Object.freeze({ min: 0, max: DURATION_MAX_S, integer: false });

/** An optional duration in seconds (DURATION_RANGE, decimal as in the config node): '' or missing = none. */
export function optionalSecondsProp(option: string, value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = numberIn(value);
  if (!inRange(n, DURATION_RANGE)) {
    throw invalid(option, `must be a number of seconds from ${DURATION_RANGE.min} to ${DURATION_RANGE.max}, got ${quoted(value)}`);
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

type Send = (msg: NodeMessage | Array<NodeMessage | NodeMessage[] | null>) => void;
type Done = (err?: Error) => void;

/** One message a node is working on. Once the node has closed, every call here does nothing. */
export interface MessageInFlight {
  send(msg: NodeMessage | Array<NodeMessage | null>): void;
  status(status: NodeStatus): void;
  /** The message is finished: done(), once. */
  done(): void;
  /** The message failed: red status with its code, and done(err) so Catch nodes get it. */
  fail(err: unknown): void;
}

/**
 * The messages a node is working on while it waits for the lights, and what happens to them when the node closes.
 *
 * Node-RED routes send() along the closing node's wires and status() by node id, so on a deploy of modified nodes
 * an old node's late result would reach the new deployment's nodes and its status would show on the new node.
 * Node-RED's own core nodes drop what a pending message would still produce and finish the message at close: the
 * delay node's close clears its timers and calls each pending message's done() (clearDelayList), the exec node
 * kills its children and their exit sends nothing. Lightwire does the same rather than holding close until the
 * lights answer: that would hold every deploy for up to a write's deadline (4 s, or the config node's timeout),
 * and what it then sent would still land in a flow that is being replaced. So once closed, a node never calls
 * send() or status() again, and every message still in flight gets its done() at close, once, without an error
 * (as the delay node does), so a Complete node counts it and none reaches a Catch node of the new deployment
 * later. The light operation itself is not cut off: the connection lets it finish (Connection.run).
 */
export class MessagesInFlight {
  private closed = false;
  private readonly pending = new Set<() => void>();

  constructor(private readonly node: Node) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** The node's own status (health, setup errors), unless it has closed. */
  status(status: NodeStatus): void {
    if (!this.closed) this.node.status(status);
  }

  /** Starts tracking a message given to the node's input handler. */
  begin(send: Send, done: Done): MessageInFlight {
    let finished = false;
    const finish = (): boolean => {
      if (finished) return false;
      finished = true;
      this.pending.delete(closeOut);
      return true;
    };
    const closeOut = (): void => {
      if (!finish()) return;
      try {
        done();
      } catch (err) {
        // A message Node-RED cannot copy for a Complete node must not stop the other messages being finished.
        this.node.warn(`a message in flight could not be finished at close: ${err instanceof Error ? err.message : String(err)}`);
      }
    };
    if (this.closed) {
      // Input after close (Node-RED does not deliver it, but nothing may be sent for it either).
      closeOut();
    } else {
      this.pending.add(closeOut);
    }
    return {
      send: (msg) => {
        if (!this.closed && !finished) send(msg);
      },
      status: (status) => this.status(status),
      done: () => {
        if (this.closed || !finish()) return;
        try {
          done();
        } catch (err) {
          // Node-RED copies the message for a Complete node and throws when it cannot. The message is finished now, so
          // a caller's fail() would do nothing: the error is reported here, as failMessage reports one for Catch nodes.
          this.node.error(`the message could not be handed to Complete nodes: ${err instanceof Error ? err.message : String(err)}`);
        }
      },
      fail: (err) => {
        if (this.closed || !finish()) return;
        this.node.status(errorStatus(err));
        failMessage(this.node, done, err);
      },
    };
  }

  /** The node closes: from now on nothing is sent or shown, and every message in flight is finished. */
  close(): void {
    this.closed = true;
    const open = [...this.pending];
    this.pending.clear();
    for (const closeOut of open) closeOut();
  }
}
