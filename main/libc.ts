/**
 * The few C library calls Node does not offer, through koffi (a foreign-function library
 * with prebuilt binaries for every platform the app ships on): loaded on first use, and
 * null where there is no C library koffi can open (then callers do without, or say so).
 */
import { createRequire } from 'node:module';

type Koffi = typeof import('koffi');
type Lib = ReturnType<Koffi['load']>;

let lib: Lib | null | undefined;
let koffiModule: Koffi | undefined;

/** The process's C library: glibc or musl on Linux, libSystem on macOS; null elsewhere or without koffi. */
export function libc(): Lib | null {
  if (lib !== undefined) return lib;
  lib = null;
  const names = process.platform === 'linux' ? ['libc.so.6', 'libc.so'] : process.platform === 'darwin' ? ['/usr/lib/libSystem.B.dylib'] : [];
  if (names.length === 0) return lib;
  let koffi: Koffi;
  try {
    koffi = createRequire(import.meta.url)('koffi') as Koffi;
  } catch {
    return lib;
  }
  koffiModule = koffi;
  for (const name of names) {
    try {
      lib = koffi.load(name);
      break;
    } catch {
      // the next name (musl's libc has no .so.6)
    }
  }
  return lib;
}

/** A C library function by its declaration (koffi's), loaded on first use; null where it cannot be. */
function cFunction<F>(declaration: string): () => F | null {
  let f: F | null | undefined;
  return () => {
    if (f === undefined) {
      f = null;
      try {
        f = (libc()?.func(declaration) as unknown as F | undefined) ?? null;
      } catch {
        f = null;
      }
    }
    return f;
  };
}

// fcntl's commands and flag: the same numbers on Linux and macOS.
const F_GETFD = 1;
const F_SETFD = 2;
const FD_CLOEXEC = 1;

const fcntlOf = cFunction<(fd: number, cmd: number, ...rest: unknown[]) => number>('int fcntl(int fd, int cmd, ...)');

/**
 * Marks `fd` close-on-exec, so no program this process starts afterwards inherits it.
 * True once the flag is set; false where it cannot be (no C library, or a closed fd).
 */
export function setCloseOnExec(fd: number): boolean {
  const fcntl = fcntlOf();
  if (!fcntl || !Number.isInteger(fd) || fd < 0) return false;
  const flags = fcntl(fd, F_GETFD);
  if (flags < 0) return false;
  if (flags & FD_CLOEXEC) return true;
  return fcntl(fd, F_SETFD, 'int', flags | FD_CLOEXEC) === 0;
}

// flock's operations: the same numbers on Linux and macOS.
const LOCK_EX = 2;
const LOCK_NB = 4;

const flockOf = cFunction<(fd: number, operation: number) => number>('int flock(int fd, int operation)');

/**
 * An exclusive flock(2) on `fd`, not waited for: 'locked' once this open file holds it (until
 * it is closed, or the process ends: the kernel lets it go, whatever killed it), 'held' when
 * another open file holds it, undefined where flock cannot be used (no C library, or a file
 * system that refuses it).
 */
export function tryFlock(fd: number): 'locked' | 'held' | undefined {
  const flock = flockOf();
  if (!flock || !koffiModule || !Number.isInteger(fd) || fd < 0) return undefined;
  if (flock(fd, LOCK_EX | LOCK_NB) === 0) return 'locked';
  return koffiModule.errno() === koffiModule.os.errno.EWOULDBLOCK ? 'held' : undefined;
}
