/**
 * Ending what a pane ran, as "Quit and end all panes" does and `service stop` now does too:
 * a hang-up first (as a terminal closing gives), then SIGTERM to every process group still
 * there, then SIGKILL. Waits are polled, so a pane that ends at the hang-up costs nothing.
 */
import { bootId, processStartTicks, sessionGroups, signalSession } from './proc.ts';

/** A pane's process as its record keeps it: its pid (which leads the pane's session), when it started, and on which boot. */
export interface ProcessRecord {
  pid: number;
  startTicks?: number;
  boot?: string;
}

export interface Escalation {
  /** SIGTERM to what is left this long after the hang-up. */
  termAfterMs: number;
  /** SIGKILL to what is left this long after the hang-up. */
  killAfterMs: number;
  /** How long to wait, after SIGKILL, for it to be gone. */
  graceMs?: number;
}

export const QUIT_ESCALATION: Escalation = { termAfterMs: 2_000, killAfterMs: 5_000, graceMs: 2_000 };

/** The record of a process running now (its start time and this boot's id where the OS tells). */
export function processRecord(pid: number): ProcessRecord {
  const rec: ProcessRecord = { pid };
  const ticks = processStartTicks(pid);
  if (ticks !== undefined) rec.startTicks = ticks;
  const boot = bootId();
  if (boot) rec.boot = boot;
  return rec;
}

/**
 * The process groups of a recorded pane process's session that still run: none when the
 * record is of another boot, or when the OS cannot tell (no boot id: outside Linux, a pid
 * number says nothing after a restart).
 */
export function stillRunning(rec: ProcessRecord | undefined): number[] {
  if (!rec || !rec.boot || rec.boot !== bootId()) return [];
  return sessionGroups(rec.pid, rec.startTicks);
}

/**
 * Wait for `done`, escalating with `signal('SIGTERM')` and `signal('SIGKILL')` at the
 * escalation's times; true once `done` says so.
 */
export async function escalate(done: () => boolean, signal: (sig: NodeJS.Signals) => void, e: Escalation = QUIT_ESCALATION, pollMs = 50): Promise<boolean> {
  const start = Date.now();
  const until = async (ms: number): Promise<boolean> => {
    while (!done()) {
      if (Date.now() - start >= ms) return false;
      await new Promise((r) => setTimeout(r, pollMs));
    }
    return true;
  };
  if (await until(e.termAfterMs)) return true;
  signal('SIGTERM');
  if (await until(e.killAfterMs)) return true;
  signal('SIGKILL');
  return until(e.killAfterMs + (e.graceMs ?? 2_000));
}

/**
 * End what still runs of a recorded pane process (its whole session: the program itself and
 * whatever it started from its terminal): SIGHUP, then SIGTERM and SIGKILL as `e` says.
 * True when nothing of it runs any more.
 */
export async function endRecorded(rec: ProcessRecord | undefined, e: Escalation = QUIT_ESCALATION): Promise<boolean> {
  if (stillRunning(rec).length === 0) return true;
  const r = rec!;
  signalSession(r.pid, 'SIGHUP', r.startTicks);
  return escalate(() => stillRunning(r).length === 0, (sig) => void signalSession(r.pid, sig, r.startTicks), e);
}
