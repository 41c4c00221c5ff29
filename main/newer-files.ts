/**
 * Whether a build is older than its sources: any file below `paths` (folders walked, their
 * node_modules left out; a file named is looked at itself) modified after `sinceMs`, of those
 * whose name `names` matches. A link, or a file gone while looked at, counts as no file (an
 * editor's lock link to nowhere, `.#x.ts`, never throws). Used for the service's bundle
 * (main/service/client.ts) and the e2e tests' renderer (e2e/harness.ts).
 */
import fs from 'node:fs';
import path from 'node:path';

export function anyNewer(paths: readonly string[], sinceMs: number, names: RegExp = /(?:)/): boolean {
  const newer = (p: string): boolean => {
    try {
      return fs.lstatSync(p).mtimeMs > sinceMs;
    } catch {
      return false;
    }
  };
  const walk = (dir: string): boolean => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && walk(p)) return true;
      } else if (e.isFile() && names.test(e.name) && newer(p)) return true;
    }
    return false;
  };
  return paths.some((p) => {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      return false;
    }
    return st.isDirectory() ? walk(p) : st.isFile() && st.mtimeMs > sinceMs;
  });
}
