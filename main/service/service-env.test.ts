// The environment set for the service alone (main/service/service-env.ts): a real service
// started as every entry point starts it (connectService -> spawnService), a real pane's
// shell asked what it inherited.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempState, waitFor } from '../panes/testing.ts';
import { connectService, serviceCommand, stopService } from './client.ts';
import { CORE_MALLOC_ENV, SERVICE_ONLY_ENV, takeServiceOnlyEnv } from './service-env.ts';

const NAMES = [...Object.keys(CORE_MALLOC_ENV), 'ELECTRON_RUN_AS_NODE', SERVICE_ONLY_ENV];

/** A service started with `env`: the environment it started with (/proc), and what its first pane's shell has of NAMES. */
async function startedWith(extra: Record<string, string>): Promise<{ service: string[]; pane: string }> {
  const st = tempState();
  try {
    // The machine's own settings of these are not this test's (a container may set MALLOC_ARENA_MAX).
    const env: NodeJS.ProcessEnv = { ...st.env };
    for (const k of NAMES) delete env[k];
    Object.assign(env, extra);
    const conn = await connectService({ env, client: 'cli', cwd: st.dir, fresh: true });
    const service = fs.readFileSync(`/proc/${conn.hello.pid}/environ`, 'utf8').split('\0');
    const hello = await conn.request('app.hello', {});
    const paneId = hello.panes[0]!.id;
    // What the shell prints (found2:...), not the echo of what was typed (found$((1+1))).
    await conn.request('pane.input', { paneId, data: `echo "found$((1+1)):[$(env | grep -E '^(${NAMES.join('|')})=' | sort | tr '\\n' ' ')]"\r` });
    let pane = '';
    await waitFor(async () => {
      const m = /found2:\[([^\]]*)\]/.exec((await conn.request('pane.snapshot', { paneId })).data);
      pane = m?.[1]?.trim() ?? '';
      return !!m;
    }, 'the pane\'s answer', 30_000);
    conn.close();
    await stopService({ env });
    return { service, pane };
  } finally {
    st.cleanup();
  }
}

describe('the environment set for the service alone', () => {
  it.runIf(process.platform === 'linux')('gives the service its allocator settings and keeps them from its panes', async () => {
    const { service, pane } = await startedWith({});
    for (const [k, v] of Object.entries(CORE_MALLOC_ENV)) expect(service).toContain(`${k}=${v}`);
    expect(service).toContain(`${SERVICE_ONLY_ENV}=${Object.keys(CORE_MALLOC_ENV).join(',')}`);
    expect(pane).toBe('');
  }, 120_000);

  it.runIf(process.platform === 'linux')('keeps the run-as-Node switch bin/terminal-delight sets for the CLI from the panes of a service it starts', async () => {
    const { service, pane } = await startedWith({ ELECTRON_RUN_AS_NODE: '1' });
    expect(service).toContain('ELECTRON_RUN_AS_NODE=1');
    expect(service.find((v) => v.startsWith(`${SERVICE_ONLY_ENV}=`))?.split('=')[1]?.split(',')).toContain('ELECTRON_RUN_AS_NODE');
    expect(pane).toBe('');
  }, 120_000);

  it.runIf(process.platform === 'linux')('leaves a person\'s own setting as it was, for the service and for the panes', async () => {
    const { service, pane } = await startedWith({ MALLOC_ARENA_MAX: '4' });
    expect(service).toContain('MALLOC_ARENA_MAX=4');
    expect(service).toContain(`MALLOC_MMAP_THRESHOLD_=${CORE_MALLOC_ENV.MALLOC_MMAP_THRESHOLD_}`);
    expect(service).toContain(`${SERVICE_ONLY_ENV}=MALLOC_MMAP_THRESHOLD_`);
    expect(pane).toBe('MALLOC_ARENA_MAX=4');
  }, 120_000);

  it('on Electron\'s binary, runs the service as Node and never passes that on, even when this process was started with it', () => {
    Object.defineProperty(process.versions, 'electron', { value: '39.2.0', configurable: true, enumerable: true });
    try {
      for (const before of [{ PATH: '/usr/bin' }, { PATH: '/usr/bin', ELECTRON_RUN_AS_NODE: '1' }]) {
        const { env } = serviceCommand(before);
        expect(env.ELECTRON_RUN_AS_NODE).toBe('1');
        expect(env[SERVICE_ONLY_ENV]!.split(',')).toContain('ELECTRON_RUN_AS_NODE');
        // What the service's start leaves for its panes.
        takeServiceOnlyEnv(env);
        expect(env).toEqual({ PATH: '/usr/bin' });
      }
    } finally {
      delete (process.versions as Record<string, string | undefined>).electron;
    }
  });

  it('never passes on a list it did not make', () => {
    const { env } = serviceCommand({ [SERVICE_ONLY_ENV]: 'PATH', PATH: '/usr/bin', ...CORE_MALLOC_ENV });
    expect(env[SERVICE_ONLY_ENV]).toBeUndefined();
    takeServiceOnlyEnv(env);
    expect(env).toEqual({ PATH: '/usr/bin', ...CORE_MALLOC_ENV });
  });

  it('takes out only the names it knows, and the list', () => {
    const env: NodeJS.ProcessEnv = { ELECTRON_RUN_AS_NODE: '1', MALLOC_ARENA_MAX: '1', PATH: '/usr/bin', HOME: '/home/x', [SERVICE_ONLY_ENV]: 'ELECTRON_RUN_AS_NODE,MALLOC_ARENA_MAX,PATH,,HOME' };
    takeServiceOnlyEnv(env);
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/home/x' });
    const untouched: NodeJS.ProcessEnv = { MALLOC_ARENA_MAX: '2' };
    takeServiceOnlyEnv(untouched);
    expect(untouched).toEqual({ MALLOC_ARENA_MAX: '2' });
  });
});
