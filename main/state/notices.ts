/**
 * One-time notes for the person (each said once, then remembered as said), kept in the
 * state folder's notices.json: for example, the first time a window attaches, that
 * closing it keeps the panes running.
 */
import { readJson, writeJsonAtomic } from './files.ts';

export class NoticeBook {
  private readonly file: string;
  private said: Set<string> | undefined;

  constructor(file: string) {
    this.file = file;
  }

  /** The text the first time this id is asked for, undefined ever after. */
  once(id: string, text: string): string | undefined {
    if (!this.said) {
      const raw = readJson(this.file) as { said?: unknown } | undefined;
      this.said = new Set(Array.isArray(raw?.said) ? raw.said.filter((x): x is string => typeof x === 'string') : []);
    }
    if (this.said.has(id)) return undefined;
    this.said.add(id);
    try {
      writeJsonAtomic(this.file, { said: [...this.said] });
    } catch {
      // said again next time: better than never
    }
    return text;
  }
}
