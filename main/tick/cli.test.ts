/** `terminal-delight tick check` through the real command, on the sample Ticks and on bad ones. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCheckArgs } from './cli.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'terminal-delight');
const SCRIPTED = path.join(import.meta.dirname, 'testdata', 'scripted.mjs');

/** `tick check --watch 300 [flags] -- <command…>`, or with `{ package }` `tick check --watch 300 [flags] PACKAGE`. */
function check(command: string[] | { package: string }, env: Record<string, string> = {}, flags: string[] = []): Promise<{ code: number | null; out: string }> {
  const what = Array.isArray(command) ? ['--', ...command] : [command.package];
  return new Promise((resolve) => {
    const child = spawn(BIN, ['tick', 'check', '--watch', '300', ...flags, ...what], { cwd: ROOT, env: { ...process.env, TD_NODE: process.execPath, ...env } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
}

const lineOf = (out: string, rule: string) => out.split('\n').find((l) => l.includes(rule)) ?? '';

describe('tick check', () => {
  it('passes the Appendix A counter, by its command line', async () => {
    const r = await check([process.execPath, path.join(ROOT, 'assets/ticks/counter/counter.mjs')]);
    expect(r.out).not.toMatch(/^FAIL/m);
    expect(r.out).toMatch(/^OK: 1[23] passed, 0 failed$/m);
    expect(r.code).toBe(0);
  });

  // The samples as packages: the Skill, its launch and prerequisites, then the Tick its launch starts.
  for (const [name, pkg, env] of [
    ['the Appendix A counter', 'counter', {}],
    ['the Appendix B note', 'note', {}],
    ['the ticker', 'assets/ticks/ticker', { TICKER_INTERVAL_MS: '100' }],
  ] as const) {
    it(`passes ${name} as a package (${pkg})`, async () => {
      const r = await check({ package: pkg }, env);
      expect(r.out).not.toMatch(/^FAIL/m);
      expect(lineOf(r.out, 'the Skill:')).toMatch(/^PASS/);
      expect(lineOf(r.out, 'the launch command')).toMatch(/^PASS .*assets\/ticks\/\w+\//);
      expect(lineOf(r.out, 'prerequisites are stated')).toMatch(/^PASS {2}.* — command (node|python3)$/);
      expect(lineOf(r.out, 'prerequisites look met')).toMatch(/^PASS/);
      expect(lineOf(r.out, 'initializes')).toMatch(/^PASS/);
      expect(r.out).toMatch(/^OK: 1[6-8] passed, 0 failed$/m);
      expect(r.code).toBe(0);
    });
  }

  it('fails a package whose Skill does not read, or whose launch command is not found, before running anything', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-check-pkg-'));
    try {
      const pkg = path.join(dir, 'demo');
      fs.mkdirSync(pkg);
      fs.writeFileSync(path.join(pkg, 'SKILL.md'), '---\nname: demo\ndescription: A demo.\nmetadata:\n  tick-command: no-such-tick-program-xyz\n---\n');
      let r = await check({ package: pkg });
      expect(lineOf(r.out, 'the Skill:')).toMatch(/^PASS/);
      expect(lineOf(r.out, 'prerequisites are stated')).toMatch(/^FAIL .*does not state its prerequisites; add metadata tick-requires: none/);
      expect(r.code).toBe(1);
      fs.writeFileSync(path.join(pkg, 'SKILL.md'), '---\nname: demo\ndescription: A demo.\nmetadata:\n  tick-command: no-such-tick-program-xyz\n  tick-requires: env TD_CHECK_UNSET_VAR\n---\n');
      r = await check({ package: pkg });
      expect(lineOf(r.out, 'the launch command')).toMatch(/^FAIL .*"no-such-tick-program-xyz" was not found on PATH/);
      expect(lineOf(r.out, 'prerequisites look met')).toMatch(/^N\/A .*not met here: TD_CHECK_UNSET_VAR is not set/);
      expect(r.out).not.toMatch(/initializes/);
      expect(r.code).toBe(1);
      fs.writeFileSync(path.join(pkg, 'SKILL.md'), '---\nname: other\ndescription: A demo.\n---\n');
      r = await check({ package: pkg });
      expect(lineOf(r.out, 'the Skill:')).toMatch(/^FAIL .*named "other" but its folder is "demo"/);
      expect(r.code).toBe(1);
      fs.rmSync(path.join(pkg, 'SKILL.md'));
      r = await check({ package: pkg });
      expect(lineOf(r.out, 'the Skill:')).toMatch(/^FAIL .*has no SKILL\.md, so it is not a Tick package/);
      expect(r.code).toBe(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails a Tick that does not validate arguments', async () => {
    const r = await check([process.execPath, SCRIPTED, 'good']);
    expect(lineOf(r.out, '-32602 on arguments')).toMatch(/^FAIL .*answered with a result/);
    expect(r.code).toBe(1);
  });

  it('fails a Tick that prints non-protocol output to stdout', async () => {
    const r = await check([process.execPath, SCRIPTED, 'stdout-noise']);
    expect(lineOf(r.out, 'initializes')).toMatch(/^FAIL .*not valid JSON/);
    expect(lineOf(r.out, 'standard output')).toMatch(/^FAIL .*debug: starting up/);
    expect(r.code).toBe(1);
  });

  it('fails a Tick whose reads have side effects', async () => {
    const r = await check([process.execPath, SCRIPTED, 'read-side-effect']);
    expect(lineOf(r.out, 'free of side effects')).toMatch(/^FAIL/);
    expect(r.code).toBe(1);
  });

  it('fails a Tick that survives stdin EOF and SIGTERM', async () => {
    const r = await check([process.execPath, SCRIPTED, 'sticky']);
    expect(lineOf(r.out, 'exits on standard-input EOF')).toMatch(/^FAIL/);
    expect(lineOf(r.out, 'exits on SIGTERM')).toMatch(/^FAIL/);
    expect(r.code).toBe(1);
  }, 60_000);

  it('makes one valid call of a non-mutating tool by itself, so an update that breaks 8.2 after a call is caught', async () => {
    const r = await check([process.execPath, SCRIPTED, 'update-null-data']);
    expect(lineOf(r.out, 'a valid call')).toMatch(/^FAIL {2}a valid call is answered: call "go" \{\} \(a non-mutating tool, arguments built from its schema\)/);
    expect(lineOf(r.out, '(8.2)')).toMatch(/^FAIL .*data/);
    expect(r.code).toBe(1);
    const counter = await check([process.execPath, path.join(ROOT, 'assets/ticks/counter/counter.mjs')]);
    expect(lineOf(counter.out, 'a valid call')).toBe('PASS  a valid call is answered: call "history" {} (a non-mutating tool, arguments built from its schema) — answered with a result');
    expect(lineOf(counter.out, '(8.2)')).toMatch(/^N\/A {3}updates .* — unchecked: no update came in the run, 1 valid call\(s\) included \(history; watched 300 ms more\)$/);
  });

  it('checks the updates that follow --call calls, and says when the update rules went unchecked and why', async () => {
    const note = ['python3', path.join(ROOT, 'assets/ticks/note/note.py')];
    const plain = await check(note);
    expect(lineOf(plain.out, '(8.2)')).toBe('N/A   updates carry non-null data and strictly rising seq (8.2) — unchecked: no update came, and no valid call was made: every tool mutates; give one with --call TOOL JSON');
    const called = await check(note, {}, ['--call', 'set_note', '{"text":"hi"}', '--call', 'set_note', '{"text":"again"}']);
    expect(lineOf(called.out, 'call "set_note" {"text":"hi"}')).toMatch(/^PASS .*answered with a result$/);
    expect(lineOf(called.out, 'call "set_note" {"text":"again"}')).toMatch(/^PASS /);
    expect(lineOf(called.out, '(8.2)')).toBe('PASS  updates carry non-null data and strictly rising seq (8.2) — 2 update(s), all valid');
    expect(called.code).toBe(0);
  });

  it('reads its own options, --help among them, before the Tick\'s command', async () => {
    expect(parseCheckArgs(['--help'])).toEqual({ help: true });
    expect(parseCheckArgs(['--safe', '--call', 'a', '{}', '--', 'x', '--help'])).toEqual({ safe: true, watchMs: 1000, calls: [{ tool: 'a', args: {} }], command: ['x', '--help'], dashed: true });
    expect(parseCheckArgs(['python3', 'note.py'])).toMatchObject({ command: ['python3', 'note.py'] });
    expect(parseCheckArgs(['--call', 'a', '{x'])).toEqual({ error: 'the arguments of --call a are not JSON ("{x"): give an object such as \'{"text":"hi"}\'' });
    expect(parseCheckArgs(['--call', 'a', '[1]'])).toEqual({ error: 'the arguments of --call a must be a JSON object ({} when it takes none)' });
    const help = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(BIN, ['tick', 'check', '--help'], { env: { ...process.env, TD_NODE: process.execPath } });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^Usage: terminal-delight tick check \[--safe\] \[--watch MS\] \[--call TOOL JSON\]\.\.\. -- <command…>/);
    expect(help.out).not.toMatch(/FAIL/);
  });

  it('explains misuse', async () => {
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(BIN, ['tick', 'check'], { env: { ...process.env, TD_NODE: process.execPath } });
      let out = '';
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(r).toMatchObject({ code: 2, out: expect.stringMatching(/give the Tick's command after "--"/) });
    const missing = await check(['no-such-tick-program-xyz']);
    expect(missing.out).toMatch(/^FAIL {2}starts — the Tick command "no-such-tick-program-xyz" was not found on PATH/m);
    expect(missing.code).toBe(1);
  });
});
