/**
 * One pane: a node-pty process, a headless screen fed with the same output, output
 * batching and flow control. The PaneService owns many of these and the layout.
 */
import path from 'node:path';
import os from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import nodePty from 'node-pty';
import type { IPty } from 'node-pty';
import type { PaneInfo, PaneKind, SnapshotPrompt } from '../../preload/contract.ts';
import type { ScreenCells } from '../../common/first-paint.ts';
import { FLOW } from '../../preload/contract.ts';
import { FlowMeter, type WindowShares } from './flow.ts';
import { GOVERNOR } from './governor.ts';
import type { Launch } from './integration.ts';
import { isLocalHost, ShellMarks, type PromptState } from './marks.ts';
import { processCwd } from './proc.ts';
import { processRecord, type ProcessRecord } from './ending.ts';
import { setCloseOnExec } from '../libc.ts';
import { Screen } from './screen.ts';
import { ScreenPrompts } from './screen-prompts.ts';

export const DEFAULT_COLS = 120;
export const DEFAULT_ROWS = 30;
export const SCROLLBACK = 10_000;
/**
 * History a snapshot carries unless more is asked for (the window fetches the rest when the person
 * scrolls to its top): SNAPSHOT_SCREENS screens of the pane, within SNAPSHOT_MIN_SCROLLBACK and
 * SNAPSHOT_SCROLLBACK lines. A window attaching to 32 small panes parsed 200 lines in each, most
 * of its time after the terminals were made (issue 38, item 4); 4 screens of an 8-row pane are 32.
 */
export const SNAPSHOT_SCROLLBACK = 200;
export const SNAPSHOT_SCREENS = 4;
export const SNAPSHOT_MIN_SCROLLBACK = 40;

/** The history lines a snapshot of a pane this many rows tall carries by default. */
export function snapshotScrollback(rows: number): number {
  return Math.min(SNAPSHOT_SCROLLBACK, Math.max(SNAPSHOT_MIN_SCROLLBACK, SNAPSHOT_SCREENS * rows));
}
/** The headless screen counts as a reader in flow control under this name. */
const HEADLESS = '#headless';
/**
 * The headless screen parses in time slices; it gets a wider window than a window does
 * so the PTY is not stopped and started at every slice (it still bounds memory).
 */
const HEADLESS_HIGH = 2_000_000;
const HEADLESS_LOW = 500_000;
/** A batch this big (bytes, as read) is sent at once rather than after FLOW.batchMs. */
const BATCH_MAX_CHARS = 64 * 1024;

/** Output as read from the PTY: its bytes (see rawOutput), or text where node-pty's stream still decodes it. */
type Chunk = Buffer | string;

/**
 * Have node-pty's read stream give the PTY's bytes instead of decoding each read (~4 KiB:
 * ~8,000 strings for a 32 MiB cat): the pane decodes a batch at a time (one string for up to
 * 64 KiB, where joining the reads' strings copied every byte a second time): half the strings
 * a flood made, and one decode a batch. node-pty is still spawned with its UTF-8 encoding,
 * which also sets the terminal's IUTF8 mode (the kernel's line editing erases a whole
 * character), so its stream's decoder is taken out here, before the first read. Through
 * stream internals: where they differ, the reads stay strings and are joined as before.
 */
function rawOutput(proc: IPty): void {
  const state = (proc as unknown as { _socket?: { _readableState?: { decoder?: unknown; encoding?: unknown } } })._socket?._readableState;
  if (!state || !(state.decoder instanceof StringDecoder)) return;
  try {
    state.decoder = null;
    state.encoding = null;
  } catch {
    // A read-only property in some other Node: text it stays.
  }
}
/**
 * node-pty opens each pane's PTY master without close-on-exec (forkpty), so every process
 * the core started afterwards (the next pane's shell, an agent, a Tick, a git) inherited the
 * masters of the panes before it and could type into them, and kept them open after their
 * pane ended. Marked here, synchronously after the spawn, before the core can start another.
 */
let warnedCloexec = false;
function closeOnExec(proc: IPty): void {
  const fd = (proc as unknown as { _fd?: number })._fd;
  if (process.platform === 'win32' || (typeof fd === 'number' && setCloseOnExec(fd))) return;
  if (warnedCloexec) return;
  warnedCloexec = true;
  process.stderr.write('terminal-delight: a PTY could not be marked close-on-exec (koffi has no binary for this machine), so programs started later may hold other panes\' terminals\n');
}
/**
 * Where a batch's reads are joined to be decoded, shared by every pane (decoding is synchronous
 * and copies out what it decodes, so the next batch may overwrite it). A new buffer a batch
 * (Buffer.concat) was ~2,500 allocations of up to 64 KiB for a 160 MiB flood, each held until
 * the next scavenge: 3-8 MiB of array buffers waiting to be freed through a flood.
 */
let joined = Buffer.allocUnsafe(0);

/** The reads one after another in the shared buffer: a view of it, valid until the next call. */
function joinReads(reads: Buffer[], bytes: number): Buffer {
  if (joined.length < bytes) joined = Buffer.allocUnsafe(Math.max(bytes, 2 * BATCH_MAX_CHARS));
  let at = 0;
  for (const r of reads) at += r.copy(joined, at);
  return joined.subarray(0, at);
}

/** How often the foreground program and cwd are looked at, while output comes. */
const PROGRAM_CHECK_MS = 1000;
/** After the process exits, output that keeps coming is read until it has been quiet this long. */
const TAIL_QUIET_MS = 250;
/** ...but never longer than this. */
const TAIL_MAX_MS = 5_000;

export interface PaneSpawn {
  id: string;
  tag: string;
  kind: PaneKind;
  command: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  title?: string;
  instanceId?: string;
  scrollback: number;
  /** Come back ended (a saved pane whose process went with the last service): nothing starts until relaunch. */
  ended?: NonNullable<PaneInfo['ended']>;
  agentCli?: PaneInfo['agentCli'];
  /** With `ended`: the process of its last run, as recorded (what of it may still run: main/panes/ending.ts). */
  leftover?: ProcessRecord;
  /** The windows' output held across the service's panes: a window's flow-control floor is shared among the panes that hold output for it (main/panes/flow.ts). */
  shares?: WindowShares;
  /** How to start the command (shell integration, main/panes/integration.ts), asked at every start; absent or undefined: as it is. */
  launch?: (command: string[], env: Record<string, string>) => Launch | undefined;
}

export interface PaneHooks {
  /** A batch of output, after FLOW.batchMs. */
  output(pane: Pane, data: string): void;
  /** Something in the pane's PaneInfo changed. */
  updated(pane: Pane): void;
  /** The process ended and every byte it wrote has been read. */
  exited(pane: Pane): void;
  /** The headless screen moved old scrollback to its archive (memory can be given back). */
  compacted?(pane: Pane): void;
  /** A window left behind in a long flood is taken back after waiting its time (FLOW.skipRedrawMs): it should redraw (with the whole history when `over`: the flood ended). */
  stale?(pane: Pane, clientId: string, over: boolean): void;
}

/** The private socket node-pty reads the PTY master through (see armTail). */
interface PtySocket {
  destroy(...args: unknown[]): unknown;
  resume(): unknown;
  destroyed?: boolean;
  readableEnded?: boolean;
  once(event: string, fn: () => void): unknown;
}

export class Pane {
  readonly id: string;
  readonly tag: string;
  readonly kind: PaneKind;
  /** What the pane runs, where and with what environment (a resume may change them: relaunch). */
  command: string[];
  cwd: string;
  env: Record<string, string>;
  info: PaneInfo;
  private proc: IPty | undefined;
  private readonly screen: Screen;
  /** The prompts on the headless screen, for snapshots. */
  private readonly screenPrompts: ScreenPrompts;
  private readonly meter: FlowMeter;
  private readonly screenMeter = new FlowMeter(HEADLESS_HIGH, HEADLESS_LOW);
  private readonly hooks: PaneHooks;
  /** Output waiting to be sent, as it came (decoded or joined once at flush: a string built by += is slow to flatten). */
  private batch: Chunk[] = [];
  /** Its length: bytes, or characters of the reads that came as text. */
  private batchChars = 0;
  /** Whether every read in the batch is bytes (decoded together); a read as text is joined with the others decoded one by one. */
  private batchRaw = true;
  /** The process's output decoded as UTF-8, across batches (a character cut between two reads waits here). */
  private decoder = new StringDecoder('utf8');
  private batchTimer: NodeJS.Timeout | undefined;
  /** When output last came from the PTY (performance.now()). */
  private receivedAt = -Infinity;
  private paused = false;
  /** Held by the output governor: many panes flood and this one waits its turn (PaneService). */
  private paced = false;
  /** While a snapshot is taken, new output waits here so the snapshot and the events line up. */
  private held: Chunk[] | undefined;
  private oscTitle: string | undefined;
  private fixedTitle: string | undefined;
  /** Set once the process has exited and its last output is being drained. */
  private draining = false;
  private lastDataAt = 0;
  /**
   * When output last came at a flood's pace: GOVERNOR.bulkChars within a governor's slice
   * (GOVERNOR.sliceMs), as the governor counts a flood (performance.now()); and the span being
   * counted. The background's quiet spell, and its marks', are measured from it (floodQuietFor):
   * a progress bar's line every 150 ms after a flood in the background is no flood, and
   * measured from any output, the pane never left the background nor its windows their marks.
   */
  private floodAt = 0;
  private spanAt = -Infinity;
  private spanChars = 0;
  /** Output came since the process started: it has left node-pty's fork and chdir (its /proc cwd is its own). */
  private heard = false;
  /** The foreground program's name, as last seen (watchProgram). */
  private foreground: string | undefined;
  private programTimer: NodeJS.Timeout | undefined;
  /** When windows left behind in a flood, caught up, are taken back (FlowMeter.nextTakeBack). */
  private takeBackTimer: NodeJS.Timeout | undefined;
  /** While a window is left behind, or holds a short history (shortHistory): when output was last sent, and the timer that notices it went quiet. */
  private lastFlushAt = 0;
  /**
   * Windows that redrew from a short history (FLOW.skipRedrawScrollback lines) when taken
   * back in a flood, and have not had the whole of it since: each is told to redraw with all
   * of it once the flood is over (issue 38: one that kept up with the flood's last lines
   * after its redraw showed them above a history hundreds of lines short).
   */
  private readonly shortHistory = new Set<string>();
  /**
   * Windows left behind while the pane flooded in the background: taken back, they redraw
   * with FLOW.skipRedrawScrollback lines, even once the flood is over, and none is told to
   * redraw with the whole history after (16 floods stopped with Ctrl-C made a page parse 16
   * whole histories, and the core serialize them, for seconds on a loaded machine: issue
   * 38). The rest comes when the person scrolls to the top. `shortForGood`: taken back so,
   * their next snapshot is short for good (not in shortHistory).
   */
  private readonly leftInBackground = new Set<string>();
  private readonly shortForGood = new Set<string>();
  /**
   * Windows left behind in the background at some point of this flood: left behind again in
   * it after it leaves the background (a Ctrl-C typed to it, whose flood takes a moment to
   * stop), they are as if left behind there (no whole history once it is over), until the
   * flood is over or the person looks at the pane (lookedAt).
   */
  private readonly behindInBackgroundFlood = new Set<string>();
  private quietTimer: NodeJS.Timeout | undefined;
  private programCheckedAt = 0;
  private disposed = false;
  private readonly launch: PaneSpawn['launch'];
  /** The process of the current run (its session's leader), or of the last one as recorded when the pane came back ended. */
  process: ProcessRecord | undefined;
  /** Set as the service ends every pane (PaneService.endAll): what ends it, told with its exit (`info.endedBy`). */
  endingBy: string | undefined;
  /** Shell integration marks in the output (OSC 133, OSC 7), and what they say. */
  private marks = new ShellMarks(isLocalHost);

  constructor(spawn: PaneSpawn, hooks: PaneHooks) {
    this.meter = new FlowMeter(FLOW.highWatermarkChars, FLOW.lowWatermarkChars, { ms: FLOW.latencyMs, minChars: FLOW.latencyMinChars, startChars: FLOW.latencyStartChars, skipAfterChars: FLOW.skipAfterChars, skipBelowRate: FLOW.skipBelowCharsPerMs, skipBackChars: FLOW.ackChunkChars, skipRedrawMs: FLOW.skipRedrawMs, backgroundRedrawMs: FLOW.backgroundRedrawMs, ...(spawn.shares ? { shares: spawn.shares, shareFloorChars: FLOW.latencyShareFloorChars } : {}) });
    this.id = spawn.id;
    this.tag = spawn.tag;
    this.kind = spawn.kind;
    this.command = spawn.command;
    this.cwd = spawn.cwd;
    this.env = spawn.env;
    this.hooks = hooks;
    this.launch = spawn.launch;
    this.fixedTitle = spawn.title;
    this.screen = new Screen({
      cols: spawn.cols,
      rows: spawn.rows,
      scrollback: spawn.scrollback,
      handed: (n) => this.screenMeter.sent(n),
      parsed: (n) => {
        this.screenMeter.ack(HEADLESS, n);
        if (!this.disposed) this.applyFlow();
      },
      title: (t) => {
        this.oscTitle = t || undefined;
        this.refreshTitle();
      },
      // Paused by flow control: more output is coming (reads still parse the queue at once).
      held: () => this.paused,
      compacted: () => {
        if (!this.disposed) this.hooks.compacted?.(this);
      },
    });
    this.screenPrompts = new ScreenPrompts(this.screen.term);
    this.screenMeter.attach(HEADLESS);
    this.info = {
      id: spawn.id,
      tag: spawn.tag,
      kind: spawn.kind,
      title: '',
      cwd: spawn.cwd,
      command: spawn.command,
      status: 'running',
      cols: spawn.cols,
      rows: spawn.rows,
      benchOpen: false,
      unseen: 0,
      ...(spawn.instanceId ? { instanceId: spawn.instanceId } : {}),
      ...(spawn.agentCli ? { agentCli: spawn.agentCli } : {}),
    };
    this.info.title = this.defaultTitle();
    if (spawn.ended) {
      this.info = { ...this.info, status: 'exited', ended: spawn.ended };
      this.process = spawn.leftover;
    }
    else this.start();
  }

  /** Start an ended pane again with this argv, environment and folder (resume). */
  relaunch(command: string[], env: Record<string, string>, cwd: string): void {
    if (this.running) throw new Error(`pane "${this.id}" is running: only an ended pane is resumed`);
    this.command = command;
    this.env = env;
    this.cwd = cwd;
    const { ended: _ended, ...info } = this.info;
    this.info = { ...info, command, cwd };
    this.start();
  }

  /** Draw a saved screen into the headless screen (an ended pane shows what it last showed). */
  writeScreen(data: string): Promise<void> {
    this.screen.write(data);
    return this.screen.settled();
  }

  get pid(): number | undefined {
    return this.info.status === 'running' ? this.proc?.pid : undefined;
  }

  /** The program in the pane's foreground now (from the terminal's foreground process group), else the one it started. */
  get program(): string {
    let now: string | undefined;
    try {
      now = this.running ? this.proc?.process : undefined;
    } catch {
      now = undefined;
    }
    return path.basename(now || this.foreground || this.command[0] || '');
  }

  get running(): boolean {
    return this.info.status === 'running';
  }

  /** Start (or start again) the pane's command. */
  start(): void {
    const [file, ...args] = this.command;
    this.meter.reset();
    // A window left behind the last run's flood holds nothing now: it redraws at once.
    this.hurryBack();
    this.behindInBackgroundFlood.clear();
    this.screenMeter.reset();
    this.paused = false;
    this.draining = false;
    this.marks = new ShellMarks(isLocalHost);
    this.heard = false;
    const launch = this.launch?.(this.command, this.env) ?? { file, args, env: this.env };
    const proc = nodePty.spawn(launch.file, launch.args, {
      name: 'xterm-256color',
      cols: this.info.cols,
      rows: this.info.rows,
      cwd: this.cwd,
      env: launch.env,
    });
    this.proc = proc;
    this.process = processRecord(proc.pid);
    // Before anything else can start a process: the master is no one's to inherit.
    closeOnExec(proc);
    rawOutput(proc);
    this.decoder = new StringDecoder('utf8');
    this.info = { ...this.info, status: 'running', exitCode: undefined, signal: undefined };
    delete this.info.exitCode;
    delete this.info.signal;
    delete this.info.endedBy;
    this.endingBy = undefined;
    delete this.info.lastCommand;
    this.armTail(proc);
    // Still waiting its turn (the governor): the new process's output waits too.
    if (this.paced) this.applyFlow();
    proc.onData((data) => {
      if (this.proc !== proc) return;
      this.receive(data);
    });
    proc.onExit(({ exitCode, signal }) => {
      if (this.proc !== proc) return;
      // A character cut off by the end: what UTF-8 decoding makes of it (U+FFFD).
      const rest = this.decoder.end();
      if (rest) this.receive(rest);
      this.flush();
      this.info = { ...this.info, status: 'exited', exitCode };
      if (signal) this.info.signal = signal;
      if (this.endingBy) this.info.endedBy = this.endingBy;
      this.hooks.exited(this);
    });
  }

  /**
   * The tail-loss fix. node-pty emits exit once its read socket closes (EOF/EIO on
   * the master: everything read), but gives up after 200 ms and destroys the socket,
   * dropping whatever the child wrote last that was not read yet (a busy event loop, or
   * a pane paused by flow control). Here that destroy waits instead: the socket is
   * resumed and read until the PTY reports EIO or output has been quiet for
   * TAIL_QUIET_MS (VS Code likewise waits for output to go quiet before tearing down).
   */
  private armTail(proc: IPty): void {
    const socket = (proc as unknown as { _socket?: PtySocket })._socket;
    if (!socket || typeof socket.destroy !== 'function') return;
    const destroy = socket.destroy.bind(socket);
    let closed = false;
    socket.once('close', () => {
      closed = true;
    });
    socket.destroy = (...args: unknown[]) => {
      // With an error (EIO: the PTY has no writer left and everything was read) or
      // once closed, tear down as usual; only node-pty's bare post-exit destroy() waits.
      if (args[0] !== undefined || closed || socket.destroyed || this.disposed) return destroy(...args);
      this.draining = true;
      this.setPaused(false);
      const started = Date.now();
      this.lastDataAt = Math.max(this.lastDataAt, started);
      const check = (): void => {
        if (closed || socket.destroyed) return;
        const now = Date.now();
        if (this.disposed || now - this.lastDataAt >= TAIL_QUIET_MS || now - started >= TAIL_MAX_MS) {
          destroy(...args);
          return;
        }
        setTimeout(check, 50).unref?.();
      };
      setTimeout(check, 50).unref?.();
      return socket;
    };
  }

  private receive(data: Chunk, released = false): void {
    this.lastDataAt = Date.now();
    this.heard = true;
    const now = performance.now();
    // (Output held during a snapshot was counted as it came, not again as it is released.)
    if (!released) {
      if (now - this.spanAt >= GOVERNOR.sliceMs) {
        this.spanAt = now;
        this.spanChars = 0;
      }
      this.spanChars += data.length;
      if (this.spanChars >= GOVERNOR.bulkChars) this.floodAt = now;
    }
    if (this.held) {
      this.held.push(data);
      return;
    }
    // The headless screen (and the shell integration's marks) get the batch as it leaves
    // (flush): one write a batch, not one a read of the PTY (a flood comes in 4 KiB reads:
    // ~8,000 for 32 MiB, in ~600 batches).
    this.batch.push(data);
    this.batchChars += data.length;
    if (typeof data === 'string') this.batchRaw = false;
    // Output after a quiet spell (an echo, a prompt) goes out at once, so a keystroke's
    // echo never waits out the batch; what follows within FLOW.batchMs is batched.
    const quiet = now - this.receivedAt >= FLOW.batchMs;
    this.receivedAt = now;
    if (!this.batchTimer && quiet) this.flush();
    else if (!this.batchTimer) this.batchTimer = setTimeout(() => this.flush(), FLOW.batchMs);
    this.applyFlow();
    // Paused, nothing more comes until the windows catch up: send what is held now; and as
    // soon as the batch would fill every window (FlowMeter.fills: then the PTY pauses).
    if (this.paused || this.batchChars >= BATCH_MAX_CHARS || this.meter.fills(this.batchChars)) this.flush();
  }

  /** Shell integration marks in this output: the folder, the last command, the title at a prompt. */
  private readMarks(data: string): void {
    const c = this.marks.read(data, Date.now());
    if (!c) return;
    let changed = false;
    if (c.cwd !== undefined && c.cwd !== this.info.cwd) {
      this.info = { ...this.info, cwd: c.cwd };
      changed = true;
    }
    if (c.lastCommand) {
      const { exitCode, durationMs, endedAt } = c.lastCommand;
      this.info = { ...this.info, lastCommand: { exitCode, durationMs, at: new Date(endedAt).toISOString() } };
      changed = true;
    }
    // At its prompt, the shell is the foreground program again: the title says where it is now, not a second later.
    const retitle = c.prompt && this.foreground !== undefined;
    if (retitle) this.foreground = undefined;
    if ((changed || retitle) && !this.refreshTitle() && changed) this.hooks.updated(this);
  }

  /** What the shell integration's marks say the shell is doing (NO_PROMPT without them). */
  get prompt(): PromptState {
    return this.marks.state;
  }

  /**
   * Where the process is now: what its shell reported (OSC 7), else what the OS says once
   * it has printed something (before that, a fresh process may still be in node-pty's
   * fork, in the app's own folder), else the folder it was last seen in.
   */
  liveCwd(): string {
    if (this.marks.cwd) return this.marks.cwd;
    const pid = this.heard ? this.pid : undefined;
    return (pid !== undefined ? processCwd(pid) : undefined) ?? this.info.cwd;
  }

  /** Emit the batched output now. */
  flush(): void {
    if (this.batchTimer) {
      clearTimeout(this.batchTimer);
      this.batchTimer = undefined;
    }
    if (this.batchChars === 0) return;
    const data = this.decode();
    // Only the start of a character so far: it goes with the next read.
    if (!data) return;
    this.readMarks(data);
    this.screen.write(data);
    // Charged to the windows as it leaves; one that would fall too far behind while another
    // keeps up is left out of this pane's output from here (FlowMeter.sent).
    // (One left behind holding nothing more to acknowledge waits its time to be taken back.)
    const left = this.meter.sent(data.length);
    if (left.length > 0) {
      for (const clientId of left) {
        if (this.meter.background) this.behindInBackgroundFlood.add(clientId);
        if (this.behindInBackgroundFlood.has(clientId)) this.leftInBackground.add(clientId);
      }
      this.scheduleTakeBack();
    }
    if (this.watchesQuiet()) this.watchQuiet();
    this.hooks.output(this, data);
    if (!this.disposed) this.applyFlow();
    this.watchProgram();
  }

  /** The batch as text, and a new batch begun: bytes decoded together (what a cut character began waits in the decoder). */
  private decode(): string {
    const batch = this.batch;
    const raw = this.batchRaw;
    const bytes = this.batchChars;
    this.batch = [];
    this.batchChars = 0;
    this.batchRaw = true;
    if (raw) return this.decoder.write(batch.length === 1 ? (batch[0] as Buffer) : joinReads(batch as Buffer[], bytes));
    return batch.map((c) => (typeof c === 'string' ? c : this.decoder.write(c))).join('');
  }

  /**
   * Output came: at most once a second, look at what runs in the foreground and where
   * the shell is, for the title (when no OSC title is set) and PaneInfo.cwd.
   */
  private watchProgram(): void {
    if (this.programTimer || !this.running) return;
    const wait = Math.max(0, PROGRAM_CHECK_MS - (Date.now() - this.programCheckedAt));
    this.programTimer = setTimeout(() => {
      this.programTimer = undefined;
      this.programCheckedAt = Date.now();
      if (!this.running || this.disposed) return;
      const pid = this.proc?.pid;
      // A shell that reports its folder (OSC 7) is believed: its $PWD keeps the symlinks it was reached through.
      const cwd = this.marks.cwd ?? (pid !== undefined ? processCwd(pid) : undefined);
      let program: string | undefined;
      try {
        program = this.proc?.process;
      } catch {
        program = undefined;
      }
      this.foreground = program ? path.basename(program) : undefined;
      if (cwd && cwd !== this.info.cwd) {
        this.info = { ...this.info, cwd };
        if (!this.refreshTitle()) this.hooks.updated(this);
      } else this.refreshTitle();
    }, wait);
    this.programTimer.unref?.();
  }

  private applyFlow(): void {
    const windows = this.meter.shouldPause();
    const screen = this.screenMeter.shouldPause();
    this.setPaused(!this.draining && (windows || screen || this.paced));
  }

  /** Hold the PTY for the output governor (main/panes/governor.ts), or let it go; flow control keeps its own say. */
  pace(paced: boolean): void {
    if (paced === this.paced) return;
    this.paced = paced;
    if (!this.disposed) this.applyFlow();
  }

  /**
   * The pane floods in the background (it takes turns with other floods, is not focused and
   * had no input lately: PaneService): its windows that read slower than the core only
   * redraw from snapshots (FlowMeter.background). It stays there until it is let out (focus,
   * input) or its flood is over (no flood's output for FLOW.backgroundQuietMs while its PTY
   * reads, whatever trickles after it: watchQuiet), not when it writes less in one turn. Out
   * of it, its windows are taken back as soon as they have caught up, and redraw (what is
   * shown catches up at once).
   */
  background(on: boolean): void {
    if (on === this.meter.background) return;
    // Windows that redrew short earlier in this flood: no whole history after it either.
    if (on) this.shortHistory.clear();
    this.meter.background = on;
    // In the background its end is watched from now, though it may not write again (a flood that
    // had its turn as it joined the governor's line, then stopped).
    if (on) this.watchQuiet();
    else this.hurryBack();
  }

  /** The person looks at the pane (focus): out of the background, and its windows redraw with the whole history once its flood is over, as a lone flood's. */
  lookedAt(): void {
    this.behindInBackgroundFlood.clear();
    this.background(false);
  }

  /** Whether the pane floods in the background now (background). */
  get inBackground(): boolean {
    return this.meter.background;
  }

  /** Whether the output governor holds the PTY now. */
  get isPaced(): boolean {
    return this.paced;
  }

  private setPaused(paused: boolean): void {
    if (paused === this.paused || !this.proc) return;
    this.paused = paused;
    try {
      if (paused) this.proc.pause();
      else this.proc.resume();
    } catch {
      // the process is gone: nothing to pause
    }
    // Read again: whether the flood is over is watched from now (watchQuiet).
    if (!paused) this.floodAt = performance.now();
    if (!paused && this.watchesQuiet()) this.watchQuiet();
  }

  /** Whether the flood's end is watched for: a window left behind, or holding a short history, or marked by a flood in the background, or the pane in the background. */
  private watchesQuiet(): boolean {
    return this.meter.skipping() || this.meter.background || this.shortHistory.size > 0 || this.behindInBackgroundFlood.size > 0;
  }

  /** Whether the PTY is paused now (by flow control, or by the governor: isPaced). */
  get isPaused(): boolean {
    return this.paused;
  }

  attachReader(clientId: string): void {
    this.meter.attach(clientId);
  }

  detachReader(clientId: string): void {
    this.meter.detach(clientId);
    this.shortHistory.delete(clientId);
    this.shortForGood.delete(clientId);
    this.leftInBackground.delete(clientId);
    this.behindInBackgroundFlood.delete(clientId);
    this.applyFlow();
  }

  /**
   * Whether a flood that left windows behind is over: its output has been quiet for
   * FLOW.skipQuietMs while its PTY was read (not held by flow control or the governor, whose
   * turns pause each of 16 floods for hundreds of milliseconds). A window taken back then redraws with the whole history, not
   * FLOW.skipRedrawScrollback lines (nothing more is coming to fill the rest in); not while
   * the pane is in the background (and not to a window left behind there: redrawWhole).
   */
  floodOver(): boolean {
    return !this.meter.background && !this.paused && this.quietFor() >= FLOW.skipQuietMs;
  }

  /** How long the pane's output has been quiet (since its last batch went out, or its last read, which a snapshot may hold back). */
  private quietFor(): number {
    return Math.min(performance.now() - this.lastFlushAt, Date.now() - this.lastDataAt);
  }

  /** How long the pane has not flooded (floodAt: its output a flood's, or its PTY read again after a pause). */
  private floodQuietFor(): number {
    return performance.now() - this.floodAt;
  }

  /** True when the window had been left out of the flow and has now caught up (it should redraw). */
  ack(clientId: string, chars: number): boolean {
    const back = this.meter.ack(clientId, chars);
    if (!back) this.scheduleTakeBack();
    else if (this.leftInBackground.delete(clientId)) this.shortForGood.add(clientId);
    this.applyFlow();
    return back;
  }

  /** Whether a window taken back now should redraw with the whole history: the flood is over, and it was not left behind in the background. */
  redrawWhole(clientId: string): boolean {
    return this.floodOver() && !this.shortForGood.has(clientId);
  }

  /** Windows left behind in a flood are taken back as soon as they have caught up (input came, or the flood ended). */
  private hurryBack(): void {
    if (!this.meter.skipping()) return;
    this.meter.hurry();
    this.takeBackDue();
  }

  /** The flood is over: windows in the flow that hold a short history redraw with the whole of it (those still left behind do when taken back: floodOver). */
  private floodEnded(): void {
    for (const clientId of this.shortHistory) {
      if (!this.meter.accepts(clientId)) continue;
      this.shortHistory.delete(clientId);
      this.hooks.stale?.(this, clientId, true);
    }
  }

  /**
   * While a window is left behind in a flood, holds a short history or is marked by the flood's
   * time in the background, or the pane floods in the background: once output has been quiet for
   * FLOW.skipQuietMs, the flood ended; in the background, once the pane has not flooded for
   * FLOW.backgroundQuietMs (floodQuietFor: a trickle of output goes on); the marks go once it
   * has not flooded for FLOW.backgroundQuietMs.
   */
  private watchQuiet(): void {
    this.lastFlushAt = performance.now();
    if (this.quietTimer || this.disposed) return;
    // A flood in the background ends after a longer quiet spell: on a loaded machine a flood's
    // program can wait that long for a core, and each false end cost its windows a redraw
    // with the whole history.
    // (So do the marks of a flood that was in the background, once it is out: `marksOnly`.)
    // That spell is the flood's, not the output's: a line every 150 ms after it (a progress bar,
    // a spinner, `watch`) never let 300 ms of quiet come, and the pane stayed in the background,
    // its windows marked, and a lone flood much later was redrawn short.
    let marksOnly = false;
    let marksSince = 0;
    const needed = (): number => (this.meter.background || marksOnly ? FLOW.backgroundQuietMs : FLOW.skipQuietMs);
    const quietFor = (): number => (this.meter.background || marksOnly ? this.floodQuietFor() : this.quietFor());
    const arm = (ms: number): void => {
      this.quietTimer = setTimeout(check, ms);
      this.quietTimer.unref?.();
    };
    // Out of the background, a flood's marks go once it has not flooded for
    // FLOW.backgroundQuietMs, whatever trickles on: a spinner or a TUI drawn every 30 ms after a
    // Ctrl-C never lets the output be quiet for FLOW.skipQuietMs. Not while the PTY is held (by
    // flow control or the governor: a flood paused is still one, and its read again counts as
    // flooding), and only once this turn's reads are in (as settle: a loop held up looks like a
    // spell without a flood).
    const marksDue = (): boolean => !this.meter.background && !this.paused && this.behindInBackgroundFlood.size > 0 && this.floodQuietFor() >= FLOW.backgroundQuietMs;
    const check = (): void => {
      if (this.disposed) return;
      if (marksDue()) {
        setImmediate(() => {
          if (this.disposed) return;
          if (marksDue()) {
            this.behindInBackgroundFlood.clear();
            marksOnly = false;
          }
          check();
        });
        return;
      }
      // Nothing left to watch: no timer kept going through a trickle (what needs one starts it
      // again: flush, a snapshot's short history, the PTY read again, the pane put in the background).
      if (!this.watchesQuiet()) {
        this.quietTimer = undefined;
        return;
      }
      // A flood again: its end watched as before.
      if (marksOnly && this.floodAt > marksSince) marksOnly = false;
      const quiet = quietFor();
      if (quiet < needed()) return arm(needed() - quiet);
      // Looked at again after this turn's reads (a timer runs before the reads that waited
      // while the service's loop was held up: those would look like a quiet spell).
      setImmediate(settle);
    };
    const settle = (): void => {
      if (this.disposed) return;
      if (quietFor() < needed()) return check();
      this.quietTimer = undefined;
      // Held by flow control or the governor: not the flood's end (watched again once the PTY reads: setPaused).
      if (this.paused) return;
      this.meter.background = false;
      this.hurryBack();
      this.floodEnded();
      // Windows marked by the flood's time in the background: unmarked only after the
      // background's quiet spell (a 50 ms stall on a loaded machine is not the end of such a
      // flood, and its windows' next redraws would be a lone flood's, the whole history after);
      // its windows are taken back at the shorter one all the same (the prompt after a Ctrl-C).
      if (this.behindInBackgroundFlood.size === 0) return;
      const quiet = this.floodQuietFor();
      if (quiet >= FLOW.backgroundQuietMs) {
        this.behindInBackgroundFlood.clear();
        return;
      }
      marksOnly = true;
      marksSince = performance.now();
      arm(FLOW.backgroundQuietMs - quiet);
    };
    arm(needed());
  }

  /** A window left behind in a flood has caught up before its time: it is taken back (and redraws) when that comes. */
  private scheduleTakeBack(): void {
    const wait = this.meter.nextTakeBack();
    if (wait === undefined || this.takeBackTimer || this.disposed) return;
    this.takeBackTimer = setTimeout(() => {
      this.takeBackTimer = undefined;
      if (!this.disposed) this.takeBackDue();
    }, wait);
    this.takeBackTimer.unref?.();
  }

  /** Take back the windows left behind whose time has come (each redraws), and wait for the next. */
  private takeBackDue(): void {
    for (const clientId of this.meter.takeBack()) {
      if (this.leftInBackground.delete(clientId)) this.shortForGood.add(clientId);
      this.hooks.stale?.(this, clientId, this.redrawWhole(clientId));
    }
    this.scheduleTakeBack();
  }

  /** Whether this window gets the pane's output now (false while it is left out of the flow). */
  accepts(clientId: string): boolean {
    return this.meter.accepts(clientId);
  }

  behind(clientId: string): number {
    return this.meter.behind(clientId);
  }

  /**
   * Input given in this task, not yet handed to the PTY: the pieces of one task go as one
   * write. node-pty writes each piece with an `fs.write` of its own on libuv's threadpool and
   * starts the next only once the one before has called back on this thread, so a burst of
   * keys that came in one read of a window's socket (typed while the service was busy: an
   * attach's snapshots) reached the shell one key per turn of the service's loop, and their
   * echo with it: in a traced attach the first key's echo came at once and the other eight's
   * 600 ms later, behind the attach's 32 snapshots (docs/spec/performance.md, "Attach: where a
   * key's echo waited, 2026-12-06, evening, h-echo2").
   */
  private input: string[] | undefined;

  write(data: string): void {
    if (!this.running || !this.proc) return;
    if (this.input) this.input.push(data);
    else {
      this.input = [data];
      queueMicrotask(() => this.writeInput());
    }
    // Input goes ahead of bulk output: a window left behind in a flood redraws as soon as it can (the prompt after Ctrl-C).
    this.hurryBack();
  }

  /** This task's input to the PTY, in one write (write). */
  private writeInput(): void {
    const input = this.input;
    this.input = undefined;
    if (!input || !this.running || !this.proc) return;
    this.proc.write(input.length === 1 ? input[0]! : input.join(''));
  }

  resize(cols: number, rows: number): void {
    if (cols === this.info.cols && rows === this.info.rows) return;
    this.info = { ...this.info, cols, rows };
    this.flush();
    this.screen.resize(cols, rows);
    if (this.running && this.proc) {
      try {
        this.proc.resize(cols, rows);
      } catch {
        // exited between the check and the call
      }
    }
  }

  /**
   * The screen and scrollback as escape sequences, consistent with the output events:
   * it holds exactly the output of every 'pane.output' event emitted before it returns.
   */
  async snapshot(scrollback: number = snapshotScrollback(this.screen.term.rows), clientId?: string): Promise<{ data: string; cols: number; rows: number; complete: boolean; prompts?: SnapshotPrompt[] }> {
    this.flush();
    // A window taken back after falling behind a flood is sent output again from here: what
    // came before is in this snapshot, and what comes while it is taken follows its answer.
    const retaken = clientId !== undefined && this.meter.redrawn(clientId);
    if (clientId !== undefined) {
      // Ready again, it may let a PTY another window holds paused run (not left to the
      // screen's catch-up below to ask).
      this.applyFlow();
    }
    const mine = !this.held;
    if (mine) this.held = [];
    try {
      const snap = await this.screen.serialize(scrollback);
      if (clientId !== undefined) {
        const final = this.shortForGood.delete(clientId);
        if (snap.complete) this.shortHistory.delete(clientId);
        else if (retaken && !final) {
          this.shortHistory.add(clientId);
          // (Taken on a flood's last output, it is told once that has been quiet.)
          this.watchQuiet();
        }
      }
      // Prompts within what the snapshot holds (its history lines and the screen).
      const lines = Math.max(0, Math.min(scrollback, this.screen.term.buffer.normal.baseY));
      const cursorRow = this.screen.term.buffer.active.cursorY + lines;
      const prompts = this.screenPrompts.forSnapshot().filter((p) => p.offset >= -cursorRow);
      return prompts.length > 0 ? { ...snap, prompts } : snap;
    } finally {
      if (mine) {
        // Output that arrived while the snapshot was taken is not in it: release it only
        // after the snapshot's answer has left (the shells send it on this turn's
        // microtasks), so a window that drops output arriving before its snapshot
        // never drops this.
        setImmediate(() => {
          const held = this.held ?? [];
          this.held = undefined;
          if (!this.disposed) for (const d of held) this.receive(d, true);
        });
      }
    }
  }

  /** Its history is still being reflowed after a resize (Screen.reflowing). */
  get reflowing(): boolean {
    return this.screen.reflowing;
  }

  /** Resolves once the headless screen has parsed everything received so far. */
  settled(): Promise<void> {
    this.flush();
    return this.screen.settled();
  }

  /** The rows on screen as runs of cells, and the cursor (a window's first paint). */
  screenCells(): ScreenCells {
    this.flush();
    return this.screen.cells();
  }

  /** The visible screen as plain text, one line per row, trailing spaces trimmed. */
  screenText(): string {
    this.flush();
    return this.screen.screenText();
  }

  /** Every line of scrollback and screen as plain text (for tests and screen reads). */
  allText(): string {
    this.flush();
    return this.screen.allText();
  }

  setTitle(title: string | undefined): void {
    this.fixedTitle = title;
    this.refreshTitle();
  }

  /** Recompute the title; true when it changed (and 'updated' was sent). */
  private refreshTitle(): boolean {
    const title = this.oscTitle ?? this.fixedTitle ?? this.defaultTitle();
    if (title === this.info.title) return false;
    this.info = { ...this.info, title };
    this.hooks.updated(this);
    return true;
  }

  /** The program in the foreground, else (a shell at its prompt) the cwd. */
  private defaultTitle(): string {
    const started = path.basename(this.command[0] ?? '');
    const program = this.foreground ?? started;
    const shells = new Set([started, path.basename(this.env.SHELL ?? ''), 'bash', 'zsh', 'fish', 'sh', 'dash']);
    const shellAtPrompt = this.foreground === undefined ? started === path.basename(this.env.SHELL ?? '') : shells.has(program) && shells.has(started);
    if (!program || shellAtPrompt) {
      const home = os.homedir();
      const cwd = this.info?.cwd ?? this.cwd;
      return cwd === home ? '~' : cwd.startsWith(home + path.sep) ? '~' + cwd.slice(home.length) : cwd;
    }
    return program;
  }

  /** A signal to the pane's process (`group`: its whole process group, as a terminal's job control does). */
  signal(sig: NodeJS.Signals, group = false): void {
    const pid = this.pid;
    if (pid === undefined) return;
    try {
      if (group) process.kill(-pid, sig);
      else if (sig === 'SIGHUP' && this.proc) this.proc.kill('SIGHUP');
      else process.kill(pid, sig);
    } catch {
      // already gone
    }
  }

  /** SIGHUP to the process (and SIGKILL if it is still there after a grace period). */
  hangUp(graceMs = 3000): void {
    const proc = this.proc;
    if (!proc || !this.running) return;
    try {
      proc.kill('SIGHUP');
    } catch {
      // already gone
    }
    const pid = proc.pid;
    setTimeout(() => {
      if (this.proc === proc && this.running) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }, graceMs).unref();
  }

  dispose(): void {
    if (this.disposed) return;
    this.flush();
    this.hangUp();
    this.disposed = true;
    if (this.batchTimer) clearTimeout(this.batchTimer);
    if (this.programTimer) clearTimeout(this.programTimer);
    if (this.takeBackTimer) clearTimeout(this.takeBackTimer);
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.screen.dispose();
  }
}
