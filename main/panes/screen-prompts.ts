/**
 * Where the shell's prompts are on a pane's headless screen, so a snapshot can carry them:
 * a window that attaches (or reloads) draws the screen from the snapshot's text, which
 * holds no OSC 133 marks, and would otherwise know no prompt before its first live one.
 * A marker per prompt line (A), with the status and time of its command once it ends (D).
 * This follows the screen; the core's own prompt state comes from MarkScanner (marks.ts),
 * which reads the raw output and does not depend on the screen.
 */
import type headless from '@xterm/headless';
import type { SnapshotPrompt } from '../../preload/contract.ts';

type Screen = InstanceType<typeof headless.Terminal>;
type Marker = NonNullable<ReturnType<Screen['registerMarker']>>;

interface Prompt {
  marker: Marker;
  startedAt?: number;
  exitCode?: number;
  durationMs?: number;
}

/** Prompts kept at most (older ones leave with their scrollback anyway). */
const MAX_PROMPTS = 2000;

export class ScreenPrompts {
  private readonly screen: Screen;
  private prompts: Prompt[] = [];

  constructor(screen: Screen) {
    this.screen = screen;
    screen.parser.registerOscHandler(133, (data) => {
      this.mark(data);
      return true;
    });
  }

  /** The prompts on the normal screen, as lines above the cursor's (0: the cursor's line), oldest first. */
  forSnapshot(): SnapshotPrompt[] {
    const buf = this.screen.buffer.active;
    if (buf.type !== 'normal') return [];
    const cursor = buf.baseY + buf.cursorY;
    this.prompts = this.prompts.filter((p) => !p.marker.isDisposed && p.marker.line >= 0);
    return this.prompts.map((p) => {
      const out: SnapshotPrompt = { offset: p.marker.line - cursor };
      if (p.exitCode !== undefined) {
        out.exitCode = p.exitCode;
        out.durationMs = p.durationMs ?? 0;
      }
      return out;
    });
  }

  private mark(data: string): void {
    const buf = this.screen.buffer.active;
    if (buf.type !== 'normal') return;
    const [letter, arg] = data.split(';', 2);
    const last = this.prompts[this.prompts.length - 1];
    if (letter === 'A') {
      if (last && !last.marker.isDisposed && last.marker.line === buf.baseY + buf.cursorY) return;
      const marker = this.screen.registerMarker(0);
      if (!marker) return;
      this.prompts.push({ marker });
      if (this.prompts.length > MAX_PROMPTS) this.prompts.shift()!.marker.dispose();
    } else if (letter === 'C') {
      if (last && last.startedAt === undefined) last.startedAt = Date.now();
    } else if (letter === 'D') {
      if (!last || last.startedAt === undefined || last.exitCode !== undefined || arg === undefined || !/^-?\d+$/.test(arg)) return;
      last.exitCode = Number(arg);
      last.durationMs = Math.max(0, Date.now() - last.startedAt);
    }
  }
}
