/**
 * `tick check PACKAGE`: a Tick package checked as a package (its Skill's front matter,
 * its launch command, its prerequisites stated), then the Tick its launch starts, under
 * every rule `tick check -- <command…>` applies.
 */
import fs from 'node:fs';
import path from 'node:path';
import { checkTick, type CheckOptions, type RuleResult } from '../tick/check.ts';
import { resolveCommand } from '../tick/process.ts';
import { findPackage, isDir } from './find.ts';
import { resolveSource } from './install.ts';
import { checkPrerequisites } from './prerequisites.ts';
import { launchOf, parseSkill, SKILL_FILE } from './skill.ts';

export const PACKAGE_RULES = {
  skill: `the Skill: ${SKILL_FILE} with Agent Skills front matter (name as its folder, description, metadata)`,
  launch: 'the launch command (tick-command) is found',
  stated: 'prerequisites are stated (tick-requires, even as none)',
  met: 'prerequisites look met here',
} as const;

/** The folder a `tick check` argument names: a path, an installed package, or a sample. */
export function packageFolder(arg: string, env: NodeJS.ProcessEnv, cwd: string): { ok: true; folder: string } | { ok: false; error: string } {
  if (!arg.includes('/') && arg !== '.' && arg !== '..') {
    const installed = findPackage(arg, { env, cwd });
    if (installed.ok) return { ok: true, folder: installed.pkg.folder };
  }
  return resolveSource(arg, cwd);
}

export async function checkPackage(arg: string, opts: CheckOptions & { env: NodeJS.ProcessEnv; cwd: string }): Promise<RuleResult[]> {
  const results: RuleResult[] = [];
  const add = (rule: string, ok: boolean | 'n/a', detail?: string) => results.push({ rule, status: ok === 'n/a' ? 'n/a' : ok ? 'pass' : 'fail', ...(detail ? { detail } : {}) });
  const where = packageFolder(arg, opts.env, opts.cwd);
  if (!where.ok || !isDir(where.folder)) {
    add(PACKAGE_RULES.skill, false, where.ok ? `${where.folder} is not a folder` : where.error);
    return results;
  }
  const folder = path.resolve(where.folder);
  let text: string;
  try {
    text = fs.readFileSync(path.join(folder, SKILL_FILE), 'utf8');
  } catch {
    add(PACKAGE_RULES.skill, false, `${folder} has no ${SKILL_FILE}, so it is not a Tick package; add one (docs/spec/tick-packages.md says what goes in it)`);
    return results;
  }
  const parsed = parseSkill(text, path.basename(folder));
  if (!parsed.ok) {
    // The rule at fault fails with the reason; the others are not reached.
    const at = parsed.part === 'tick-command' ? PACKAGE_RULES.launch : parsed.part === 'tick-requires' ? PACKAGE_RULES.stated : PACKAGE_RULES.skill;
    for (const rule of [PACKAGE_RULES.skill, PACKAGE_RULES.launch, PACKAGE_RULES.stated]) {
      if (rule === at) add(rule, false, parsed.error);
      else if (rule === PACKAGE_RULES.skill) add(rule, true);
      else add(rule, 'n/a', 'not checked: the Skill does not read');
    }
    return results;
  }
  const { skill } = parsed;
  add(PACKAGE_RULES.skill, true, `${skill.name}: ${skill.description.length} characters of description`);
  const launch = launchOf(skill, folder);
  let found = false;
  try {
    const file = resolveCommand(launch.command[0] ?? '', isDir(launch.cwd) ? launch.cwd : folder, opts.env.PATH);
    found = true;
    add(PACKAGE_RULES.launch, true, `${launch.command.join(' ')} (${file})`);
  } catch (e) {
    add(PACKAGE_RULES.launch, false, (e as Error).message);
  }
  const statuses = checkPrerequisites(skill.prerequisites, { env: opts.env, folder });
  add(PACKAGE_RULES.stated, true, statuses.length ? statuses.map((s) => s.text).join('; ') : 'none');
  const unmet = statuses.filter((s) => s.met === false);
  add(PACKAGE_RULES.met, statuses.length === 0 ? 'n/a' : unmet.length ? 'n/a' : true,
    statuses.length === 0 ? 'it needs nothing' : unmet.length ? `not met here: ${unmet.map((s) => s.detail ?? s.text).join(', ')}` : statuses.some((s) => s.met === null) ? 'the checkable ones are met; the rest a person reads' : 'all met');
  if (!found) return results;
  if (!isDir(launch.cwd)) {
    add('starts', false, `the package's working folder ${launch.cwd} (tick-cwd) does not exist`);
    return results;
  }
  return [...results, ...(await checkTick(launch.command, { ...opts, cwd: launch.cwd }))];
}
