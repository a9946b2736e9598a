// core/doctor: why a light is not found or drops out. Pure judging (report.ts), host checks (network.ts), probes
// (probe.ts), the standalone doctor for the CLI (doctor.ts) and a running service's for /api/doctor
// (service-doctor.ts). The library's root reaches them through on-demand.ts, which loads them on first use.
export { runDoctor, parseExpectedLight, type DoctorOptions, type ExpectedLight } from './doctor.js';
export { ServiceDoctor, AddressHistory } from './service-doctor.js';
export { DEFAULT_PROBE_COUNT, DEFAULT_DOCTOR_WAIT_MS, MAX_PROBE_COUNT, PROBE_TIMEOUT_MS } from './on-demand.js';
export {
  buildReport,
  formatReport,
  judgeLight,
  judgeHost,
  median,
  percentile,
  lossRate,
  LOSS_UNHEALTHY,
  type DoctorReport,
  type LightHealth,
  type StaticHostHealth,
  type Problem,
  type ProblemKind,
  type InterfaceInfo,
  type PortCheck,
  type PortHolder,
  type LightObservation,
  type HostObservation,
  type Endpoint,
} from './report.js';
export { hostInterfaces, checkPort, udpSocketInodes, maskSecrets, type CheckPortOptions, type CommandDetail } from './network.js';
