/**
 * Folder trees as the installer compares them: one digest over every entry's relative
 * path, type, permission bits and bytes (or link target), so "the same tree" means byte
 * for byte the same. Also the checksums the installer's tests take of a whole home.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Left out of copies and digests: a package's version control is not part of it. */
export const SKIPPED = new Set(['.git']);

export interface TreeEntry {
  path: string;
  type: 'file' | 'dir' | 'link' | 'other';
  mode: number;
  /** sha256 of a file's bytes, or a link's target. */
  content: string;
}

/** Every entry below `root` (not `root` itself), sorted by path; `skip` names are left out at any depth. */
export function treeEntries(root: string, skip: ReadonlySet<string> = new Set()): TreeEntry[] {
  const out: TreeEntry[] = [];
  const walk = (dir: string, rel: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      if (skip.has(name)) continue;
      const abs = path.join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = fs.lstatSync(abs);
      const mode = st.mode & 0o7777;
      if (st.isSymbolicLink()) out.push({ path: r, type: 'link', mode: 0, content: fs.readlinkSync(abs) });
      else if (st.isDirectory()) {
        out.push({ path: r, type: 'dir', mode, content: '' });
        walk(abs, r);
      } else if (st.isFile()) out.push({ path: r, type: 'file', mode, content: createHash('sha256').update(fs.readFileSync(abs)).digest('hex') });
      else out.push({ path: r, type: 'other', mode, content: '' });
    }
  };
  walk(root, '');
  return out;
}

export function treeDigest(root: string, skip: ReadonlySet<string> = new Set()): string {
  const h = createHash('sha256');
  for (const e of treeEntries(root, skip)) h.update(`${e.path}\0${e.type}\0${e.mode.toString(8)}\0${e.content}\n`);
  return h.digest('hex');
}

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}
