/**
 * The decision brief's script API, on the viewer's side. A brief (an HTML artifact
 * in a sandboxed frame) posts
 *
 *     window.parent.postMessage({ td: 'note', text: '…' }, '*')
 *
 * and the viewer, having checked that the message came from that very frame
 * (event.source), reads it here. Pure: no DOM.
 */
import { LIMITS } from '../../preload/tdsp.ts';

export const NOTE_LIMIT_BYTES = LIMITS.commentBytes;
/** At most this many notes a minute from one open brief; the rest are refused. */
export const NOTES_PER_MINUTE = 30;

export type NoteMessage = { ok: true; text: string } | { ok: false; error: string };

/** A note from a brief's message, an error saying what is wrong, or null when the message is not for us. */
export function readNote(data: unknown): NoteMessage | null {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return null;
  const m = data as Record<string, unknown>;
  if (m.td !== 'note') return null;
  if (typeof m.text !== 'string') return { ok: false, error: 'A note needs `text` as a string; nothing was sent.' };
  const text = m.text.trim();
  if (!text) return { ok: false, error: 'The note was empty; nothing was sent.' };
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > NOTE_LIMIT_BYTES) return { ok: false, error: `The note is ${bytes} bytes, over the 4 KiB limit; shorten it and send again.` };
  return { ok: true, text };
}

/** A sliding one-minute window of accepted notes: `take(now)` says whether one more may go. */
export class NoteBudget {
  private times: number[] = [];
  private readonly perMinute: number;
  constructor(perMinute: number = NOTES_PER_MINUTE) {
    this.perMinute = perMinute;
  }
  take(now: number): boolean {
    this.times = this.times.filter((t) => now - t < 60_000);
    if (this.times.length >= this.perMinute) return false;
    this.times.push(now);
    return true;
  }
}
