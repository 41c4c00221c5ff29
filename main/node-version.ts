/**
 * The oldest Node the core runs on (package.json's `engines` says the same): 22.16, the
 * first whose `node:sqlite` is there without a flag and has SQLite's FTS5, which the search
 * index is made of (22.13-22.15: "no such module: fts5"; 22.12: no `node:sqlite`).
 */
export const NODE_MIN = '22.16';

/** One sentence when `version` (process.versions.node) is older than NODE_MIN, else undefined. */
export function nodeTooOld(version: string = process.versions.node): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [wantMajor, wantMinor] = NODE_MIN.split('.').map(Number) as [number, number];
  if (major > wantMajor || (major === wantMajor && minor >= wantMinor)) return undefined;
  return `Terminal Delight needs Node ${NODE_MIN} or newer (its search index needs SQLite's FTS5 in node:sqlite); this is Node ${version}.`;
}
