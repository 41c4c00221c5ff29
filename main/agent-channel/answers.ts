/**
 * answers/<id>.json, the one file that settles a waiting question or permission prompt.
 * Whoever creates it first wins, and everyone else reads what won:
 *
 * - the window, with the person's answer from the bench (`{answers}`, `{behavior}`,
 *   `{pass: true}`);
 * - the window, retiring the wait because the prompt was settled elsewhere
 *   (`{retired: "answered_in_terminal" | "cancelled" | "invalidated"}`): the waiting hook
 *   sees it within a poll and exits at once, printing nothing;
 * - the hook, giving up (`{closed: "<reason>"}`: bench closed, timeout, no window,
 *   cancelled), so a later answer from the bench is refused.
 *
 * The file is written beside and hard-linked into place, which fails when the name
 * exists: creation is atomic and exclusive, so two answers never both land.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export type AnswerFile =
  | { answers: Record<string, string> }
  | { behavior: 'allow' | 'deny'; message?: string }
  | { pass: true };

/** How a wait ended without the bench's answer: the window's word for it. */
export type Retired = 'answered_in_terminal' | 'cancelled' | 'invalidated';

export type Settlement =
  | AnswerFile
  | { retired: Retired; at?: string }
  | { closed: string; at?: string };

const answersDir = (folder: string) => path.join(folder, 'answers');
const answerPath = (folder: string, id: string) => path.join(answersDir(folder), `${id}.json`);

export const isAnswer = (s: Settlement | undefined): s is AnswerFile => !!s && ('answers' in s || 'behavior' in s || 'pass' in s);

/** What settled the wait for `id`, or undefined while nothing has (or the file is unreadable). */
export function readSettlement(folder: string, id: string): Settlement | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(answerPath(folder, id), 'utf8')) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Settlement : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Creates answers/<id>.json with `value` unless it exists. Returns `{won: true}`, or
 * `{won: false, existing}` with what settled it first.
 */
export function settle(folder: string, id: string, value: Settlement): { won: true } | { won: false; existing: Settlement | undefined } {
  const dir = answersDir(folder);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = path.join(dir, `.${id}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  fs.writeFileSync(tmp, `${JSON.stringify(value)}\n`, { mode: 0o600 });
  try {
    fs.linkSync(tmp, answerPath(folder, id));
    return { won: true };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return { won: false, existing: readSettlement(folder, id) };
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
