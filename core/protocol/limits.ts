// Limits that several layers check, each declared once here. Protocol facts first, then the HTTP API v1
// contract's ranges (https://api.developer.lifx.com/reference/set-state), which every face shares.

/** The UDP port LIFX devices listen on (https://lan.developer.lifx.com/docs/communicating-with-device). */
export const LIFX_PORT = 56700;

/** The highest UDP or TCP port number. */
export const PORT_MAX = 65535;

/** A LIFX Switch has at most four relays, relay_index 0-3 (https://lan.developer.lifx.com/docs/the-lifx-switch). */
export const RELAYS_MAX = 4;

/** The widest colour temperature any product supports, and the range a colour string may ask for. */
export const KELVIN_MIN = 1500;
export const KELVIN_MAX = 9000;

/** The longest `duration` the API accepts: 100 years, in seconds. */
export const DURATION_MAX_S = 3_155_760_000;
/** A request without a `duration` fades over one second (the cloud's default). */
export const DEFAULT_DURATION_S = 1;
