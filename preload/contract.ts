/**
 * The one typed list of every message between the core and the renderer.
 *
 * Both shells (Electron IPC in main/electron/, WebSocket in main/serve/) carry
 * exactly these messages, and the renderer reaches them only through `window.td`
 * (type `TdApi`). Nothing else crosses. Types only: this file has no runtime code
 * besides the channel name lists, so it can be imported from any side.
 */

// ───────────────────────────── shared shapes ─────────────────────────────

export type PaneKind = 'shell' | 'agent' | 'tick';

/** What an agent running in a pane is doing, from the TDAC hooks. */
export type AgentStatus = 'working' | 'blocked' | 'done' | 'idle';

/** The agent CLIs the app recognises in a pane (by argv[0] or by their hooks). */
export type AgentName = 'claude' | 'codex' | 'gemini' | 'opencode';

export interface PaneInfo {
  id: string;
  /** 8 characters of a-z0-9, the pane's $TD_TAG, echoed in every action line. */
  tag: string;
  kind: PaneKind;
  /** From OSC 0/2 title sequences, else the program or the cwd. */
  title: string;
  cwd: string;
  /** The command the pane runs (argv). */
  command: string[];
  status: 'running' | 'exited';
  exitCode?: number;
  signal?: number;
  /** The service ended its program as it stopped, restarted or quit: "service stop", "service restart", "Quit" (the header says "ended by …", not the signal). */
  endedBy?: string;
  cols: number;
  rows: number;
  /** Set once an agent's hooks report on this pane. */
  agent?: { status: AgentStatus; since: string; detail?: string };
  /** For tick panes: the hosted instance the pane views. */
  instanceId?: string;
  /** Whether the pane's workbench is open (mirrors bench.json). */
  benchOpen: boolean;
  /** Unseen surfaces on the pane's bench. */
  unseen: number;
  /** The agent CLI the pane runs, when recognised, and its own session id once known (for resume). */
  agentCli?: { name: AgentName; sessionId?: string };
  /**
   * Set when the pane's process did not end by itself but with the service (a quit, an
   * upgrade, a crash, a reboot): why, when, and the argv `pane.resume` would start.
   */
  ended?: { reason: string; at: string; resumeArgv: string[] };
  /** The last command the pane's shell ran, from its shell integration marks (OSC 133): exit status, how long it ran, when it ended. */
  lastCommand?: { exitCode: number; durationMs: number; at: string };
  /** Set when the pane's agent works in a git worktree the app made (issue 12). */
  worktree?: PaneWorktree;
  /** Tokens and cost of the agent session the pane runs, read from its transcript (main/usage). */
  usage?: SessionUsage;
}

/** An agent session's tokens, and their cost at the dated price file's prices (none for a model it does not list). */
export interface SessionUsage {
  /** The model the session used last. */
  model?: string;
  /** Input tokens not read from the cache. */
  input: number;
  output: number;
  /** Input tokens read from the prompt cache. */
  cacheRead: number;
  /** Input tokens written to the prompt cache. */
  cacheWrite: number;
  /** In `currency`; absent when a model of the session has no price (tokens only). */
  cost?: number;
  currency: string;
  /** The price file's date (assets/prices/<date>.json). */
  pricesDate: string;
  /** Models the price file does not list (their tokens are counted, not priced). */
  unpriced?: string[];
}

/** One agent session's tokens on one day with one model (main/usage): what the Usage view and `terminal-delight usage` sum. */
export interface UsageRow {
  /** The local day the tokens were used on, `YYYY-MM-DD`. */
  day: string;
  paneId: string;
  paneTitle: string;
  agent: string;
  /** The agent's own session id, when known. */
  sessionId?: string;
  /** The transcript the tokens were read from (one per agent session). */
  transcript: string;
  /** The worktree the pane's agent works in, when the app made one for it. */
  worktree?: { branch: string; path: string };
  /** The pane's folder. */
  folder: string;
  model: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** In the summary's currency; absent when the price file does not list the model (tokens only). */
  cost?: number;
}

/** Every agent session's usage the service has read, by day and model, at the newest price file. */
export interface UsageSummary {
  currency: string;
  pricesDate: string;
  rows: UsageRow[];
}

/**
 * A shell prompt in a snapshot (shell integration, OSC 133): its line as an offset from the
 * cursor's line once the snapshot is drawn (0 or less), and its command's status and time
 * once it ended. The snapshot's text carries no marks; these put them back.
 */
export interface SnapshotPrompt {
  offset: number;
  exitCode?: number;
  durationMs?: number;
}

/** A pane's worktree: its folder, branch, the base it was made from and how far apart they are. */
export interface PaneWorktree {
  /** The worktree's folder (the pane's cwd when it started). */
  path: string;
  /** The main repository's folder. */
  repo: string;
  branch: string;
  base: string;
  /** Commits on the branch not on the base, and on the base not on the branch. */
  ahead: number;
  behind: number;
}

/** A worktree the app made, as its registry (worktrees.json in the state folder) and git know it. */
export interface WorktreeInfo extends PaneWorktree {
  /** The pane whose agent works there; absent when no pane has it (left behind). */
  paneId?: string;
  createdAt: string;
  /** The folder is gone (removed outside the app): listed so it can be forgotten. */
  missing?: boolean;
}

/** The answer of worktree requests: ok with what was done, or one sentence saying what was wrong. */
export type WorktreeResult<T extends object = Record<never, never>> = ({ ok: true } & T) | { ok: false; error: string };
/** What a pane's Changes card shows by turn (main/turns): the last turn, the hunks not yet marked Reviewed, or everything. */
export type TurnView = 'turn' | 'reviewed' | 'all';
export type TurnsResult<T extends object = Record<never, never>> = ({ ok: true } & T) | { ok: false; error: string };

/** The window's tiling: leaves are panes, splits share space by fractions summing to 1. */
export type Layout =
  | { type: 'pane'; paneId: string }
  | { type: 'split'; direction: 'row' | 'column'; sizes: number[]; children: Layout[] };

/**
 * A window's panes area (`width` × `height`) and the smallest a pane may be made
 * (`minWidth` × `minHeight`; `benchWidth` more for a pane whose bench is open), in CSS px.
 */
export interface LayoutArea { width: number; height: number; minWidth: number; minHeight: number; benchWidth?: number }

export interface Settings {
  theme: 'system' | 'light' | 'dark';
  fontSize: number;
  fontFamily: string;
  scrollback: number;
  copyOnSelect: boolean;
  /** Whether the app's MCP server answers at all. */
  mcpServer: boolean;
  /** Whether MCP tools may write (present_surface, Tick calls). */
  mcpWrites: boolean;
  /** The command "New agent pane" runs. */
  agentCommand: string[];
  /** Desktop notifications when an agent is blocked or done, or a Tick fails. */
  notifications: boolean;
  /** What closing the last window does: keep every pane running (the service stays), or end them all. */
  windowClose: 'keep' | 'end';
  /** Panes that were running when the service last stopped: resumed as it starts (none, plain shells only, or all). */
  resumeAtStart: 'none' | 'shells' | 'all';
  /** Shell integration for bash, zsh and fish (prompt marks, cwd, exit status); off: shells start as they are. */
  shellIntegration: boolean;
  /** Folder new agent worktrees go in; empty: beside the repository (<repo>.worktrees/). */
  worktreeFolder: string;
  /** A shell command run in a new worktree before its agent starts (e.g. "npm ci"); empty: none. */
  worktreeSetup: string;
  /** Machines connected before (docs/design/remote.md): the home service connects them again as it starts. */
  machines: MachineRecord[];
  /** Search everything (main/search): what is indexed, how long it is kept, which agents may search through MCP. */
  search: SearchSettings;
}

/** A machine the home service reaches over the person's own ssh, as saved in settings. */
export interface MachineRecord {
  /** Letters, digits, . _ - (never /: it qualifies pane ids, `build-box/p3k9…`). */
  name: string;
  /** `[user@]host[:port]`, as given to ssh (a Host alias works). */
  target: string;
  /** `#rrggbb`, shown with the machine's name in each of its pane headers. */
  colour: string;
  /** The far command, when terminal-delight is not on the far PATH as `terminal-delight`. */
  command?: string;
}

/** A machine as the home service holds it now. */
export interface MachineInfo extends MachineRecord {
  state: 'connecting' | 'connected' | 'reconnecting' | 'failed';
  /** Why it is not connected (one sentence with the command that fixes it). */
  reason?: string;
  /** The far machine's hostname and its service's terminal-delight version, from its bridge's hello. */
  hostname?: string;
  version?: string;
  /** Its running panes, qualified (`build-box/p3k9…`), as last heard. */
  panes: string[];
  /** Attempts since the link last dropped. */
  attempts: number;
  /** The link's ssh process, while one runs. */
  sshPid?: number;
}

/** A change of some settings; of the search settings too, only the fields given change. */
export type SettingsPatch = Partial<Omit<Settings, 'search'>> & { search?: Partial<SearchSettings> };

export interface SearchSettings {
  /** Whether anything is indexed (off: nothing new is added; what is there stays searchable until kept days pass). */
  enabled: boolean;
  /** Days an entry is kept (0: forever). */
  keepDays: number;
  /** Pane ids (or tags) whose output, commands and agent events are never indexed. */
  excludePanes: string[];
  /** Agents whose MCP connection may call search_history (off for every agent by default). */
  mcpAgents: AgentName[];
  /** What is not indexed, by source (none by default); what was indexed before stays until kept days pass. */
  leaveOut: SearchSource[];
}

/** What the index is fed from, as the settings choose them: pane output, commands, agents' prompts, replies and tool runs, cards and decisions, Tick calls. */
export type SearchSource = 'output' | 'commands' | 'agents' | 'cards' | 'ticks';
export const SEARCH_SOURCES: readonly SearchSource[] = ['output', 'commands', 'agents', 'cards', 'ticks'];
/** The source each kind of entry comes from. */
export const SOURCE_OF_KIND: Readonly<Record<SearchKind, SearchSource>> = { output: 'output', command: 'commands', prompt: 'agents', reply: 'agents', tool: 'agents', surface: 'cards', decision: 'cards', tick: 'ticks' };

/** What a line in the search index is. `failed` (a filter only) is a command whose exit status was not 0. */
export type SearchKind = 'output' | 'command' | 'prompt' | 'reply' | 'tool' | 'surface' | 'decision' | 'tick';

/**
 * A query's last word matches as a prefix only from this many characters; a shorter one
 * matches whole words (the palette asks again as the person types on).
 */
export const SEARCH_PREFIX_MIN = 3;

export interface SearchQuery {
  query: string;
  agent?: string;
  pane?: string;
  /** A folder: entries whose folder is it or inside it. */
  folder?: string;
  kind?: SearchKind | 'failed';
  /** ISO date or time: only entries at or after it. */
  since?: string;
  /** At most this many hits (default 50, at most 500). */
  limit?: number;
  /**
   * A connected machine's name: its own index is asked (through the home service) and its
   * hits' pane ids come back qualified (`name/paneId`); `*`: this machine's and every connected
   * one's, newest first. Absent or empty: this machine's.
   */
  machine?: string;
}

/** An agent's prompt, reply or tool run, as the index and the transcript viewer hold it. */
export interface SearchTranscriptEntry {
  kind: 'prompt' | 'reply' | 'tool';
  at: number;
  /** The agent event's id. */
  ref: string;
  text: string;
  agent: string;
}

/** An agent session's prompts, replies and tool runs (the pane's inbound.jsonl), for a hit's viewer. */
export interface SearchTranscript {
  agent?: string;
  /** The agent's own session id. */
  sessionId?: string;
  /** The agent's own transcript file, where its session event named it. */
  path?: string;
  entries: SearchTranscriptEntry[];
  /** Which entry the hit is (-1: not among them). */
  index: number;
  /** Entries of a long session left out before and after these. */
  cut: { before: number; after: number };
}

export interface SearchHit {
  id: number;
  kind: SearchKind;
  /** Milliseconds since the epoch. */
  at: number;
  paneId: string;
  session: string;
  agent?: string;
  folder?: string;
  /** Output: the pane's output line (0 is its first line); a command's line where it ran. */
  line?: number;
  exitCode?: number;
  /** A surface's id (surface, decision), a Tick instance (tick), an agent event's id. */
  ref?: string;
  text: string;
  /** The text with each match between \u0001 and \u0002 (the renderer highlights them). */
  marked: string;
}

// ───────────────────────────── surfaces (TDSP) ─────────────────────────────

export type SurfaceKind =
  | 'response' | 'decision' | 'question' | 'change' | 'artifact'
  | 'table' | 'diagram' | 'comment' | 'unclassified';

export type Shelf = 'Decide' | 'Review' | 'Replies' | 'Files' | 'Data' | 'Notes' | 'Unsorted';

/** `worktree`: the app's own Changes card of a pane's worktree (never counted as the agent's). */
export type SurfaceRoute = 'file' | 'mcp' | 'cli' | 'transcript' | 'agent' | 'person' | 'worktree';

/** A surface as held in a pane's store and shown on its bench. */
export interface Surface {
  id: string;
  kind: SurfaceKind;
  title: string;
  shelf: Shelf;
  model: Record<string, unknown>;
  /** Where it came from. */
  route: SurfaceRoute;
  /** Arrival order within the pane: rises with every arrival, never reused. */
  order: number;
  /** When it first arrived and when it last changed (RFC 3339). */
  arrivedAt: string;
  updatedAt: string;
  /** For unclassified: why, and the raw text or value. */
  reason?: string;
  raw?: string;
  /** Whether the person has seen it (its shelf was on screen since it arrived or changed). */
  seen: boolean;
  /** Actions taken on it, oldest first. */
  acted: ActionRecord[];
  /** The file in the pane folder that holds it, when there is one. */
  file?: string;
}

export interface ActionRecord {
  action: string;
  target?: string;
  comment?: string;
  at: string;
  /** The exact line typed into the pane (without the return), when one was typed. */
  line?: string;
}

export interface CatalogueKind {
  kind: SurfaceKind;
  shelf: Shelf;
  actions: string[];
  defaultTitle: string;
  offeredToAgents: boolean;
  summary: string;
}

/** How the renderer shows an artifact. URLs are same-origin paths the shell serves (see Core.serveFiles). */
export type ArtifactView =
  | { kind: 'markdown'; name: string; text: string }
  | { kind: 'html'; name: string; url: string }
  | { kind: 'image'; name: string; url: string }
  | { kind: 'external'; name: string; url?: string; message: string }
  | { kind: 'missing'; name: string; message: string };

// ───────────────────────────── Ticks ─────────────────────────────

export type Outcome = 'not_executed' | 'executed' | 'unknown';

export interface InstanceInfo {
  /** `hosted:<id>`, `shell:<pane-id>` or `artifact:<id>`. */
  id: string;
  kind: string;
  title: string;
  status: 'starting' | 'ready' | 'ended' | 'failed';
  paneId?: string;
  reason?: string;
}

/** One prerequisite of a Tick package and whether it looks met here (null: free text, a person judges). */
export interface PrerequisiteStatus {
  kind: 'env' | 'command' | 'file' | 'text';
  text: string;
  met: boolean | null;
  /** What is missing, when it is not met. */
  detail?: string;
}

/** An installed Tick package: a folder with the Tick and its Skill (docs/spec/tick-packages.md). */
export interface TickPackageInfo {
  name: string;
  description: string;
  /** Installed for one project (`.terminal-delight/ticks/`) or for the user. */
  scope: 'project' | 'user';
  folder: string;
  /** The exact open arguments it resolves to (absolute argv and cwd); absent when its Skill does not read. */
  launch?: { command: string[]; cwd: string; title?: string };
  prerequisites: PrerequisiteStatus[];
  /** The Skill reads and every prerequisite that can be checked is met. */
  ready: boolean;
  /** Why it cannot be opened, in one sentence. */
  problem?: string;
}

export interface ApprovalRequest {
  id: string;
  instanceId: string;
  /** The pane whose agent asked, when known, and the Tick's own pane. */
  askingPaneId?: string;
  tickPaneId?: string;
  tool: string;
  description: string;
  args: unknown;
  revision: string;
  requestedAt: string;
  /** Seconds the request waits before it is refused as timed out. */
  timeoutSeconds: number;
  /** `invalidated`: the Tick's catalog changed (or its session ended) before dispatch; the call was never sent. */
  state: 'pending' | 'approved' | 'refused' | 'timed_out' | 'invalidated';
  /** Why it was refused, timed out or invalidated, in one sentence. */
  reason?: string;
}

// ───────────────────────────── requests ─────────────────────────────

/** Every request the renderer may make, with its payload and its answer. */
export interface Requests {
  /** First call of a window: who we are and everything to draw. */
  'app.hello': {
    /**
     * `machine`: the window's hello to that machine's service (through the home service's
     * link; the renderer's client takes the field out). `far`: a window reaching this service
     * from another machine, whose layout is the home service's: no first pane is made here.
     */
    req: { machine?: string; far?: boolean };
    res: {
      session: string; panes: PaneInfo[]; layout: Layout | null; focused: string | null; settings: Settings; platform: string; shell: 'electron' | 'serve';
      /** The version of the core (the service) this window talks to. */
      version: string;
      /** The service: its pid, when it started, and its contract protocol number. */
      service: { pid: number; startedAt: string; protocol: number };
      /** One-time notes for the person (each said once, then remembered as said). */
      notices: string[];
      /** settings.json could not be used as it was: one sentence (it was kept aside), until a setting is saved. */
      settingsProblem?: string;
    };
  };
  'settings.set': { req: SettingsPatch; res: Settings };

  /** `machine`: make it on that connected machine (also the machine of a qualified `splitOf`); its id comes back qualified, `name/id`, and goes into this layout. */
  'pane.create': { req: { cwd?: string; command?: string[]; kind?: PaneKind; splitOf?: string; direction?: 'right' | 'down'; machine?: string }; res: PaneInfo };
  'pane.close': { req: { paneId: string }; res: { closed: boolean } };
  'pane.restart': { req: { paneId: string }; res: PaneInfo };
  'pane.input': { req: { paneId: string; data: string }; res: void };
  'pane.resize': { req: { paneId: string; cols: number; rows: number }; res: void };
  /** Flow control: the renderer has written (parsed) this many characters of output. */
  'pane.ack': { req: { paneId: string; chars: number }; res: void };
  /** The pane's screen and scrollback as escape sequences, to draw a pane on attach. */
  /**
   * The pane's screen and at most `scrollback` lines of history (default 1000; 'all': the
   * whole scrollback) as escape sequences, to draw a pane on attach. `complete` is false
   * when older lines were left out. With `cols` and `rows` (both), the pane is resized to that
   * size first (as `pane.resize`) and the snapshot is taken at it, its default history four
   * screens of the new size: a window that knows the size it will show the pane at gets it
   * drawn at that size in one round trip (the page's first script, renderer/early.ts).
   */
  'pane.snapshot': { req: { paneId: string; scrollback?: number | 'all'; cols?: number; rows?: number }; res: { data: string; cols: number; rows: number; complete: boolean; prompts?: SnapshotPrompt[] } };
  'pane.focus': { req: { paneId: string }; res: void };
  /**
   * The rows of the pane's screen as the window's first paint draws them (common/first-paint.ts,
   * `rowsMarkup`: every character from the pane escaped, colours made there), in the first
   * paint's theme, its cursor a bar when `focused`: the page's first script keeps a pane's part
   * of the first paint live with it until the pane's terminal has drawn (renderer/early.ts).
   * `appCursor`: the program asked for application cursor keys. Read-only, like pane.peek.
   * `after` (ms, at most 1000): answered once the pane's next output has come, or after that
   * long, or at once when output came since the pane's last input (its echo is in the screen):
   * asked with a key typed on the first paint, its echo comes back in one answer. A pane closed while awaited is an error at once
   * ("pane "p3" ended while its rows were awaited").
   */
  'pane.rows': { req: { paneId: string; theme: 'light' | 'dark'; focused: boolean; after?: number }; res: { html: string; appCursor: boolean } };
  /**
   * Whether this window shows the pane now: false while its page is hidden (minimized, a
   * browser tab in the background) or the pane is too small to read (fewer than 3 rows or 10
   * columns). Out of view, the window is sent none of the pane's output (its state stays exact
   * in the core) and is not redrawn; shown again, it asks for the pane's snapshot at once.
   */
  'pane.view': { req: { paneId: string; shown: boolean }; res: void };
  /**
   * A look at the pane's screen, read-only: its text (as Ticks read it) and its snapshot with
   * at most `scrollback` lines of history (default 200), without becoming a reader of its
   * output (pane.snapshot makes the asker one, whose acks then pace the pane). Another
   * machine's home service shows far agents' terminals on a phone with it.
   */
  'pane.peek': { req: { paneId: string; scrollback?: number }; res: { text: string; data: string; cols: number; rows: number } };
  /** Every pane of this service (running or ended), as app.hello lists them, without making one or reading any output: another machine's home service reads far panes' cards with it. */
  'pane.list': { req: Record<string, never>; res: PaneInfo[] };
  'layout.set': { req: { layout: Layout }; res: void };
  /** The window's panes area and the smallest usable pane (40 × 8 cells with its chrome), in CSS px: where new panes go follows it. */
  'layout.area': { req: LayoutArea; res: void };

  'surface.list': { req: { paneId: string }; res: Surface[] };
  'surface.act': { req: { paneId: string; surfaceId: string; action: string; target?: string; comment?: string }; res: { ok: true; record: ActionRecord } | { ok: false; error: string } };
  /** Mark surfaces seen (their shelf is on screen). */
  'surface.seen': { req: { paneId: string; surfaceIds: string[] }; res: void };
  /** A person's own note, on the bench or on a surface. */
  'surface.comment': { req: { paneId: string; text: string; on?: string }; res: Surface };
  'surface.catalogue': { req: Record<string, never>; res: CatalogueKind[] };
  'artifact.open': { req: { paneId: string; surfaceId: string }; res: ArtifactView };
  /** Hand an artifact's local file to the desktop (Electron: shell.openPath); serve answers ok: false (the browser downloads it). */
  'artifact.reveal': { req: { paneId: string; surfaceId: string }; res: { ok: boolean; error?: string } };
  'bench.set': { req: { paneId: string; open: boolean }; res: void };

  /** Open a Tick by its command line, or by an installed package (its name, or its folder) instead of command; on a machine (`machine`): opened there, its pane placed in this window's layout. */
  'tick.open': { req: { command?: string[]; package?: string; cwd?: string; title?: string; machine?: string }; res: { ok: true; instance: InstanceInfo; paneId: string } | { ok: false; error: string; screen?: string } };
  'tick.list': { req: Record<string, never>; res: InstanceInfo[] };
  /** Installed Tick packages: the project's holding cwd (when given), then the user's. */
  'tick.packages': { req: { cwd?: string; machine?: string }; res: TickPackageInfo[] };
  /** End a Tick (SIGTERM, then SIGKILL) and its session; `machine`: one of that machine's, sent there. */
  'tick.close': { req: { instanceId: string; machine?: string }; res: void };
  /** Show (open: true, attach the Tick's pane to the layout) or hide (detach) a view; the session runs on either way. */
  'tick.view': { req: { instanceId: string; open: boolean }; res: { ok: boolean; error?: string } };
  'approval.list': { req: Record<string, never>; res: ApprovalRequest[] };
  'approval.answer': { req: { approvalId: string; approve: boolean }; res: { ok: boolean; error?: string } };

  'agent.new': { req: { command?: string[]; cwd?: string; splitOf?: string; direction?: 'right' | 'down'; machine?: string }; res: PaneInfo };
  /** Every agent CLI the app knows, for "+ Agent": settings.agentCommand's first, then those on PATH, then the rest (with how to install them). */
  /**
   * `machine`: that machine's agents (the renderer's client sends it there through the home service).
   * `splitOf`: the pane the agent would start beside (its folder decides whether hooks a project
   * holds count; "+ Agent" sends only this machine's).
   */
  'agent.available': { req: { machine?: string; splitOf?: string }; res: AvailableAgent[] };

  /** Start an ended pane again as it was (same id, folder, env, cwd, size; the agent's resume argv). */
  'pane.resume': { req: { paneId: string }; res: PaneInfo };
  /** Resume every ended pane; the ones that could not start say why. */
  'pane.resumeAll': { req: Record<string, never>; res: { resumed: string[]; failed: Array<{ paneId: string; error: string }> } };
  /** The service: who runs it, and what still runs in it (for "Quit and end all panes"). */
  'service.info': { req: Record<string, never>; res: ServiceInfo };
  /** Stop the service. endPanes: hang up every pane (SIGHUP, then SIGTERM/SIGKILL) and close every Tick first. */
  'service.quit': { req: { endPanes: boolean }; res: { ok: boolean; error?: string } };
  /**
   * Start the service again after it was stopped on purpose (`service.stopping` with how
   * 'stop'): answered by serve, which holds the window's door meanwhile (main/serve/stopped.ts);
   * a running service answers ok, as it runs.
   */
  'service.start': { req: Record<string, never>; res: { ok: boolean; error?: string } };
  /**
   * Connect a machine over the person's own ssh (docs/design/remote.md); saved in settings once
   * connected. `authSock`: the asking client's SSH_AUTH_SOCK. Refused in one sentence (why, and
   * the command that fixes it) when it cannot be reached.
   */
  'machine.connect': { req: { target: string; name?: string; colour?: string; command?: string; authSock?: string }; res: MachineInfo };
  /** Every machine the home service holds, with its state and panes. */
  'machine.list': { req: Record<string, never>; res: MachineInfo[] };
  /** "Retry now": try a machine that is not connected at once, instead of at its next backoff. */
  'machine.retry': { req: { name: string }; res: MachineInfo };
  /** "Restart build-box's service" (a far service of another version): it stops for an upgrade, the link comes back to the new one, its panes through resume. */
  'machine.restart': { req: { name: string }; res: { ok: true } };
  /** Tokens and cost of every agent session, by day and model (main/usage); `since` (a date) leaves out earlier days. */
  'usage.summary': { req: { since?: string }; res: { ok: true; summary: UsageSummary } | { ok: false; error: string } };
  /** Search everything the panes, agents, surfaces and Ticks did (main/search). */
  'search.query': { req: SearchQuery; res: { ok: true; hits: SearchHit[] } | { ok: false; error: string } };
  /** A pane's output lines around `line` (a hit's) as the index holds them: for a line its terminal's history no longer has. */
  'search.lines': { req: { paneId: string; line: number }; res: { ok: true; lines: Array<{ line: number; text: string }>; next: number } | { ok: false; error: string } };
  /** The agent session a prompt, reply or tool hit belongs to (`ref`: the hit's), from its pane's record. */
  'search.transcript': { req: { paneId: string; session: string; ref: string }; res: { ok: true; transcript: SearchTranscript } | { ok: false; error: string } };

  /** What "New agent in a worktree" offers for a folder (default: the focused pane's): the repository, its branches, the current one. */
  'worktree.probe': { req: { dir?: string; machine?: string }; res: WorktreeResult<{ repo: string; current: string | null; branches: string[]; folder: string; setup: string }> };
  /** A new branch from `base` in a new worktree (`.worktreeinclude` files copied, the setup command run), and an agent pane in it; on a machine (`machine`, or a far `splitOf`): made there, placed in this window's layout. */
  'worktree.new': { req: { repo?: string; base?: string; name?: string; prompt?: string; command?: string[]; splitOf?: string; direction?: 'right' | 'down'; machine?: string }; res: WorktreeResult<{ pane: PaneInfo; worktree: WorktreeInfo }> };
  /** Every worktree the app made, with or without a pane. */
  'worktree.list': { req: Record<string, never>; res: WorktreeInfo[] };
  /** worktree.status, commit, merge, push, remove, revert: `machine` sends them to that machine (a far pane's worktree, its `path` a folder there). */
  /** What the Finish actions need: uncommitted files, a commit message drawn from the agent's last reply, the remote, whether gh can open a pull request. */
  'worktree.status': { req: { machine?: string; path: string }; res: WorktreeResult<{ worktree: WorktreeInfo; uncommitted: number; message: string; remote: string | null; gh: 'ready' | 'missing' | 'signed-out'; agentRunning: boolean }> };
  'worktree.commit': { req: { machine?: string; path: string; message: string }; res: WorktreeResult<{ commit: string }> };
  /** Merge the branch into its base: fast-forward only, or a merge commit. A conflict merges nothing. */
  'worktree.merge': { req: { machine?: string; path: string; how: 'ff' | 'merge' }; res: WorktreeResult<{ commit: string }> };
  /** Push the branch (and open a pull request with gh when asked). */
  'worktree.push': { req: { machine?: string; path: string; pr: boolean }; res: WorktreeResult<{ remote: string; url?: string }> };
  /** Remove the worktree and its branch; `confirm` in a refusal means a person may force it. */
  'worktree.remove': { req: { machine?: string; path: string; force?: boolean }; res: { ok: true } | { ok: false; error: string; confirm?: boolean } };
  /** Put one hunk of the Changes card back as the base has it (`key` is the hunk as the person saw it). */
  'worktree.revert': { req: { machine?: string; path: string; file: string; hunk: number; key: string }; res: WorktreeResult };
  /** Changes by turn (main/turns): the view the pane's Changes card shows. */
  'turns.view': { req: { paneId: string; view: TurnView; turn?: number }; res: TurnsResult };
  /** Mark a hunk (by its key) Reviewed, or not; remembered in the state folder. */
  'turns.review': { req: { paneId: string; key: string; reviewed: boolean }; res: TurnsResult };
  /** Revert one hunk of the card's view in the working tree (`git apply -R`, checked first); `told`: the agent was told in one line. */
  'turns.revert': { req: { paneId: string; file: string; key: string }; res: TurnsResult<{ told: boolean }> };
  /** Put the files turn `n` touched back as they were at its start (a checkpoint first; recorded as a turn). */
  'turns.restore': { req: { paneId: string; n: number }; res: TurnsResult<{ files: string[]; told: boolean }> };
  /** Start an agent pane in a worktree that has none. */
  'worktree.open': { req: { path: string; command?: string[] }; res: WorktreeResult<{ pane: PaneInfo }> };
  /** The device door (issue 34): its state, on at an address (with the person's certificate, or one the app makes), off. */
  'devices.state': { req: Record<string, never>; res: DevicesState };
  'devices.enable': { req: { address: string; port?: number; cert?: string; key?: string; allInterfaces?: boolean }; res: { ok: true; state: DevicesState } | { ok: false; error: string } };
  'devices.disable': { req: Record<string, never>; res: DevicesState };
  /** Open a pairing (one at a time; it ends when the client that opened it goes, in 5 minutes, or after 5 wrong tries). */
  'devices.pair': { req: Record<string, never>; res: { ok: true; pairing: DevicePairing } | { ok: false; error: string } };
  'devices.pairEnd': { req: Record<string, never>; res: void };
  /** Revoke a device by name: its record goes and its sockets close at once. */
  'devices.revoke': { req: { name: string }; res: { ok: true } | { ok: false; error: string } };
  /** Let a device type into agents' terminals, or stop it. */
  'devices.allowTyping': { req: { name: string; allow: boolean }; res: { ok: true } | { ok: false; error: string } };
}

/** An agent CLI found on PATH. */
export interface AvailableAgent {
  name: AgentName;
  /** As people call it: "Claude Code". */
  label: string;
  /** The command that starts it (settings.agentCommand, with its options, for the configured one). */
  command: string[];
  /** Whether its program is on PATH. */
  installed: boolean;
  /** Where it was found, when installed. */
  path?: string;
  /** When installed: whether its channel is installed there (recorded by `terminal-delight hooks` in a file still there, or named in the agent's usual settings file); without them its status, questions and permission prompts never reach the bench. Absent from a service too old to say. */
  hooks?: boolean;
  /** settings.agentCommand starts this agent. */
  configured?: true;
  /** How to install it, when it is not: one command line. */
  install?: string;
}

export interface ServiceInfo {
  pid: number;
  version: string;
  protocol: number;
  startedAt: string;
  /** Panes whose process runs now, with the program in their foreground. */
  running: Array<{ paneId: string; title: string; program: string; kind: PaneKind }>;
  /** Hosted Ticks that are starting or ready. */
  ticks: Array<{ instanceId: string; title: string }>;
  /** Windows attached now. */
  clients: number;
}

/** A device paired with the device door (docs/design/remote.md). */
export interface DeviceInfo {
  name: string;
  pairedAt: string;
  lastSeen?: string;
  /** Its sockets open now. */
  connected: number;
  /** Whether it subscribed to push notifications. */
  push: boolean;
  /** Whether it may type into agents' terminals (off until allowed here). */
  canType: boolean;
}

/** The device door: off, or on at `url` with its certificate's fingerprint; the paired devices; the pairing open now. */
export interface DevicesState {
  on: boolean;
  url?: string;
  address?: string;
  port?: number;
  /** SHA-256 of the door's certificate (AB:CD:…), and whether the app made it. */
  fingerprint?: string;
  certMade?: boolean;
  /** Why the door that should be on is not (its port taken, its certificate unreadable). */
  problem?: string;
  devices: DeviceInfo[];
  /** The pairing open now, or how the last one ended. */
  pairing?: { open: boolean; expiresAt: string; ended?: string; paired?: string };
}

/** A pairing just opened: the URL for the QR code (its secret in the fragment), the code to type, the QR code itself. */
export interface DevicePairing {
  url: string;
  code: string;
  expiresAt: string;
  fingerprint: string;
  qrSvg: string;
}

// ───────────────────────────── events ─────────────────────────────

/** Every event the core pushes to windows. */
export interface Events {
  'pane.output': { paneId: string; data: string };
  'pane.updated': PaneInfo;
  'pane.removed': { paneId: string };
  'layout.changed': { layout: Layout | null; focused: string | null };
  'settings.changed': Settings;

  /**
   * This window fell too far behind the pane's output (while another window kept up, or
   * in a long flood: FLOW.skipAfterChars), so it was left out of the pane's output; it has
   * caught up and should redraw from a snapshot. `history: 'all'` when the pane's output
   * has gone quiet (the flood is over): the redraw asks for the whole history, so that the
   * window never shows the end of a flood above a short one (issue 38).
   */
  'pane.stale': { paneId: string; history?: 'all' };

  /** A surface arrived or changed (`surface`), or left the bench (`removedId`). */
  'surface.changed': { paneId: string; surface?: Surface; removedId?: string };

  'tick.changed': InstanceInfo;
  /** The worktrees the app made changed (made, removed, a pane came or went). */
  'worktree.changed': { worktrees: WorktreeInfo[] };
  'approval.changed': ApprovalRequest;
  /** The device door, its devices or its pairing changed. */
  'devices.changed': DevicesState;

  /** Something a person should notice (agent blocked or done, a Tick failed). */
  'notify': { title: string; body: string; paneId?: string };
  /** Native menu items in Electron arrive as commands the renderer runs. */
  'command': { name: AppCommand; paneId?: string };
  /**
   * The service is going, and why, before its connections close: `stop` on purpose (it is
   * not started again by itself: the window says `message` and offers service.start),
   * `restart` (an upgrade: the window reconnects to the next one), `quit` (Quit and end all
   * panes: everything has ended).
   */
  'service.stopping': { how: 'stop' | 'restart' | 'quit'; message: string };
  /** A machine connected, dropped, came back or failed (docs/design/remote.md). */
  'machine.changed': MachineInfo;
}

export type AppCommand =
  | 'split-right' | 'split-down' | 'close-pane' | 'focus-next' | 'focus-prev'
  | 'zoom-in' | 'zoom-out' | 'zoom-reset' | 'find' | 'toggle-bench' | 'new-agent' | 'new-pane'
  /** Show the Open Tick dialog; focus-pane focuses the event's paneId (a desktop notification was clicked). */
  | 'open-tick' | 'focus-pane'
  /** Settings screen; "Quit and end all panes" (asks first). */
  | 'open-settings' | 'quit-all'
  /** "New agent in a worktree…" (asks for the repository, base and name). */
  | 'new-agent-worktree'
  /** The Search everything palette (main/search's index). */
  | 'search-everything'
  /** The Usage view: tokens and cost by day, agent, pane and worktree (main/usage). */
  | 'show-usage'
  /** The window's link to the core was made anew (the service restarted): say hello again and redraw. */
  | 'resync';

export type RequestName = keyof Requests;
export type EventName = keyof Events;
export type Req<K extends RequestName> = Requests[K]['req'];
export type Res<K extends RequestName> = Requests[K]['res'];

/** What `window.td` offers the renderer, in Electron and in the browser alike. */
export interface TdApi {
  invoke<K extends RequestName>(name: K, req: Req<K>): Promise<Res<K>>;
  /** Acknowledge a pane's output without waiting for an answer (serve's WebSocket; Electron uses `invoke('pane.ack')`). */
  ack?(paneId: string, chars: number): void;
  on<K extends EventName>(name: K, handler: (payload: Events[K]) => void): () => void;
}

/** Request names, for shells that must check a name before dispatching it. */
export const REQUEST_NAMES: readonly RequestName[] = [
  'app.hello', 'settings.set',
  'pane.create', 'pane.close', 'pane.restart', 'pane.input', 'pane.resize', 'pane.ack',
  'pane.snapshot', 'pane.focus', 'pane.rows', 'pane.view', 'pane.list', 'pane.peek', 'layout.set', 'layout.area',
  'surface.list', 'surface.act', 'surface.seen', 'surface.comment', 'surface.catalogue',
  'artifact.open', 'artifact.reveal', 'bench.set',
  'tick.open', 'tick.list', 'tick.close', 'tick.view', 'approval.list', 'approval.answer',
  'tick.packages',
  'agent.new', 'agent.available',
  'pane.resume', 'pane.resumeAll', 'service.info', 'service.quit', 'service.start', 'machine.connect', 'machine.list', 'machine.retry', 'machine.restart', 'search.query', 'search.lines', 'search.transcript', 'usage.summary',
  'worktree.probe', 'worktree.new', 'worktree.list', 'worktree.status', 'worktree.commit',
  'worktree.merge', 'worktree.push', 'worktree.remove', 'worktree.revert', 'worktree.open',
  'turns.view', 'turns.review', 'turns.revert', 'turns.restore',
  'devices.state', 'devices.enable', 'devices.disable', 'devices.pair', 'devices.pairEnd', 'devices.revoke', 'devices.allowTyping',
] as const;

export const EVENT_NAMES: readonly EventName[] = [
  'pane.output', 'pane.updated', 'pane.removed', 'pane.stale', 'layout.changed', 'settings.changed',
  'surface.changed', 'tick.changed', 'approval.changed', 'notify', 'command',
  'worktree.changed', 'service.stopping', 'machine.changed', 'devices.changed',
] as const;

/** Wire frames of the serve shell's WebSocket (Electron IPC carries the same payloads). */
export type ClientFrame =
  | { t: 'req'; id: number; name: RequestName; req: unknown }
  /**
   * `pane.ack` without an answer (serve's WebSocket): a window acknowledges output about once
   * a frame during a flood, and an answer to each was a frame back and a JSON parse in the
   * page for nothing. A wrong one is dropped, as a late ack for a gone pane is.
   */
  | { t: 'ack'; paneId: string; chars: number }
  /**
   * A frame for machine `m` (docs/design/remote.md, "One window, many machines"): `f` goes to
   * that machine's service over the window's own channel; its answers and events come back
   * wrapped the same way, and its binary output frames with a prefix (VIA_OUTPUT_FRAME). While
   * the machine is unreachable a request is refused at once, and nothing is queued.
   */
  | { t: 'via'; m: string; f: ClientFrame };
export type ServerFrame =
  | { t: 'res'; id: number; ok: true; res: unknown }
  | { t: 'res'; id: number; ok: false; error: string }
  | { t: 'evt'; name: EventName; payload: unknown };
/** What a machine's service sends a window, wrapped by the home service (ClientFrame's `via`). */
export type ViaServerFrame = { t: 'via'; m: string; f: ServerFrame | { t: 'ping' } };
/** Before a machine's binary output frame: this byte, the machine name's length and name. */
export const VIA_OUTPUT_FRAME = 2;

/** Settings a new user starts with (the core's settings file and the renderer's first paint agree). */
export const DEFAULT_SETTINGS: Settings = {
  theme: 'system',
  fontSize: 13,
  fontFamily: '',
  scrollback: 10_000,
  copyOnSelect: true,
  mcpServer: true,
  mcpWrites: true,
  agentCommand: ['claude'],
  notifications: true,
  windowClose: 'keep',
  resumeAtStart: 'shells',
  shellIntegration: true,
  worktreeFolder: '',
  worktreeSetup: '',
  machines: [],
  search: { enabled: true, keepDays: 90, excludePanes: [], mcpAgents: [], leaveOut: [] },
};

/**
 * Flow control, in characters of output not yet acknowledged by a window (as VS Code does).
 * The watermarks are wider than VS Code's 100k/5k: with 64 KB batches a 100k window made
 * every flood stop-and-wait (send two batches, wait for both to be parsed and acked), and
 * the window path ran at a third of the speed (bench/window.bench.ts). A window still
 * holds at most ~1 M characters unparsed, which xterm draws in well under a second.
 */
export const FLOW = {
  /** Pause the PTY when a window is this far behind. */
  highWatermarkChars: 1_000_000,
  /** Resume it once the window is back under this (half: the socket keeps a pipeline full). */
  lowWatermarkChars: 500_000,
  /** The renderer acknowledges after this many characters have been written to xterm. */
  ackChunkChars: 5_000,
  /** Output is batched for this long before it is sent. */
  batchMs: 5,
  /**
   * A window also counts as behind once the oldest output it has not acknowledged is this
   * old: a slow window (a page drawing a flood) holds about this much of it, not a megabyte,
   * so the prompt after Ctrl-C, or an echo, is never further behind (main/panes/flow.ts).
   */
  latencyMs: 150,
  /** ...as long as it holds more than this (two full batches). */
  latencyMinChars: 131_072,
  /**
   * What a window may hold before the rate it reads at is known (the first burst of its
   * first flood): enough for the renderer to acknowledge a few times (ackChunkChars) and
   * so show its rate, from which its allowance then grows.
   */
  latencyStartChars: 32_768,
  /**
   * A window holding output of several panes shares latencyMinChars, latencyStartChars and
   * what it reads in latencyMs among them (main/panes/flow.ts, WindowShares), each pane's share never under this: 16
   * floods held 16 x 128 KiB on a page's one socket, and a quiet pane's echo waited behind
   * all of it (issue 38). At least twice ackChunkChars: a paused pane resumes under half
   * of what it may hold, and the renderer acknowledges in chunks of ackChunkChars (what it
   * parsed short of a chunk waits for more output), so a smaller floor could wait forever.
   */
  latencyShareFloorChars: 16_384,
  /**
   * Skipping ahead in a long flood: once a pane has sent this much output with no quiet
   * spell longer than latencyMs, a window that cannot take more is left behind rather than
   * holding the program paused. It is sent nothing until it has read what it holds, then
   * redraws from the core's snapshot ('pane.stale'), as tmux redraws a client that is too
   * slow. The program runs at the speed of the core's own screen, not of the slowest page;
   * a burst shorter than this is drawn byte by byte as before.
   */
  skipAfterChars: 1_048_576,
  /**
   * ...and only a window known to read slower than this, in characters a millisecond (16 MB/s
   * of ASCII; a page drawing a `cat` with xterm's DOM renderer reads ~8): one nearly as fast
   * as the core is paced as before, and one just taken back reads until its rate is known.
   */
  skipBelowCharsPerMs: 16_000,
  /**
   * A window left behind that way redraws at most this often (it waits, caught up, until
   * then): each redraw costs the core a catch-up of the pane's screen and a snapshot.
   */
  skipRedrawMs: 500,
  /** ...but at once after input to the pane (the prompt after Ctrl-C), or once its output has been quiet this long (the flood ended). */
  skipQuietMs: 50,
  /** History lines such a redraw carries (the rest is fetched when the person scrolls to the top). */
  skipRedrawScrollback: 100,
  /**
   * A pane that floods while other panes flood (the output governor's turns), is not the
   * focused pane and had no input for this long floods in the background: a window reading
   * slower than the core is sent none of its output and redraws it from a snapshot every
   * backgroundRedrawMs (main/panes/flow.ts). 16 floods streamed to one page kept its one thread
   * busy, and a quiet pane's echo waited behind them (issue 38).
   */
  backgroundAfterInputMs: 1_000,
  /** ...and leaves the background once it has not flooded (GOVERNOR.bulkChars in a governor's slice) this long while its PTY reads: its flood is over, whatever trickles after it. */
  backgroundQuietMs: 300,
  /** A window redraws a flood in the background at most this often (a flood of 16 redrawn twice a second each kept a page's thread busy a third of the time). */
  backgroundRedrawMs: 1_000,
} as const;
