// Node-RED node `lightwire-discover`: one message per light event of the config node's service (a light is
// added, changes, goes offline or comes back), so a flow reacts to a wall switch or the vendor app; on input it
// lists every light. msg.topic is the event, msg.payload the light in the List Lights shape (with `ambient_lux` and
// `buttons` where it has them: readings.ts), msg.changes what changed (for `changed`).

import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow } from 'node-red';
import type { LightService, LightView } from '../core/index.js';
import type { Connection, ConnectionUser } from './connection.js';
import { MessagesInFlight, connectionOf, flagProp, listOrNone, reportSetupError, selectorProp } from './node-props.js';
import { errorStatus, healthStatus } from './status.js';
import { selectorOf } from './payload.js';
import { withReadings, type NodeLightRecord } from './readings.js';

const DISCOVER_TYPE = 'lightwire-discover';
const LIGHT_EVENTS = ['added', 'changed', 'offline', 'online'] as const;
type LightEvent = (typeof LIGHT_EVENTS)[number];

interface DiscoverDef extends NodeDef {
  config?: unknown;
  selector?: unknown;
  // Not `changed`: the editor keeps that name for its own use (a node's unsaved edits).
  reportAdded?: unknown;
  reportChanged?: unknown;
  reportOffline?: unknown;
  reportOnline?: unknown;
  initial?: unknown;
}

interface DiscoverProps {
  /** '' = every light. */
  readonly selector: string;
  readonly events: ReadonlySet<LightEvent>;
  /** Announce the lights the service already knows as `added` when the node starts. */
  readonly initial: boolean;
}

function discoverProps(def: DiscoverDef): DiscoverProps {
  const events = new Set<LightEvent>();
  const props = { added: 'reportAdded', changed: 'reportChanged', offline: 'reportOffline', online: 'reportOnline' } as const;
  for (const event of LIGHT_EVENTS) if (flagProp(props[event], def[props[event]], true)) events.add(event);
  return { selector: selectorProp(def.selector), events, initial: flagProp('initial', def.initial, true) };
}

export = function register(RED: NodeAPI): void {
  function LightwireDiscover(this: Node, def: DiscoverDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    let setup: { props: DiscoverProps; connection: Connection } | Error;
    try {
      setup = { props: discoverProps(def), connection: connectionOf(RED, def.config) };
    } catch (err) {
      setup = err as Error;
      reportSetupError(node, err);
    }
    const props = setup instanceof Error ? null : setup.props;
    const messages = new MessagesInFlight(node);
    let errored = false;
    let initialTimer: ReturnType<typeof setImmediate> | undefined;

    /** The record of a light the filter selects, or null when it does not select it. */
    function recordOf(service: LightService, serial: string): NodeLightRecord | null {
      const selector = props!.selector === '' ? `id:${serial}` : props!.selector;
      const record = listOrNone(service, selector).find((l) => l.id === serial);
      return record === undefined ? null : withReadings(service, [record])[0]!;
    }

    function emit(service: LightService, event: LightEvent, view: LightView, changes?: readonly string[]): void {
      // Closed: the listeners are off already; this holds should an event be on its way (nothing after close).
      if (messages.isClosed || !props!.events.has(event)) return;
      try {
        const record = recordOf(service, view.serial);
        if (record === null) return;
        const msg: NodeMessage = { topic: event, payload: record, serial: view.serial };
        if (changes !== undefined) msg.changes = [...changes];
        node.send(msg);
      } catch (err) {
        // A selector the service refuses (SELECTOR_INVALID) is reported once, not per event.
        if (!errored) {
          errored = true;
          messages.status(errorStatus(err));
          node.error(err instanceof Error ? err.message : String(err));
        }
      }
    }

    let attached: { service: LightService; off: () => void } | null = null;
    const user: ConnectionUser = {
      id: node.id,
      health: (health) => {
        if (!errored) messages.status(healthStatus(health));
      },
      attach: (service) => {
        attached?.off();
        const onAdded = (view: LightView): void => emit(service, 'added', view);
        const onChanged = (view: LightView, changes: readonly string[]): void => emit(service, 'changed', view, changes);
        const onOffline = (view: LightView): void => emit(service, 'offline', view);
        const onOnline = (view: LightView): void => emit(service, 'online', view);
        service.on('added', onAdded);
        service.on('offline', onOffline);
        service.on('online', onOnline);
        // 'changed' follows every background read: listen only when the node reports it.
        if (props!.events.has('changed')) service.on('changed', onChanged);
        attached = {
          service,
          off: () => {
            service.off('added', onAdded);
            service.off('changed', onChanged);
            service.off('offline', onOffline);
            service.off('online', onOnline);
          },
        };
        // Lights known before this node started (a "modified nodes" deploy) are announced once, after the
        // flow has started, so the nodes downstream exist.
        if (props!.initial && service.views().length > 0) {
          initialTimer = setImmediate(() => {
            initialTimer = undefined;
            for (const view of service.views()) emit(service, 'added', view);
          });
        }
      },
      detach: (service) => {
        if (attached?.service !== service) return;
        attached.off();
        attached = null;
      },
    };
    if (!(setup instanceof Error)) setup.connection.acquire(user);

    node.on('input', (msg: NodeMessageInFlow, send, done) => {
      const message = messages.begin(send, done);
      void (async () => {
        try {
          if (setup instanceof Error) throw setup;
          // msg.selector overrides the node's (like every node's; empty counts as not given); the node's empty
          // selector means every light.
          const selector = selectorOf(msg.selector, setup.props.selector === '' ? 'all' : setup.props.selector);
          const lights = await setup.connection.run((service) => withReadings(service, listOrNone(service, selector)));
          msg.topic = 'list';
          msg.payload = lights;
          message.send(msg);
          message.done();
        } catch (err) {
          message.fail(err);
        }
      })();
    });
    // The list still waiting for the first discovery is finished here and sends nothing later (MessagesInFlight).
    node.on('close', (_removed: boolean, done: () => void) => {
      messages.close();
      if (initialTimer !== undefined) clearImmediate(initialTimer);
      initialTimer = undefined;
      if (!(setup instanceof Error)) setup.connection.release(user);
      attached?.off();
      attached = null;
      done();
    });
  }

  RED.nodes.registerType(DISCOVER_TYPE, LightwireDiscover);
};
