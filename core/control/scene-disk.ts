// The scene file on disk: its stamp, reading it, writing it atomically, moving a corrupt one aside. What a scene and
// the file's format are is scene-file.ts; the store that keeps the scenes in memory and queues changes is scene-store.ts.

import * as path from 'node:path';
import { nodeCrypto } from '../builtins.js';
import { LightwireError } from '../errors.js';
import { compareScenes, errorText, Invalid, parseFile, SCENE_FILE_VERSION, type Scene } from './scene-file.js';
import { formatSceneFile, sceneRecord } from './scene-picture.js';

/** The parts of node:fs/promises the store uses; tests pass one that fails on purpose. */
export type SceneStoreFs = Pick<typeof import('node:fs/promises'), 'readFile' | 'open' | 'rename' | 'unlink' | 'mkdir' | 'lstat' | 'stat'>;

/** What the file was when the store last read or wrote it: another process's write changes at least one of these. */
export interface FileStamp {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

function stampOf(stats: { readonly ino: number; readonly size: number; readonly mtimeMs: number }): FileStamp {
  return { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs };
}

export function sameStamp(a: FileStamp | null, b: FileStamp | null): boolean {
  return a === b || (a !== null && b !== null && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs);
}

/** Writes the scene file atomically; resolves with what it now is on disk. */
export async function writeScenes(fs: SceneStoreFs, filePath: string, scenes: ReadonlyMap<string, Scene>): Promise<FileStamp> {
  const dir = path.dirname(filePath);
  const body = `${formatSceneFile({ version: SCENE_FILE_VERSION, scenes: [...scenes.values()].sort(compareScenes).map(sceneRecord) })}\n`;
  const temp = path.join(dir, `.${path.basename(filePath)}.${process.pid}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`);
  let created = false;
  let stamp: FileStamp;
  try {
    await ensureDirectory(fs, dir);
    const handle = await fs.open(temp, 'wx', 0o644);
    created = true;
    try {
      await handle.writeFile(body, 'utf8');
      await handle.sync();
      // The temp file's own stamp: renamed, it is the scene file (the same inode), whatever else happens to the
      // path later.
      stamp = stampOf(await handle.stat());
    } finally {
      await handle.close();
    }
    await fs.rename(temp, filePath);
    created = false;
  } catch (err) {
    if (created) await fs.unlink(temp).catch(() => {});
    throw new LightwireError('SCENE_STORE_FAILED', { path: filePath, reason: `cannot write it: ${errorText(err)}` });
  }
  await syncDirectory(fs, dir);
  return stamp;
}

/**
 * Creates `dir` and its missing parents, one level at a time. Not mkdir({ recursive: true }): Node 24's spins for ever
 * where a parent cannot be created (a path under /proc), and the host process with it.
 */
async function ensureDirectory(fs: SceneStoreFs, dir: string): Promise<void> {
  const missing: string[] = [];
  for (let at = dir; ; ) {
    try {
      if ((await fs.stat(at)).isDirectory()) break;
      throw Object.assign(new Error(`${at} is not a directory`), { code: 'ENOTDIR' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    missing.push(at);
    const parent = path.dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const d of missing.reverse()) {
    try {
      await fs.mkdir(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** Makes the rename durable. Best effort: some platforms and file systems cannot open a directory. */
async function syncDirectory(fs: SceneStoreFs, dir: string): Promise<void> {
  try {
    const handle = await fs.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // The file itself was fsynced before the rename; the directory entry is the only thing at risk.
  }
}

function cannotRead(target: string, err: unknown): LightwireError<'SCENE_STORE_FAILED'> {
  return new LightwireError('SCENE_STORE_FAILED', { path: target, reason: `cannot read it: ${errorText(err)}` });
}

/**
 * The file's stamp; null when there is no file. Taken before the file is read, so that a write landing in between is
 * seen by the next look.
 */
export async function stampOfFile(fs: SceneStoreFs, target: string): Promise<FileStamp | null> {
  try {
    return stampOf(await fs.stat(target));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw cannotRead(target, err);
  }
}

/** The file's scenes, an Invalid when it does not parse (a file removed since its stamp was taken has none). */
export async function readScenes(fs: SceneStoreFs, target: string): Promise<Map<string, Scene> | Invalid> {
  let text: string;
  try {
    text = await fs.readFile(target, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw cannotRead(target, err);
  }
  try {
    return parseFile(text);
  } catch (err) {
    if (!(err instanceof Invalid)) throw err;
    return err;
  }
}

/** Renames a corrupt file to `<file>.corrupt-<epoch ms>[-n]`, never over an existing file. */
export async function moveAside(fs: SceneStoreFs, target: string, reason: string, nowMs: number): Promise<string> {
  const base = `${target}.corrupt-${Math.floor(nowMs)}`;
  try {
    for (let n = 1; ; n += 1) {
      const candidate = n === 1 ? base : `${base}-${n}`;
      const taken = await fs.lstat(candidate).then(
        () => true,
        (err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return false;
          throw err;
        },
      );
      if (taken) continue;
      await fs.rename(target, candidate);
      return candidate;
    }
  } catch (err) {
    throw new LightwireError('SCENE_STORE_FAILED', {
      path: target,
      reason: `it is not valid (${reason}) and cannot be moved aside: ${errorText(err)}`,
    });
  }
}
