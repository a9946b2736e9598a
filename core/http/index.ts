// `homebridge-lightwire/http`: the LIFX HTTP API v1 over a LightService, as a server to start and stop, or as
// a Fastify plugin to mount in an app of your own.

export {
  startServer,
  buildServer,
  checkBind,
  DEFAULT_HOST,
  DEFAULT_PORT,
  API_PREFIX,
  type ServerOptions,
  type RunningServer,
  type TlsFiles,
} from './server.js';
export { lightwireApi, namingApi, DEFAULT_BODY_LIMIT_BYTES, type HttpApiOptions } from './plugin.js';
export { NAMING_PREFIX } from './schemas.js';
export { listenHostProblem, parseTokenSpec, SCOPES, type TokenSpec } from './auth.js';
export { UNENFORCED_LIMIT } from './rate-limit.js';
export type { LogLevel } from './server.js';
export type { Scope } from './schemas.js';
