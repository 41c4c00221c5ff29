/**
 * The service's lock: one service per user and state folder (docs/design/service.md,
 * "The lock"). A file made with O_EXCL holding the holder's pid and, on Linux, its
 * process start time, so a pid the system reused is never taken for the holder. A lock
 * whose holder is gone (a crash, kill -9, a reboot) is stale and taken over.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Paths } from '../paths.ts';
import { processAlive, processStartTicks } from '../panes/proc.ts';

export interface LockRecord {
  pid: number;
  /** The process's start time in clock ticks since boot (/proc/<pid>/stat field 22), Linux only. */
  startTicks?: number;
  version: string;
  startedAt: string;
}

export type Acquired = { held: true; record: LockRecord; release(): void } | { held: false; holder: LockRecord };

/** An empty lock file this young is a service between create and write: held. */
const EMPTY_GRACE_MS = 5_000;

/** Whether the process a record names is still the one that wrote it. */
export function holderAlive(rec: LockRecord): boolean {
  return processAlive(rec.pid, rec.startTicks);
}

function parseRecord(text: string): LockRecord | undefined {
  try {
    const v = JSON.parse(text) as LockRecord;
    if (v && Number.isSafeInteger(v.pid) && v.pid > 0) return v;
  } catch {
    // half written or not ours
  }
  return undefined;
}

/** The record in a lock file; 'empty' for a file with nothing readable in it yet; undefined when there is no file. */
export function readLock(file: string): LockRecord | 'empty' | undefined {
  return readLockFile(file)?.rec;
}

/** A lock file as it is now: its record (as readLock) and which file it is (its inode), read through one descriptor. */
function readLockFile(file: string): { rec: LockRecord | 'empty'; dev: number; ino: number; mtimeMs: number } | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    return { rec: parseRecord(fs.readFileSync(fd, 'utf8')) ?? 'empty', dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs };
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** The same lock, as far as the record goes: the same holder, or both empty. */
function sameRecord(a: LockRecord | 'empty', b: LockRecord | 'empty'): boolean {
  if (a === 'empty' || b === 'empty') return a === b;
  return a.pid === b.pid && a.startTicks === b.startTicks && a.startedAt === b.startedAt;
}

/**
 * Take the lock, or say who holds it. A stale lock is renamed to a name of this
 * process's own (atomic), then checked: if what moved is the stale record judged, it is
 * deleted and the lock is tried again; if it is a live holder's fresh record (another
 * taker won meanwhile), it is linked back and that holder wins.
 */
export function acquireLock(file: string, version: string, test?: { beforeMove?(): void }): Acquired {
  for (let attempt = 0; attempt < 20; attempt++) {
    let fd: number;
    try {
      fd = fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const judged = readLockFile(file);
      if (judged === undefined) continue; // released between the two calls
      const seen = judged.rec;
      if (seen === 'empty') {
        if (Date.now() - judged.mtimeMs < EMPTY_GRACE_MS) return { held: false, holder: { pid: 0, version: '?', startedAt: '' } };
      } else if (holderAlive(seen)) {
        return { held: false, holder: seen };
      }
      test?.beforeMove?.();
      const aside = `${file}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
      try {
        fs.renameSync(file, aside);
      } catch {
        continue; // someone else moved it first
      }
      const movedFile = readLockFile(aside);
      const moved = movedFile?.rec;
      // The very file judged stale, still saying what it said then: another taker may have put
      // a new lock, empty as the old one, in its place meanwhile (its inode may even be the old
      // one's, freed a moment before; its modification time is its own).
      const same = movedFile !== undefined && movedFile.dev === judged.dev && movedFile.ino === judged.ino && movedFile.mtimeMs === judged.mtimeMs && sameRecord(movedFile.rec, seen);
      // Not what was judged stale: another taker's lock, live, or made a moment ago and not yet
      // written (empty: deleting it would let this process take the lock beside that one).
      if (!same && moved !== undefined && (moved === 'empty' || holderAlive(moved))) {
        try {
          fs.linkSync(aside, file);
        } catch {
          // a third taker made a lock meanwhile: it holds it
        }
        fs.rmSync(aside, { force: true });
        return { held: false, holder: moved === 'empty' ? { pid: 0, version: '?', startedAt: '' } : moved };
      }
      fs.rmSync(aside, { force: true });
      continue;
    }
    const record: LockRecord = { pid: process.pid, version, startedAt: new Date().toISOString() };
    const ticks = processStartTicks(process.pid);
    if (ticks !== undefined) record.startTicks = ticks;
    try {
      fs.writeFileSync(fd, JSON.stringify(record) + '\n');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    let released = false;
    return {
      held: true,
      record,
      release() {
        if (released) return;
        released = true;
        // Only our own record: never a lock a later service took after ours went stale.
        const now = readLock(file);
        if (now !== undefined && now !== 'empty' && now.pid === record.pid && now.startedAt === record.startedAt) fs.rmSync(file, { force: true });
      },
    };
  }
  throw new Error(`the service lock ${file} could not be taken after 20 tries: remove it if no Terminal Delight service runs, then start again`);
}

/** The socket's folder must be this user's alone; anything else is refused in one sentence. */
export function checkPrivateDir(dir: string): string | undefined {
  const st = fs.statSync(dir);
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return `${dir} belongs to another user (uid ${st.uid}): the service keeps its socket only in a folder of your own`;
  if ((st.mode & 0o077) !== 0) return `${dir} can be read or written by other users (mode ${(st.mode & 0o777).toString(8)}): run chmod 700 on it, then start again`;
  return undefined;
}

/**
 * The state and run folders made private (refused in one sentence when another user can
 * reach them), then the service's lock taken: the first thing a service does, before its
 * core loads, so a client finds a service that is starting (`serviceStarting`).
 */
export function takeServiceLock(paths: Paths, version: string): Acquired {
  fs.mkdirSync(paths.state, { recursive: true, mode: 0o700 });
  fs.chmodSync(paths.state, 0o700);
  fs.mkdirSync(paths.run, { recursive: true, mode: 0o700 });
  fs.chmodSync(paths.run, 0o700);
  const unsafe = checkPrivateDir(paths.state) ?? checkPrivateDir(paths.run);
  if (unsafe) throw new Error(unsafe);
  return acquireLock(paths.serviceLock, version);
}

/** Whether a live process holds the lock (a service runs, or is starting and not listening yet). */
export function lockHeld(file: string): boolean {
  const rec = readLock(file);
  if (rec === undefined) return false;
  if (rec === 'empty') {
    try {
      return Date.now() - fs.statSync(file).mtimeMs < EMPTY_GRACE_MS;
    } catch {
      return false;
    }
  }
  return holderAlive(rec);
}
