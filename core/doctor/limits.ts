// The doctor's numbers that callers see before any doctor runs (the CLI's option help and checks): here, so that
// reading them loads nothing else.

export const DEFAULT_PROBE_COUNT = 20;
export const MAX_PROBE_COUNT = 1000;
export const DEFAULT_DOCTOR_WAIT_MS = 3000;
/** Deadline of one measuring request (its retries included: about four transmissions). */
export const PROBE_TIMEOUT_MS = 1000;
