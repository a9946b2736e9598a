// Where a process allocates: V8's sampling heap profiler over the inspector, with the objects the young and old
// generation collectors freed kept in the profile (so it shows allocation, not only what stays alive), summed per
// function and source line.

import { Session } from 'node:inspector';

export interface AllocationSite {
  readonly site: string;
  readonly bytes: number;
}

interface ProfileNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly ProfileNode[];
}

function post<T>(session: Session, method: string, params: Record<string, unknown> = {}): Promise<T> {
  return new Promise((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result as T))));
}

/** Samples allocations for `seconds`; resolves with the total and the `top` sites by bytes. */
export async function profileAllocations(seconds: number, top = 25): Promise<{ totalBytes: number; top: AllocationSite[] }> {
  const session = new Session();
  session.connect();
  try {
    await post(session, 'HeapProfiler.startSampling', { samplingInterval: 16 * 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const { profile } = await post<{ profile: { head: ProfileNode } }>(session, 'HeapProfiler.stopSampling');
    const bySite = new Map<string, number>();
    let totalBytes = 0;
    const walk = (node: ProfileNode): void => {
      if (node.selfSize > 0) {
        const f = node.callFrame;
        const file = f.url.replace(/^.*\/(node_modules\/(?:\.cache\/lightwire-soak\/)?)/, '').replace(/^file:\/\//, '');
        const site = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
        bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
        totalBytes += node.selfSize;
      }
      for (const c of node.children) walk(c);
    };
    walk(profile.head);
    const sorted = [...bySite].sort((a, b) => b[1] - a[1]).slice(0, top).map(([site, bytes]) => ({ site, bytes }));
    return { totalBytes, top: sorted };
  } finally {
    session.disconnect();
  }
}
