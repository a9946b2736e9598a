// The public library API of Lightwire (`homebridge-lightwire`): the light service every face uses, its
// options, events, views and results, coded errors, and unit helpers. The HTTP server, the simulator and the
// protocol codec have entries of their own: `homebridge-lightwire/http`, `/simulator` and `/protocol`.

export { LightwireError, isLightwireError, clipped, quoted, type ErrorCode, type ErrorParams } from './errors.js';
export { didYouMean, nearest, printable, tableLines } from './text.js';
export {
  LightService,
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
  type PaintRequest,
  type ThemeRequest,
  type EffectsOffRequest,
  type CleanRequest,
  type ToggleRequest,
  type CheckOptions,
  type HeardDevice,
  type ServiceDiagnostics,
} from './control/service.js';
export { allOk } from './control/results.js';
export type {
  LightView,
  LightResult,
  ResultStatus,
  GroupRef,
  ResolvedLight,
  ZoneRange,
  RelayState,
  MatrixView,
} from './control/types.js';
export { uuidFromSerial, type V1Light, type V1Capabilities } from './control/views.js';
export { themeList, themePalette } from './control/themes.js';
export { COLOR_RANGES, type ValidatedColor } from './control/colors.js';
export { MAX_SELECTORS } from './control/selectors.js';
export { PART_NAME_PATTERN, partsFromConfig, type PartView, type PartsConfig } from './control/parts.js';
export { parseSelectors, type ParseSelectorsOptions } from './control/selectors.js';
export type { Selector, SelectorKind } from './control/types.js';
export { parseRequest, refusal, itemRefusal, type RequestOf, type Checked } from './control/requests.js';
export { OPERATIONS, EFFECT_OPERATIONS, FIRMWARE_EFFECTS, FIRMWARE_EFFECT_MIN_MAJOR, THEME_NAMES, MAX_CANVAS, staticDefault, type FirmwareEffectName, type OperationName, type SelectorOperationName, type EffectOperationName, type OperationDecl, type ParamDecl, type Need } from './control/catalogue.js';
export { LABEL_MAX_BYTES, NAMING_OPERATIONS, type NamingOperationName, type RenameOperationName } from './control/catalogue.js';
export { sceneNameProblem, type Scene, type SceneState } from './control/scene-file.js';
export { SceneStore, type SceneWatchOptions } from './control/scene-store.js';
export { picturesOf, type LightPicture, type SceneEffect } from './control/scene-picture.js';
export type { SceneActivation, SceneOverrides } from './control/scene-activation.js';
export { LightClient, type LightClientOptions, type ClientEvents } from './discovery/client.js';
export type { ButtonsFact, ButtonInfo, ButtonAction, ButtonSettings, ButtonTarget } from './discovery/buttons.js';
export { interfaceBroadcastAddresses, type DiscoveryOptions, type DiscoveryOptionsInput, type StaticHost } from './discovery/options.js';
export { loadProductsFile } from './discovery/products-file.js';
export type { TransportOptions } from './transport/options.js';
export {
  LIFX_PORT,
  PORT_MAX,
  KELVIN_MIN,
  KELVIN_MAX,
  DURATION_MAX_S,
  RELAYS_MAX,
  kelvinToMireds,
  miredsToKelvin,
  ProductRegistry,
  type Hsbk,
  type PowerState,
  type Product,
  type Capabilities,
  type KelvinRange,
  type FirmwareVersion,
  type SignalQuality,
} from './protocol/index.js';
export { packageInfo } from './package-info.js';
export { runDoctor, parseExpectedLight, formatReport, DEFAULT_PROBE_COUNT, MAX_PROBE_COUNT } from './doctor/on-demand.js';
export type {
  DoctorOptions,
  DoctorReport,
  LightHealth,
  StaticHostHealth,
  Problem,
  ProblemKind,
  InterfaceInfo,
  PortCheck,
} from './doctor/index.js';
export { LOOPBACK_ADDRESS, LOOPBACK_BROADCAST } from './simulator/addresses.js';
