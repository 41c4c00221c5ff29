// The record of what `terminal-delight hooks` installed, so `--uninstall` takes out
// everything it ever put in, whether or not the agent is still on PATH: one JSON file in the
// state folder ($XDG_STATE_HOME/terminal-delight/hooks-installed.json, mode 0600), a list of
// { agent, part, file, made? }: part "hooks" (a settings file's hooks), "mcp" (Claude Code's
// MCP server entry) or "plugin" (OpenCode's plugin file); file is absolute; made, the
// topmost folder the install made for it (taken out with it when empty). Plain Node, no
// dependencies (settings-merge.mjs runs it under Claude Code's own node).
import fs from 'node:fs';
import path from 'node:path';

/** The record's entries; none when the file is missing or unreadable. */
export function readRecord(file) {
  try {
    const r = JSON.parse(fs.readFileSync(file, 'utf8'));
    return Array.isArray(r?.entries) ? r.entries.filter((e) => e && typeof e.agent === 'string' && typeof e.part === 'string' && typeof e.file === 'string') : [];
  } catch {
    return [];
  }
}

function writeRecord(file, entries) {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify({ version: 1, entries }, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

const same = (a, b) => a.agent === b.agent && a.part === b.part && a.file === b.file;

/** Notes that `entry` ({ agent, part, file, made? }) is installed (kept as first noted when it already is). */
export function recordAdd(file, entry) {
  const entries = readRecord(file);
  const { agent, part, file: where, made } = entry;
  if (!entries.some((e) => same(e, entry))) writeRecord(file, [...entries, { agent, part, file: where, ...(typeof made === 'string' ? { made } : {}) }]);
}

/** Notes that `entry` is taken out; the record goes when it is empty. */
export function recordRemove(file, entry) {
  const entries = readRecord(file);
  const rest = entries.filter((e) => !same(e, entry));
  if (rest.length === entries.length) return;
  if (rest.length === 0) fs.rmSync(file, { force: true });
  else writeRecord(file, rest);
}
