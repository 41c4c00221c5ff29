/**
 * The bench's keyboard model: which key does what, as a pure function of the key
 * and where focus is. The bench component turns the command into state changes.
 *
 *   [ / ]  or Ctrl+Alt+Left / Right   previous / next shelf
 *   j / k  or ArrowDown / ArrowUp      next / previous card
 *   a                                  approve the selected card
 *   r                                  reject the selected card
 *   c                                  comment: focus the selected card's composer
 *   o                                  open (artifact, diagram)
 *   x                                  dismiss the selected card
 *   Escape                             back to the terminal (from a composer: out of it first)
 *   Enter (in a composer)              send the comment with the card's default action
 */

export type BenchCommand =
  | 'shelf-prev' | 'shelf-next' | 'card-prev' | 'card-next'
  | 'approve' | 'reject' | 'comment' | 'open' | 'dismiss'
  | 'escape' | 'leave-composer' | 'send';

export interface KeyLike {
  key: string;
  ctrlKey?: boolean;
  altKey?: boolean;
  shiftKey?: boolean;
  metaKey?: boolean;
  /** True while an IME composition is in progress. */
  isComposing?: boolean;
}

export interface KeyContext {
  /** Focus is in a text field (the composer, a free-text answer). */
  inText: boolean;
}

export function benchCommand(e: KeyLike, ctx: KeyContext): BenchCommand | null {
  if (e.isComposing) return null;
  const mods = !!(e.ctrlKey || e.altKey || e.metaKey);
  if (e.ctrlKey && e.altKey && !e.metaKey) {
    if (e.key === 'ArrowLeft') return 'shelf-prev';
    if (e.key === 'ArrowRight') return 'shelf-next';
  }
  if (ctx.inText) {
    if (e.key === 'Escape') return 'leave-composer';
    if (e.key === 'Enter' && !e.shiftKey && !mods) return 'send';
    return null;
  }
  if (e.key === 'Escape' && !mods) return 'escape';
  if (mods) return null;
  switch (e.key) {
    case '[': return 'shelf-prev';
    case ']': return 'shelf-next';
    case 'j': case 'ArrowDown': return 'card-next';
    case 'k': case 'ArrowUp': return 'card-prev';
    case 'a': return 'approve';
    case 'r': return 'reject';
    case 'c': return 'comment';
    case 'o': return 'open';
    case 'x': return 'dismiss';
    default: return null;
  }
}
