// Memory and handle sampling for the soak benchmark's child processes.

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
  return {
    role,
    rssBytes: m.rss,
    heapUsedBytes: m.heapUsed,
    heapTotalBytes: m.heapTotal,
    externalBytes: m.external,
    arrayBuffersBytes: m.arrayBuffers,
    heapAfterGcBytes,
    handles,
    extra,
  };
}

/** Sends a sample every `everyMs` over IPC (and one at once); returns the stop function. */
export function startSampling(role: MemorySample['role'], everyMs: number, extra: () => Record<string, number> = () => ({})): () => void {
  const send = (): void => {
    process.send?.({ type: 'sample', sample: sampleMemory(role, extra()) });
  };
  send();
  const timer = setInterval(send, everyMs);
  return () => clearInterval(timer);
}
