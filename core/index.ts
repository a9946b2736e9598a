// The public library API of Lightwire's core.
export * from './errors.js';
export * as protocol from './protocol/index.js';
export { LightClient, type LightClientOptions, type ClientEvents } from './discovery/client.js';
export { LightRegistry, type LightRecord, type LightFacts, type Fact } from './discovery/registry.js';
export { discoveryOptions, type DiscoveryOptions, type DiscoveryOptionsInput } from './discovery/options.js';
export { transportOptions, type TransportOptions } from './transport/options.js';
export { Requester, type DeviceAddress, type SetResult, type RequesterStats } from './transport/requester.js';
export * as simulator from './simulator/index.js';
