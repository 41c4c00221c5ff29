/**
 * The interfaces services offer one another inside the core. Each service lives in
 * its own folder and is installed by main/app.ts; a service reaches another only
 * through these interfaces, so each can be built and tested on its own.
 */
import type { ActionRecord, AgentStatus, PaneInfo, PaneKind, Res, Settings, SettingsPatch, Surface, SurfaceRoute } from '../preload/contract.ts';

export interface CreatePaneOptions {
  cwd?: string;
  /** argv; the user's login shell when absent. */
  command?: string[];
  kind?: PaneKind;
  /** Extra environment for the process (on top of the pane's TD_* variables). */
  env?: Record<string, string>;
  /** Where the new pane goes in the layout; absent: beside the focused pane, or alone. */
  splitOf?: string;
  direction?: 'right' | 'down';
  cols?: number;
  rows?: number;
  title?: string;
  instanceId?: string;
  /** Restore a pane under its saved id (and so its folder and bench). */
  paneId?: string;
  /** Leave the pane out of the layout (for example a Tick that is not viewed yet). */
  detached?: boolean;
}

export interface PaneServiceApi {
  /** $TD_SESSION of this window's panes. */
  readonly session: string;
  list(): PaneInfo[];
  get(paneId: string): PaneInfo | undefined;
  create(opts: CreatePaneOptions): PaneInfo;
  /** End the pane: SIGHUP to its process, out of the layout, gone. */
  close(paneId: string): void;
  /** Take the pane's view out of the layout but keep its process running (Tick views). */
  detach(paneId: string): void;
  /** Put a running pane (back) into the layout, beside `splitOf` or the focused pane. */
  attach(paneId: string, splitOf?: string, direction?: 'right' | 'down'): void;
  /** Resize the pane's PTY (and its headless screen); SIGWINCH follows. */
  resize(paneId: string, cols: number, rows: number): void;
  /** Raw bytes to the pane's PTY, exactly as given. */
  write(paneId: string, data: string): void;
  /** A line typed as a person would: the text, then its return a moment later; lines to one pane in order. */
  submit(paneId: string, line: string): void;
  /** The visible screen as plain text, one line per row, trailing spaces trimmed. */
  screenText(paneId: string): string;
  /** The screen and at most `scrollback` lines of history as escape sequences (pane.snapshot); `clientId` becomes a reader of its output; with `size`, the pane resized to it first. */
  snapshot(paneId: string, clientId?: string, scrollback?: number | 'all', size?: { cols: number; rows: number }): Promise<Res<'pane.snapshot'>>;
  /** The pane's folder (created on demand): $XDG_STATE_HOME/terminal-delight/surfaces/$TD_SESSION/$TD_PANE_ID */
  folder(paneId: string): string;
  /** The pane whose process tree holds this pid (walking parents), if any. */
  paneOfPid(pid: number): string | undefined;
  /** Fields other services own: the agent's status, the bench, unseen counts. */
  patch(paneId: string, patch: Partial<Pick<PaneInfo, 'agent' | 'benchOpen' | 'unseen' | 'title' | 'instanceId' | 'agentCli' | 'worktree' | 'usage'>>): void;
  /** The pane's process group leader pid, while it runs. */
  pid(paneId: string): number | undefined;
  /**
   * Whether the pane's own shell is in the terminal's foreground, waiting for a command
   * (nothing it started is running): a line typed now would be run by the shell.
   */
  shellAtPrompt(paneId: string): boolean;
  onCreated(listener: (pane: PaneInfo) => void): () => void;
  onExit(listener: (pane: PaneInfo) => void): () => void;
  onRemoved(listener: (paneId: string) => void): () => void;
  onOutput(listener: (paneId: string, data: string) => void): () => void;
  /** Input was written to a pane (a key, a paste, a line a surface or an agent typed). */
  onInput(listener: (paneId: string) => void): () => void;
  /** A pane's headless screen moved old scrollback to its text archive. */
  onCompacted(listener: (paneId: string) => void): () => void;
}

export interface IngestResult {
  /** The surface stored (or the unclassified card made instead). */
  surface?: Surface;
  /** The id retired, for a retire. */
  retiredId?: string;
  /** Strict mode's refusal: one sentence saying what is wrong and what to do. */
  refusal?: string;
}

export interface SurfaceServiceApi {
  /**
   * The one entry every route ends in. Strict (MCP) refuses with a reason; lenient
   * (file, transcript, agent) turns anything unreadable into an unclassified card.
   */
  ingest(paneId: string, doc: unknown, route: SurfaceRoute, opts?: { strict?: boolean; file?: string }): IngestResult;
  list(paneId: string): Surface[];
  /** Record an action and type its line into the pane (for actions that are typed). */
  act(paneId: string, surfaceId: string, action: string, target?: string, comment?: string): { ok: true; record: ActionRecord } | { ok: false; error: string };
  /** Whether an agent sent any surface to this pane since the given time. */
  sentSince(paneId: string, since: string): boolean;
  /**
   * Read surfaces out of this transcript (Claude Code or Codex JSONL) from now on:
   * called once the pane's transcript is known for sure (a TDAC `session` event).
   */
  watchTranscript(paneId: string, transcriptPath: string): void;
  /**
   * Let another service take an action instead of typing its line (for example the
   * agent channel answers a waiting hook through answers/<id>.json). Each action asks
   * every interceptor twice: first with phase 'check', before anything is recorded,
   * where nothing may change: `handled: true` with an `error` refuses the action
   * (nothing is written; for example a late answer to a question the agent stopped
   * waiting for), `handled: true` alone claims it (it will not be typed); then, once actions.jsonl has the record, with phase 'apply', where the
   * first interceptor that returns `handled: true` takes the action instead of the
   * typed line.
   */
  intercept(fn: (paneId: string, surface: Surface, action: string, target: string | undefined, comment: string | undefined, phase: 'check' | 'apply') => { handled: boolean; error?: string }): () => void;
}

export interface AgentStatusApi {
  set(paneId: string, status: AgentStatus, detail?: string): void;
}

export interface SettingsApi {
  get(): Settings;
  /** What was wrong with settings.json at start, in one sentence (until a setting is saved). */
  problem?(): string | undefined;
  set(patch: SettingsPatch): Settings;
  onChange(listener: (s: Settings) => void): () => void;
}
