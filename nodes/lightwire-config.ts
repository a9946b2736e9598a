// Node-RED config node `lightwire-config`: one LightService shared by every Lightwire node that names it
// (connection.ts), plus the admin endpoint the editor's selector picker reads.

import path from 'node:path';
import type { Node, NodeAPI, NodeDef } from 'node-red';
import type { Request, Response } from 'express';
import { configOptions, type ConfigOptions, type ConfigProps } from './config-options.js';
import { CONFIG_TYPE, PICKER_PERMISSION, PICKER_WAIT_MS, SCENES_FILE_NAME, isConfigNode, type LightwireConfigNode } from './config-node.js';
import { Connection, type ConnectionUser } from './connection.js';
import { selectorList } from './selector-list.js';
import { errorCode } from './status.js';

interface ConfigDef extends NodeDef, Omit<ConfigProps, 'name'> {}

function message(err: unknown): string {
  return `${errorCode(err)}: ${err instanceof Error ? err.message : String(err)}`;
}

function waitAtMost<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export = function register(RED: NodeAPI): void {
  const userDir = (RED.settings as { userDir?: unknown }).userDir;
  const defaultScenes = typeof userDir === 'string' && userDir !== '' ? path.join(userDir, SCENES_FILE_NAME) : null;

  function LightwireConfig(this: LightwireConfigNode, def: ConfigDef): void {
    RED.nodes.createNode(this, def);
    const node = this;
    let options: ConfigOptions | Error;
    try {
      options = configOptions(def, node.credentials ?? {}, defaultScenes);
    } catch (err) {
      options = err instanceof Error ? err : new Error(String(err));
      node.error(message(err));
    }
    node.connection = new Connection(options, { warn: (text) => node.warn(text), error: (text) => node.error(text) });
    // The HTTP endpoint is a user of its own: scripts reach the lights even when no flow node uses them.
    const endpoint: ConnectionUser = { id: `${node.id}:http`, health: () => {} };
    if (!(options instanceof Error) && options.http !== null) node.connection.acquire(endpoint);

    node.on('close', (_removed: boolean, done: () => void) => {
      node.connection.close().then(done, (err: unknown) => {
        node.warn(message(err));
        done();
      });
    });
  }

  RED.nodes.registerType(CONFIG_TYPE, LightwireConfig as (this: Node, def: ConfigDef) => void, { credentials: { tokens: { type: 'password' } } });

  // The picker: GET /lightwire-config/<config node id>/selectors -> lights, groups, locations.
  RED.httpAdmin.get(`/${CONFIG_TYPE}/:id/selectors`, RED.auth.needsPermission(PICKER_PERMISSION), (req: Request, res: Response) => {
    const id = String(req.params.id ?? '');
    const node: unknown = RED.nodes.getNode(id);
    if (!isConfigNode(node)) {
      res.status(404).json({ code: 'CONFIG_NOT_DEPLOYED', message: 'this Lightwire config node is not deployed yet: deploy it, then reopen the list' });
      return;
    }
    const connection = node.connection;
    // An idle config node is started for the picker; it stops again after the grace period if nothing uses it.
    const visitor: ConnectionUser = { id: `${id}:picker:${Date.now()}:${Math.random()}`, health: () => {} };
    connection.acquire(visitor);
    void (async () => {
      try {
        const service = await waitAtMost(connection.service(), PICKER_WAIT_MS);
        const source = service ?? connection.peek();
        res.json(selectorList(source?.views() ?? [], connection.health(), (serial) => source?.parts(serial).map((p) => p.name) ?? []));
      } catch (err) {
        if (!res.headersSent) res.status(503).json({ code: errorCode(err), message: err instanceof Error ? err.message : String(err) });
      } finally {
        connection.release(visitor);
      }
    })();
  });
};
