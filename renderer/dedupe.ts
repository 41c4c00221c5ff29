/**
 * In Electron a shortcut can arrive twice: as a keydown in the page and as the native
 * menu's accelerator (the contract's 'command' event), in either order depending on
 * the platform. The first of the two within a short window runs; the echo is dropped.
 */
export class CommandDeduper {
  private readonly windowMs: number;
  private readonly now: () => number;
  private last: { cmd: string; from: 'key' | 'menu'; at: number } | undefined;

  constructor(windowMs = 400, now: () => number = () => performance.now()) {
    this.windowMs = windowMs;
    this.now = now;
  }

  /** Whether a command from this source should run (false: the other source just ran it). */
  accept(cmd: string, from: 'key' | 'menu'): boolean {
    const t = this.now();
    const l = this.last;
    if (l && l.cmd === cmd && l.from !== from && t - l.at < this.windowMs) {
      this.last = undefined;
      return false;
    }
    this.last = { cmd, from, at: t };
    return true;
  }
}
