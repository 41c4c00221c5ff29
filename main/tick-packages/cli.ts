/**
 * `terminal-delight tick install [--project DIR] [--link] [--uninstall] PATH|NAME` and
 * `terminal-delight tick list [--project DIR]`: Tick packages from the command line.
 */
import path from 'node:path';
import type { TickPackageInfo } from '../../preload/contract.ts';
import { printable } from '../tick/check.ts';
import { isDir, listPackages } from './find.ts';
import { install, uninstall } from './install.ts';

type Write = (s: string) => void;

interface Flags {
  project?: string;
  link: boolean;
  uninstall: boolean;
  rest: string[];
}

function parseFlags(argv: string[], allowed: string[], err: Write, cmd: string): Flags | undefined {
  const f: Flags = { link: false, uninstall: false, rest: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--project' && allowed.includes(a)) {
      if (argv[i + 1] === undefined) {
        err(`terminal-delight tick ${cmd}: --project needs a folder, like --project ~/src/app\n`);
        return undefined;
      }
      f.project = argv[++i];
    } else if (a.startsWith('--project=') && allowed.includes('--project')) f.project = a.slice('--project='.length);
    else if (a === '--link' && allowed.includes(a)) f.link = true;
    else if (a === '--uninstall' && allowed.includes(a)) f.uninstall = true;
    else if (a.startsWith('-')) {
      err(`terminal-delight tick ${cmd}: "${a}" is not an option; use ${allowed.join(', ')}\n`);
      return undefined;
    } else f.rest.push(a);
  }
  return f;
}

export function runInstall(argv: string[], env: NodeJS.ProcessEnv, cwd: string, out: Write, err: Write): number {
  const f = parseFlags(argv, ['--project', '--link', '--uninstall'], err, 'install');
  if (!f) return 2;
  if (f.rest.length !== 1) {
    err('terminal-delight tick install: give one package: a folder holding SKILL.md, or a sample\'s name (counter, note, ticker), like terminal-delight tick install counter\n');
    return 2;
  }
  const project = f.project !== undefined ? path.resolve(cwd, f.project) : undefined;
  if (project !== undefined && !isDir(project)) {
    err(`terminal-delight tick install: the project folder "${f.project}" does not exist; give an existing folder; nothing was changed\n`);
    return 2;
  }
  const opts = { env, cwd, link: f.link, ...(project ? { project } : {}) };
  const r = f.uninstall ? uninstall(f.rest[0]!, opts) : install(f.rest[0]!, opts);
  if (!r.ok) {
    err(`terminal-delight tick install: ${printable(r.error)}\n`);
    return 1;
  }
  for (const line of r.lines) out(`${printable(line)}\n`);
  return 0;
}

export function runList(argv: string[], env: NodeJS.ProcessEnv, cwd: string, out: Write, err: Write): number {
  const f = parseFlags(argv, ['--project'], err, 'list');
  if (!f) return 2;
  if (f.rest.length > 0) {
    err(`terminal-delight tick list: "${f.rest[0]}" is not an option; use --project DIR\n`);
    return 2;
  }
  const packages = listPackages({ env, cwd: f.project !== undefined ? path.resolve(cwd, f.project) : cwd });
  if (packages.length === 0) {
    out('No Tick packages are installed. Install one with terminal-delight tick install PATH|NAME (the samples: counter, note, ticker).\n');
    return 0;
  }
  out(packages.map((p) => describePackage(p).split('\n').map(printable).join('\n')).join('\n\n') + '\n');
  return 0;
}

/** A package as `tick list` prints it: name, scope and readiness, then what it is, how it opens, what it needs. */
export function describePackage(p: TickPackageInfo): string {
  const state = p.problem ? 'BROKEN' : p.ready ? 'ready' : 'needs setup';
  const lines = [`${p.name}  (${p.scope})  ${state}`];
  if (p.problem) return [...lines, `  ${p.problem}`].join('\n');
  lines.push(`  ${p.description}`);
  lines.push(`  folder: ${p.folder}`);
  if (p.launch) lines.push(`  opens: ${showArgv(p.launch.command)}  (in ${p.launch.cwd}${p.launch.title ? `, titled ${p.launch.title}` : ''})`);
  if (p.prerequisites.length === 0) lines.push('  prerequisites: none');
  for (const s of p.prerequisites) {
    const mark = s.met === true ? 'met        ' : s.met === false ? 'NOT MET    ' : 'by hand    ';
    lines.push(`  prerequisite ${mark}${s.text}${s.met === false && s.detail ? ` (${s.detail})` : ''}`);
  }
  return lines.join('\n');
}

/** argv as a person would type it: words with blanks or quotes in single quotes. */
export function showArgv(argv: string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
