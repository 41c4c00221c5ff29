/**
 * Where Tick packages are installed, and reading them: a project's folder
 * (`.terminal-delight/ticks/` in the nearest folder at or above the working folder that
 * has one), the user's (`$XDG_DATA_HOME/terminal-delight/ticks/`, by default
 * `~/.local/share/terminal-delight/ticks/`), and the samples that come with Terminal
 * Delight (`assets/ticks/`). A project's package shadows the user's of the same name.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TickPackageInfo } from '../../preload/contract.ts';
import { homeOf } from '../paths.ts';
import { checkPrerequisites, unmetPhrase } from './prerequisites.ts';
import { launchOf, parseSkill, SKILL_FILE, type TickSkill } from './skill.ts';

export const PROJECT_TICKS = path.join('.terminal-delight', 'ticks');
/** The sample packages shipped with Terminal Delight. */
export const BUNDLED_TICKS = path.resolve(import.meta.dirname, '..', '..', 'assets', 'ticks');

export { homeOf };

export function userTicksFolder(env: NodeJS.ProcessEnv): string {
  const data = env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(homeOf(env), '.local', 'share');
  return path.join(data, 'terminal-delight', 'ticks');
}

/** The project Ticks folder for a working folder: the nearest `.terminal-delight/ticks/` at or above it. */
export function projectTicksFolder(from: string | undefined): string | undefined {
  if (!from || !path.isAbsolute(from)) return undefined;
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, PROJECT_TICKS);
    if (isDir(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

export interface ReadPackage {
  info: TickPackageInfo;
  skill?: TickSkill;
}

/** Read one package folder: its Skill, its launch with {package} filled in, and its prerequisites here. */
export function readPackage(folder: string, scope: TickPackageInfo['scope'], env: NodeJS.ProcessEnv): ReadPackage {
  const folderName = path.basename(folder);
  const broken = (problem: string): ReadPackage => ({ info: { name: folderName, description: '', scope, folder, prerequisites: [], ready: false, problem } });
  let text: string;
  try {
    text = fs.readFileSync(path.join(folder, SKILL_FILE), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return broken(`${folder} has no ${SKILL_FILE}, so it is not a Tick package; a package is a folder holding its Tick and a ${SKILL_FILE}`);
    return broken(`${path.join(folder, SKILL_FILE)} could not be read (${(e as Error).message}); check its permissions`);
  }
  const parsed = parseSkill(text, folderName);
  if (!parsed.ok) return broken(`${folder}: ${parsed.error}`);
  const { skill } = parsed;
  const prerequisites = checkPrerequisites(skill.prerequisites, { env, folder });
  return {
    skill,
    info: {
      name: skill.name,
      description: skill.description,
      scope,
      folder,
      launch: launchOf(skill, folder),
      prerequisites,
      ready: prerequisites.every((p) => p.met !== false),
    },
  };
}

function packageFolders(ticks: string | undefined): string[] {
  if (!ticks) return [];
  let names: string[];
  try {
    names = fs.readdirSync(ticks);
  } catch {
    return [];
  }
  return names.filter((n) => !n.startsWith('.') && isDir(path.join(ticks, n))).sort().map((n) => path.join(ticks, n));
}

export interface Where {
  env: NodeJS.ProcessEnv;
  /** The working folder whose project packages count (none when absent). */
  cwd?: string;
}

/** Installed packages: the project's first, then the user's not shadowed by one of the project's. */
export function listPackages(where: Where): TickPackageInfo[] {
  const project = packageFolders(projectTicksFolder(where.cwd)).map((f) => readPackage(f, 'project', where.env).info);
  const names = new Set(project.map((p) => p.name));
  const user = packageFolders(userTicksFolder(where.env)).map((f) => readPackage(f, 'user', where.env).info).filter((p) => !names.has(p.name));
  return [...project, ...user];
}

/** An installed package by name, or any package by its folder (an absolute path). */
export function findPackage(nameOrFolder: string, where: Where): { ok: true; pkg: TickPackageInfo } | { ok: false; error: string } {
  if (typeof nameOrFolder !== 'string' || nameOrFolder.trim() === '') return { ok: false, error: 'give the package\'s name (see the installed ones with TickManage action "packages" or terminal-delight tick list)' };
  if (nameOrFolder.includes('/')) {
    if (!path.isAbsolute(nameOrFolder)) return { ok: false, error: `the package folder "${nameOrFolder}" is relative; give its absolute path, or the package's name` };
    if (!isDir(nameOrFolder)) return { ok: false, error: `the package folder "${nameOrFolder}" does not exist; give an installed package's name or an existing folder` };
    const scope = nameOrFolder.includes(`${path.sep}${PROJECT_TICKS}${path.sep}`) ? 'project' : 'user';
    return { ok: true, pkg: readPackage(path.resolve(nameOrFolder), scope, where.env).info };
  }
  const all = listPackages(where);
  const pkg = all.find((p) => p.name === nameOrFolder);
  if (pkg) return { ok: true, pkg };
  const known = all.map((p) => p.name);
  return { ok: false, error: `there is no installed Tick package named "${nameOrFolder}"${known.length ? ` (installed: ${known.join(', ')})` : ''}; install it with terminal-delight tick install, or give a command line instead` };
}

/**
 * What opening a package runs: its launch, with the caller's cwd and title when given.
 * Refused, in one sentence, when its Skill does not read or a prerequisite is not met.
 */
export function packageLaunch(pkg: TickPackageInfo, overrides: { cwd?: string; title?: string } = {}): { ok: true; command: string[]; cwd: string; title?: string } | { ok: false; error: string } {
  if (!pkg.launch) return { ok: false, error: `the Tick package "${pkg.name}" cannot be opened: ${pkg.problem ?? 'its Skill does not read'}` };
  const unmet = unmetPhrase(pkg.prerequisites);
  if (unmet) {
    const how = pkg.prerequisites.filter((p) => p.met === null).map((p) => p.text.replace(/[.;]+$/, '')).join('; ');
    return { ok: false, error: `the Tick package "${pkg.name}" is not ready: ${unmet}${how ? ` (${how})` : ''}; a person sets that up, then open it again` };
  }
  const title = overrides.title?.trim() || pkg.launch.title;
  return { ok: true, command: pkg.launch.command, cwd: overrides.cwd?.trim() || pkg.launch.cwd, ...(title ? { title } : {}) };
}

interface OpenFields {
  command?: string[];
  package?: string;
  project?: string;
  cwd?: string;
  title?: string;
}

/** An open request by package turned into one by command line (unchanged when it names no package). */
export function packageOpen<T extends OpenFields>(req: T, env: NodeJS.ProcessEnv): { ok: true; request: T } | { ok: false; error: string } {
  if (req.package === undefined || req.package === null) return { ok: true, request: req };
  if (typeof req.package !== 'string') return { ok: false, error: 'package must be a Tick package\'s name as a string, like "counter"' };
  if (req.command !== undefined) return { ok: false, error: 'give either command or package, not both' };
  const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
  const cwd = text(req.cwd);
  const found = findPackage(req.package, { env, cwd: text(req.project) ?? cwd });
  if (!found.ok) return found;
  const launch = packageLaunch(found.pkg, { cwd, title: text(req.title) });
  if (!launch.ok) return launch;
  const { ok: _, ...request } = launch;
  return { ok: true, request: { ...req, ...request, package: undefined } };
}

export function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
