/**
 * A pane's headless screen (@xterm/headless and its serialize addon): what the core reads
 * a pane through (snapshots for windows that attach, screenText for Ticks and agents,
 * resume), fed the pane's output and kept exact, without parsing every byte of a flood.
 *
 * Output that is not plain (main/panes/compact.ts: cursor moves, modes, titles...) goes to
 * the parser at once. A plain tail (text, CR, LF, colours) waits in a queue: it is parsed
 * when output goes quiet, when someone reads the screen, before a resize, or when it grows
 * past what compaction can shorten. While it grows, and the screen is in a state where
 * that holds (parser in ground, the scroll region the whole screen), everything but the
 * last scrollback-plus-two-screens of lines is dropped for the attributes it left set:
 * those lines would have scrolled out of the buffer anyway. A `cat` of 32 MB is then
 * parsed as its last ~10,000 lines (bench/peer.bench.ts says what that saved).
 */
import headless from '@xterm/headless';
import serialize from '@xterm/addon-serialize';
import { compactChunks, countLineFeeds, plainTailStart } from './compact.ts';

/** What an SGR looks like before its final `m` has come. */
const PARTIAL_SGR = /^\x1b(?:\[[0-9;:]*)?$/;
/** Output quiet for this long: the queue is parsed. */
const IDLE_MS = 30;
/** A queue shorter than this is never compacted (and never needs to be). */
const COMPACT_MIN = 256 * 1024;
/** A queue that cannot be compacted is parsed once it is this long. */
const QUEUE_MAX = 4 * 1024 * 1024;

export interface ScreenOptions {
  cols: number;
  rows: number;
  scrollback: number;
  /** Characters handed to the parser, and later parsed (flow control: the parser's backlog bounds memory). */
  handed?(chars: number): void;
  parsed?(chars: number): void;
  title?(title: string): void;
  /** Thresholds (tests make them small): see IDLE_MS, COMPACT_MIN, QUEUE_MAX. */
  idleMs?: number;
  compactMin?: number;
  queueMax?: number;
}

/** The parts of @xterm/headless 6.0.0's core the compaction checks (not public API: checked by screen.test.ts). */
interface CoreView {
  _inputHandler?: { _parser?: { currentState?: number }; _curAttrData?: { extended?: { urlId?: number } } };
  _bufferService?: { rows: number; buffer?: { scrollTop: number; scrollBottom: number } };
}

export class Screen {
  readonly term: InstanceType<typeof headless.Terminal>;
  private readonly serializer: InstanceType<typeof serialize.SerializeAddon>;
  private readonly opts: ScreenOptions;
  /** Plain output not handed to the parser yet, in chunks as it came, and the line feeds in each. */
  private chunks: string[] = [];
  private chunkLines: number[] = [];
  /** Characters in the queue. */
  private queued = 0;
  /** The start of an SGR cut off at the end of the last write (a PTY read ends anywhere): it waits for the rest. */
  private partial = '';
  /** Line feeds in the queue. */
  private queueLines = 0;
  /** Compact the queue once it is this long. */
  private compactAt: number;
  private readonly idleMs: number;
  private readonly compactMin: number;
  private readonly queueMax: number;
  /** Characters handed to the parser and not parsed yet. */
  private inFlight = 0;
  private lastWrite = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** Characters of output the screen skipped by compaction (for the benchmark). */
  skipped = 0;

  constructor(opts: ScreenOptions) {
    this.opts = opts;
    this.idleMs = opts.idleMs ?? IDLE_MS;
    this.compactMin = opts.compactMin ?? COMPACT_MIN;
    this.queueMax = opts.queueMax ?? QUEUE_MAX;
    this.compactAt = this.compactMin;
    this.term = new headless.Terminal({ cols: opts.cols, rows: opts.rows, scrollback: opts.scrollback, allowProposedApi: true, logLevel: 'off' });
    this.serializer = new serialize.SerializeAddon();
    this.term.loadAddon(this.serializer);
    if (opts.title) this.term.onTitleChange(opts.title);
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
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
      this.hand(this.takeQueue());
      data = data.slice(tail);
    }
    if (data) {
      const lf = countLineFeeds(data);
      this.chunks.push(data);
      this.chunkLines.push(lf);
      this.queued += data.length;
      this.queueLines += lf;
    }
    if (this.queued >= this.compactAt) this.shorten();
    if (this.queued || this.partial) this.armIdle();
  }

  /**
   * The queue is long. Compact it when the screen allows and it holds more lines than the
   * buffer; wait for more lines while it is short of them (or the parser is busy); parse
   * it when the screen is in a state where compaction does not hold, or it grew too long.
   */
  private shorten(): void {
    const keep = this.keepLines();
    const ready = this.compactable();
    if (ready && this.queueLines > keep) {
      const shorter = compactChunks(this.chunks, this.chunkLines, keep);
      if (shorter) {
        const before = this.queued;
        this.chunks = shorter.chunks;
        this.chunkLines = shorter.lines;
        this.queued = shorter.chunks[0]!.length;
        this.queueLines = shorter.lines[0]!;
        this.skipped += before - this.queued;
        // What is left is about the buffer's worth of lines: compact again when it has doubled.
        this.compactAt = Math.max(this.compactMin, 2 * this.queued);
        return;
      }
    } else if ((ready || this.inFlight > 0) && this.queued < this.queueMax) {
      this.compactAt = Math.min(this.queueMax, 2 * this.queued);
      return;
    }
    this.compactAt = this.compactMin;
    this.flushQueue();
  }

  /** Line feeds a cut must leave after it: every line of the buffer (scrollback and screen) made anew, with a screen to spare. */
  private keepLines(): number {
    return this.opts.scrollback + 2 * this.term.rows + 2;
  }

  /** Whether the parsed screen is where compaction holds: nothing in flight, parser in ground, whole-screen scroll region, no hyperlink open. */
  private compactable(): boolean {
    if (this.inFlight > 0) return false;
    const core = (this.term as unknown as { _core?: CoreView })._core;
    const state = core?._inputHandler?._parser?.currentState;
    const buffer = core?._bufferService?.buffer;
    const rows = core?._bufferService?.rows;
    const link = core?._inputHandler?._curAttrData?.extended?.urlId ?? 0;
    return state === 0 && !!buffer && rows === this.term.rows && buffer.scrollTop === 0 && buffer.scrollBottom === rows - 1 && link === 0;
  }

  private hand(data: string, done?: () => void): void {
    if (!data) {
      if (done) this.term.write('', done);
      return;
    }
    const n = data.length;
    this.inFlight += n;
    this.opts.handed?.(n);
    this.term.write(data, () => {
      this.inFlight -= n;
      this.opts.parsed?.(n);
      done?.();
    });
  }

  /** Everything queued (and a partial SGR), as one string; the queue is empty after. */
  private takeQueue(): string {
    const q = this.chunks.join('');
    this.chunks = [];
    this.chunkLines = [];
    this.queued = 0;
    this.queueLines = 0;
    return q;
  }

  private flushQueue(): void {
    this.chunks.push(this.partial);
    this.partial = '';
    this.hand(this.takeQueue());
  }

  private armIdle(): void {
    if (this.idleTimer) return;
    const check = (): void => {
      this.idleTimer = undefined;
      if (this.disposed || (!this.queued && !this.partial)) return;
      const quiet = performance.now() - this.lastWrite;
      if (quiet < this.idleMs) {
        this.idleTimer = setTimeout(check, this.idleMs - quiet);
        this.idleTimer.unref?.();
        return;
      }
      // Quiet: shorten what can be, then parse the rest.
      if (this.queueLines > this.keepLines() && this.compactable()) this.shorten();
      this.compactAt = this.compactMin;
      this.flushQueue();
    };
    this.idleTimer = setTimeout(check, this.idleMs);
    this.idleTimer.unref?.();
  }

  /** Resolves once everything written so far is parsed. */
  settled(): Promise<void> {
    this.flushQueue();
    return new Promise<void>((resolve) => this.term.write('', resolve));
  }

  /** A new size, applied after the output written before it (it was meant for the old size). */
  resize(cols: number, rows: number): void {
    this.flushQueue();
    this.term.write('', () => {
      if (!this.disposed) this.term.resize(cols, rows);
    });
  }

  /** Screen and scrollback as escape sequences, once everything written so far is parsed. */
  async serialize(scrollback: number): Promise<{ data: string; cols: number; rows: number; complete: boolean }> {
    await this.settled();
    const history = this.term.buffer.normal.baseY;
    const lines = Math.max(0, Math.min(scrollback, history));
    return { data: this.serializer.serialize({ scrollback: lines }), cols: this.term.cols, rows: this.term.rows, complete: lines >= history };
  }

  /** The visible screen as plain text as parsed so far (queued output is handed to the parser for the next read). */
  screenText(): string {
    this.flushQueue();
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.term.rows; y++) lines.push(buf.getLine(buf.baseY + y)?.translateToString(true) ?? '');
    return lines.join('\n');
  }

  /** Every line of scrollback and screen as plain text, as parsed so far. */
  allText(): string {
    this.flushQueue();
    const buf = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buf.length; y++) {
      const line = buf.getLine(y);
      if (!line) continue;
      if (line.isWrapped && lines.length) lines[lines.length - 1] += line.translateToString(true);
      else lines.push(line.translateToString(true));
    }
    return lines.join('\n');
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.chunks = [];
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.term.dispose();
  }
}
