/**
 * A pane's headless screen (@xterm/headless and its serialize addon): what the core reads
 * a pane through (snapshots for windows that attach, screenText for Ticks and agents,
 * resume), fed the pane's output and kept exact, without parsing every byte of a flood.
 *
 * Output that is not plain (main/panes/compact.ts: cursor moves, modes, titles...) goes to
 * the parser at once. A plain tail (text, CR, LF, colours) waits in a queue: it is parsed
 * when output goes quiet, when someone reads the screen, before a resize, or when it grows
 * too long. While it grows, and the screen is in a state where that holds (parser idle and
 * in ground, the scroll region the whole screen), the oldest lines are dropped as new ones
 * come, so that the queue keeps the last scrollback-plus-two-screens of lines and, in
 * `head`, the attributes the dropped lines left set: those lines would have scrolled out of
 * the buffer anyway. A `cat` of 32 MB is parsed as its last ~10,000 lines. Scrollback older
 * than the newest LIVE_ROWS rows moves from xterm's cells to a text archive
 * (main/panes/archive.ts), which snapshots and allText read first: as a flood's kept lines
 * are caught up (Piece.bulk; lines of printable ASCII and colours go there as they came,
 * unparsed: takeDirect), and otherwise once the screen is quiet.
 */
import headless from '@xterm/headless';
import serialize from '@xterm/addon-serialize';
import { Archive, bufferSnapshot, dropTop, forOneRow, normalBuffer, snapshotOf } from './archive.ts';
import { resizeKeepingAlt } from '../../common/xterm-resize.ts';
import { mendEraseAbove } from '../../common/xterm-erase.ts';
import { afterLastCrLf, attributesAtEnd, countLineFeeds, foldAttributes, isDirectLine, plainTailStart } from './compact.ts';
import { flat } from './line-encode.ts';
import { screenCells } from './screen-cells.ts';
import type { ScreenCells } from '../../common/first-paint.ts';

/** What an SGR looks like before its final `m` has come. */
const PARTIAL_SGR = /^\x1b(?:\[[0-9;:]*)?$/;
/**
 * Output quiet for this long: the queue is parsed. Reads parse it first anyway, so this only
 * keeps a quiet pane's screen current; under a flood it must not come between two reads of
 * a busy PTY, or the parser is busy with the queue when the next compaction wants it idle.
 */
const IDLE_MS = 200;
/** A queue this long is parsed when the screen is where dropping lines does not hold. */
const COMPACT_MIN = 256 * 1024;
/** A queue is parsed once it is this long, whatever (a line too long to drop, a busy parser). */
const QUEUE_MAX = 4 * 1024 * 1024;
/** Line feeds kept beyond what the buffer needs, so a CR LF to cut after is always among them. */
const SLACK = 64;
/**
 * Characters parsed per turn of the event loop while the parser works through what it was
 * handed (about a millisecond of parsing), so the service stays responsive during a flood.
 */
const SLICE = 64 * 1024;
/**
 * Scrollback rows kept in xterm's buffer (at least four screens) once the screen is idle:
 * older rows go to the archive (main/panes/archive.ts) as text, a few bytes a character
 * where xterm keeps 12 a cell. A snapshot of more (a window attaching asks for 1,000)
 * replays archived lines first. A flood's catch-up parses these rows (and a screen) each
 * time a window left behind redraws, twice a second: at 500 rows, what that parse made and
 * dropped half a second later kept the service ~5 MiB larger through a 128 MiB flood than at
 * 160, four screens of 40 rows (docs/spec/performance.md).
 */
const LIVE_ROWS = 160;
/** Rows the buffer holds past LIVE_ROWS before it is worth archiving them. */
const ARCHIVE_BATCH = 250;
/**
 * Archiving rows parsed as they came waits until the screen has had no output and nothing
 * to parse for this long: it is work for a quiet moment, not on the output's path (a
 * Ctrl-C's prompt). A flood's kept lines are archived as they are caught up (Piece.bulk).
 */
const ARCHIVE_IDLE_MS = 1_000;
/**
 * Lines of a caught-up queue parsed per turn, and archived in the same turn (Piece.bulk):
 * the most rows of such a queue xterm's cells hold at once, beyond what the buffer keeps.
 */
const BULK_ROWS = 1_000;
/** A blank cell's first word in xterm's packed cells: no character, width 1. */
const NULL_CONTENT = 1 << 22;
/** Rows archived per turn of the event loop (~10 ms), so that the service stays responsive while it archives. */
const ARCHIVE_TURN_ROWS = 1_000;
/**
 * After a resize, the archive's lines still at the old width are reflowed in the background,
 * REFLOW_STEP_ROWS at a time, one screen's batch at a time across all screens: only once no
 * screen was resized or asked for a snapshot for REFLOW_AFTER_MS (the windows that resized
 * them take their snapshots first, which reflow what they show), and with at least twice a
 * batch's time between batches (the service answers between them).
 */
const REFLOW_AFTER_MS = 1_000;
const REFLOW_TURN_MS = 20;
const REFLOW_STEP_ROWS = 500;
/** Lines still at an old width are all reflowed at once when the archive holds this many more rows than the scrollback (output kept coming). */
const REFLOW_OVER_ROWS = 10_000;

const toReflow = new Set<Screen>();
let reflowTimer: NodeJS.Timeout | undefined;
let lastAsked = 0;

function reflowSoon(wait = REFLOW_TURN_MS): void {
  if (reflowTimer || toReflow.size === 0) return;
  reflowTimer = setTimeout(reflowTurn, Math.max(wait, lastAsked + REFLOW_AFTER_MS - performance.now()));
  reflowTimer.unref?.();
}

function reflowTurn(): void {
  reflowTimer = undefined;
  if (performance.now() - lastAsked < REFLOW_AFTER_MS) return reflowSoon();
  const screen = toReflow.values().next().value;
  if (!screen) return;
  const t0 = performance.now();
  if (!screen.reflowStep(REFLOW_STEP_ROWS)) toReflow.delete(screen);
  reflowSoon(Math.max(REFLOW_TURN_MS, 2 * (performance.now() - t0)));
}

export interface ScreenOptions {
  cols: number;
  rows: number;
  scrollback: number;
  /** Characters handed to the parser, and later parsed (flow control: the parser's backlog bounds memory). */
  handed?(chars: number): void;
  parsed?(chars: number): void;
  title?(title: string): void;
  /**
   * True while more output is sure to come though none comes now (the pane's PTY paused by
   * flow control for a window that is behind): the queue is not parsed for being quiet then,
   * or a flood read by a slow window would be parsed a pause at a time.
   */
  held?(): boolean;
  /** The screen moved old scrollback to its archive, and has none left to move. */
  compacted?(): void;
  /** Thresholds (tests make them small): see IDLE_MS, COMPACT_MIN, QUEUE_MAX. */
  idleMs?: number;
  compactMin?: number;
  queueMax?: number;
  /** Characters parsed per turn of the event loop (tests make it small): see SLICE. */
  slice?: number;
  /** Scrollback rows kept in xterm's buffer, how far past that it grows before archiving, and after how long idle (tests make them small): see LIVE_ROWS. */
  liveRows?: number;
  archiveBatch?: number;
  archiveIdleMs?: number;
  /** Lines of a caught-up queue parsed and archived per turn (tests make it small): see BULK_ROWS. */
  bulkRows?: number;
}

/** The parts of @xterm/headless 6.0.0's core the screen uses (not public API: checked by screen.test.ts). */
interface CoreView {
  _inputHandler?: { _parser?: { currentState?: number }; _curAttrData?: { fg?: number; bg?: number; extended?: { urlId?: number } } };
  /** The character set in use (undefined: ASCII as it is) and IRM (insert mode). */
  _charsetService?: { charset?: unknown };
  coreService?: { modes?: { insertMode?: boolean } };
  _bufferService?: { rows: number; buffer?: { scrollTop: number; scrollBottom: number } };
  /**
   * Parses `data` before it returns. The screen never uses xterm's own (async) write, so
   * xterm's write buffer is always empty here and this parses exactly `data`.
   */
  writeSync?(data: string): void;
}

/** Output handed to the parser, what of it is parsed, and what waits for all of it (a resize, a settled()). */
interface Piece {
  data: string;
  done: number;
  after: Array<() => void>;
  /**
   * A queue of plain output being caught up (its line feeds, when more than the buffer
   * keeps): parsed BULK_ROWS lines a turn, each turn's rows archived before the next, so
   * that a flood's last 10,000 lines never sit in xterm's cells all at once.
   */
  bulk: boolean;
}

/**
 * Screens catching up with a flood (Piece.bulk) take turns, the first catching up and the
 * others waiting: when many panes' floods end together, one screen's rows are in xterm's
 * cells at a time (16 at once made the 16-pane peak: bench/service.bench.ts).
 */
const catchingUp: Screen[] = [];

export class Screen {
  readonly term: InstanceType<typeof headless.Terminal>;
  private readonly serializer: InstanceType<typeof serialize.SerializeAddon>;
  private readonly opts: ScreenOptions;
  /** Plain output not handed to the parser yet, in chunks as it came, and the line feeds in each. */
  private chunks: string[] = [];
  private chunkLines: number[] = [];
  /** Characters in the queue. */
  private queued = 0;
  /** The attributes the dropped lines left set (SGR sequences), replayed before the queue with a CR. */
  private head = '';
  /** The start of an SGR cut off at the end of the last write (a PTY read ends anywhere): it waits for the rest. */
  private partial = '';
  /** Line feeds in the queue. */
  private queueLines = 0;
  private readonly idleMs: number;
  private readonly compactMin: number;
  private readonly queueMax: number;
  private readonly slice: number;
  private readonly liveRows: number;
  private readonly archiveBatch: number;
  private readonly archiveIdleMs: number;
  private readonly bulkRows: number;
  private archiveTimer: NodeJS.Timeout | undefined;
  private archiveTurn: NodeJS.Immediate | undefined;
  /** The scrollback's oldest rows, as text (when the scrollback is longer than what the buffer keeps). */
  private readonly archive = new Archive();
  /** Characters handed to the parser and not parsed yet. */
  private inFlight = 0;
  /** What was handed to the parser and is not parsed yet, oldest first. */
  private pieces: Piece[] = [];
  /** The core's synchronous parse (bound); see CoreView. */
  private readonly parse: (data: string) => void;
  /** True inside `parse` (a title or prompt handler that reads the screen must not start another). */
  private parsing = false;
  private drainTimer: NodeJS.Immediate | undefined;
  private lastWrite = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** Characters of output the screen skipped by compaction (for the benchmark). */
  skipped = 0;
  /** Lines of caught-up floods the archive took as they came, never parsed (takeDirect; for tests). */
  direct = 0;

  constructor(opts: ScreenOptions) {
    this.opts = opts;
    this.idleMs = opts.idleMs ?? IDLE_MS;
    this.compactMin = opts.compactMin ?? COMPACT_MIN;
    this.queueMax = opts.queueMax ?? QUEUE_MAX;
    this.slice = opts.slice ?? SLICE;
    this.liveRows = opts.liveRows ?? LIVE_ROWS;
    this.archiveBatch = opts.archiveBatch ?? ARCHIVE_BATCH;
    this.archiveIdleMs = opts.archiveIdleMs ?? ARCHIVE_IDLE_MS;
    this.bulkRows = opts.bulkRows ?? BULK_ROWS;
    this.term = new headless.Terminal({ cols: opts.cols, rows: opts.rows, scrollback: opts.scrollback, allowProposedApi: true, logLevel: 'off' });
    this.serializer = new serialize.SerializeAddon();
    this.term.loadAddon(this.serializer);
    // (xterm's erase above from the last column unwrapped a row of the history: common/xterm-erase.ts.)
    mendEraseAbove(this.term);
    if (opts.title) this.term.onTitleChange(opts.title);
    const core = (this.term as unknown as { _core?: CoreView })._core;
    const writeSync = core?.writeSync;
    if (typeof writeSync !== 'function') {
      this.term.dispose();
      throw new Error('@xterm/headless has no _core.writeSync, which the headless screen parses with: install the version package.json pins (6.0.0) or adapt main/panes/screen.ts.');
    }
    this.parse = writeSync.bind(core);
    if (this.archiving) this.keepSavedRow();
  }

  /**
   * With an archive, the screen is an xterm whose scrollback never fills: in a full buffer,
   * a line scrolling in drops the top row and the rows keep their indices, where they would
   * move up one; DECSC keeps the saved row as such an index, so each row xterm drops as it
   * scrolls (not a resize's, which xterm moves it for, nor the archive's) moves it up too.
   */
  private keepSavedRow(): void {
    const buf = normalBuffer(this.term);
    buf.lines.onTrim((count) => {
      if (!this.ownTrim) buf.savedY -= count;
    });
  }

  /** Rows went to the archive since the screen last said it had none left to move (compacted). */
  private archivedSinceSaid = false;
  /** True while the screen itself trims the buffer (a resize, the archive's move). */
  private ownTrim = false;

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  /** Rows of scrollback held, the archive's and the buffer's (at most the scrollback asked for). */
  get history(): number {
    return this.archive.rows + this.term.buffer.normal.baseY;
  }

  /** Output from the pane's process, in order. */
  write(data: string): void {
    if (this.disposed || !data) return;
    this.lastWrite = performance.now();
    if (this.partial) {
      data = this.partial + data;
      this.partial = '';
    }
    const esc = data.lastIndexOf('\x1b');
    if (esc >= 0 && data.length - esc < 64 && PARTIAL_SGR.test(data.slice(esc))) {
      this.partial = data.slice(esc);
      data = data.slice(0, esc);
    }
    const tail = plainTailStart(data);
    if (tail > 0) {
      // Something that is not plain: it and everything before it go to the parser now.
      this.chunks.push(data.slice(0, tail));
      this.handQueue();
      data = data.slice(tail);
    }
    if (data) {
      const lf = countLineFeeds(data);
      this.chunks.push(data);
      this.chunkLines.push(lf);
      this.queued += data.length;
      this.queueLines += lf;
    }
    this.shorten();
    if (this.queued || this.partial) this.armIdle();
  }

  /**
   * Keep the queue short: drop its oldest lines when the screen allows; parse it when the
   * screen is where that does not hold, or when it is too long.
   */
  private shorten(): void {
    const keep = this.keepLines() + SLACK;
    if (this.queueLines > keep && this.compactable()) this.dropOldest(keep);
    if (this.queued >= this.queueMax || (this.queued >= this.compactMin && this.inFlight === 0 && !this.compactable())) this.flushQueue();
  }

  /**
   * Drop whole lines from the front of the queue (up to a CR LF) while `keep` line feeds stay
   * after them. What a cut leaves of a line stays a chunk of its own: joined to the next chunk
   * (as the first version did) it made a string that the next cut's search copied whole, a
   * second copy of every byte of a flood.
   */
  private dropOldest(keep: number): void {
    while (this.chunks.length > 1 && this.queueLines - this.chunkLines[0]! >= keep) {
      const first = this.chunks[0]!;
      const cut = afterLastCrLf(first);
      if (cut < 0) {
        // No line ends in it with a CR LF: the cut goes to the next chunk's last CR LF, both dropped up to there.
        const next = this.chunks[1]!;
        let inNext = afterLastCrLf(next);
        if (inNext < 0 && first.endsWith('\r') && next.startsWith('\n')) inNext = 1;
        if (inNext < 0) {
          // Neither has one (a line longer than a chunk): the chunk joins the next one, unless it is a long line of its own.
          if (first.length > 65_536) return;
          this.chunks.shift();
          this.chunks[0] = first + next;
          const lines = this.chunkLines.shift()!;
          this.chunkLines[0]! += lines;
          continue;
        }
        if (this.queueLines - this.chunkLines[0]! - this.chunkLines[1]! < keep) return;
        const rest = next.slice(inNext);
        const restLines = countLineFeeds(rest);
        if (!this.cutAfter(first, next.slice(0, inNext), this.chunkLines[0]! + this.chunkLines[1]! - restLines)) return;
        this.chunks.splice(0, 2);
        this.chunkLines.splice(0, 2);
        if (rest) {
          this.chunks.unshift(rest);
          this.chunkLines.unshift(restLines);
        }
        continue;
      }
      const rest = first.slice(cut);
      const restLines = countLineFeeds(rest);
      if (!this.cutAfter(first.slice(0, cut), '', this.chunkLines[0]! - restLines)) return;
      this.chunks.shift();
      this.chunkLines.shift();
      if (rest) {
        this.chunks.unshift(rest);
        this.chunkLines.unshift(restLines);
      }
    }
  }

  /**
   * Account for dropping `dropped` then `more` (what a cut removes from the front of the queue,
   * up to just after a CR LF), `lines` line feeds in all: the attributes they leave set go to
   * the head. False (nothing changed) when those would be too long to keep.
   */
  private cutAfter(dropped: string, more: string, lines: number): boolean {
    const attrs = attributesAtEnd(dropped);
    const moreAttrs = more ? attributesAtEnd(more) : '';
    let head = attrs === undefined ? undefined : foldAttributes(this.head, attrs);
    if (head !== undefined && moreAttrs) head = foldAttributes(head, moreAttrs);
    if (head === undefined || moreAttrs === undefined) return false;
    this.head = head;
    const gone = dropped.length + more.length;
    this.queueLines -= lines;
    this.queued -= gone;
    this.skipped += gone;
    return true;
  }

  /** Line feeds a cut must leave after it: every line of the buffer (scrollback and screen) made anew, with a screen to spare. */
  private keepLines(): number {
    return this.opts.scrollback + 2 * this.term.rows + 2;
  }

  /** Whether the parsed screen is where compaction holds: nothing in flight, parser in ground, whole-screen scroll region, no hyperlink open. */
  private compactable(inFlight = this.inFlight): boolean {
    if (inFlight > 0) return false;
    const core = (this.term as unknown as { _core?: CoreView })._core;
    const state = core?._inputHandler?._parser?.currentState;
    const buffer = core?._bufferService?.buffer;
    const rows = core?._bufferService?.rows;
    const link = core?._inputHandler?._curAttrData?.extended?.urlId ?? 0;
    return state === 0 && !!buffer && rows === this.term.rows && buffer.scrollTop === 0 && buffer.scrollBottom === rows - 1 && link === 0;
  }

  /**
   * Output to the parser: it is parsed a slice per turn of the event loop (drain), or at
   * once by a read that cannot wait (parseNow). Each piece keeps what must happen once it is
   * parsed (a resize, a settled()), so those happen between the same bytes they came between.
   */
  private hand(data: string, bulk = false): void {
    if (!data) return;
    this.pieces.push({ data, done: 0, after: [], bulk });
    this.inFlight += data.length;
    this.opts.handed?.(data.length);
    this.schedule();
  }

  private drainSlice(): void {
    this.drainTimer = undefined;
    if (this.disposed) return;
    const piece = this.pieces[0];
    if (piece?.bulk) {
      if (!catchingUp.includes(this)) catchingUp.push(this);
      // Another screen is catching up: this one's turn comes when that one is done (leaveCatchUp).
      if (catchingUp[0] !== this) return;
      this.drainBulk();
      if (this.pieces[0] === piece) {
        this.schedule();
        return;
      }
      // Done with that piece: the next screen's turn (this one joins the end of the line again for another).
      this.leaveCatchUp();
      if (this.pieces.length > 0) this.schedule();
      return;
    }
    // (A read may have parsed a bulk piece while this screen waited its turn.)
    this.leaveCatchUp();
    this.drain(this.slice, true);
    if (this.pieces.length > 0) this.schedule();
  }

  private schedule(): void {
    if (!this.drainTimer && !this.disposed) this.drainTimer = setImmediate(() => this.drainSlice());
  }

  /** Out of the screens catching up (done, or disposed): the next one's turn. */
  private leaveCatchUp(): void {
    const i = catchingUp.indexOf(this);
    if (i < 0) return;
    catchingUp.splice(i, 1);
    if (i === 0) catchingUp[0]?.schedule();
  }

  /**
   * Parse up to `limit` characters of what was handed, oldest first, running what waits for
   * each piece once it is parsed; with `beforeBulk`, stopping at a bulk piece. Not from inside a parse (a handler that reads the screen
   * sees it as parsed so far; the outer drain goes on in order).
   */
  private drain(limit: number, beforeBulk = false): void {
    if (this.parsing || this.disposed) return;
    let budget = limit;
    while (budget > 0 && this.pieces.length > 0 && !this.disposed) {
      const piece = this.pieces[0]!;
      // A bulk piece waits for its own turns (drainBulk), where its lines are archived as they are parsed.
      if (beforeBulk && piece.bulk) break;
      const n = Math.min(budget, piece.data.length - piece.done);
      if (n > 0) {
        const slice = piece.done === 0 && n === piece.data.length ? piece.data : piece.data.slice(piece.done, piece.done + n);
        this.parsing = true;
        try {
          this.parse(slice);
        } finally {
          this.parsing = false;
        }
        piece.done += n;
        budget -= n;
        this.inFlight -= n;
        this.opts.parsed?.(n);
        this.keepHistory();
      }
      if (piece.done < piece.data.length) continue;
      this.pieces.shift();
      for (const f of piece.after) f();
      // The parser caught up: a queue that grew meanwhile can be shortened now.
      if (this.inFlight === 0 && this.queued > 0 && !this.disposed) this.shorten();
    }
  }

  /**
   * A turn of a bulk piece (see Piece.bulk): up to BULK_ROWS of its lines parsed, then the
   * rows above what the buffer keeps moved to the archive, before anything else comes in.
   */
  private drainBulk(): void {
    const piece = this.pieces[0]!;
    const direct = this.takeDirect(piece);
    if (direct === 'taken') {
      this.archivedSinceSaid = true;
      return;
    }
    // Where the state allows it but the cursor is not at a blank bottom row yet, a screen's worth of lines gets it there.
    const turn = direct === 'soon' ? this.term.rows : this.bulkRows;
    let end = piece.done;
    for (let n = 0; n < turn && end < piece.data.length; n++) {
      const lf = piece.data.indexOf('\n', end);
      end = lf < 0 ? piece.data.length : lf + 1;
    }
    this.drain(Math.max(1, end - piece.done));
    if (!this.archiving || this.disposed) return;
    const over = () => this.term.buffer.normal.baseY - this.live() >= this.archiveBatch;
    if (over()) {
      this.moveToArchive(2 * this.bulkRows);
      this.archivedSinceSaid = true;
    }
    // The flood's lines are in the archive: the memory their cells took can go back.
    if (this.pieces[0] !== piece && !over() && this.archivedSinceSaid) {
      this.archivedSinceSaid = false;
      this.opts.compacted?.();
    }
  }

  /**
   * A turn of a bulk piece without the parser, where its next lines allow (the cat of a log
   * or of highlighted source): lines of printable ASCII and SGRs that end in the default
   * attributes (isDirectLine), written from column 0 of a blank bottom row in the default
   * state, are what the archive would have held after parsing them, as they came. So every
   * row above the cursor is copied to the archive, then those lines but the last ones the
   * buffer keeps (its live rows and a screen) are added to it as one run, then those last ones
   * are parsed (scrolling the old rows, copied already, off the buffer's top) and the rows
   * above them are dropped: the buffer and the archive end as parsing all of them would
   * leave them, the buffer with the rows of scrollback a taller screen pulls down. 'taken'
   * when it applied, 'soon' when only the cursor's place (or a marker on its row: a
   * prompt's, which must stay on the flood's first line) kept it from applying.
   */
  private takeDirect(piece: Piece): 'taken' | 'soon' | 'no' {
    const core = (this.term as unknown as { _core?: CoreView })._core;
    const buf = this.term.buffer.normal;
    const rows = this.term.rows;
    const cols = this.term.cols;
    const attr = core?._inputHandler?._curAttrData;
    if (!this.archiving || this.term.buffer.active.type !== 'normal' || !this.compactable(0) || attr?.fg !== 0 || attr.bg !== 0) return 'no';
    if (core?._charsetService?.charset !== undefined || core?.coreService?.modes?.insertMode !== false) return 'no';
    if (buf.cursorX !== 0 || buf.cursorY !== rows - 1) return 'soon';
    // The cursor's row is blank: every cell the null cell, no colour (a row a scroll made with the default attributes).
    const { lines, markers } = normalBuffer(this.term);
    const top = buf.baseY + rows - 1;
    const row = lines.get(top);
    if (!row || row.isWrapped || markers.some((m) => m.line === top && !m.isDisposed)) return 'soon';
    for (let i = 0; i < row.length * 3; i += 3) if (row._data[i] !== NULL_CONTENT || row._data[i + 1] !== 0 || row._data[i + 2] !== 0) return 'soon';
    // The lines that allow it, up to (not with) the piece's last: checked where they lie.
    const data = piece.data;
    const ends: number[] = [];
    for (let at = piece.done; ; ) {
      const lf = data.indexOf('\n', at);
      if (lf < 0 || lf + 1 >= data.length || lf === at || data.charCodeAt(lf - 1) !== 13 || !isDirectLine(data, at, lf - 1, cols)) break;
      at = lf + 1;
      ends.push(at);
    }
    // The lines the buffer keeps (its live rows of scrollback, the screen's above the cursor) are parsed; the rest must be worth the copy of a screen.
    const kept = this.live() + rows - 1;
    const head = ends.length - kept;
    if (head < rows) return 'no';
    this.archive.copyFrom(this.term, this.serializer, 0, top - 1);
    this.trimming(() => dropTop(this.term, buf.baseY));
    // One run of lines (Archive.addRun): a slice of the piece's string when it is most of it
    // (a flood's queue: all but the lines the buffer keeps), else a copy, so that a far
    // longer piece is let go.
    const from = piece.done;
    const run = data.slice(from, ends[head - 1]!);
    this.archive.addRun(2 * run.length >= data.length ? run : flat(run), head);
    const parsedTo = ends[ends.length - 1]!;
    this.parsing = true;
    try {
      this.parse(data.slice(ends[head - 1]!, parsedTo));
    } finally {
      this.parsing = false;
    }
    // The old rows above the lines kept scrolled off the screen: the archive has them (xterm may have dropped some itself, its scrollback full).
    this.trimming(() => dropTop(this.term, buf.baseY - this.live()));
    this.direct += head;
    piece.done = parsedTo;
    this.inFlight -= parsedTo - from;
    this.opts.parsed?.(parsedTo - from);
    this.keepHistory();
    return 'taken';
  }

  /** Whether the buffer keeps fewer rows than the scrollback, the rest in the archive. */
  private get archiving(): boolean {
    return this.opts.scrollback > this.live() + this.archiveBatch;
  }

  /** Scrollback rows the buffer keeps: LIVE_ROWS, and never under four screens. */
  private live(): number {
    return Math.max(this.liveRows, 4 * this.term.rows);
  }

  /**
   * The scrollback holds at most `scrollback` rows, the archive's and the buffer's: the
   * archive's oldest go as the buffer grows. Then, if the buffer holds enough to archive,
   * archiving waits for a quiet moment.
   */
  private keepHistory(): void {
    if (!this.archiving || this.disposed) return;
    const buf = this.term.buffer.normal;
    // Output kept coming while old lines waited to be reflowed: reflowed now, so the scrollback's limit holds.
    if (this.archive.reflowing && this.archive.rows + buf.baseY > this.opts.scrollback + REFLOW_OVER_ROWS) {
      this.archive.finish();
      toReflow.delete(this);
    }
    if (this.archive.rows > 0) this.archive.trim(this.opts.scrollback - buf.baseY, this.term.cols);
    if (buf.baseY - this.live() >= this.archiveBatch && !this.archiveTimer && !this.archiveTurn) {
      this.archiveTimer = setTimeout(() => this.archiveWhenIdle(), this.archiveIdleMs);
      this.archiveTimer.unref?.();
    }
  }

  /** Archive a turn's worth of rows if the screen is still idle, and go on next turn; else wait for the next quiet moment. */
  private archiveWhenIdle(): void {
    this.archiveTimer = undefined;
    this.archiveTurn = undefined;
    if (this.disposed) return;
    const quiet = performance.now() - this.lastWrite;
    if (quiet < this.archiveIdleMs || this.inFlight > 0 || this.queued > 0) {
      this.archiveTimer = setTimeout(() => this.archiveWhenIdle(), Math.max(10, this.archiveIdleMs - quiet));
      this.archiveTimer.unref?.();
      return;
    }
    const before = this.archive.rows;
    const more = this.moveToArchive(ARCHIVE_TURN_ROWS);
    this.archivedSinceSaid ||= this.archive.rows !== before;
    if (more) this.archiveTurn = setImmediate(() => this.archiveWhenIdle());
    else if (this.archivedSinceSaid) {
      this.archivedSinceSaid = false;
      this.opts.compacted?.();
    }
  }

  /** Archive every row the buffer need not keep, now (what a quiet moment would do). */
  compact(): void {
    this.parseNow();
    while (this.archiving && this.moveToArchive(Infinity));
  }

  /** The archive's move of the buffer's top rows (at most `most`); whether more are left. */
  private moveToArchive(most: number): boolean {
    return this.trimming(() => this.archive.moveFrom(this.term, this.serializer, this.live(), most));
  }

  /** `fn`, which trims the buffer's top itself (ownTrim: DECSC's saved row is not moved again). */
  private trimming<T>(fn: () => T): T {
    this.ownTrim = true;
    try {
      return fn();
    } finally {
      this.ownTrim = false;
    }
  }

  /** Run `fn` once everything handed to the parser so far is parsed (now, when nothing is in flight). */
  private afterParsed(fn: () => void): void {
    const last = this.pieces[this.pieces.length - 1];
    if (last) last.after.push(fn);
    else fn();
  }

  /** Everything queued (and a partial SGR), as one string; the queue is empty after. */
  private takeQueue(): string {
    const q = (this.head ? this.head + '\r' : '') + this.chunks.join('');
    this.head = '';
    this.chunks = [];
    this.chunkLines = [];
    this.queued = 0;
    this.queueLines = 0;
    return q;
  }

  private flushQueue(): void {
    this.chunks.push(this.partial);
    this.partial = '';
    this.handQueue();
  }

  /** The queue to the parser, in turns of BULK_ROWS lines when it holds more than the buffer keeps (see Piece.bulk). */
  private handQueue(): void {
    const bulk = this.archiving && this.queueLines > this.live() + this.archiveBatch;
    this.hand(this.takeQueue(), bulk);
  }

  private armIdle(): void {
    if (this.idleTimer) return;
    const check = (): void => {
      this.idleTimer = undefined;
      if (this.disposed || (!this.queued && !this.partial)) return;
      const quiet = performance.now() - this.lastWrite;
      if (quiet < this.idleMs || this.opts.held?.()) {
        this.idleTimer = setTimeout(check, Math.max(10, this.idleMs - quiet));
        this.idleTimer.unref?.();
        return;
      }
      this.flushQueue();
    };
    this.idleTimer = setTimeout(check, this.idleMs);
    this.idleTimer.unref?.();
  }

  /** Resolves once everything written so far is parsed. */
  settled(): Promise<void> {
    this.flushQueue();
    return new Promise<void>((resolve) => this.afterParsed(resolve));
  }

  /** A new size, applied after the output written before it (it was meant for the old size). */
  resize(cols: number, rows: number): void {
    this.flushQueue();
    this.afterParsed(() => {
      if (this.disposed) return;
      const from = this.term.cols;
      this.trimming(() => resizeKeepingAlt(this.term, cols, rows));
      if (this.archive.rows > 0) this.archive.reflow(from, cols);
      this.keepHistory();
      this.reflowLater();
    });
  }

  /** Lines of the archive are still at an old width (reflowed in the background since a resize): a snapshot of all of it would reflow them at once. */
  get reflowing(): boolean {
    return this.archive.reflowing;
  }

  /** The archive's lines still at an old width, reflowed in the background (reflowTurn); the scrollback's limit applies once they all are. */
  private reflowLater(): void {
    lastAsked = performance.now();
    if (!this.archive.reflowing || this.disposed) return;
    toReflow.add(this);
    reflowSoon();
  }

  /** One batch of the archive's lines still at an old width reflowed; whether any are left. */
  reflowStep(rows: number): boolean {
    if (this.disposed) return false;
    if (this.archive.step(rows)) return true;
    this.keepHistory();
    return false;
  }

  /** Every line of the archive at the pane's width now (where all of it is read), the scrollback's limit applied. */
  private reflowNow(): void {
    if (!this.archive.reflowing) return;
    this.archive.finish();
    toReflow.delete(this);
    this.keepHistory();
  }

  /** Screen and scrollback as escape sequences, once everything written so far is parsed. */
  async serialize(scrollback: number): Promise<{ data: string; cols: number; rows: number; complete: boolean }> {
    await this.settled();
    lastAsked = performance.now();
    if (this.archive.reflowing) {
      // All of the history asked for: every line reflowed; else the newest rows asked for (Archive.replay).
      if (scrollback >= this.history) this.reflowNow();
    }
    const base = this.term.buffer.normal.baseY;
    const history = base + this.archive.rows;
    const lines = Math.max(0, Math.min(scrollback, history));
    const start = base - Math.min(lines, base);
    // With an archive, the buffer's rows of history are read from the cells as the archive's
    // are, down to the line the screen's first row belongs to; the screen (and a line wrapped
    // onto it) is the serialize addon's, with its cursor and modes (bufferSnapshot). Without,
    // all of it is the addon's.
    const own = (this.archiving ? bufferSnapshot : snapshotOf)(this.term, this.serializer, base - start);
    const archived = lines > base ? this.archive.replay(lines - base, this.term.rows) : '';
    const data = archived + own;
    // (A screen of one row has no row above the cursor, which the addon's wrap of a row ending in empty cells goes up to: forOneRow.)
    return { data: this.term.rows === 1 ? forOneRow(data, this.term.cols) : data, cols: this.term.cols, rows: this.term.rows, complete: lines >= history };
  }

  /**
   * Parse everything written so far before returning (a read that cannot wait: screen text
   * for a Tick's failure, an agent reading a pane), in order, with what waits in between.
   */
  private parseNow(): void {
    this.flushQueue();
    this.drain(Infinity);
  }

  /** The visible screen as plain text, with everything written so far. */
  screenText(): string {
    this.parseNow();
    return screenTextOf(this.term);
  }

  /** The rows on screen as runs of cells, and the cursor, with everything written so far (a window's first paint). */
  cells(): ScreenCells {
    this.parseNow();
    return screenCells(this.term);
  }

  /** Every line of scrollback and screen as plain text, with everything written so far. */
  allText(): string {
    this.parseNow();
    this.reflowNow();
    const own = allTextOf(this.term);
    // The archive is the normal buffer's: the alternate screen has no scrollback.
    return this.archive.rows > 0 && this.term.buffer.active.type === 'normal' ? [...this.archive.text(), own].join('\n') : own;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.chunks = [];
    this.archive.clear();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.drainTimer) clearImmediate(this.drainTimer);
    this.leaveCatchUp();
    if (this.archiveTimer) clearTimeout(this.archiveTimer);
    if (this.archiveTurn) clearImmediate(this.archiveTurn);
    toReflow.delete(this);
    // What waited for output never parsed now (a settled()) goes on; a resize is moot.
    const waiting = this.pieces.flatMap((p) => p.after);
    this.pieces = [];
    this.term.dispose();
    for (const f of waiting) f();
  }
}

type Term = InstanceType<typeof headless.Terminal>;


/** A terminal's visible screen as plain text as parsed so far, one line per row, trailing spaces trimmed. */
export function screenTextOf(term: Term): string {
  const buf = term.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < term.rows; y++) lines.push(buf.getLine(buf.baseY + y)?.translateToString(true) ?? '');
  return lines.join('\n');
}

/** A terminal's scrollback and screen as plain text as parsed so far, wrapped rows joined. */
export function allTextOf(term: Term): string {
  const buf = term.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < buf.length; y++) {
    const line = buf.getLine(y);
    if (!line) continue;
    if (line.isWrapped && lines.length) lines[lines.length - 1] += line.translateToString(true);
    else lines.push(line.translateToString(true));
  }
  return lines.join('\n');
}
