/** What the OS knows of a process: its parent, its working folder, whether it still runs and since when (Linux /proc; macOS ps/lsof). */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export function parentPid(pid: number): number | undefined {
  if (process.platform === 'linux') {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(fields[1]);
      return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
    } catch {
      return undefined;
    }
  }
  try {
    const out = execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000 });
    const ppid = Number(out.trim());
    return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The foreground process group of the terminal `pid` controls (Linux: /proc's tpgid;
 * elsewhere `ps -o tpgid=`), or undefined when the OS does not tell.
 */
export function foregroundGroup(pid: number): number | undefined {
  if (process.platform === 'linux') {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // after "pid (comm) ": state ppid pgrp session tty_nr tpgid
      const tpgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[5]);
      return Number.isInteger(tpgid) && tpgid > 0 ? tpgid : undefined;
    } catch {
      return undefined;
    }
  }
  try {
    const out = execFileSync('ps', ['-o', 'tpgid=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000 });
    const tpgid = Number(out.trim());
    return Number.isInteger(tpgid) && tpgid > 0 ? tpgid : undefined;
  } catch {
    return undefined;
  }
}

/** Walk from `pid` up its parents (itself included) until `isTarget` says yes. */
export function findAncestor(pid: number, isTarget: (pid: number) => boolean, maxDepth = 64): number | undefined {
  let p: number | undefined = pid;
  for (let i = 0; p !== undefined && p > 1 && i < maxDepth; i++) {
    if (isTarget(p)) return p;
    p = parentPid(p);
  }
  return undefined;
}

/** The process's current folder, when the OS tells. */
export function processCwd(pid: number): string | undefined {
  if (process.platform === 'linux') {
    try {
      return fs.readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      return undefined;
    }
  }
  if (process.platform === 'darwin') {
    try {
      const out = execFileSync('lsof', ['-a', '-p', String(pid), '-d', 'cwd', '-Fn'], { encoding: 'utf8', timeout: 2000 });
      const line = out.split('\n').find((l) => l.startsWith('n'));
      return line ? line.slice(1) : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** A process's state letter and start time, from /proc (Linux); undefined elsewhere or when it is gone. */
function processStat(pid: number): { state: string; startTicks: number | undefined } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    return { state: fields[0] ?? '', startTicks: Number.isFinite(ticks) ? ticks : undefined };
  } catch {
    return undefined;
  }
}

/** The start time of a process, from /proc (Linux); undefined elsewhere or when it is gone. */
export function processStartTicks(pid: number): number | undefined {
  return processStat(pid)?.startTicks;
}

/**
 * Whether process `pid` runs, and is the one that started at `startTicks` when given (Linux:
 * a pid the system reused is not it). A zombie is not running: it has ended, and holds
 * nothing, only its parent has not collected it yet (a serve at rest is /bin/sh, which
 * collects children it did not start only when it next waits).
 */
export function processAlive(pid: number, startTicks?: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = processStat(pid);
  // No /proc here (not Linux): the pid check is all there is.
  if (!stat) return !fs.existsSync('/proc/self/stat');
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return startTicks === undefined || stat.startTicks === startTicks;
}

/** This boot's id (Linux), to tell a process of this boot from one with the same pid before a restart. */
export function bootId(): string | undefined {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The process groups with a live process in session `sid` (a pane's: its first process leads
 * it, and everything started from its terminal stays in it unless it calls setsid), counting
 * only processes started at or after `since` (start ticks; the session's leader's). Linux:
 * every process in /proc; elsewhere the group `sid` when it still has a process.
 */
export function sessionGroups(sid: number, since?: number): number[] {
  if (!Number.isInteger(sid) || sid <= 1) return [];
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    try {
      process.kill(-sid, 0);
      return [sid];
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'EPERM' ? [sid] : [];
    }
  }
  const groups = new Set<number>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // after "pid (comm) ": state ppid pgrp session ... starttime (the 20th)
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(f[3]) !== sid || f[0] === 'Z' || f[0] === 'X') continue;
    if (since !== undefined && Number(f[19]) < since) continue;
    groups.add(Number(f[2]));
  }
  return [...groups];
}

/** Send `sig` to every process group in session `sid` (see sessionGroups); the groups signalled. */
export function signalSession(sid: number, sig: NodeJS.Signals, since?: number): number[] {
  const groups = sessionGroups(sid, since);
  for (const g of groups) {
    try {
      process.kill(-g, sig);
    } catch {
      // gone already, or not ours
    }
  }
  return groups;
}
