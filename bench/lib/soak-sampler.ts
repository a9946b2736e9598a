// Memory and handle sampling for the soak benchmark's child processes.

import { PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import type { MemorySample } from './soak-messages.js';

/** A sample now; with --expose-gc, heapUsed is also taken right after a full GC (after the plain figures). */
export function sampleMemory(role: MemorySample['role'], extra: Record<string, number> = {}): MemorySample {
  const m = process.memoryUsage();
  const handles: Record<string, number> = {};
  for (const h of process.getActiveResourcesInfo()) handles[h] = (handles[h] ?? 0) + 1;
  const gc = (globalThis as { gc?: () => void }).gc;
  let heapAfterGcBytes: number | null = null;
  if (typeof gc === 'function') {
    gc();
    heapAfterGcBytes = process.memoryUsage().heapUsed;
  }
  // Which V8 space holds the heap: new space (young objects) is sized by allocation rate, old space by what survives.
  const spaces: Record<string, number> = {};
  for (const sp of getHeapSpaceStatistics()) {
    if (sp.space_size > 4 * 1024 * 1024) spaces[`${sp.space_name.replace(/_space$/, '')}MB`] = Math.round(sp.space_size / (1024 * 1024));
  }
  return {
    role,
    rssBytes: m.rss,
    heapUsedBytes: m.heapUsed,
    heapTotalBytes: m.heapTotal,
    externalBytes: m.external,
    arrayBuffersBytes: m.arrayBuffers,
    heapAfterGcBytes,
    handles,
    extra: { ...extra, ...spaces },
  };
}

/** Time spent in garbage collection since sampling started, and how many collections, by kind. */
const gcTotals = { ms: 0, minor: 0, major: 0 };

/** Sends a sample every `everyMs` over IPC (and one at once); returns the stop function. */
export function startSampling(role: MemorySample['role'], everyMs: number, extra: () => Record<string, number> = () => ({})): () => void {
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcTotals.ms += entry.duration;
      const kind = ((entry as unknown as { detail?: { kind?: number } }).detail)?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gcTotals.major++;
      else gcTotals.minor++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const cpu0 = process.cpuUsage();
  const send = (): void => {
    const cpu = process.cpuUsage(cpu0);
    const figures = { cpuMs: Math.round((cpu.user + cpu.system) / 1000), gcMs: Math.round(gcTotals.ms), gcMinor: gcTotals.minor, gcMajor: gcTotals.major };
    process.send?.({ type: 'sample', sample: sampleMemory(role, { ...extra(), ...figures }) });
  };
  send();
  const timer = setInterval(send, everyMs);
  return () => {
    clearInterval(timer);
    observer.disconnect();
  };
}
