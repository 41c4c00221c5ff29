/** `terminal-delight surface` as a real child process (bin/terminal-delight), with TD_* env. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { paneFolder, statePaths } from '../paths.ts';
import { tempState } from '../panes/testing.ts';
import { catalogue } from './registry.ts';
import { madeUpId } from './validate.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(root, 'bin', 'terminal-delight');
const SAMPLES = path.join(root, 'assets', 'transcripts');

let state: ReturnType<typeof tempState>;
let paneEnv: NodeJS.ProcessEnv;
let folder: string;

beforeEach(() => {
  state = tempState();
  paneEnv = { ...state.env, TD_SESSION: 's-cli', TD_PANE_ID: 'pcli0001', TD_TAG: 'abcd1234' };
  folder = paneFolder(statePaths(paneEnv), 's-cli', 'pcli0001');
});
afterEach(() => state.cleanup());

function cli(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}) {
  const r = spawnSync(BIN, ['surface', ...args], {
    input: opts.input ?? '',
    env: { ...(opts.env ?? paneEnv), TD_NODE: process.execPath },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const response = (id: string) => JSON.stringify({ td: '0.4', kind: 'response', id, model: { layman: `about ${id}` } });

describe('terminal-delight surface', () => {
  it('writes one document from stdin atomically into the pane folder (exit 0)', () => {
    const r = cli([], { input: response('r1') });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`wrote r1 → ${path.join(folder, 'r1.json')}\n`);
    expect(JSON.parse(fs.readFileSync(path.join(folder, 'r1.json'), 'utf8'))).toEqual(JSON.parse(response('r1')));
    expect(fs.readdirSync(folder)).toEqual(['r1.json']); // no temp file left behind
  });

  it('reads a file, and names a made-up id', () => {
    const file = path.join(state.dir, 'doc.json');
    fs.writeFileSync(file, JSON.stringify({ td: '0.4', kind: 'table', title: 'T', model: { columns: ['a'], rows: [] } }));
    const r = cli([file]);
    expect(r.code).toBe(0);
    const id = madeUpId('table', 'T');
    expect(fs.existsSync(path.join(folder, `${id}.json`))).toBe(true);
  });

  it('takes every ```td block of the input, says why for each one refused, and exits 0 when one was written', () => {
    const input = [
      'Some text.', '```td', response('a1'), '```', '',
      '```tdsp', JSON.stringify({ td: '0.4', kind: 'hologram', model: {} }), '```',
      '```td', JSON.stringify({ kind: 'response', model: { layman: 'x' } }), '```',
    ].join('\n');
    const r = cli([], { input });
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      'terminal-delight surface: document 2: unknown kind "hologram" — this build renders response, decision, question, change, artifact, table, diagram',
      'terminal-delight surface: document 3: missing `td` version field — this build speaks TDSP 0.4',
    ]);
    expect(fs.readdirSync(folder)).toEqual(['a1.json']);
  });

  it('exits 2 when nothing was usable, saying why', () => {
    const r = cli([], { input: JSON.stringify({ td: '0.4', kind: 'artifact', id: 'x', model: { location: 'report.html' } }) });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('terminal-delight surface: "report.html" is relative — it would resolve against the TERMINAL\'s directory, not yours. Send an absolute path or a full URL.\n');
    expect(cli([], { input: '' })).toMatchObject({ code: 2, stderr: /the input is empty/ });
    expect(cli([], { input: 'not json' })).toMatchObject({ code: 2, stderr: /the surface is not valid JSON/ });
    expect(cli([path.join(state.dir, 'nope.json')])).toMatchObject({ code: 2, stderr: /cannot read .*nope\.json \(ENOENT\)/ });
    expect(fs.existsSync(folder)).toBe(false);
  });

  it('exits 3 outside a pane', () => {
    const r = cli([], { input: response('r1'), env: state.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^terminal-delight surface: not inside a Terminal Delight pane/);
    expect(cli([], { input: response('r1'), env: { ...paneEnv, TD_PANE_ID: '../../etc' } }).code).toBe(3);
  });

  it('retires by deleting the file it wrote', () => {
    expect(cli([], { input: response('gone') }).code).toBe(0);
    const r = cli([], { input: JSON.stringify({ td: '0.4', op: 'retire', id: 'gone' }) });
    expect(r).toMatchObject({ code: 0, stdout: 'retired gone\n' });
    expect(fs.existsSync(path.join(folder, 'gone.json'))).toBe(false);
  });

  it('prints the catalogue from the registry, as a table and as JSON, outside a pane too', () => {
    const table = cli(['--catalogue'], { env: state.env });
    expect(table.code).toBe(0);
    for (const k of catalogue()) expect(table.stdout).toContain(k.kind);
    expect(table.stdout.split('\n')[0]).toMatch(/^kind +shelf +actions +agents +summary$/);
    const json = cli(['--catalogue', '--json'], { env: state.env });
    expect(JSON.parse(json.stdout)).toEqual(catalogue());
  });

  it('derives the surfaces of the sample Claude Code transcript', () => {
    const r = cli(['--derive', path.join(SAMPLES, 'claude-code.jsonl')], { env: state.env });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.op, l.id, l.kind])).toEqual([
      ['present', 'cc-reply', 'response'],
      ['present', 'cache-eviction', 'decision'],
      ['present', 'holo', 'unclassified'],
    ]);
    expect(lines[2].reason).toMatch(/^unknown kind "hologram"/);
    expect(r.stdout).not.toContain('never read');
  });

  it('derives the surfaces of the sample Codex rollout', () => {
    const r = cli(['--derive', path.join(SAMPLES, 'codex-rollout.jsonl')], { env: state.env });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual([
      expect.objectContaining({ op: 'present', id: 'bench-table', kind: 'table', title: 'Cache benchmark' }),
      { op: 'retire', id: 'old-reply' },
    ]);
    expect(cli(['--derive', path.join(state.dir, 'missing.jsonl')], { env: state.env })).toMatchObject({ code: 2, stderr: /cannot read/ });
  });

  it('does not wait on a terminal when nothing is piped in', async () => {
    const { run } = await import('./cli.ts');
    let err = '';
    const code = await run([], { env: paneEnv, stdinIsTTY: true, stdout: () => undefined, stderr: (t) => { err += t; }, readStdin: () => new Promise(() => undefined) });
    expect(code).toBe(2);
    expect(err).toMatch(/^terminal-delight surface: nothing is piped in — give a file, or pipe the document/);
  });
});
