/**
 * `terminal-delight surface [file]`: put surfaces on this pane's workbench from the
 * command line, with no app needed (only the pane's environment).
 *
 *   terminal-delight surface [file|-]          one document, or every ```td block (stdin when no file)
 *   terminal-delight surface --catalogue [--json]
 *   terminal-delight surface --derive <transcript.jsonl>
 *
 * Each document is checked strictly (as MCP checks) and written atomically to the pane
 * folder as `<id>.json`; a retire deletes `<id>.json` (or, when there is none, is written
 * there for the window to read). Exit 0 if something was written, 2 if nothing was
 * usable (why, on stderr, one sentence per document), 3 outside a pane.
 */
import fs from 'node:fs';
import path from 'node:path';
import { paneFolder, statePaths } from '../paths.ts';
import { catalogue, catalogueTable } from './registry.ts';
import { writeAtomic } from './store.ts';
import { deriveSurfaces, fencedBlocks, readTail } from './transcript.ts';
import { checkSurface } from './validate.ts';

const NAME_PART = /^[A-Za-z0-9._-]{1,128}$/;

const USAGE = `Usage: terminal-delight surface [file|-]            put one surface, or every \`\`\`td block, on this pane's workbench
       terminal-delight surface --catalogue [--json]  list the kinds, shelves and actions this build handles
       terminal-delight surface --derive <transcript.jsonl>  print the surfaces the window would read out of a transcript
`;

export interface Io {
  env: NodeJS.ProcessEnv;
  /** Whether stdin is a terminal (nothing piped in). */
  stdinIsTTY?: boolean;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readStdin: () => Promise<string>;
}

function defaultIo(): Io {
  return {
    env: process.env,
    stdinIsTTY: process.stdin.isTTY === true,
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

/** The documents in an input: every ```td / ```tdsp block, or else the whole input as one. */
export function documentsIn(text: string): string[] {
  const blocks = fencedBlocks(text);
  if (blocks.length > 0) return blocks;
  return text.trim() ? [text.trim()] : [];
}

export async function run(argv: string[], io: Io = defaultIo()): Promise<number> {
  const err = (line: string) => io.stderr(`terminal-delight surface: ${line}\n`);
  const args = [...argv];
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(USAGE);
    return 0;
  }
  if (args.includes('--catalogue')) {
    io.stdout(args.includes('--json') ? `${JSON.stringify(catalogue(), null, 2)}\n` : catalogueTable());
    return 0;
  }
  const d = args.indexOf('--derive');
  if (d >= 0) {
    const file = args[d + 1];
    if (!file) {
      err('--derive needs a transcript file — run terminal-delight surface --derive <transcript.jsonl>');
      return 2;
    }
    let text: string;
    try {
      text = readTail(file);
    } catch (e) {
      err(`cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}) — give the path of a Claude Code or Codex JSONL transcript`);
      return 2;
    }
    for (const c of deriveSurfaces(text)) {
      if (c.type === 'retire') io.stdout(`${JSON.stringify({ op: 'retire', id: c.id })}\n`);
      else if (c.type === 'present' || c.type === 'update' || c.type === 'unclassified') {
        io.stdout(`${JSON.stringify({ op: c.type === 'unclassified' ? 'present' : c.type, ...c.doc, ...(c.type === 'unclassified' ? { reason: c.reason } : {}) })}\n`);
      }
    }
    return 0;
  }
  const unknown = args.find((a) => a.startsWith('--'));
  if (unknown) {
    err(`unknown option ${unknown} — run terminal-delight surface --help`);
    return 2;
  }
  if (args.length > 1) {
    err('give at most one file — or pipe the documents on stdin');
    return 2;
  }

  const session = io.env.TD_SESSION ?? '';
  const paneId = io.env.TD_PANE_ID ?? '';
  if (!NAME_PART.test(session) || !NAME_PART.test(paneId) || /^\.+$/.test(session) || /^\.+$/.test(paneId)) {
    err('not inside a Terminal Delight pane ($TD_SESSION and $TD_PANE_ID are not set) — run this in a pane, or write the file into the pane folder yourself');
    return 3;
  }
  const folder = paneFolder(statePaths(io.env), session, paneId);

  let input: string;
  const file = args[0];
  if ((!file || file === '-') && io.stdinIsTTY) {
    err('nothing is piped in — give a file, or pipe the document: echo \'{"td":"0.4",…}\' | terminal-delight surface');
    return 2;
  }
  try {
    input = file && file !== '-' ? fs.readFileSync(file, 'utf8') : await io.readStdin();
  } catch (e) {
    err(`cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}) — give an existing file, or pipe the document on stdin`);
    return 2;
  }
  const docs = documentsIn(input);
  if (docs.length === 0) {
    err('the input is empty — give one surface document, or ```td blocks');
    return 2;
  }
  let wrote = 0;
  docs.forEach((text, i) => {
    const label = docs.length > 1 ? `document ${i + 1}: ` : '';
    const c = checkSurface(text, { strict: true });
    if (c.type === 'refused' || c.type === 'not-json' || c.type === 'unclassified') {
      err(`${label}${c.reason}`);
      return;
    }
    try {
      fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
      const id = c.type === 'retire' ? c.id : c.doc.id;
      const target = path.join(folder, `${id}.json`);
      if (c.type === 'retire' && fs.existsSync(target)) {
        fs.rmSync(target);
        io.stdout(`retired ${id}\n`);
      } else {
        writeAtomic(target, `${text}\n`);
        io.stdout(`${c.type === 'retire' ? 'retired' : 'wrote'} ${id} → ${target}\n`);
      }
      wrote++;
    } catch (e) {
      err(`${label}cannot write to ${folder} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}) — check that the folder is writable`);
    }
  });
  return wrote > 0 ? 0 : 2;
}
