/**
 * Which of a card's buttons may be pressed, from the actions already taken on it.
 * A card cannot be acted on twice by accident: once a deciding action is taken, the
 * deciding buttons are disabled until the person asks to act again. Pure.
 */
import type { ActionRecord, Surface } from '../../preload/contract.ts';
import { LIMITS } from '../../preload/tdsp.ts';

/** Actions that settle a card (one of them is the answer). */
export const DECIDING = new Set(['approve', 'reject', 'choose', 'answer', 'ack']);
/** Actions on one part (a hunk) of a change. */
export const PART = new Set(['approve_part', 'reject_part']);
/** Actions that may be repeated freely. */
export const FREE = new Set(['comment', 'dismiss', 'open', 'note']);

/** Whether pressing this action's button now would repeat a settled decision. */
export function isBlocked(acted: readonly ActionRecord[], action: string, target?: string): boolean {
  if (FREE.has(action)) return false;
  const settled = acted.some((r) => DECIDING.has(r.action));
  if (DECIDING.has(action)) return settled;
  if (PART.has(action)) {
    if (settled) return true;
    return acted.some((r) => PART.has(r.action) && r.target === target);
  }
  return acted.some((r) => r.action === action && (r.target ?? '') === (target ?? ''));
}

/** The newest records first, at most `n`. */
export function recentRecords(s: Surface, n = 3): ActionRecord[] {
  return s.acted.filter((r) => r.action !== 'dismiss').slice(-n).reverse();
}

/** What a record says was sent: the typed line, else the action as words. */
export function recordText(r: ActionRecord): string {
  if (r.line) return r.line;
  return `${r.action}${r.target ? ` · ${r.target}` : ''}${r.comment ? ` — ${r.comment}` : ''}`;
}

/** Local time of day of an RFC 3339 time, e.g. "14:03:09"; the input as it is when unreadable. */
export function clock(at: string): string {
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return at;
  return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
}

/** UTF-8 length of a comment, against the protocol's 4 KiB limit. */
export const COMMENT_LIMIT = LIMITS.commentBytes;
export function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}
