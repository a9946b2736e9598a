// core/doctor: why a light is not found or drops out. Pure judging (report.ts), host checks (network.ts), probes
// (probe.ts) and the two doctors (doctor.ts): standalone for the CLI, over a running service for /api/doctor.
export {
  runDoctor,
  ServiceDoctor,
  AddressHistory,
  parseExpectedLight,
  DEFAULT_PROBE_COUNT,
  DEFAULT_DOCTOR_WAIT_MS,
  MAX_PROBE_COUNT,
  PROBE_TIMEOUT_MS,
  type DoctorOptions,
  type ExpectedLight,
} from './doctor.js';
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
