/** `terminal-delight tick check` through the real command, on the sample Ticks and on bad ones. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'terminal-delight');
const SCRIPTED = path.join(import.meta.dirname, 'testdata', 'scripted.mjs');

/** `tick check --watch 300 -- <command…>`, or with `{ package }` `tick check --watch 300 PACKAGE`. */
function check(command: string[] | { package: string }, env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  const what = Array.isArray(command) ? ['--', ...command] : [command.package];
  return new Promise((resolve) => {
    const child = spawn(BIN, ['tick', 'check', '--watch', '300', ...what], { cwd: ROOT, env: { ...process.env, TD_NODE: process.execPath, ...env } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => resolve({ code, out }));
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
      expect(r.out).toMatch(/^OK: 1[67] passed, 0 failed$/m);
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

  it('explains misuse', async () => {
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(BIN, ['tick', 'check'], { env: { ...process.env, TD_NODE: process.execPath } });
      let out = '';
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('exit', (code) => resolve({ code, out }));
    });
    expect(r).toMatchObject({ code: 2, out: expect.stringMatching(/give the Tick's command after "--"/) });
    const missing = await check(['no-such-tick-program-xyz']);
    expect(missing.out).toMatch(/^FAIL {2}starts — the Tick command "no-such-tick-program-xyz" was not found on PATH/m);
    expect(missing.code).toBe(1);
  });
});
