/**
 * A Tick package's Skill: SKILL.md in the Agent Skills format (YAML front matter, then
 * Markdown). The front matter is read with a real YAML parser and held to the Agent
 * Skills rules (name, description, license, compatibility, metadata of strings,
 * allowed-tools); the Tick's launch and prerequisites are read from its metadata:
 * tick-command, tick-cwd, tick-title, tick-requires. Pure: text in, a Skill or one
 * sentence out.
 */
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseCommandLine } from '../../common/argv.ts';
import { parsePrerequisites, type Prerequisite } from './prerequisites.ts';

/** The YAML parser, loaded at the first SKILL.md read, not at the core's start (~0.9 MiB of the heap at rest). */
let yaml: typeof import('yaml') | undefined;
const yamlParser = (): typeof import('yaml') => (yaml ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));

export const SKILL_FILE = 'SKILL.md';
/** Stands for the package's folder (absolute) in tick-command, tick-cwd and file prerequisites. */
export const PACKAGE_PLACEHOLDER = '{package}';

const FIELDS = ['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools'];
const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
/** Control characters but tab and line ends (a folded description has those). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const isMapping = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export interface TickSkill {
  name: string;
  description: string;
  /** tick-command split into words; {package} not yet filled in. */
  command: string[];
  /** tick-cwd as written ({package} when not given). */
  cwd: string;
  title?: string;
  prerequisites: Prerequisite[];
}

/** A refusal names the part of the Skill at fault: the front matter as a whole, the launch, or the prerequisites. */
export type SkillResult = { ok: true; skill: TickSkill } | { ok: false; error: string; part?: 'tick-command' | 'tick-requires' };

/** The front matter's text and the line it starts on, or why there is none. */
function frontMatter(text: string): { ok: true; yaml: string } | { ok: false; error: string } {
  const m = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/.exec(text);
  if (m) return { ok: true, yaml: m[1] ?? '' };
  if (/^\uFEFF?---[ \t]*\r?\n/.test(text)) return { ok: false, error: 'the front matter of SKILL.md is never closed; end it with a line holding only ---' };
  return { ok: false, error: 'SKILL.md does not start with YAML front matter; begin it with a line ---, then name: and description:, then a line ---' };
}

/**
 * Read a Skill. `folderName`, when given, must equal the Skill's name (the Agent Skills
 * rule: a Skill's folder is named after it).
 */
export function parseSkill(text: string, folderName?: string): SkillResult {
  const fm = frontMatter(text);
  if (!fm.ok) return fm;
  const doc = yamlParser().parseDocument(fm.yaml, { uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    const line = e.linePos?.[0]?.line;
    const what = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    return { ok: false, error: `the front matter of SKILL.md is not valid YAML${line ? ` (line ${line + 1} of the file)` : ''}: ${what}; fix it and try again` };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 16 });
  } catch (e) {
    return { ok: false, error: `the front matter of SKILL.md could not be read (${(e as Error).message}); write plain YAML without aliases` };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return { ok: false, error: 'the front matter of SKILL.md must be a YAML mapping (name: …, description: …)' };
  }
  const fields = data as Record<string, unknown>;
  const extra = Object.keys(fields).filter((k) => !FIELDS.includes(k));
  if (extra.length > 0) {
    return { ok: false, error: `SKILL.md has the front matter field${extra.length > 1 ? 's' : ''} ${extra.map((k) => `"${k}"`).join(', ')}, which the Agent Skills format does not allow; keep to ${FIELDS.join(', ')}, and put Tick settings under metadata` };
  }
  const { name, description } = fields;
  if (typeof name !== 'string' || name === '') return { ok: false, error: 'SKILL.md has no name; add name: with the package\'s name (lowercase letters, digits and hyphens)' };
  if (name.length > 64 || !NAME.test(name)) return { ok: false, error: `the Skill's name "${name}" is not allowed: use 1 to 64 lowercase letters, digits and single hyphens, neither first nor last` };
  if (folderName !== undefined && folderName !== name) return { ok: false, error: `the Skill is named "${name}" but its folder is "${folderName}"; Agent Skills need the two equal, so rename one` };
  if (typeof description !== 'string' || description.trim() === '') return { ok: false, error: 'SKILL.md has no description; add description: saying what the Tick is for and when to use it' };
  if (description.length > 1024) return { ok: false, error: `the Skill's description is ${description.length} characters; Agent Skills allow 1024, so shorten it` };
  if (fields.compatibility !== undefined && (typeof fields.compatibility !== 'string' || fields.compatibility.length > 500)) {
    return { ok: false, error: 'compatibility in SKILL.md must be text of at most 500 characters' };
  }
  for (const k of ['license', 'allowed-tools']) {
    if (fields[k] !== undefined && typeof fields[k] !== 'string') return { ok: false, error: `${k} in SKILL.md must be text` };
  }
  const control = Object.entries({ description, license: fields.license, compatibility: fields.compatibility, ...(isMapping(fields.metadata) ? fields.metadata : {}) })
    .find(([, v]) => typeof v === 'string' && CONTROL.test(v));
  if (control) return { ok: false, error: `${control[0]} in SKILL.md holds a control character (U+${(control[1] as string).match(CONTROL)![0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}); take it out, it would reach terminals and agents` };
  const metadata = fields.metadata;
  if (metadata === undefined || metadata === null) return { ok: false, error: 'SKILL.md has no metadata; a Tick package states its launch there: metadata: with tick-command: and tick-requires:' };
  if (typeof metadata !== 'object' || Array.isArray(metadata)) return { ok: false, error: 'metadata in SKILL.md must be a mapping of names to text' };
  for (const [k, v] of Object.entries(metadata)) {
    if (typeof v !== 'string') return { ok: false, error: `metadata ${k} in SKILL.md must be text (Agent Skills metadata holds strings); put it in quotes` };
  }
  const meta = metadata as Record<string, string>;
  if (meta['tick-command'] === undefined) return { ok: false, part: 'tick-command', error: 'SKILL.md has no metadata tick-command; add the command line that starts the Tick, like tick-command: node {package}/tick.mjs' };
  const command = parseCommandLine(meta['tick-command']);
  if (!command.ok) return { ok: false, part: 'tick-command', error: `tick-command in SKILL.md does not read: ${lowerFirst(command.error)}` };
  if (meta['tick-requires'] === undefined) return { ok: false, part: 'tick-requires', error: 'SKILL.md does not state its prerequisites; add metadata tick-requires: none, or what the Tick needs (env NAME; command NAME; file PATH; or a sentence on logging in)' };
  const prerequisites = parsePrerequisites(meta['tick-requires']);
  if (!prerequisites.ok) return { ok: false, part: 'tick-requires', error: `tick-requires in SKILL.md: ${prerequisites.error}` };
  const title = meta['tick-title']?.trim();
  return {
    ok: true,
    skill: {
      name,
      description: description.trim(),
      command: command.argv,
      cwd: meta['tick-cwd']?.trim() || PACKAGE_PLACEHOLDER,
      ...(title ? { title } : {}),
      prerequisites: prerequisites.items,
    },
  };
}

export interface Launch {
  command: string[];
  cwd: string;
  title?: string;
}

/** The launch with {package} filled in: an argv and an absolute cwd (relative tick-cwd is the package's). */
export function launchOf(skill: TickSkill, folder: string): Launch {
  const fill = (s: string) => s.split(PACKAGE_PLACEHOLDER).join(folder);
  return {
    command: skill.command.map(fill),
    cwd: path.resolve(folder, fill(skill.cwd)),
    ...(skill.title ? { title: skill.title } : {}),
  };
}

function lowerFirst(s: string): string {
  return s.replace(/^The /, 'the ');
}
