/**
 * A pane's output as the search index reads it: plain lines (escape sequences taken out, a
 * carriage return starting its line over, a backspace taking back a character) numbered from
 * the pane's first line, and the commands its shell integration marked (OSC 133: B input
 * starts, C the command starts, D;status it ended) with the line they ran on. Fed chunks of
 * any size, split anywhere (a sequence may straddle chunks). Pure: no I/O.
 */

export type OutputItem =
  | { kind: 'output'; line: number; text: string }
  | { kind: 'command'; line: number; text: string; exitCode?: number };

/** A line longer than this is cut (the rest of it is still read, and dropped). */
export const MAX_LINE = 4096;

type State = 'ground' | 'esc' | 'csi' | 'osc' | 'osc-esc' | 'str' | 'str-esc';

/** What is not plain text: C0, DEL and C1 (a run up to one is taken whole). */
const SPECIAL = /[\u0000-\u001f\u007f-\u009f]/g;

export class OutputLines {
  /** The number the next line gets. */
  line: number;
  private state: State = 'ground';
  private text = '';
  /** A lone CR came: the next printable character starts the line over. */
  private returned = false;
  private osc = '';
  /** Between OSC 133;B and C: what is typed is the command. */
  private typing = false;
  private typed = '';
  private command: { text: string; line: number } | undefined;

  constructor(firstLine = 0) {
    this.line = firstLine;
  }

  /** The lines and commands this chunk completed, in order. */
  feed(data: string): OutputItem[] {
    const out: OutputItem[] = [];
    for (let i = 0; i < data.length; i++) {
      const ch = data[i]!;
      const c = data.charCodeAt(i);
      switch (this.state) {
        case 'ground':
          if (c >= 0x20 && c !== 0x7f && !(c >= 0x80 && c < 0xa0)) {
            // Plain text up to the next control character, in one piece.
            SPECIAL.lastIndex = i;
            const end = SPECIAL.exec(data)?.index ?? data.length;
            this.putRun(data.slice(i, end));
            i = end - 1;
          } else if (c === 0x1b) this.state = 'esc';
          else if (c === 0x0a) this.endLine(out);
          else if (c === 0x0d) this.returned = true;
          else if (c === 0x08) {
            this.text = this.text.slice(0, -1);
            if (this.typing) this.typed = this.typed.slice(0, -1);
          } else if (c === 0x09) this.putRun(' ');
          break;
        case 'esc':
          if (ch === '[') this.state = 'csi';
          else if (ch === ']') {
            this.state = 'osc';
            this.osc = '';
          } else if (ch === 'P' || ch === '_' || ch === '^' || ch === 'X') this.state = 'str';
          else if (ch === '(' || ch === ')' || ch === '*' || ch === '+' || ch === '#' || ch === '%') this.state = 'ground';
          else this.state = 'ground';
          break;
        case 'csi':
          if (c >= 0x40 && c <= 0x7e) this.state = 'ground';
          break;
        case 'osc':
          if (c === 0x07) this.endOsc(out);
          else if (c === 0x1b) this.state = 'osc-esc';
          else if (this.osc.length < 64) this.osc += ch;
          break;
        case 'osc-esc':
          this.endOsc(out);
          if (ch !== '\\') i--;
          break;
        case 'str':
          if (c === 0x1b) this.state = 'str-esc';
          else if (c === 0x07) this.state = 'ground';
          break;
        case 'str-esc':
          this.state = ch === '\\' ? 'ground' : 'str';
          break;
      }
    }
    return out;
  }

  /**
   * Output that is not read (a flood's part the index let go): its lines are counted, so the
   * lines after it keep their numbers; the line it ends in starts afresh.
   */
  skip(data: string): void {
    let n = 0;
    for (let at = data.indexOf('\n'); at >= 0; at = data.indexOf('\n', at + 1)) n++;
    this.line += n;
    this.text = '';
    this.returned = false;
    this.state = 'ground';
    this.typing = false;
    this.command = undefined;
  }

  /** The line not yet ended by a newline (a prompt, the last thing a pane printed). */
  get pending(): string {
    return this.text.trimEnd();
  }

  private putRun(run: string): void {
    if (this.returned) {
      this.returned = false;
      this.text = '';
    }
    if (this.text.length < MAX_LINE) this.text += run.length > MAX_LINE - this.text.length ? run.slice(0, MAX_LINE - this.text.length) : run;
    if (this.typing && this.typed.length < MAX_LINE) this.typed += run;
  }

  private endLine(out: OutputItem[]): void {
    const text = this.text.trimEnd();
    if (text) out.push({ kind: 'output', line: this.line, text });
    this.text = '';
    this.returned = false;
    this.line++;
  }

  private endOsc(out: OutputItem[]): void {
    this.state = 'ground';
    const body = this.osc;
    if (!body.startsWith('133;')) return;
    const [letter, arg] = body.slice(4).split(';', 2);
    if (letter === 'B') {
      this.typing = true;
      this.typed = '';
    } else if (letter === 'C') {
      if (this.typing) {
        const text = this.typed.trim();
        if (text) this.command = { text, line: this.line };
      }
      this.typing = false;
    } else if (letter === 'D') {
      this.typing = false;
      const cmd = this.command;
      this.command = undefined;
      if (!cmd) return;
      const exitCode = arg !== undefined && /^-?\d+$/.test(arg) ? Number(arg) : undefined;
      out.push({ kind: 'command', line: cmd.line, text: cmd.text, ...(exitCode !== undefined ? { exitCode } : {}) });
    } else if (letter === 'A') {
      this.typing = false;
    }
  }
}
