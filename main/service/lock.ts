/**
 * The service's lock: one service per user and state folder (docs/design/service.md,
 * "The lock"). A file holding the holder's pid and, on Linux, its process start time, so a
 * pid the system reused is never taken for the holder, which clients read. Who holds it is
 * the kernel's to say: an exclusive flock(2) the holder keeps on it for its life, let go
 * however the holder ends. Where flock cannot be used, the file is made with O_EXCL and a
 * lock whose holder is gone (a crash, kill -9, a reboot) is stale and taken over by a rename.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Paths } from '../paths.ts';
import { processAlive, processStartTicks } from '../panes/proc.ts';
import { setCloseOnExec, tryFlock } from '../libc.ts';

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

/** What a taker waits on for a moment (Atomics.wait: the lock is taken synchronously). */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** The holder of a lock whose record is not written yet. */
const STARTING: LockRecord = { pid: 0, version: '?', startedAt: '' };

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
    return { rec: readFd(fd), dev: st.dev, ino: st.ino, mtimeMs: st.mtimeMs };
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

/** This process's record, to write into the lock it took. */
function ownRecord(version: string): LockRecord {
  const record: LockRecord = { pid: process.pid, version, startedAt: new Date().toISOString() };
  const ticks = processStartTicks(process.pid);
  if (ticks !== undefined) record.startTicks = ticks;
  return record;
}

/** Remove the lock file if it still holds this record (never a lock a later service took after this one's went stale). */
function removeIfOwn(file: string, record: LockRecord): void {
  const now = readLock(file);
  if (now !== undefined && now !== 'empty' && now.pid === record.pid && now.startedAt === record.startedAt) fs.rmSync(file, { force: true });
}

/** The lock held with `record`: its release (once) removes the file if it is still this record's, then lets go (`letGo`). */
function held(file: string, record: LockRecord, letGo?: () => void): Acquired {
  let released = false;
  return {
    held: true,
    record,
    release() {
      if (released) return;
      released = true;
      removeIfOwn(file, record);
      letGo?.();
    },
  };
}

/**
 * Take the lock, or say who holds it: by flock where it can be used (`acquireByFlock`), else
 * by O_EXCL and a rename of a stale lock (`acquireByRename`; `test.renameOnly` asks for it).
 */
export function acquireLock(file: string, version: string, test?: { beforeMove?(): void; renameOnly?: boolean }): Acquired {
  return (test?.renameOnly ? undefined : acquireByFlock(file, version)) ?? acquireByRename(file, version, test);
}

/**
 * The lock by flock: the file opened (made if missing) and locked without waiting. Held
 * elsewhere: its record names the holder. Locked here: once the file is still the one at the
 * lock's path (a holder's release removes it before letting go), the record is written over
 * whatever a gone holder left. A live holder is never moved or removed, whatever its file
 * says, so any number of takers racing after a crash leave exactly one holding it (a rename of
 * a stale lock could move a live one aside in a three-way race). A file of a version that took
 * the lock without flock, its holder alive or its record not written yet (younger than
 * EMPTY_GRACE_MS), is held. Undefined where flock cannot be used (then nothing was made).
 */
function acquireByFlock(file: string, version: string): Acquired | undefined {
  for (let attempt = 0; attempt < 20; attempt++) {
    let fd: number;
    let made = false;
    try {
      fd = fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_RDWR, 0o600);
      made = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      try {
        fd = fs.openSync(file, fs.constants.O_RDWR);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue; // released between the two calls
        throw e;
      }
    }
    let kept = false;
    try {
      let got = tryFlock(fd);
      // Made here: only a taker reading it (below) can hold it, and lets go at once: asked again (every 2 ms, 200 ms at most).
      for (let i = 0; made && got === 'held' && i < 100; i++) {
        Atomics.wait(PAUSE, 0, 0, 2);
        got = tryFlock(fd);
      }
      if (got === undefined) {
        // No flock here: the file this call made goes (the rename's way would take it for a service starting).
        if (made) fs.rmSync(file, { force: true });
        return undefined;
      }
      const rec = readFd(fd);
      if (got === 'held') return { held: false, holder: rec === 'empty' ? STARTING : rec };
      const mine = fs.fstatSync(fd);
      let there: fs.Stats;
      try {
        there = fs.statSync(file);
      } catch {
        continue; // removed by its holder's release before this call locked it
      }
      if (there.dev !== mine.dev || there.ino !== mine.ino) continue;
      if (!made && (rec === 'empty' ? Date.now() - mine.mtimeMs < EMPTY_GRACE_MS : holderAlive(rec))) return { held: false, holder: rec === 'empty' ? STARTING : rec };
      const record = ownRecord(version);
      fs.ftruncateSync(fd, 0);
      fs.writeSync(fd, JSON.stringify(record) + '\n', 0);
      fs.fsyncSync(fd);
      // Not passed on to a program the service starts (its panes): the lock is the service's alone
      // (Node opens files close-on-exec already; said here, as the lock depends on it).
      setCloseOnExec(fd);
      kept = true;
      // Removed before it is let go: a taker that opened this file meanwhile finds it is no longer the lock's.
      return held(file, record, () => fs.closeSync(fd));
    } finally {
      if (!kept) fs.closeSync(fd);
    }
  }
  throw new Error(`the service lock ${file} could not be taken after 20 tries: remove it if no Terminal Delight service runs, then start again`);
}

/** A lock file's record read through its descriptor, from its start. */
function readFd(fd: number): LockRecord | 'empty' {
  const buf = Buffer.alloc(4096);
  const n = fs.readSync(fd, buf, 0, buf.length, 0);
  return parseRecord(buf.toString('utf8', 0, n)) ?? 'empty';
}

/**
 * The lock by O_EXCL, where flock cannot be used. A stale lock is renamed to a name of this
 * process's own (atomic), then checked: if what moved is the stale record judged, it is
 * deleted and the lock is tried again; if it is a live holder's fresh record (another
 * taker won meanwhile), it is linked back and that holder wins.
 */
function acquireByRename(file: string, version: string, test?: { beforeMove?(): void }): Acquired {
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
        if (Date.now() - judged.mtimeMs < EMPTY_GRACE_MS) return { held: false, holder: STARTING };
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
        return { held: false, holder: moved === 'empty' ? STARTING : moved };
      }
      fs.rmSync(aside, { force: true });
      continue;
    }
    const record = ownRecord(version);
    try {
      fs.writeFileSync(fd, JSON.stringify(record) + '\n');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return held(file, record);
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
