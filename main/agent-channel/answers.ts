/**
 * answers/<id>.json, the person's answer a waiting hook reads, and answers/<id>.closed,
 * which the hook writes when it stops waiting (then the question is the terminal's and
 * an answer from the bench is refused). Writes are atomic: a temporary file renamed in.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export type AnswerFile =
  | { answers: Record<string, string> }
  | { behavior: 'allow' | 'deny'; message?: string }
  | { pass: true };

const answersDir = (folder: string) => path.join(folder, 'answers');

export function isClosed(folder: string, id: string): boolean {
  return fs.existsSync(path.join(answersDir(folder), `${id}.closed`));
}

export function hasAnswer(folder: string, id: string): boolean {
  return fs.existsSync(path.join(answersDir(folder), `${id}.json`));
}

/** Writes the answer atomically; false when the hook had already stopped waiting. */
export function writeAnswer(folder: string, id: string, answer: AnswerFile): boolean {
  if (isClosed(folder, id)) return false;
  const dir = answersDir(folder);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${id}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  fs.writeFileSync(tmp, `${JSON.stringify(answer)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, path.join(dir, `${id}.json`));
  return true;
}
