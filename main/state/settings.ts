/** The window's settings (contract Settings), kept in paths.settingsFile. */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_SETTINGS, SEARCH_SOURCES, type Settings, type SettingsPatch } from '../../preload/contract.ts';
import type { SettingsApi } from '../services.ts';
import { writeJsonAtomic } from './files.ts';

export { DEFAULT_SETTINGS };

/** Check one setting; returns the clean value or a one-sentence error. */
function checkField(key: string, value: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  switch (key) {
    case 'theme':
      return value === 'system' || value === 'light' || value === 'dark' ? { ok: true, value } : { ok: false, error: `theme ${JSON.stringify(value)} is not known: use "system", "light" or "dark"` };
    case 'fontSize':
      return typeof value === 'number' && Number.isFinite(value) && value >= 6 && value <= 72 ? { ok: true, value } : { ok: false, error: `fontSize ${JSON.stringify(value)} is out of range: use a number from 6 to 72` };
    case 'fontFamily':
      return typeof value === 'string' && value.length <= 200 ? { ok: true, value } : { ok: false, error: 'fontFamily must be a CSS font-family string of at most 200 characters' };
    case 'scrollback':
      return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 1_000_000 ? { ok: true, value } : { ok: false, error: `scrollback ${JSON.stringify(value)} is out of range: use a whole number of lines from 0 to 1000000` };
    case 'copyOnSelect':
    case 'mcpServer':
    case 'mcpWrites':
    case 'notifications':
    case 'shellIntegration':
      return typeof value === 'boolean' ? { ok: true, value } : { ok: false, error: `${key} must be true or false` };
    case 'agentCommand':
      return Array.isArray(value) && value.length > 0 && value.every((a) => typeof a === 'string' && a.length > 0)
        ? { ok: true, value: [...value] }
        : { ok: false, error: 'agentCommand must be a non-empty list of strings (argv): for example ["claude"]' };
    case 'windowClose':
      return value === 'keep' || value === 'end' ? { ok: true, value } : { ok: false, error: `windowClose ${JSON.stringify(value)} is not known: use "keep" (panes keep running) or "end" (closing the last window ends them)` };
    case 'resumeAtStart':
      return value === 'none' || value === 'shells' || value === 'all' ? { ok: true, value } : { ok: false, error: `resumeAtStart ${JSON.stringify(value)} is not known: use "none", "shells" or "all"` };
    case 'worktreeFolder':
      return typeof value === 'string' && value.length <= 4096 && (value === '' || value.startsWith('/') || value.startsWith('~')) && !/[\x00-\x1f]/.test(value)
        ? { ok: true, value }
        : { ok: false, error: 'worktreeFolder must be empty (beside the repository) or an absolute folder path' };
    case 'worktreeSetup':
      return typeof value === 'string' && value.length <= 4096 && !/[\x00-\x08\x0a-\x1f]/.test(value) ? { ok: true, value } : { ok: false, error: 'worktreeSetup must be one line of shell command (at most 4096 characters), or empty' };
    case 'machines':
      return checkMachines(value);
    case 'search':
      return checkSearch(value);
    default:
      return { ok: false, error: `there is no setting "${key}": known settings are ${Object.keys(DEFAULT_SETTINGS).join(', ')}` };
  }
}

/** settings.machines: records of machines connected before (docs/design/remote.md). */
function checkMachines(value: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  const bad = { ok: false as const, error: 'machines must be a list of {name, target, colour} (names of letters, digits, . _ -; colours as #rrggbb)' };
  if (!Array.isArray(value) || value.length > 64) return bad;
  const out: Array<Record<string, string>> = [];
  const names = new Set<string>();
  for (const m of value as Array<Record<string, unknown>>) {
    if (!m || typeof m !== 'object') return bad;
    const { name, target, colour, command } = m;
    if (typeof name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/.test(name) || names.has(name)) return bad;
    if (typeof target !== 'string' || target.length > 300 || /[\s\x00-\x1f]/.test(target) || target.startsWith('-')) return bad;
    if (typeof colour !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(colour)) return bad;
    if (command !== undefined && (typeof command !== 'string' || !/^[A-Za-z0-9_./~-]{1,1024}$/.test(command) || command.startsWith('-'))) return bad;
    names.add(name);
    out.push({ name, target, colour, ...(command ? { command } : {}) });
  }
  return { ok: true, value: out };
}

const AGENT_NAMES = ['claude', 'codex', 'gemini', 'opencode'];

/** The search settings (a whole object, or some of its fields: the rest keep their values in applySettings). */
function checkSearch(value: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: 'search must be an object: for example {"enabled": true, "keepDays": 90, "excludePanes": [], "mcpAgents": [], "leaveOut": []}' };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'enabled') {
      if (typeof v !== 'boolean') return { ok: false, error: 'search.enabled must be true or false' };
    } else if (k === 'keepDays') {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 36_500) return { ok: false, error: `search.keepDays ${JSON.stringify(v)} is out of range: use a whole number of days from 0 (forever) to 36500` };
    } else if (k === 'excludePanes') {
      if (!Array.isArray(v) || v.length > 1000 || !v.every((p) => typeof p === 'string' && /^[A-Za-z0-9._-]{1,128}$/.test(p))) return { ok: false, error: 'search.excludePanes must be a list of pane ids or tags' };
    } else if (k === 'mcpAgents') {
      if (!Array.isArray(v) || !v.every((a) => AGENT_NAMES.includes(a as string))) return { ok: false, error: `search.mcpAgents must be a list of agent names (${AGENT_NAMES.join(', ')})` };
    } else if (k === 'leaveOut') {
      if (!Array.isArray(v) || !v.every((x) => (SEARCH_SOURCES as readonly unknown[]).includes(x))) return { ok: false, error: `search.leaveOut must be a list of what not to index (${SEARCH_SOURCES.join(', ')})` };
    } else return { ok: false, error: `there is no search setting "${k}": known ones are enabled, keepDays, excludePanes, mcpAgents, leaveOut` };
    out[k] = Array.isArray(v) ? [...v] : v;
  }
  return { ok: true, value: out };
}

/** Apply a patch from outside; throws one sentence on the first bad field, changing nothing. */
export function applySettings(current: Settings, patch: unknown): Settings {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) throw new Error('settings must be an object of setting names to values');
  const next: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    const c = checkField(k, v);
    if (!c.ok) throw new Error(c.error);
    next[k] = k === 'search' ? { ...current.search, ...(c.value as object) } : c.value;
  }
  return next as unknown as Settings;
}

/** What reading settings.json found: the settings to use, unknown keys to keep, and what was wrong. */
export interface LoadedSettings {
  settings: Settings;
  /** Keys this build does not know (a newer build's): kept as they are when the file is written. */
  extra: Record<string, unknown>;
  /** Why the file could not be read at all, after "settings.json": "is not JSON (…)", "is not a JSON object …". */
  unreadable?: string;
  /** One sentence per setting that could not be used (it is at its default). */
  bad: string[];
}

/** Read settings leniently: unknown keys are kept aside, bad fields fall back to defaults and are reported. */
export function readSettings(text: string): LoadedSettings {
  const out: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  const extra: Record<string, unknown> = {};
  const bad: string[] = [];
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    // One level of brackets in the sentence: V8's "… at position 18 (line 1 column 19)" ends "… at position 18, line 1 column 19".
    return { settings: out as unknown as Settings, extra, bad, unreadable: `is not JSON (${(e as Error).message.replace(/ \((line \d+ column \d+)\)$/, ', $1')})` };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { settings: out as unknown as Settings, extra, bad, unreadable: 'is not a JSON object of setting names to values' };
  for (const [k, v] of Object.entries(raw)) {
    if (!(k in DEFAULT_SETTINGS)) {
      extra[k] = v;
      continue;
    }
    const c = checkField(k, v);
    if (c.ok) out[k] = k === 'search' ? { ...DEFAULT_SETTINGS.search, ...(c.value as object) } : c.value;
    else bad.push(c.error);
  }
  return { settings: out as unknown as Settings, extra, bad };
}

/** Read settings leniently: unknown or bad fields fall back to defaults. */
export function loadSettings(file: string): Settings {
  try {
    return readSettings(fs.readFileSync(file, 'utf8')).settings;
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

/** `20261130T064800Z`: a file-name-safe time. */
function stamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/**
 * Keep the file under a name of its own that no earlier copy has (`-2`, `-3`… after
 * the first), moved (link, then unlink) or copied; never replacing anything.
 */
function keepAside(file: string, base: string, move: boolean): string {
  for (let n = 1; ; n++) {
    const aside = n === 1 ? base : `${base}-${n}`;
    try {
      if (move) {
        fs.linkSync(file, aside);
        fs.unlinkSync(file);
      } else fs.copyFileSync(file, aside, fs.constants.COPYFILE_EXCL);
      return aside;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 9) throw e;
    }
  }
}

/**
 * The settings file, with one rule for a broken one: it is never overwritten silently.
 * At start, a file that cannot be read, or holds settings that cannot be used, is kept
 * aside as settings.json.broken-<time> (moved when unreadable, copied otherwise) and
 * `problem()` says so in one sentence, which every window shows until a setting is saved.
 */
export class SettingsService implements SettingsApi {
  private current: Settings;
  private readonly file: string;
  private readonly bus = new EventEmitter();
  private extra: Record<string, unknown> = {};
  private trouble: string | undefined;
  /** Set when a broken file could not be kept aside: nothing may be written over it. */
  private blocked: string | undefined;

  constructor(file: string, now: () => Date = () => new Date()) {
    this.file = file;
    this.current = { ...DEFAULT_SETTINGS };
    let text: string | undefined;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return; // no file yet: the defaults
    }
    const loaded = readSettings(text);
    this.current = loaded.settings;
    this.extra = loaded.extra;
    if (!loaded.unreadable && loaded.bad.length === 0) return;
    let name: string;
    try {
      name = path.basename(keepAside(file, `${file}.broken-${stamp(now())}`, !!loaded.unreadable));
    } catch (e) {
      this.trouble = `settings.json could not be used and could not be kept aside (${(e as Error).message}): fix or remove it; until then the defaults are used and nothing is saved over it.`;
      this.blocked = this.trouble;
      return;
    }
    this.trouble = loaded.unreadable
      ? `settings.json ${loaded.unreadable}: it was moved to ${name} and the defaults are in use.`
      : `settings.json had ${loaded.bad.length === 1 ? 'a setting' : `${loaded.bad.length} settings`} that could not be used (${loaded.bad[0]}${loaded.bad.length > 1 ? `; and ${loaded.bad.length - 1} more` : ''}): ${loaded.bad.length === 1 ? 'it is' : 'they are'} at the default, and the file as it was is kept as ${name}.`;
  }

  get(): Settings {
    return { ...this.current, agentCommand: [...this.current.agentCommand] };
  }

  /** What was wrong with settings.json at start, in one sentence (until a setting is saved). */
  problem(): string | undefined {
    return this.trouble;
  }

  set(patch: SettingsPatch): Settings {
    if (this.blocked) throw new Error(this.blocked);
    const next = applySettings(this.current, patch);
    this.current = next;
    // Keys of a newer build stay in the file.
    writeJsonAtomic(this.file, { ...this.extra, ...next });
    this.trouble = undefined;
    this.bus.emit('change', this.get());
    return this.get();
  }

  onChange(listener: (s: Settings) => void): () => void {
    this.bus.on('change', listener);
    return () => this.bus.off('change', listener);
  }
}
