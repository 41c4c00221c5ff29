/**
 * `terminal-delight tick install [--uninstall] PATH|NAME`: puts a Tick package in a Ticks
 * folder (a copy, or a link with --link) and its Skill where the person's agents read
 * Skills (Claude Code and Codex, user or project), and takes exactly that out again.
 *
 * The approach is the hooks installer's (scripts/hooks/settings-merge.mjs): everything is
 * read and checked before anything is written, so a refusal changes nothing; what is
 * there is never lost (another Skill of the same name is a clash, refused); a record
 * beside the package (`<name>.td-install.json`) notes what the install made, folders
 * included; installing again changes nothing; uninstalling removes what the record
 * names, the folders it made once empty, and so leaves the folders byte for byte as
 * they were before the install.
 */
import fs from 'node:fs';
import path from 'node:path';
import { resolveCommand } from '../tick/process.ts';
import { BUNDLED_TICKS, homeOf, isDir, userTicksFolder } from './find.ts';
import { launchOf, parseSkill, SKILL_FILE } from './skill.ts';
import { SKIPPED, sha256, treeDigest } from './tree.ts';

export interface InstallOptions {
  env: NodeJS.ProcessEnv;
  /** Where a relative PATH is found. */
  cwd: string;
  /** Install for this project folder instead of for the user. */
  project?: string;
  /** Link the package folder instead of copying it. */
  link?: boolean;
  now?: Date;
}

export interface Targets {
  ticks: string;
  skills: Array<{ agent: string; folder: string }>;
}

/** The Ticks folder and the agents' Skill folders for the user, or for a project. */
export function targetsFor(opts: Pick<InstallOptions, 'env' | 'project'>): Targets {
  if (opts.project) {
    const p = path.resolve(opts.project);
    return {
      ticks: path.join(p, '.terminal-delight', 'ticks'),
      skills: [
        { agent: 'Claude Code', folder: path.join(p, '.claude', 'skills') },
        { agent: 'Codex', folder: path.join(p, '.agents', 'skills') },
      ],
    };
  }
  const home = homeOf(opts.env);
  const claude = opts.env.CLAUDE_CONFIG_DIR && path.isAbsolute(opts.env.CLAUDE_CONFIG_DIR) ? opts.env.CLAUDE_CONFIG_DIR : path.join(home, '.claude');
  return {
    ticks: userTicksFolder(opts.env),
    skills: [
      { agent: 'Claude Code', folder: path.join(claude, 'skills') },
      { agent: 'Codex', folder: path.join(home, '.agents', 'skills') },
    ],
  };
}

interface InstallRecord {
  version: 1;
  name: string;
  source: string;
  mode: 'copy' | 'link';
  installedAt: string;
  /** Folders the install made, outermost first. */
  created: string[];
  skills: Array<{ path: string; sha256: string }>;
}

export type Outcome = { ok: true; lines: string[] } | { ok: false; error: string };

const recordOf = (ticks: string, name: string) => path.join(ticks, `${name}.td-install.json`);

function readRecord(file: string): InstallRecord | undefined {
  try {
    const r = JSON.parse(fs.readFileSync(file, 'utf8')) as InstallRecord;
    return r && r.version === 1 && Array.isArray(r.created) && Array.isArray(r.skills) ? r : undefined;
  } catch {
    return undefined;
  }
}

function writeAtomic(file: string, data: string | Buffer, mode = 0o644): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.td-${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, data, { mode });
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/** The folders missing on the way to `dir`, outermost first. */
function missingFolders(dir: string): string[] {
  const out: string[] = [];
  for (let d = path.resolve(dir); !fs.existsSync(d); d = path.dirname(d)) {
    out.unshift(d);
    if (path.dirname(d) === d) break;
  }
  return out;
}

function exists(p: string): boolean {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** A PATH (a folder holding SKILL.md) or the NAME of a sample that comes with Terminal Delight. */
export function resolveSource(arg: string, cwd: string): { ok: true; folder: string } | { ok: false; error: string } {
  const samples = () => (isDir(BUNDLED_TICKS) ? fs.readdirSync(BUNDLED_TICKS).filter((n) => isDir(path.join(BUNDLED_TICKS, n))).sort() : []);
  const looksLikePath = arg.includes('/') || arg === '.' || arg === '..';
  if (!looksLikePath && isDir(path.join(BUNDLED_TICKS, arg))) return { ok: true, folder: path.join(BUNDLED_TICKS, arg) };
  const folder = path.resolve(cwd, arg);
  if (isDir(folder)) return { ok: true, folder };
  if (looksLikePath) return { ok: false, error: `the folder "${arg}" does not exist; give a Tick package's folder (one holding ${SKILL_FILE}) or a sample's name (${samples().join(', ')})` };
  return { ok: false, error: `there is no folder or sample named "${arg}"; give a Tick package's folder (one holding ${SKILL_FILE}) or a sample's name (${samples().join(', ')})` };
}

/** Read the package at `folder` and check it can be installed: its Skill reads and its launch command is found. */
function readSource(folder: string, env: NodeJS.ProcessEnv): { ok: true; name: string; skillBytes: Buffer } | { ok: false; error: string } {
  let skillBytes: Buffer;
  try {
    skillBytes = fs.readFileSync(path.join(folder, SKILL_FILE));
  } catch {
    return { ok: false, error: `${folder} has no ${SKILL_FILE}, so it is not a Tick package; add a ${SKILL_FILE} (docs/spec/tick-packages.md says what goes in it); nothing was installed` };
  }
  const parsed = parseSkill(skillBytes.toString('utf8'));
  if (!parsed.ok) return { ok: false, error: `${path.join(folder, SKILL_FILE)}: ${parsed.error}; nothing was installed` };
  const launch = launchOf(parsed.skill, folder);
  try {
    resolveCommand(launch.command[0] ?? '', isDir(launch.cwd) ? launch.cwd : folder, env.PATH);
  } catch (e) {
    return { ok: false, error: `the package "${parsed.skill.name}" cannot be installed: ${(e as Error).message} (tick-command in its ${SKILL_FILE}); nothing was installed` };
  }
  return { ok: true, name: parsed.skill.name, skillBytes };
}

export function install(arg: string, opts: InstallOptions): Outcome {
  const src = resolveSource(arg, opts.cwd);
  if (!src.ok) return src;
  const source = fs.realpathSync(src.folder);
  const read = readSource(source, opts.env);
  if (!read.ok) return read;
  const { name, skillBytes } = read;
  const mode = opts.link ? 'link' : 'copy';
  const targets = targetsFor(opts);
  const dest = path.join(targets.ticks, name);
  if (dest === source || source.startsWith(dest + path.sep) || dest.startsWith(source + path.sep)) {
    return { ok: false, error: `${source} is already where the package would be installed; install it from another folder, or use it as it is` };
  }
  const recordFile = recordOf(targets.ticks, name);
  const previous = readRecord(recordFile);

  // ── check every target before writing anything ──
  let packageState: 'new' | 'same' | 'replace' = 'new';
  if (exists(dest)) {
    if (!previous) return { ok: false, error: `a Tick package named "${name}" is already in ${targets.ticks} and was not installed by terminal-delight tick install; remove that folder or rename this package (its folder and Skill name); nothing was installed` };
    if (previous.source !== source) return { ok: false, error: `a Tick package named "${name}" is already installed from ${previous.source}; take it out first (terminal-delight tick install --uninstall ${name}) or rename this package; nothing was installed` };
    const st = fs.lstatSync(dest);
    const same = mode === 'link' ? st.isSymbolicLink() && fs.readlinkSync(dest) === source : !st.isSymbolicLink() && st.isDirectory() && treeDigest(dest, SKIPPED) === treeDigest(source, SKIPPED);
    packageState = same ? 'same' : 'replace';
  }
  const skills = targets.skills.map((t) => ({ ...t, dir: path.join(t.folder, name), file: path.join(t.folder, name, SKILL_FILE) }));
  const skillStates: Array<'new' | 'same' | 'replace'> = [];
  for (const s of skills) {
    const ours = previous?.skills.some((r) => r.path === s.file);
    if (!exists(s.dir)) skillStates.push('new');
    else if (!ours) return { ok: false, error: `${s.agent} already has a Skill named "${name}" (${s.dir}); rename this package or remove that Skill; nothing was installed` };
    else if (!exists(s.file)) skillStates.push('new');
    else skillStates.push(fs.readFileSync(s.file).equals(skillBytes) ? 'same' : 'replace');
  }
  if (previous && packageState === 'same' && skillStates.every((s) => s === 'same') && previous.mode === mode) {
    return { ok: true, lines: [`the Tick package "${name}" is already installed in ${dest}, with its Skill for ${skills.map((s) => s.agent).join(' and ')}; nothing changed`] };
  }

  // ── write: the record first (so a half-done install can be taken out), then each target ──
  const created = [...new Set([...(previous?.created ?? []), ...missingFolders(targets.ticks), ...skills.flatMap((s) => missingFolders(s.dir))])];
  const record: InstallRecord = {
    version: 1,
    name,
    source,
    mode,
    installedAt: (previous ? new Date(previous.installedAt) : opts.now ?? new Date()).toISOString(),
    created,
    skills: skills.map((s) => ({ path: s.file, sha256: sha256(skillBytes) })),
  };
  const lines: string[] = [];
  try {
    fs.mkdirSync(targets.ticks, { recursive: true });
    writeAtomic(recordFile, `${JSON.stringify(record, null, 2)}\n`, 0o600);
    if (packageState !== 'same') {
      const tmp = path.join(targets.ticks, `.${name}.td-${process.pid}.tmp`);
      fs.rmSync(tmp, { recursive: true, force: true });
      if (mode === 'link') fs.symlinkSync(source, tmp);
      else fs.cpSync(source, tmp, { recursive: true, verbatimSymlinks: true, filter: (p) => !SKIPPED.has(path.basename(p)) });
      if (packageState === 'replace') fs.rmSync(dest, { recursive: true, force: true });
      fs.renameSync(tmp, dest);
      lines.push(`${dest}: ${packageState === 'new' ? 'installed' : 'updated'} the Tick package "${name}" (${mode === 'link' ? `a link to ${source}` : `a copy of ${source}`})`);
    }
    skills.forEach((s, i) => {
      if (skillStates[i] === 'same') return;
      fs.mkdirSync(s.dir, { recursive: true });
      writeAtomic(s.file, skillBytes);
      lines.push(`${s.file}: ${skillStates[i] === 'new' ? 'put' : 'updated'} its Skill for ${s.agent}`);
    });
  } catch (e) {
    if (!previous) uninstallRecorded(targets, name, record);
    return { ok: false, error: `the Tick package "${name}" could not be installed (${(e as Error).message}); check the folders' permissions and try again; ${previous ? 'the earlier install is as it was, or partly updated' : 'nothing is left of it'}` };
  }
  return { ok: true, lines };
}

export function uninstall(arg: string, opts: InstallOptions): Outcome {
  const targets = targetsFor(opts);
  let name = arg;
  if (arg.includes('/') || arg === '.' || arg === '..') {
    const folder = path.resolve(opts.cwd, arg);
    let text: string;
    try {
      text = fs.readFileSync(path.join(folder, SKILL_FILE), 'utf8');
    } catch {
      return { ok: false, error: `${folder} has no ${SKILL_FILE}; give the installed package's name instead; nothing was changed` };
    }
    const parsed = parseSkill(text);
    if (!parsed.ok) return { ok: false, error: `${path.join(folder, SKILL_FILE)}: ${parsed.error}; give the installed package's name instead; nothing was changed` };
    name = parsed.skill.name;
  }
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)) return { ok: false, error: `"${name}" is not a Tick package's name (lowercase letters, digits and hyphens); nothing was changed` };
  const record = readRecord(recordOf(targets.ticks, name));
  if (!record) {
    if (exists(path.join(targets.ticks, name))) return { ok: false, error: `the Tick package "${name}" in ${targets.ticks} was not installed by terminal-delight tick install (there is no record of it), so it is left as it is; remove its folder by hand if you mean to` };
    return { ok: true, lines: [`there is no Tick package "${name}" installed in ${targets.ticks}; nothing to take out`] };
  }
  return { ok: true, lines: uninstallRecorded(targets, name, record) };
}

/** Take out what a record names; folders it made go once empty (or pass to another record that needs them). */
function uninstallRecorded(targets: Targets, name: string, record: InstallRecord): string[] {
  const lines: string[] = [];
  for (const s of record.skills) {
    if (!exists(s.path)) continue;
    if (sha256(fs.readFileSync(s.path)) === s.sha256) {
      fs.rmSync(s.path, { force: true });
      lines.push(`${s.path}: took out the Skill`);
    } else {
      lines.push(`${s.path}: changed since it was installed, so it is kept`);
    }
  }
  const dest = path.join(targets.ticks, name);
  if (exists(dest)) {
    fs.rmSync(dest, { recursive: true, force: true });
    lines.push(`${dest}: took out the Tick package "${name}"`);
  }
  fs.rmSync(recordOf(targets.ticks, name), { force: true });
  const kept: string[] = [];
  for (const dir of [...record.created].sort((a, b) => b.length - a.length)) {
    try {
      fs.rmdirSync(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') kept.push(dir);
    }
  }
  // Folders still in use by other installs: theirs to take out when they go.
  if (kept.length > 0 && isDir(targets.ticks)) {
    for (const f of fs.readdirSync(targets.ticks).filter((n) => n.endsWith('.td-install.json'))) {
      const file = path.join(targets.ticks, f);
      const other = readRecord(file);
      if (!other) continue;
      other.created = [...new Set([...other.created, ...kept])].sort((a, b) => a.length - b.length);
      writeAtomic(file, `${JSON.stringify(other, null, 2)}\n`, 0o600);
    }
  }
  if (lines.length === 0) lines.push(`the Tick package "${name}" had nothing left to take out`);
  return lines;
}
