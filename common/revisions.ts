/**
 * Which of a surface's actions still speak for what it shows. A `change` whose model
 * carries `since` (when its content last changed) and, per file, `hunks[]` of
 * `{key, since}` (when each hunk first showed) is a live diff, such as a worktree's
 * Changes card: an action taken before the hunk (or, for the whole card, before the
 * content) changed was about something else. It stays in the card's history but no
 * longer marks the hunk approved or rejected, and it may be taken again.
 *
 * Pure, no Node imports: the core's action writer and the renderer's cards both ask.
 */
import type { ActionRecord, Surface } from '../preload/contract.ts';

function time(v: unknown): number {
  return typeof v === 'string' ? Date.parse(v) : Number.NaN;
}

/** `path#hunk-N` → when that hunk showed, for a model that stamps its hunks. */
export function hunkSince(model: Record<string, unknown>): Map<string, number> {
  const out = new Map<string, number>();
  if (!Array.isArray(model.files)) return out;
  for (const f of model.files as Array<{ path?: unknown; hunks?: unknown }>) {
    if (!f || typeof f.path !== 'string' || !Array.isArray(f.hunks)) continue;
    f.hunks.forEach((h: { since?: unknown } | null, i: number) => {
      const t = time(h?.since);
      if (!Number.isNaN(t)) out.set(`${f.path}#hunk-${i + 1}`, t);
    });
  }
  return out;
}

/** The records that are about what the surface shows now (all of them, for a surface with no stamps). */
export function currentRecords(surface: Pick<Surface, 'acted' | 'model'>): ActionRecord[] {
  const since = time(surface.model.since);
  if (Number.isNaN(since)) return surface.acted;
  const hunks = hunkSince(surface.model);
  return surface.acted.filter((r) => {
    const at = time(r.at);
    if (Number.isNaN(at)) return true;
    const hunk = r.target !== undefined ? hunks.get(r.target) : undefined;
    return at >= (hunk ?? since);
  });
}
