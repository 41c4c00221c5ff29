/**
 * A Tick package's prerequisites (`tick-requires` in its Skill): what must be true before
 * the Tick can start, and whether it looks true here. Three forms can be checked (an
 * environment variable set, a command on PATH, a file present); anything else is free
 * text a person reads (how to log in, where to get a token) and is never checked.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PrerequisiteStatus } from '../../preload/contract.ts';
import { resolveCommand } from '../tick/process.ts';

export type Prerequisite =
  | { kind: 'env' | 'command' | 'file'; value: string; text: string }
  | { kind: 'text'; text: string };

const FORMS = {
  env: /^[A-Za-z_][A-Za-z0-9_]*$/,
  command: /^\S+$/,
  file: /^(\/|~\/|\{package\}\/)/,
} as const;

const HINTS = {
  env: 'env NAME takes one variable name, like env GITHUB_TOKEN',
  command: 'command NAME takes one program name or path, like command gh',
  file: 'file PATH takes an absolute path, ~/… or {package}/…, like file ~/.config/gh/hosts.yml',
} as const;

/**
 * `none`, or items separated by ";": `env NAME`, `command NAME`, `file PATH`, or free text.
 * Returns the list ([] for none) or one sentence saying what is wrong.
 */
export function parsePrerequisites(value: string): { ok: true; items: Prerequisite[] } | { ok: false; error: string } {
  const trimmed = value.trim();
  if (trimmed === '') return { ok: false, error: 'tick-requires is empty; write none when the Tick needs nothing, or list what it needs (env NAME; command NAME; file PATH; or a sentence)' };
  if (/^none\.?$/i.test(trimmed)) return { ok: true, items: [] };
  const items: Prerequisite[] = [];
  for (const raw of trimmed.split(';')) {
    const text = raw.trim();
    if (!text) continue;
    const m = /^(env|command|file)\s+(.*)$/.exec(text);
    if (!m) {
      items.push({ kind: 'text', text });
      continue;
    }
    const kind = m[1] as keyof typeof FORMS;
    const arg = m[2]!.trim();
    if (!FORMS[kind].test(arg)) return { ok: false, error: `the prerequisite "${text}" is not well formed: ${HINTS[kind]}` };
    items.push({ kind, value: arg, text });
  }
  return { ok: true, items };
}

export interface CheckContext {
  env: NodeJS.ProcessEnv;
  /** The package's folder, for {package} in a path. */
  folder: string;
}

/** Expand ~/ and {package}/ at the start of a path. */
export function expandPath(p: string, ctx: CheckContext): string {
  if (p.startsWith('~/')) return path.join(ctx.env.HOME || os.homedir(), p.slice(2));
  return p.split('{package}').join(ctx.folder);
}

/** Whether each prerequisite looks met here: true, false, or null (free text: a person judges). */
export function checkPrerequisites(items: Prerequisite[], ctx: CheckContext): PrerequisiteStatus[] {
  return items.map((p): PrerequisiteStatus => {
    switch (p.kind) {
      case 'text':
        return { kind: 'text', text: p.text, met: null };
      case 'env': {
        const set = (ctx.env[p.value] ?? '') !== '';
        return { kind: 'env', text: p.text, met: set, ...(set ? {} : { detail: `${p.value} is not set` }) };
      }
      case 'command':
        try {
          resolveCommand(expandPath(p.value, ctx), ctx.folder, ctx.env.PATH);
          return { kind: 'command', text: p.text, met: true };
        } catch {
          return { kind: 'command', text: p.text, met: false, detail: p.value.includes('/') ? `${p.value} is not an executable file` : `${p.value} is not on PATH` };
        }
      case 'file': {
        const there = fs.existsSync(expandPath(p.value, ctx));
        return { kind: 'file', text: p.text, met: there, ...(there ? {} : { detail: `${p.value} does not exist` }) };
      }
    }
  });
}

/** The checkable prerequisites that are not met, in one phrase ("" when none). */
export function unmetPhrase(statuses: PrerequisiteStatus[]): string {
  return statuses.filter((s) => s.met === false).map((s) => s.detail ?? s.text).join(', ');
}
