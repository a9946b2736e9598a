// The shape other Lightwire nodes see of a lightwire-config node: its type name and its Connection.

import type { Node } from 'node-red';
import { Connection } from './connection.js';

export const CONFIG_TYPE = 'lightwire-config';
/** Node-RED's admin permission the picker needs when adminAuth is on (`*.read` grants it). */
export const PICKER_PERMISSION = 'lightwire-config.read';
/** How long the picker waits for a config node that was idle to find its lights. */
export const PICKER_WAIT_MS = 3000;
/** Where scenes live unless the node names a file: beside the flows, in the Node-RED user directory. */
export const SCENES_FILE_NAME = 'lightwire-scenes.json';

export interface ConfigCredentialsDef {
  tokens?: string;
}

export interface LightwireConfigNode extends Node<ConfigCredentialsDef> {
  connection: Connection;
}

export function isConfigNode(node: unknown): node is LightwireConfigNode {
  return (
    typeof node === 'object' &&
    node !== null &&
    (node as Node).type === CONFIG_TYPE &&
    (node as Partial<LightwireConfigNode>).connection instanceof Connection
  );
}
