/**
 * A pane's output as the search index reads it: plain lines (escape sequences taken out, a
 * carriage return starting its line over, a backspace taking back a character) numbered from
 * the pane's first line, and the commands its shell integration marked (OSC 133: B input
 * starts, C the command starts, D;status it ended) with the line they ran on, each with the
 * folder the shell last reported (OSC 7) before it: a command's where it began. Fed chunks of
 * any size, split anywhere (a sequence may straddle chunks). No I/O (the machine's name aside).
 */
import { isLocalHost, MAX_BODY, parseOsc } from '../panes/marks.ts';

export type OutputItem =
  | { kind: 'output'; line: number; text: string; folder?: string }
  | { kind: 'command'; line: number; text: string; exitCode?: number; folder?: string };

/**
 * What a line or a command read is made into (`feed`'s items; `feedTo`'s caller's own, such as
 * the search service's entries). `folder`: where the shell said it was (OSC 7) when the line
 * was read or the command began; undefined before it said.
 */
export type MakeItem<T> = (kind: OutputItem['kind'], line: number, text: string, exitCode: number | undefined, folder: string | undefined) => T;

const outputItem: MakeItem<OutputItem> = (kind, line, text, exitCode, folder) => {
  const item: OutputItem = { kind, line, text };
  if (exitCode !== undefined) (item as { exitCode?: number }).exitCode = exitCode;
  if (folder !== undefined) item.folder = folder;
  return item;
};

/** `feedTo`'s place between calls (nothing is put there: only a call's `out` is). */
const NOWHERE: unknown[] = [];

/** A line longer than this is cut (the rest of it is still read, and dropped). */
export const MAX_LINE = 4096;
/** How much of an OSC's body is kept: its first 64 characters, an OSC 7's (a folder) as much as the pane's own reader keeps (MAX_BODY: a longer one is not believed). */
const OSC_KEEP = 64;
const OSC_7_KEEP = MAX_BODY;

type State = 'ground' | 'esc' | 'esc-int' | 'csi' | 'osc' | 'osc-esc' | 'str' | 'str-esc';

/** What is not plain text: C0, DEL and C1 (a run up to one is taken whole). */
const SPECIAL = /[\u0000-\u001f\u007f-\u009f]/g;
/**
 * Where an OSC, DCS, SOS, PM or APC string may start (the only place a newline is not a line's
 * end): an ESC then its introducer, or an ESC then a C0 control (carried out within the escape,
 * which goes on: an introducer may follow).
 */
const STRING_MAY_START = /\x1b[\]PX^_\x00-\x17\x19\x1c-\x1f]/;
/** A C1 control: it may begin a sequence or a string, or end a line. */
const C1 = /[\x80-\x9f]/;
/** Where an OSC's or a DCS/APC string's body ends (BEL, or ESC of ST, or ST), or is cancelled (CAN, SUB, any other C1 control). */
const OSC_END = /[\u0007\u0018\u001a\u001b\u0080-\u009f]/g;
/** Where a DCS, SOS, PM or APC string ends (ESC of ST, or ST) or is cancelled (CAN, SUB, any other C1 control): BEL does not end one. */
const STR_END = /[\u0018\u001a\u001b\u0080-\u009f]/g;
/** In skip's counting: where plain text ends (an escape, or a C1 control). */
const ESC_OR_C1 = /[\x1b\x80-\x9f]/g;

export class OutputLines {
  /** The number the next line gets. */
  line: number;
  private state: State = 'ground';
  private text = '';
  /** A lone CR came: the next printable character starts the line over. */
  private returned = false;
  private osc = '';
  /** The OSC's body was longer than what was kept of it. */
  private oscCut = false;
  /** The folder the shell last reported (OSC 7 from a host `isLocal` names), for the lines and commands read after it. */
  folder: string | undefined;
  private readonly isLocal: (host: string) => boolean;
  /** Between OSC 133;B and C: what is typed is the command. */
  private typing = false;
  private typed = '';
  private command: { text: string; line: number; folder: string | undefined } | undefined;
  /** In `skip`: lines are counted as `feed` would count them, nothing of them kept. */
  private counting = false;
  /** Where `feedTo` puts what it reads, made by `make`. */
  private out: unknown[] = NOWHERE;
  private make: MakeItem<unknown> = outputItem;

  /** `isLocal`: whether an OSC 7 host is this machine (a shell over ssh reports another's folders: not taken); by default as the pane judges it. */
  constructor(firstLine = 0, isLocal: (host: string) => boolean = isLocalHost) {
    this.line = firstLine;
    this.isLocal = isLocal;
  }

  /** The lines and commands this chunk completed, in order. */
  feed(data: string): OutputItem[] {
    return this.feedTo(data, [], outputItem);
  }

  /** As `feed`, each line and command this chunk completed made by `make` and pushed onto `out` (no item made first); `out`. */
  feedTo<T>(data: string, out: T[], make: MakeItem<T>): T[] {
    this.out = out;
    this.make = make;
    try {
      this.read(data);
    } finally {
      this.out = NOWHERE;
      this.make = outputItem;
    }
    return out;
  }

  private read(data: string): void {
    const out = this.out;
    const n = data.length;
    // (The state in a local while the chunk is read: a sequence's body is skipped with one
    // search for its end, not a turn of this loop a character.)
    let state = this.state;
    // (Counting: where the next newline is, searched again only once it is behind: -2 not yet searched, -1 none.)
    let nl = -2;
    for (let i = 0; i < n; i++) {
      const c = data.charCodeAt(i);
      switch (state) {
        case 'ground':
          if (this.counting) {
            // Counting (skip): only the newlines up to the next escape or C1 control matter here.
            ESC_OR_C1.lastIndex = i;
            const esc = ESC_OR_C1.test(data) ? ESC_OR_C1.lastIndex - 1 : -1;
            const end = esc < 0 ? n : esc;
            if (nl !== -1 && nl < i) nl = data.indexOf('\n', i);
            while (nl >= 0 && nl < end) {
              this.line++;
              nl = data.indexOf('\n', nl + 1);
            }
            if (esc < 0) i = n;
            else if (data.charCodeAt(esc) === 0x1b) {
              state = 'esc';
              i = esc;
            } else {
              state = this.c1(data.charCodeAt(esc), out);
              i = esc;
            }
          } else if (c >= 0x20 && c !== 0x7f && !(c >= 0x80 && c < 0xa0)) {
            // Plain text up to the next control character, in one piece.
            SPECIAL.lastIndex = i;
            const end = SPECIAL.test(data) ? SPECIAL.lastIndex - 1 : n;
            this.putRun(data.slice(i, end));
            i = end - 1;
          } else if (c === 0x1b) state = 'esc';
          else if (c >= 0x80 && c < 0xa0) state = this.c1(c, out);
          else this.control(c, out);
          break;
        case 'esc':
          if (c < 0x20) {
            // A control character inside an escape is carried out and the escape goes on (a newline
            // still ends the line), as xterm does; a second ESC begins again, CAN and SUB cancel it.
            if (c === 0x18 || c === 0x1a) state = 'ground';
            else if (c !== 0x1b) this.control(c, out);
          } else if (c === 0x5b) state = 'csi';
          else if (c === 0x5d) {
            state = 'osc';
            this.osc = '';
            this.oscCut = false;
          } else if (c === 0x50 || c === 0x5f || c === 0x5e || c === 0x58) state = 'str';
          else if (c >= 0x20 && c <= 0x2f) state = 'esc-int';
          else if (c === 0x7f) {
            // DEL is ignored, and the escape goes on.
          } else {
            // Its final byte; a C1 control instead ends it and is read as in ground.
            state = 'ground';
            if (c >= 0x80 && c < 0xa0) i--;
          }
          break;
        case 'esc-int':
          // An escape sequence's intermediates (ESC ( B: the character set tput sgr0 picks) up to its
          // final byte; a control character within them as within an escape.
          if ((c >= 0x20 && c <= 0x2f) || c === 0x7f) break;
          if (c < 0x20) {
            if (c === 0x18 || c === 0x1a) state = 'ground';
            else if (c === 0x1b) state = 'esc';
            else this.control(c, out);
            break;
          }
          state = 'ground';
          if (c > 0x7e) i--;
          break;
        case 'csi': {
          // Its parameters and intermediates up to its final byte (0x40-0x7e), in this chunk or the
          // next; an ESC within it ends it and starts another. A control character within it is
          // carried out and the sequence goes on (a newline still ends the line, as in xterm), but
          // CAN and SUB, which cancel it.
          let j = i;
          for (let k = c; !(k >= 0x40 && k <= 0x7e) && k >= 0x20 && k < 0x80; k = data.charCodeAt(j)) if (++j === n) break;
          i = j;
          if (j === n) break;
          const k = data.charCodeAt(j);
          if (k === 0x1b) state = 'esc';
          else if (k >= 0x80) {
            // A C1 control ends it and is read as in ground; a character from U+00A0 up ends it and is
            // dropped (xterm's parse error).
            state = 'ground';
            if (k < 0xa0) i--;
          }
          else if (k >= 0x20 || k === 0x18 || k === 0x1a) state = 'ground';
          else this.control(k, out);
          break;
        }
        case 'osc': {
          // Its body up to BEL or ESC (the first OSC_KEEP characters kept, an OSC 7's OSC_7_KEEP).
          OSC_END.lastIndex = i;
          const end = OSC_END.test(data) ? OSC_END.lastIndex - 1 : n;
          const head = this.osc.length < 2 ? this.osc + data.slice(i, Math.min(end, i + 2 - this.osc.length)) : this.osc;
          const keep = (head.startsWith('7;') ? OSC_7_KEEP : OSC_KEEP) - this.osc.length;
          if (end - i > keep) this.oscCut = true;
          if (keep > 0) this.osc += data.slice(i, Math.min(end, i + keep));
          i = end;
          if (end === n) break;
          const e = data.charCodeAt(end);
          if (e === 0x07 || e === 0x9c) {
            this.endOsc(out);
            state = 'ground';
          } else if (e === 0x1b) state = 'osc-esc';
          else {
            // CAN, SUB, or a C1 control other than ST: it is cancelled (the C1 control read as in ground).
            state = 'ground';
            if (e >= 0x80) i--;
          }
          break;
        }
        case 'osc-esc':
          // ESC \ ends it; an ESC before anything else ends it too and begins an escape.
          this.endOsc(out);
          if (c === 0x5c) state = 'ground';
          else {
            state = 'esc';
            i--;
          }
          break;
        case 'str': {
          // Skipped whole up to ESC (of ST) or ST, or what cancels it (BEL does not end it, as in xterm).
          STR_END.lastIndex = i;
          const end = STR_END.test(data) ? STR_END.lastIndex - 1 : n;
          i = end;
          if (end === n) break;
          const e = data.charCodeAt(end);
          state = e === 0x1b ? 'str-esc' : 'ground';
          // (A C1 control other than ST ends it and is read as in ground.)
          if (e >= 0x80 && e !== 0x9c) i--;
          break;
        }
        case 'str-esc':
          if (c === 0x5c) state = 'ground';
          else {
            state = 'esc';
            i--;
          }
          break;
      }
    }
    this.state = state;
  }

  /**
   * Output that is not read (a flood's part the index let go): its lines are counted as `feed`
   * counts them (a newline inside an OSC or DCS string is not a line's end, as in xterm), and
   * a sequence it ends in goes on in what comes next, so the lines after it keep their numbers;
   * the line it ends in starts afresh, and a command begun in it is forgotten.
   */
  skip(data: string): void {
    this.counting = true;
    try {
      // (ASCII alone, its UTF-8 as long as it, holds no C1 control: told at ~6 GB/s, the look for one ~3.)
      const first = this.state === 'ground' ? data.indexOf('\x1b') : 0;
      if (this.state === 'ground' && (first < 0 || !STRING_MAY_START.test(data)) && (Buffer.byteLength(data) === data.length || !C1.test(data))) {
        // No string and no C1 control in it: every newline ends a line (one inside an escape or
        // a CSI too), and only what follows its last ESC can leave a sequence open.
        for (let at = data.indexOf('\n'); at >= 0; at = data.indexOf('\n', at + 1)) this.line++;
        if (first >= 0) {
          const line = this.line;
          this.feed(data.slice(data.lastIndexOf('\x1b')));
          this.line = line;
        }
      } else this.feed(data);
    } finally {
      this.counting = false;
    }
    this.text = '';
    this.returned = false;
    // (An OSC it ends in goes on, what it read of its body kept: a folder reported across the boundary is read whole.)
    this.typing = false;
    this.command = undefined;
  }

  /** The line not yet ended by a newline (a prompt, the last thing a pane printed). */
  get pending(): string {
    return this.text.trimEnd();
  }

  /**
   * A C1 control (U+0080-U+009F), as xterm reads it anywhere: CSI, OSC, DCS, SOS, PM and APC
   * begin their sequence or string, NEL and IND end the line, ST and the rest end what was open.
   */
  private c1(c: number, out: unknown[]): State {
    if (c === 0x9b) return 'csi';
    if (c === 0x9d) {
      this.osc = '';
      this.oscCut = false;
      return 'osc';
    }
    if (c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) return 'str';
    if (c === 0x85 || c === 0x84) this.endLine(out);
    return 'ground';
  }

  /** A control character outside a string: a newline ends the line, CR starts it over, BS takes a character back, a tab is a space; the rest do nothing here. */
  private control(c: number, out: unknown[]): void {
    if (c === 0x0a) this.endLine(out);
    else if (c === 0x0d) this.returned = true;
    else if (c === 0x08) {
      this.text = this.text.slice(0, -1);
      if (this.typing) this.typed = this.typed.slice(0, -1);
    } else if (c === 0x09) this.putRun(' ');
  }

  private putRun(run: string): void {
    if (this.counting) return;
    if (this.returned) {
      this.returned = false;
      this.text = '';
    }
    if (this.text.length < MAX_LINE) this.text += run.length > MAX_LINE - this.text.length ? run.slice(0, MAX_LINE - this.text.length) : run;
    if (this.typing && this.typed.length < MAX_LINE) this.typed += run;
  }

  private endLine(out: unknown[]): void {
    const text = this.counting ? '' : this.text.trimEnd();
    if (text) out.push(this.make('output', this.line, text, undefined, this.folder));
    this.text = '';
    this.returned = false;
    this.line++;
  }

  private endOsc(out: unknown[]): void {
    const body = this.osc;
    if (body.startsWith('7;')) {
      // The folder, read in output not indexed too (skip): the lines after it were printed there.
      // One too long to keep whole says the folder changed, not to what: the pane's own is taken then.
      if (this.oscCut) this.folder = undefined;
      const mark = this.oscCut ? undefined : parseOsc(body);
      if (mark?.kind === 'cwd' && this.isLocal(mark.host)) this.folder = mark.path;
      return;
    }
    if (this.counting || !body.startsWith('133;')) return;
    const [letter, arg] = body.slice(4).split(';', 2);
    if (letter === 'B') {
      this.typing = true;
      this.typed = '';
    } else if (letter === 'C') {
      if (this.typing) {
        const text = this.typed.trim();
        if (text) this.command = { text, line: this.line, folder: this.folder };
      }
      this.typing = false;
    } else if (letter === 'D') {
      this.typing = false;
      const cmd = this.command;
      this.command = undefined;
      if (!cmd) return;
      const exitCode = arg !== undefined && /^-?\d+$/.test(arg) ? Number(arg) : undefined;
      out.push(this.make('command', cmd.line, cmd.text, exitCode, cmd.folder));
    } else if (letter === 'A') {
      this.typing = false;
    }
  }
}
