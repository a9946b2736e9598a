// Node-RED node `lightwire-set-state`: msg.payload says what to change (payload.ts), msg.selector or the
// node's selector says which lights. Output 1: every message, msg.payload = one result per light and msg.ok;
// output 2: only when some light failed, msg.payload = the failed results. A bad message goes to done(err)
// with its coded error (Catch nodes see msg.error.code), and no light is touched.

import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow } from 'node-red';
import { allOk } from '../core/index.js';
import type { Connection, ConnectionUser } from './connection.js';
import { MessagesInFlight, connectionOf, flagProp, optionalSecondsProp, reportSetupError, selectorProp, type MessageInFlight } from './node-props.js';
import { parsePayload, runOperation, selectorOf, type NodeDefaults } from './payload.js';
import { healthStatus, resultsStatus } from './status.js';

const SET_STATE_TYPE = 'lightwire-set-state';

interface SetStateDef extends NodeDef {
  config?: unknown;
  selector?: unknown;
  duration?: unknown;
  fast?: unknown;
}

interface SetStateProps {
  readonly selector: string;
  readonly defaults: NodeDefaults;
}

function setStateProps(def: SetStateDef): SetStateProps {
  return {
    selector: selectorProp(def.selector),
    defaults: { durationS: optionalSecondsProp('duration', def.duration), fast: flagProp('fast', def.fast, false) },
  };
}

export = function register(RED: NodeAPI): void {
  function LightwireSetState(this: Node, def: SetStateDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    let setup: { props: SetStateProps; connection: Connection } | Error;
    try {
      setup = { props: setStateProps(def), connection: connectionOf(RED, def.config) };
    } catch (err) {
      setup = err as Error;
      reportSetupError(node, err);
    }
    const messages = new MessagesInFlight(node);
    // Health shows until the node has done something; then its last outcome stays.
    let acted = false;
    const user: ConnectionUser = {
      id: node.id,
      health: (health) => {
        if (!acted) messages.status(healthStatus(health));
      },
    };
    if (!(setup instanceof Error)) setup.connection.acquire(user);

    async function handle(msg: NodeMessageInFlow, message: MessageInFlight): Promise<void> {
      try {
        if (setup instanceof Error) throw setup;
        const { props, connection } = setup;
        const operation = parsePayload(msg.payload, props.defaults);
        const selector = (): string => selectorOf(msg.selector, props.selector);
        // A missing selector fails before waiting for the lights; scenes carry their own selectors.
        if (operation.kind !== 'scene') selector();
        const outcome = await connection.run((service) => runOperation(service, selector, operation));
        const results = outcome.results;
        const failed = results.filter((r) => r.status !== 'ok');
        acted = true;
        message.status(resultsStatus(results));
        msg.payload = results;
        msg.ok = allOk(results);
        if (outcome.scene !== undefined) msg.scene = outcome.scene;
        const failures: NodeMessage | null = failed.length > 0 ? { ...RED.util.cloneMessage(msg), payload: failed } : null;
        message.send([msg, failures]);
        message.done();
      } catch (err) {
        acted = true;
        message.fail(err);
      }
    }

    node.on('input', (msg, send, done) => {
      void handle(msg, messages.begin(send, done));
    });
    // Messages still waiting for the lights are finished here and send nothing later (MessagesInFlight says why).
    node.on('close', (_removed: boolean, done: () => void) => {
      messages.close();
      if (!(setup instanceof Error)) setup.connection.release(user);
      done();
    });
  }

  RED.nodes.registerType(SET_STATE_TYPE, LightwireSetState);
};
