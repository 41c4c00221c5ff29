/**
 * Another machine's files for this window (docs/design/remote.md, "One window, many
 * machines"): the home service serves `/m/<machine>/<prefix>/<rest>` (serve's HTTP, the
 * Electron app's app://) by asking that machine's service for the file of its own route
 * `/<prefix>/<rest>` over the control channel, as bytes (at most FILE_BYTES_MAX). What comes
 * back is kept in a private folder of this machine's state (0700, each file 0600, replaced
 * on each read, the folder emptied when the service stops) and sent with this machine's own
 * sandboxing policy: a far host chooses neither the policy nor anything but a plain media type.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FileResolver, ResolvedFile } from '../core.ts';
import { HTML_CSP } from '../surfaces/artifacts.ts';

export const FAR_FILES_PREFIX = 'm';

/** What a machine gives: a file of its route, or null (none, too big, or it is unreachable). */
export type ReadFar = (machine: string, prefix: string, rest: string) => Promise<{ type?: string; data: Buffer } | null>;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;
const PREFIX = /^[a-z][a-z0-9-]*$/;
const SAFE_TYPE = /^(text\/(html|markdown|plain)(; ?charset=utf-8)?|image\/[a-z0-9][a-z0-9.+-]{0,100}|application\/octet-stream)$/i;

/** A far file's media type as sent here: a plain one from the list above, else octet-stream (never a header a far host wrote). */
export function farType(type: unknown): string {
  return typeof type === 'string' && SAFE_TYPE.test(type) ? type : 'application/octet-stream';
}

/** `<machine>/<prefix>/<rest>`, or undefined when it is not one. Pure. */
export function parseFarPath(rest: string): { machine: string; prefix: string; rest: string } | undefined {
  const [machine, prefix, ...more] = rest.split('/');
  if (!machine || !prefix || more.length === 0 || !NAME.test(machine) || !PREFIX.test(prefix) || rest.includes('\0')) return undefined;
  const tail = more.join('/');
  return tail ? { machine, prefix, rest: tail } : undefined;
}

/** The resolver for `core.serveFiles(FAR_FILES_PREFIX, …)`, keeping what it reads under `dir`. */
export function farFileResolver(read: ReadFar, dir: string): FileResolver {
  return async (rest): Promise<ResolvedFile | undefined> => {
    const p = parseFarPath(rest);
    if (!p) return undefined;
    const got = await read(p.machine, p.prefix, p.rest).catch(() => null);
    if (!got) return undefined;
    const folder = path.join(dir, p.machine);
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const file = path.join(folder, createHash('sha256').update(`${p.prefix}/${p.rest}`).digest('hex').slice(0, 32));
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, got.data, { mode: 0o600 });
    fs.renameSync(tmp, file);
    return { path: file, type: farType(got.type), csp: HTML_CSP };
  };
}
