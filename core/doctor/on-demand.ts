// The doctor as the library's root (core/index.ts) and the light service reach it: its numbers, and the doctor itself
// (doctor.ts and what it imports: probes, host checks, the judging and the report's text), loaded on the first call.
// A process that finds, reads and sets lights never asks a doctor, and every module loaded costs heap in every
// process whether its code runs or not (its source text, its functions, the loader's records).

import type { DoctorOptions, ExpectedLight } from './doctor.js';
import type { DoctorReport } from './report.js';

// The doctor's numbers that callers see before any doctor runs (the CLI's option help and checks).
export const DEFAULT_PROBE_COUNT = 20;
export const MAX_PROBE_COUNT = 1000;
export const DEFAULT_DOCTOR_WAIT_MS = 3000;
/** Deadline of one measuring request (its retries included: about four transmissions). */
export const PROBE_TIMEOUT_MS = 1000;

/** doctor.ts, loaded on first use (require: synchronous; the package is CommonJS). */
export const doctorIo = (): typeof import('./doctor.js') => require('./doctor.js') as typeof import('./doctor.js');

/** report.ts (the judging and the report's text), loaded on first use. */
const reportText = (): typeof import('./report.js') => require('./report.js') as typeof import('./report.js');

/** Looks for lights, measures each, probes what did not answer, and judges (the CLI's `lightwire doctor`). */
export function runDoctor(options?: DoctorOptions): Promise<DoctorReport> {
  return doctorIo().runDoctor(options);
}

/** `SERIAL` or `SERIAL@IP[:PORT]` (the port defaults to `defaultPort`, else 56700). */
export function parseExpectedLight(text: string, defaultPort?: number): ExpectedLight {
  return doctorIo().parseExpectedLight(text, defaultPort);
}

/** A report as text for a terminal; ages are counted to `nowMs` (default: when the report was made). */
export function formatReport(report: DoctorReport, nowMs?: number): string {
  return reportText().formatReport(report, nowMs);
}
