import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, helpText } from './main.ts';

const bin = path.resolve(import.meta.dirname, '..', '..', 'bin', 'terminal-delight');
const run = (...args: string[]) => spawnSync(bin, args, { encoding: 'utf8', env: { ...process.env, TD_NODE: process.execPath } });

describe('terminal-delight', () => {
  it('prints every subcommand with one line each for help', () => {
    const r = run('help');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(helpText());
    for (const [name, c] of [['help', {}], ...Object.entries(COMMANDS)] as const) {
      // What the app runs itself (the bridge ssh starts for a machine) is left out of the list.
      if ((c as { hidden?: boolean }).hidden) expect(r.stdout).not.toMatch(new RegExp(`^  ${name} `, 'm'));
      else expect(r.stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    }
    expect(Object.entries(COMMANDS).filter(([, c]) => c.hidden).map(([n]) => n)).toEqual(['bridge']);
    expect(run().stdout).toBe(helpText());
  });

  it('refuses an unknown subcommand in one sentence with exit 2', () => {
    const r = run('frobnicate');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('terminal-delight: "frobnicate" is not a command: run `terminal-delight help` to see them all.\n');
  });

  it('runs through a symlink to the script', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-cli-'));
    try {
      fs.symlinkSync(bin, path.join(dir, 'td'));
      const r = spawnSync(path.join(dir, 'td'), ['help'], { encoding: 'utf8', env: { ...process.env, TD_NODE: process.execPath } });
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('Usage: terminal-delight');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
