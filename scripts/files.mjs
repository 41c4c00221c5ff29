// What the files under a folder add up to: the newest modification (scripts/start.mjs: is a
// build older than its sources?) and the bytes (scripts/get-electron.mjs: how far a download
// got). A folder that is not there holds nothing; a file that vanishes meanwhile is left out.
import fs from 'node:fs';
import path from 'node:path';

/** The stats of every file under `dir`, folders walked into. */
export function* fileStats(dir) {
  let entries = [];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* fileStats(p);
    else {
      try {
        yield fs.statSync(p);
      } catch {
        // vanished
      }
    }
  }
}

/** Newest modification time of any file under `dir` (0 when none). */
export function newestUnder(dir) {
  let t = 0;
  for (const s of fileStats(dir)) t = Math.max(t, s.mtimeMs);
  return t;
}

/** Bytes in the files under `dir` (0 when none). */
export function bytesUnder(dir) {
  let n = 0;
  for (const s of fileStats(dir)) n += s.size;
  return n;
}
