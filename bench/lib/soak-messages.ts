// What the soak benchmark's processes tell each other over IPC (bench/soak.ts).

/** One sample of a process's memory and handles. */
export interface MemorySample {
  readonly role: 'server' | 'fleet';
  /** Seconds since the load started (the parent's clock, stamped on arrival). */
  atS?: number;
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly heapTotalBytes: number;
  readonly externalBytes: number;
  readonly arrayBuffersBytes: number;
  /** heapUsed right after a full GC, when the process runs with --expose-gc; else null. */
  readonly heapAfterGcBytes: number | null;
  /** process.getActiveResourcesInfo() by type (sockets, timers, ...). */
  readonly handles: Readonly<Record<string, number>>;
  /** Anything else the process wants to show (registry size, requests in flight, ...). */
  readonly extra: Readonly<Record<string, number>>;
}

export interface SoakServerConfig {
  readonly fleetPort: number;
  readonly lights: number;
  readonly sampleMs: number;
  readonly scenesFile: string;
  /** Write a heap snapshot this many seconds after `go` (into `snapshotDir`). */
  readonly snapshotAtS: readonly number[];
  readonly snapshotDir: string;
  /** Run the fleet inside the server process, as `lightwire serve --virtual N` does (then fleetPort is ignored). */
  readonly inProcessFleet: boolean;
  readonly lossIn: number;
  readonly lossOut: number;
  /** recordLimit of an in-process fleet (default: the fleet's budget shared by its lights). */
  readonly recordLimit: number | null;
  /** Sample allocations (collected ones included) for this many seconds from `go`, then report the top sites; 0 = off. */
  readonly allocProfileS: number;
}

export type SoakChildReply =
  | { readonly type: 'ready'; readonly url?: string; readonly port?: number; readonly sceneId?: string; readonly serials?: readonly string[]; readonly groups?: readonly string[] }
  | { readonly type: 'sample'; readonly sample: MemorySample }
  | { readonly type: 'snapshot'; readonly file: string }
  | { readonly type: 'allocations'; readonly seconds: number; readonly totalBytes: number; readonly top: readonly { readonly site: string; readonly bytes: number }[] }
  | { readonly type: 'failed'; readonly reason: string };

export type SoakChildRequest =
  | { readonly type: 'go' }
  | { readonly type: 'stop' };
