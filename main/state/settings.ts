/** The window's settings (contract Settings), kept in paths.settingsFile. */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { DEFAULT_SETTINGS, type Settings } from '../../preload/contract.ts';
import type { SettingsApi } from '../services.ts';
import { readJson, writeJsonAtomic } from './files.ts';

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
    default:
      return { ok: false, error: `there is no setting "${key}": known settings are ${Object.keys(DEFAULT_SETTINGS).join(', ')}` };
  }
}

/** Apply a patch from outside; throws one sentence on the first bad field, changing nothing. */
export function applySettings(current: Settings, patch: unknown): Settings {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) throw new Error('settings must be an object of setting names to values');
  const next: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    const c = checkField(k, v);
    if (!c.ok) throw new Error(c.error);
    next[k] = c.value;
  }
  return next as unknown as Settings;
}

/** Read settings leniently: unknown or bad fields fall back to defaults. */
export function loadSettings(file: string): Settings {
  const raw = readJson(file);
  const out: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const [k, v] of Object.entries(raw)) {
      if (!(k in DEFAULT_SETTINGS)) continue;
      const c = checkField(k, v);
      if (c.ok) out[k] = c.value;
    }
  }
  return out as unknown as Settings;
}

export class SettingsService implements SettingsApi {
  private current: Settings;
  private readonly file: string;
  private readonly bus = new EventEmitter();

  constructor(file: string) {
    this.file = file;
    this.current = fs.existsSync(file) ? loadSettings(file) : { ...DEFAULT_SETTINGS };
  }

  get(): Settings {
    return { ...this.current, agentCommand: [...this.current.agentCommand] };
  }

  set(patch: Partial<Settings>): Settings {
    const next = applySettings(this.current, patch);
    this.current = next;
    writeJsonAtomic(this.file, next);
    this.bus.emit('change', this.get());
    return this.get();
  }

  onChange(listener: (s: Settings) => void): () => void {
    this.bus.on('change', listener);
    return () => this.bus.off('change', listener);
  }
}
