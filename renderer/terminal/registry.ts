/**
 * Every pane's terminal in this window, by pane id. Output for a pane without a
 * terminal here (not in the layout, or not drawn yet) is acknowledged at once, so
 * this window never holds a pane's PTY paused.
 */
import type { TdApi } from '../../preload/contract.ts';
import { Acker, acknowledge } from './flow.ts';
import type { TerminalSession } from './session.ts';
import { SnapshotQueue } from './snapshots.ts';

export class TerminalRegistry {
  private readonly sessions = new Map<string, TerminalSession>();
  private readonly strayAckers = new Map<string, Acker>();
  private readonly api: TdApi;
  /** Snapshots of this window's panes, a few at a time, the focused pane first. */
  readonly snapshots = new SnapshotQueue(2);

  constructor(api: TdApi) {
    this.api = api;
  }

  get(paneId: string): TerminalSession | undefined {
    return this.sessions.get(paneId);
  }

  ensure(paneId: string, make: () => TerminalSession): TerminalSession {
    let s = this.sessions.get(paneId);
    if (!s) {
      s = make();
      this.sessions.set(paneId, s);
      this.strayAckers.get(paneId)?.flush();
      this.strayAckers.delete(paneId);
    }
    return s;
  }

  all(): TerminalSession[] {
    return [...this.sessions.values()];
  }

  output(paneId: string, data: string): void {
    const s = this.sessions.get(paneId);
    if (s) {
      s.output(data);
      return;
    }
    let a = this.strayAckers.get(paneId);
    if (!a) {
      a = new Acker((chars) => acknowledge(this.api, paneId, chars));
      this.strayAckers.set(paneId, a);
    }
    a.written(data.length);
    // A pane out of view gets its debt cleared right away, chunk or not.
    a.flush();
  }

  /** Drop terminals of panes that are no longer shown. */
  keepOnly(paneIds: Iterable<string>): void {
    const keep = new Set(paneIds);
    for (const [id, s] of this.sessions) {
      if (!keep.has(id)) {
        s.dispose();
        this.sessions.delete(id);
      }
    }
  }

  removed(paneId: string): void {
    this.sessions.get(paneId)?.dispose();
    this.sessions.delete(paneId);
    this.strayAckers.delete(paneId);
  }
}
