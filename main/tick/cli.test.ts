/** `terminal-delight tick check` through the real command, on the sample Ticks and on bad ones. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'terminal-delight');
const SCRIPTED = path.join(import.meta.dirname, 'testdata', 'scripted.mjs');

function check(command: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(BIN, ['tick', 'check', '--watch', '300', '--', ...command], { cwd: ROOT, env: { ...process.env, TD_NODE: process.execPath, ...env } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

const lineOf = (out: string, rule: string) => out.split('\n').find((l) => l.includes(rule)) ?? '';

describe('tick check', () => {
  for (const [name, command, env] of [
    ['the Appendix A counter', [process.execPath, path.join(ROOT, 'assets/ticks/counter.mjs')], {}],
    ['the Appendix B note', ['python3', path.join(ROOT, 'assets/ticks/note.py')], {}],
    ['the ticker', [process.execPath, path.join(ROOT, 'assets/ticks/ticker.mjs')], { TICKER_INTERVAL_MS: '100' }],
  ] as const) {
    it(`passes ${name}`, async () => {
      const r = await check([...command], env);
      expect(r.out).not.toMatch(/^FAIL/m);
      expect(r.out).toMatch(/^OK: 1[23] passed, 0 failed$/m);
      expect(r.code).toBe(0);
    });
  }

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
