// The public library API of Lightwire (`homebridge-lightwire`): the light service every face uses, its
// options, events, views and results, coded errors, and unit helpers. The HTTP server, the simulator and the
// protocol codec have entries of their own: `homebridge-lightwire/http`, `/simulator` and `/protocol`.

export * from './errors.js';
export { didYouMean, editDistance, nearest, printable, tableLines } from './text.js';
export {
  LightService,
  FIRST_ROUND_MS,
  DEFAULT_READY_TIMEOUT_MS,
  DEFAULT_DEADLINE_MS,
  MAX_STATES,
  CYCLE_STATES_MIN,
  CYCLE_STATES_MAX,
  type LightServiceOptions,
  type LightServiceEvents,
  type ColorInput,
  type SetStateRequest,
  type SetStatesOperation,
  type SetStatesResult,
  type WriteOptions,
  type WaveformRequest,
  type BreatheRequest,
  type MoveRequest,
  type MorphRequest,
  type FlameRequest,
  type SkyRequest,
  type StateDeltaRequest,
  type CycleRequest,
  type EffectsOffRequest,
  type CleanRequest,
  type ToggleRequest,
  type CheckOptions,
} from './control/service.js';
export type {
  LightView,
  LightResult,
  ResultStatus,
  PartialHsbk,
  GroupRef,
  ResolvedLight,
  ZoneRange,
  RelayState,
} from './control/types.js';
export { v1Light, uuidFromSerial, type V1Light, type V1Capabilities } from './control/views.js';
export { NAMED_COLORS, COLOR_RANGES, type ValidatedColor } from './control/colors.js';
export { MAX_SELECTORS } from './control/selectors.js';
export { parseSelectors, type ParseSelectorsOptions } from './control/selectors.js';
export type { Selector, SelectorKind } from './control/types.js';
export { EFFECT_DEFAULTS } from './control/effects.js';
export { colorFromNumbers, parseRequest, CHECK_TEXT, type RequestOf, type Checked, type Vocabulary, type ParseContext } from './control/requests.js';
export { OPERATIONS, EFFECT_OPERATIONS, FIRMWARE_EFFECTS, OPERATION_LIST, effectByName, staticDefault, type FirmwareEffectName, type OperationName, type SelectorOperationName, type EffectOperationName, type OperationDecl, type ParamDecl, type Need } from './control/catalogue.js';
export { sceneNameProblem, type Scene, type SceneState } from './control/scene-file.js';
export { SceneStore, SCENE_FILE_CHECK_MS, type SceneWatchOptions } from './control/scene-store.js';
export { SCENE_IGNORE_KEYS, type SceneActivation, type SceneOverrides } from './control/scene-activation.js';
export { LightClient, type LightClientOptions, type ClientEvents } from './discovery/client.js';
export { discoveryOptions, interfaceBroadcastAddresses, type DiscoveryOptions, type DiscoveryOptionsInput, type StaticHost } from './discovery/options.js';
export { transportOptions, type TransportOptions } from './transport/options.js';
export {
  LIFX_PORT,
  PORT_MAX,
  KELVIN_MIN,
  KELVIN_MAX,
  DURATION_MAX_S,
  DEFAULT_DURATION_S,
  RELAYS_MAX,
  kelvinToMireds,
  miredsToKelvin,
  signalQuality,
  type Hsbk,
  type PowerState,
  type Product,
  type Capabilities,
  type KelvinRange,
  type FirmwareVersion,
  type SignalQuality,
} from './protocol/index.js';
export { packageInfo } from './package-info.js';
export {
  runDoctor,
  ServiceDoctor,
  parseExpectedLight,
  formatReport,
  LOSS_UNHEALTHY,
  DEFAULT_PROBE_COUNT,
  DEFAULT_DOCTOR_WAIT_MS,
  MAX_PROBE_COUNT,
  type DoctorOptions,
  type DoctorReport,
  type LightHealth,
  type StaticHostHealth,
  type Problem,
  type ProblemKind,
  type InterfaceInfo,
  type PortCheck,
} from './doctor/index.js';
