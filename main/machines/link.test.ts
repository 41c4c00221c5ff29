import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statePaths } from '../paths.ts';
import { appVersion, PROTOCOL } from '../version.ts';
import { openLink, type Channel, type LinkError } from './link.ts';
import { parseTarget, type Target } from './reasons.ts';
import { startFarMachine, type FarMachine, stopFarMachine } from './sshd-testing.ts';

let m: FarMachine;
beforeAll(async () => {
  m = await startFarMachine();
}, 30_000);
afterAll(async () => {
  await stopFarMachine(m);
});

const target = (): Target => parseTarget(m.alias) as Target;
const link = (farCommand = 'terminal-delight') => openLink({ name: m.alias, target: target(), farCommand, env: m.near.env, connectCmd: `terminal-delight connect ${m.alias}` });

/** The next JSON line on a channel that answers `pred`. */
function nextLine(ch: Channel, pred: (f: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const on = (b: Buffer): void => {
      const f = JSON.parse(b.toString('utf8')) as Record<string, unknown>;
      if (pred(f)) {
        ch.off('line', on);
        resolve(f);
      }
    };
    ch.on('line', on);
  });
}

describe('a link over the real ssh to a real sshd', () => {
  it('starts the far service on demand, and carries a service connection whose token never leaves the far machine', async () => {
    const l = await link();
    expect(l.hello).toMatchObject({ bridge: 1, protocol: 1 });
    const farLock = JSON.parse(fs.readFileSync(statePaths(m.farEnv).serviceLock, 'utf8')) as { pid: number };
    expect(l.hello!.service!.pid).toBe(farLock.pid);
    const ch = await l.openChannel({ client: 'cli' });
    const answer = nextLine(ch, (f) => f.t === 'res' && f.id === 1);
    ch.sendLine(JSON.stringify({ t: 'req', id: 1, name: 'service.info', req: {} }));
    expect(await answer).toMatchObject({ ok: true, res: { pid: farLock.pid } });
    // The far token is on the far machine only: nothing under the near home or state holds it.
    const token = fs.readFileSync(statePaths(m.farEnv).serviceToken, 'utf8').trim();
    const nearFiles = fs.readdirSync(m.near.dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    for (const f of nearFiles) expect(fs.readFileSync(path.join(f.parentPath, f.name), 'utf8')).not.toContain(token);
    l.close('test over');
    await new Promise((r) => l.child.once('close', r));
  }, 60_000);

  it('says in one sentence that terminal-delight is not installed there, with what to install', async () => {
    m.farInstalled(false);
    try {
      const err = (await link().catch((e: LinkError) => e)) as LinkError;
      expect(err.failure.kind).toBe('missing');
      expect(err.message).toBe(`terminal-delight is not installed on ${m.alias} (or not on its PATH for ssh commands): install Node 22.12 or newer and terminal-delight there (README, "Machines"), or give its path with \`terminal-delight connect ${m.alias} --command ~/path/to/terminal-delight\``);
    } finally {
      m.farInstalled(true);
    }
  }, 30_000);

  it('says in one sentence that the far side is too old, and which command updates it', async () => {
    // What answers there is an older terminal-delight: its bridge's hello names protocol 0.
    const old = path.join(m.farEnv.HOME!, 'old-td');
    const hello = JSON.stringify({ bridge: 1, version: '0.0.1', protocol: 0, hostname: 'old', service: { pid: 1, startedAt: 'x', version: '0.0.1', protocol: 0 } });
    fs.writeFileSync(old, `#!/bin/sh\nprintf 'TD-BRIDGE %s\\n' '${hello}'\nsleep 10\n`, { mode: 0o755 });
    const err = (await link('~/old-td').catch((e: LinkError) => e)) as LinkError;
    expect(err.failure.kind).toBe('version');
    expect(err.message).toBe(`${m.alias} runs terminal-delight 0.0.1 (protocol 0), too old for this one (${appVersion()}, protocol ${PROTOCOL}): update terminal-delight there (README, "Machines"), then run \`terminal-delight service restart\` there`);
  }, 30_000);

  it('says in one sentence that ssh could not log in, with the commands that fix it', async () => {
    m.wrongKey();
    const err = (await link().catch((e: LinkError) => e)) as LinkError;
    expect(err.failure.kind).toBe('auth');
    expect(err.message).toMatch(new RegExp(`^ssh could not log in to ${m.alias} \\(.*Permission denied \\(publickey\\)\\): add your key there with \`ssh-copy-id ${m.alias}\`, or load it into your agent with \`ssh-add\`, then \`terminal-delight connect ${m.alias}\`$`));
  }, 30_000);

  it('refuses a host whose key changed, as ssh does, and says so with the command ssh gives to remove the old key', async () => {
    await m.newHostKey();
    const err = (await link().catch((e: LinkError) => e)) as LinkError;
    expect(err.failure.kind).toBe('hostkey');
    const knownHosts = path.join(m.near.env.HOME!, '.ssh', 'known_hosts');
    expect(err.message).toBe(`${m.alias}'s host key has changed and ssh refuses it: check with its owner that it was changed, then run \`ssh-keygen -f "${knownHosts}" -R "[127.0.0.1]:${m.port}"\` and \`ssh ${m.alias}\` once to accept the new one`);
  }, 30_000);
});
