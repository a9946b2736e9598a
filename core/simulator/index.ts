// core/simulator: virtual LIFX devices that speak core/protocol over real UDP sockets (tests, demos, benchmarks).
export { Fleet, DEFAULT_PORT, DEFAULT_IP_BASE, DEFAULT_PORT_MODE_ADDRESS, type AddressMode, type FleetOptions } from './fleet.js';
export { VirtualLight, type LightStats, type LightSummary } from './virtual-light.js';
export {
  parseFleet, loadFleetFile, parseFaults, parseStatePatch, idFromLabel,
  type FleetInput, type FleetSpec, type LightInput, type LightSpec, type FaultsInput, type GroupInput, type HsbkInput,
  type LightStatePatch,
} from './fleet-file.js';
export { defaultFleet, defaultSerial, type DefaultFleet, type DefaultFleetOptions } from './default-fleet.js';
export { NO_FAULTS, DEFAULT_REORDER_DELAY_MS, MALFORMED_KINDS, type Faults, type MalformedMode, type MalformedKind } from './faults.js';
export { type ReceivedPacket, DEFAULT_RECORD_LIMIT, FLEET_RECORD_BUDGET, defaultRecordLimit } from './records.js';
export { type LightStateView, type GroupView } from './model.js';
export { startControlServer, type ControlServer, type ControlServerOptions } from './control.js';
export { allocateAddresses, isLoopbackHost, isLoopbackIpv4, LOOPBACK_BROADCAST, LOOPBACK_ADDRESS } from './addresses.js';
export { MAX_LATENCY_MS } from './fleet-file.js';
