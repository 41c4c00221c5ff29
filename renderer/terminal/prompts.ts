/**
 * A pane's prompts in its own xterm, from the shell integration's OSC 133 marks (see
 * main/panes/shell-integration/): a marker at each prompt line (A), a gutter mark on it
 * once its command ends (D;status: green for 0, red otherwise, with the status and how
 * long it ran as its tooltip), and jumps to the previous or next prompt in scrollback.
 *
 * Live output brings its own marks; a snapshot (attach, reconnect) brings the screen's text
 * and, beside it, where its prompts are (`restore`).
 */
import type { IDecoration, IDisposable, IMarker, Terminal } from '@xterm/xterm';
import type { SnapshotPrompt } from '../../preload/contract.ts';
import { commandText } from '../../common/command-text.ts';

interface Prompt {
  marker: IMarker;
  /** When its command started (C), by this window's clock. */
  startedAt?: number;
  decoration?: IDecoration;
}

/** Prompts kept at most (older ones leave with their scrollback anyway). */
const MAX_PROMPTS = 2000;

/**
 * The line to scroll to for the previous (-1) or next (+1) prompt, given the prompt lines
 * (ascending) and the viewport (its top line, and the top line when scrolled to the
 * bottom); 'bottom' for "back to the end"; undefined when there is nowhere to go. From the
 * bottom, the prompt being typed at counts as where one is, so "previous" is the command
 * before it.
 */
export function promptTarget(lines: readonly number[], viewportY: number, baseY: number, dir: -1 | 1): number | 'bottom' | undefined {
  const atBottom = viewportY >= baseY;
  if (dir < 0) {
    const last = lines[lines.length - 1];
    const from = atBottom && last !== undefined && last >= viewportY ? last : viewportY;
    for (let i = lines.length - 1; i >= 0; i--) if (lines[i]! < from) return lines[i]!;
    return undefined;
  }
  for (const line of lines) if (line > viewportY) return line >= baseY ? (atBottom ? undefined : 'bottom') : line;
  return atBottom ? undefined : 'bottom';
}

export class PromptMarks implements IDisposable {
  private readonly term: Terminal;
  private prompts: Prompt[] = [];
  private readonly handler: IDisposable;

  constructor(term: Terminal) {
    this.term = term;
    this.handler = term.parser.registerOscHandler(133, (data) => {
      this.mark(data);
      return true;
    });
  }

  /** Whether a jump can happen: prompts are known and the normal screen shows (not a full-screen program's). */
  get available(): boolean {
    return this.term.buffer.active.type === 'normal' && this.lines().length > 0;
  }

  /** Scroll to the previous or next prompt; false when there is none that way. */
  jump(dir: -1 | 1): boolean {
    if (this.term.buffer.active.type !== 'normal') return false;
    const buf = this.term.buffer.active;
    const target = promptTarget(this.lines(), buf.viewportY, buf.baseY, dir);
    if (target === undefined) return false;
    if (target === 'bottom') this.term.scrollToBottom();
    else this.term.scrollToLine(target);
    return true;
  }

  /** The prompt lines now (markers move as the buffer scrolls, and go when trimmed). */
  lines(): number[] {
    this.prompts = this.prompts.filter((p) => !p.marker.isDisposed);
    return this.prompts.map((p) => p.marker.line);
  }

  /** The prompts a snapshot carries, once it is drawn (the cursor where the snapshot left it). */
  restore(prompts: readonly SnapshotPrompt[]): void {
    for (const p of this.prompts) {
      p.decoration?.dispose();
      p.marker.dispose();
    }
    this.prompts = [];
    if (this.term.buffer.active.type !== 'normal') return;
    for (const p of prompts) {
      if (!Number.isInteger(p.offset) || p.offset > 0) continue;
      const marker = this.term.registerMarker(p.offset);
      if (!marker || marker.line < 0) {
        marker?.dispose();
        continue;
      }
      const prompt: Prompt = { marker };
      this.prompts.push(prompt);
      if (typeof p.exitCode === 'number') this.decorate(prompt, p.exitCode, p.durationMs ?? 0);
    }
  }

  dispose(): void {
    this.handler.dispose();
    for (const p of this.prompts) {
      p.decoration?.dispose();
      p.marker.dispose();
    }
    this.prompts = [];
  }

  private mark(data: string): void {
    // Only the normal screen holds a shell's prompts.
    if (this.term.buffer.active.type !== 'normal') return;
    const [letter, arg] = data.split(';', 2);
    const last = this.prompts[this.prompts.length - 1];
    if (letter === 'A') {
      const line = this.term.buffer.active.baseY + this.term.buffer.active.cursorY;
      // A prompt drawn again on its own line (a redraw) is the same prompt.
      if (last && !last.marker.isDisposed && last.marker.line === line) return;
      const marker = this.term.registerMarker(0);
      if (!marker) return;
      this.prompts.push({ marker });
      if (this.prompts.length > MAX_PROMPTS) {
        const gone = this.prompts.shift()!;
        gone.decoration?.dispose();
        gone.marker.dispose();
      }
    } else if (letter === 'C') {
      if (last && last.startedAt === undefined) last.startedAt = performance.now();
    } else if (letter === 'D') {
      if (!last || last.startedAt === undefined || last.decoration || arg === undefined || !/^-?\d+$/.test(arg)) return;
      this.decorate(last, Number(arg), performance.now() - last.startedAt);
    }
  }

  private decorate(prompt: Prompt, exitCode: number, durationMs: number): void {
    const ok = exitCode === 0;
    const decoration = this.term.registerDecoration({ marker: prompt.marker, x: 0, width: 1, layer: 'top' });
    if (!decoration) return;
    prompt.decoration = decoration;
    const text = commandText(exitCode, durationMs);
    decoration.onRender((el) => {
      if (el.dataset.exit !== undefined) return;
      el.classList.add('prompt-mark', ok ? 'ok' : 'bad');
      el.dataset.exit = String(exitCode);
      el.title = text;
    });
  }
}
