// Node-RED node `lightwire-get-info`: msg.selector or the node's selector -> msg.payload = the lights in the
// HTTP List Lights shape (with `ambient_lux` and `buttons` where a light has them: readings.ts), from the cache (what
// discovery and the background refresh last read) or read fresh.

import type { Node, NodeAPI, NodeDef, NodeMessageInFlow } from 'node-red';
import type { Connection, ConnectionUser } from './connection.js';
import { MessagesInFlight, READ_MODES, choiceProp, connectionOf, readModeOf, reportSetupError, selectorProp, type ReadMode } from './node-props.js';
import { selectorOf } from './payload.js';
import { withReadings } from './readings.js';
import { healthStatus } from './status.js';

const GET_INFO_TYPE = 'lightwire-get-info';

interface GetInfoDef extends NodeDef {
  config?: unknown;
  selector?: unknown;
  read?: unknown;
}

interface GetInfoProps {
  readonly selector: string;
  readonly read: ReadMode;
}

export = function register(RED: NodeAPI): void {
  function LightwireGetInfo(this: Node, def: GetInfoDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    let setup: { props: GetInfoProps; connection: Connection } | Error;
    try {
      setup = {
        props: { selector: selectorProp(def.selector), read: choiceProp('read', def.read, READ_MODES, 'cache') },
        connection: connectionOf(RED, def.config),
      };
    } catch (err) {
      setup = err as Error;
      reportSetupError(node, err);
    }
    const messages = new MessagesInFlight(node);
    let acted = false;
    const user: ConnectionUser = {
      id: node.id,
      health: (health) => {
        if (!acted) messages.status(healthStatus(health));
      },
    };
    if (!(setup instanceof Error)) setup.connection.acquire(user);

    node.on('input', (msg: NodeMessageInFlow, send, done) => {
      const message = messages.begin(send, done);
      void (async () => {
        try {
          if (setup instanceof Error) throw setup;
          const selector = selectorOf(msg.selector, setup.props.selector);
          const mode = readModeOf(msg.fresh, setup.props.read);
          const lights = await setup.connection.run(async (service) => withReadings(service, await (mode === 'fresh' ? service.refresh(selector) : service.list(selector))));
          acted = true;
          const offline = lights.filter((l) => !l.connected).length;
          message.status({
            fill: offline > 0 ? 'yellow' : 'green',
            shape: 'dot',
            text: `${lights.length} light${lights.length === 1 ? '' : 's'}${offline > 0 ? `, ${offline} offline` : ''}`,
          });
          msg.payload = lights;
          message.send(msg);
          message.done();
        } catch (err) {
          acted = true;
          message.fail(err);
        }
      })();
    });
    // A read still waiting for the lights is finished here and sends nothing later (MessagesInFlight says why).
    node.on('close', (_removed: boolean, done: () => void) => {
      messages.close();
      if (!(setup instanceof Error)) setup.connection.release(user);
      done();
    });
  }

  RED.nodes.registerType(GET_INFO_TYPE, LightwireGetInfo);
};
