#!/usr/bin/env node
// The JSON half of `terminal-delight hooks` (and scripts/install-agent-hooks.sh): merges
// Terminal Delight's hooks into an agent's hook settings (Claude Code's settings.json,
// Codex's hooks.json, Gemini CLI's settings.json: the same shape) and its MCP server into a
// Claude Code MCP file, or takes exactly those out again. Plain Node (>= 18), no dependencies.
//
//   node settings-merge.mjs install|uninstall --settings FILE|none --mcp FILE|none --hook PATH --bin PATH [--agent claude|codex|gemini] [--record FILE]
//
// With --record, each file installed is noted in that record (record.mjs) and each file
// taken out is struck from it, so `terminal-delight hooks --uninstall` finds them later.
//
// Rules: what is there is never lost (other hooks, other settings, other servers); a file
// that is not plain JSON (comments, trailing commas) is refused with the reason and left
// as it was; the first install keeps the original beside the file as
// <file>.td-backup-<time> and notes it in <file>.td-install.json; installing again
// changes nothing; uninstalling takes out only what was put in, and when nothing else
// changed since, puts the original back byte for byte. Writes are atomic (a temporary
// file renamed in) and keep the file's indentation, line ends and mode.
import fs from 'node:fs';
import path from 'node:path';
import { recordAdd, recordRemove } from './record.mjs';

export const MCP_NAME = 'terminal-delight';
const HOOK_FILE = 'tdac-hook.sh';

class Refusal extends Error {}

// ───────────── reading and writing JSON files as they are ─────────────

function lineOf(text, index) {
  return text.slice(0, index).split('\n').length;
}

/** Where a JSON text has a comment, outside strings, or -1. */
function commentAt(text) {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) return i;
  }
  return -1;
}

function readJsonFile(file) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    if (e && e.code === 'ENOENT') return { exists: false, value: {}, style: { indent: 2, eol: '\n', finalEol: true } };
    throw new Refusal(`${file} could not be read (${e.message}): check its permissions and run again; nothing was changed`);
  }
  let text = bytes.toString('utf8');
  const bom = text.charCodeAt(0) === 0xfeff;
  if (bom) text = text.slice(1);
  let value;
  if (text.trim() === '') value = {};
  else {
    try {
      value = JSON.parse(text);
    } catch (e) {
      const at = commentAt(text);
      if (at >= 0) {
        throw new Refusal(`${file} has a comment on line ${lineOf(text, at)}: the installer edits plain JSON only, so take the comments out (or pass --settings with another file) and run again; nothing was changed`);
      }
      throw new Refusal(`${file} is not valid JSON (${e.message}): fix it, or pass --settings with another file, and run again; nothing was changed`);
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Refusal(`${file} holds ${Array.isArray(value) ? 'an array' : String(value === null ? 'null' : typeof value)}, not a JSON object: the agent expects an object there; fix it and run again; nothing was changed`);
  }
  const indentMatch = /\n([ \t]+)\S/.exec(text);
  const indent = indentMatch ? (indentMatch[1][0] === '\t' ? '\t' : indentMatch[1].length) : 2;
  return {
    exists: true,
    bytes,
    value,
    style: { indent, eol: text.includes('\r\n') ? '\r\n' : '\n', finalEol: /\r?\n$/.test(text), bom },
  };
}

function format(value, style) {
  let text = JSON.stringify(value, null, style.indent);
  if (style.eol !== '\n') text = text.replace(/\n/g, style.eol);
  if (style.finalEol) text += style.eol;
  return (style.bom ? '\ufeff' : '') + text;
}

function writeAtomic(file, data, mode) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.td-${process.pid}.tmp`);
  try {
    // A new file: private for Claude Code's own state file, readable like any settings file otherwise.
    fs.writeFileSync(tmp, data, { mode: mode ?? (path.basename(file) === '.claude.json' ? 0o600 : 0o644) });
    if (mode !== undefined) fs.chmodSync(tmp, mode);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new Refusal(`${file} could not be written (${e.message}): check the folder's permissions and run again`);
  }
}

function deepEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}

const clone = (v) => JSON.parse(JSON.stringify(v));

/** The same settings with empty hook lists, an empty `hooks` and an empty `mcpServers` left out. */
function normalized(v) {
  const out = clone(v);
  if (isObj(out.hooks)) {
    for (const [k, g] of Object.entries(out.hooks)) if (Array.isArray(g) && g.length === 0) delete out.hooks[k];
    if (Object.keys(out.hooks).length === 0) delete out.hooks;
  }
  if (isObj(out.mcpServers) && Object.keys(out.mcpServers).length === 0) delete out.mcpServers;
  return out;
}
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// ───────────── what Terminal Delight puts in ─────────────

function shellQuote(s) {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Each agent's hooks, event by event: [event, matcher or undefined, timeout]. Claude Code
 * and Codex count timeouts in seconds, Gemini CLI in milliseconds. A prompt's hook may
 * wait for the bench (540 s), so its timeout is 600 s.
 */
export const AGENT_HOOKS = {
  claude: [
    ['SessionStart', undefined, 10],
    ['UserPromptSubmit', undefined, 10],
    ['PreToolUse', 'AskUserQuestion', 600],
    ['PostToolUse', '*', 10],
    ['PostToolUseFailure', '*', 10],
    ['PermissionRequest', '*', 600],
    ['Stop', undefined, 10],
  ],
  codex: [
    ['SessionStart', undefined, 10],
    ['UserPromptSubmit', undefined, 10],
    ['PermissionRequest', undefined, 600],
    ['PostToolUse', undefined, 10],
    ['Stop', undefined, 10],
  ],
  gemini: [
    ['SessionStart', undefined, 10_000],
    ['BeforeAgent', undefined, 10_000],
    ['AfterAgent', undefined, 10_000],
    ['AfterTool', undefined, 10_000],
    ['Notification', undefined, 10_000],
  ],
};

const isOurHook = (h) => isObj(h) && typeof h.command === 'string' && h.command.includes(HOOK_FILE);

export function hooksPart(hookPath, agent = 'claude') {
  const HOOKS = AGENT_HOOKS[agent];
  if (!HOOKS) throw new Refusal(`settings-merge: no hooks for agent ${agent}`);
  const command = `sh ${shellQuote(hookPath)}${agent === 'claude' ? '' : ` --agent ${agent}`}`;
  return {
    what: 'hooks',
    strip(settings, file) {
      const out = clone(settings);
      let found = false;
      if (out.hooks === undefined) return { value: out, found };
      if (!isObj(out.hooks)) throw new Refusal(`${file}: "hooks" is not an object: fix it and run again; nothing was changed`);
      for (const [event, groups] of Object.entries(out.hooks)) {
        if (!Array.isArray(groups)) continue;
        const kept = [];
        for (const g of groups) {
          if (!isObj(g) || !Array.isArray(g.hooks) || !g.hooks.some(isOurHook)) {
            kept.push(g);
            continue;
          }
          found = true;
          const rest = g.hooks.filter((h) => !isOurHook(h));
          if (rest.length) kept.push({ ...g, hooks: rest });
        }
        if (kept.length) out.hooks[event] = kept;
        else if (groups.length) delete out.hooks[event];
      }
      if (found && Object.keys(out.hooks).length === 0) delete out.hooks;
      return { value: out, found };
    },
    add(settings, file) {
      const out = clone(settings);
      if (out.hooks === undefined) out.hooks = {};
      if (!isObj(out.hooks)) throw new Refusal(`${file}: "hooks" is not an object: fix it and run again; nothing was changed`);
      for (const [event, matcher, timeout] of HOOKS) {
        if (out.hooks[event] === undefined) out.hooks[event] = [];
        if (!Array.isArray(out.hooks[event])) throw new Refusal(`${file}: hooks.${event} is not a list: fix it and run again; nothing was changed`);
        const group = matcher === undefined ? {} : { matcher };
        group.hooks = [{ type: 'command', command, timeout }];
        out.hooks[event].push(group);
      }
      return out;
    },
  };
}

export function mcpPart(binPath) {
  const entry = { type: 'stdio', command: binPath, args: ['mcp'], env: {} };
  return {
    what: 'MCP server',
    strip(config, file) {
      const out = clone(config);
      if (out.mcpServers === undefined) return { value: out, found: false };
      if (!isObj(out.mcpServers)) throw new Refusal(`${file}: "mcpServers" is not an object: fix it and run again; nothing was changed`);
      if (!(MCP_NAME in out.mcpServers)) return { value: out, found: false };
      delete out.mcpServers[MCP_NAME];
      if (Object.keys(out.mcpServers).length === 0) delete out.mcpServers;
      return { value: out, found: true };
    },
    add(config, file) {
      const out = clone(config);
      if (out.mcpServers === undefined) out.mcpServers = {};
      if (!isObj(out.mcpServers)) throw new Refusal(`${file}: "mcpServers" is not an object: fix it and run again; nothing was changed`);
      out.mcpServers[MCP_NAME] = entry;
      return out;
    },
  };
}

// ───────────── install and uninstall, one file at a time ─────────────

function stamp(now) {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

const manifestOf = (file) => `${file}.td-install.json`;

function readManifest(file) {
  try {
    const m = JSON.parse(fs.readFileSync(manifestOf(file), 'utf8'));
    return isObj(m) ? m : undefined;
  } catch {
    return undefined;
  }
}

/** Returns a line saying what happened. */
export function installFile(file, part, now = new Date()) {
  const cur = readJsonFile(file);
  const { value: stripped } = part.strip(cur.value, file);
  const next = part.add(stripped, file);
  if (cur.exists && deepEqual(next, cur.value)) return `${file}: the ${part.what} ${part.what === 'hooks' ? 'are' : 'is'} already installed; nothing changed`;
  let manifest = readManifest(file);
  if (!manifest) {
    manifest = { version: 1, existed: cur.exists, installedAt: now.toISOString() };
    if (!fs.existsSync(path.dirname(file))) manifest.createdFolder = true;
    if (cur.exists) {
      let backup = `${file}.td-backup-${stamp(now)}`;
      for (let n = 2; fs.existsSync(backup); n++) backup = `${file}.td-backup-${stamp(now)}-${n}`;
      fs.copyFileSync(file, backup);
      manifest.backup = path.basename(backup);
    }
    writeAtomic(manifestOf(file), `${JSON.stringify(manifest, null, 2)}\n`, 0o600);
  }
  const mode = cur.exists ? fs.statSync(file).mode & 0o777 : undefined;
  writeAtomic(file, format(next, cur.style), mode);
  return `${file}: installed the ${part.what}${manifest.backup ? ` (the original is kept as ${manifest.backup})` : ''}`;
}

export function uninstallFile(file, part) {
  const manifest = readManifest(file);
  const cur = readJsonFile(file);
  if (!cur.exists) {
    if (manifest) fs.rmSync(manifestOf(file), { force: true });
    return `${file}: not there; nothing to take out`;
  }
  const { value: stripped, found } = part.strip(cur.value, file);
  if (!found) {
    if (manifest) fs.rmSync(manifestOf(file), { force: true });
    return `${file}: no Terminal Delight ${part.what} in it; nothing changed`;
  }
  if (manifest) {
    const backup = manifest.backup ? path.join(path.dirname(file), manifest.backup) : undefined;
    if (manifest.existed && backup && fs.existsSync(backup)) {
      let original;
      try {
        original = readJsonFile(backup).value;
      } catch {
        original = undefined;
      }
      if (original !== undefined && deepEqual(normalized(stripped), normalized(original))) {
        const mode = fs.statSync(file).mode & 0o777;
        writeAtomic(file, fs.readFileSync(backup), mode);
        fs.rmSync(backup, { force: true });
        fs.rmSync(manifestOf(file), { force: true });
        return `${file}: took out the ${part.what}; the file is back as it was`;
      }
    } else if (!manifest.existed && Object.keys(normalized(stripped)).length === 0) {
      fs.rmSync(file, { force: true });
      fs.rmSync(manifestOf(file), { force: true });
      if (manifest.createdFolder) {
        try {
          fs.rmdirSync(path.dirname(file));
        } catch {
          // something else lives there now: keep it
        }
      }
      return `${file}: took out the ${part.what}; the file was not there before, so it is gone again`;
    }
  }
  const mode = fs.statSync(file).mode & 0o777;
  writeAtomic(file, format(stripped, cur.style), mode);
  if (manifest) fs.rmSync(manifestOf(file), { force: true });
  return `${file}: took out the ${part.what}; everything else in it is kept${manifest && manifest.backup ? ` (the file before the install is still in ${manifest.backup})` : ''}`;
}

// ───────────── command line ─────────────

function parseArgs(argv) {
  const [mode, ...rest] = argv;
  const opts = { mode };
  for (let i = 0; i < rest.length; i += 2) {
    const key = rest[i];
    const value = rest[i + 1];
    if (!['--settings', '--mcp', '--hook', '--bin', '--agent', '--record'].includes(key) || value === undefined) throw new Refusal(`settings-merge: unexpected argument ${key}`);
    opts[key.slice(2)] = value;
  }
  if (mode !== 'install' && mode !== 'uninstall') throw new Refusal('settings-merge: the first argument is install or uninstall');
  if (!opts.settings || !opts.hook || !opts.bin) throw new Refusal('settings-merge: --settings, --hook and --bin are needed');
  return opts;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const agent = opts.agent ?? 'claude';
  const jobs = [];
  if (opts.settings !== 'none') jobs.push([path.resolve(opts.settings), hooksPart(path.resolve(opts.hook), agent), 'hooks']);
  if (opts.mcp && opts.mcp !== 'none') jobs.push([path.resolve(opts.mcp), mcpPart(path.resolve(opts.bin)), 'mcp']);
  // Read and check every file before changing any, so a refusal changes nothing.
  for (const [file, part] of jobs) part.strip(readJsonFile(file).value, file);
  for (const [file, part, name] of jobs) {
    console.log(opts.mode === 'install' ? installFile(file, part) : uninstallFile(file, part));
    if (opts.record) (opts.mode === 'install' ? recordAdd : recordRemove)(path.resolve(opts.record), { agent, part: name, file });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  try {
    main();
  } catch (e) {
    console.error(e instanceof Refusal ? e.message : `install-agent-hooks: ${e && e.message ? e.message : e}`);
    process.exit(e instanceof Refusal ? 2 : 1);
  }
}
