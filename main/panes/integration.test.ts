/**
 * Shell integration with real shells started as people start them: login shells (`-l`)
 * reading Debian's real /etc/profile (which sets PATH from scratch) and a temp HOME whose
 * startup files change PATH, PS1 and a TD_* variable. Each test proves the person's files
 * ran, `terminal-delight` is on PATH, the TD_* variables are the app's, and marks arrive.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Core } from '../core.ts';
import { statePaths, type Paths } from '../paths.ts';
import { appBin } from './env.ts';
import { fishQuote, integrate, integratedShell, zshDotdir, SCRIPTS, ZSH_FILES } from './integration.ts';
import { PaneService } from './service.ts';
import { captureSession } from '../state/session.ts';
import { tempState, waitFor } from './testing.ts';

const has = (shell: string): boolean => fs.existsSync(shell);
const ZSH = '/usr/bin/zsh';
const FISH = '/usr/bin/fish';

describe('integratedShell and integrate (pure)', () => {
  const opts = { bin: '/app/bin', scripts: SCRIPTS, zdotdir: () => '/state/shell-integration/zsh' };
  const env = { PATH: '/app/bin:/usr/bin', TD_PANE_ID: 'p1', TD_TAG: "it's\\x" };

  it('knows bash, zsh and fish started with login or interactive flags only', () => {
    expect(integratedShell(['/bin/bash', '-l'])).toEqual({ shell: 'bash', login: true });
    expect(integratedShell(['bash'])).toEqual({ shell: 'bash', login: false });
    expect(integratedShell(['/usr/bin/zsh', '--login', '-i'])).toEqual({ shell: 'zsh', login: true });
    expect(integratedShell(['/usr/bin/fish', '-i'])).toEqual({ shell: 'fish', login: false });
    for (const argv of [['/bin/bash', '--norc', '--noprofile'], ['bash', '-c', 'ls'], ['bash', 'script.sh'], ['/bin/sh', '-l'], ['/bin/dash'], ['claude'], ['zsh', '-f'], []]) {
      expect(integratedShell(argv), argv.join(' ')).toBeUndefined();
    }
  });

  it('starts bash with --init-file, login said by TD_SI_LOGIN; zsh with ZDOTDIR; fish with --init-command', () => {
    expect(integrate(['/bin/bash', '-l'], env, opts)).toEqual({
      file: '/bin/bash', args: ['--init-file', path.join(SCRIPTS, 'bash.sh')], env: { ...env, TD_SI_BIN: '/app/bin', TD_SI_LOGIN: '1' },
    });
    expect(integrate(['/bin/bash', '-i'], { ...env, TD_SI_LOGIN: '1' }, opts)).toEqual({
      file: '/bin/bash', args: ['--init-file', path.join(SCRIPTS, 'bash.sh'), '-i'], env: { ...env, TD_SI_BIN: '/app/bin' },
    });
    expect(integrate(['/usr/bin/zsh', '-l'], { ...env, ZDOTDIR: '/home/ada/.config/zsh' }, opts)).toEqual({
      file: '/usr/bin/zsh', args: ['-l'], env: { ...env, ZDOTDIR: '/state/shell-integration/zsh', TD_SI_BIN: '/app/bin', TD_SI_ZDOTDIR: '/home/ada/.config/zsh' },
    });
    // fish: the values travel in the environment (any user can read a process's argv).
    expect(integrate(['/usr/bin/fish', '-l'], env, opts)).toEqual({
      file: '/usr/bin/fish', args: ['-l', '--init-command', `source '${path.join(SCRIPTS, 'fish.fish')}'`],
      env: { ...env, TD_SI_BIN: '/app/bin', TD_SI_KEPT: "TD_PANE_ID=p1\nTD_TAG=it's\\x" },
    });
  });

  it('starts anything else as it is', () => {
    expect(integrate(['/bin/bash', '--norc'], env, opts)).toBeUndefined();
    expect(integrate(['/bin/bash', '-l'], env, { ...opts, scripts: '/nowhere' })).toBeUndefined();
    expect(integrate(['/usr/bin/zsh'], env, { ...opts, zdotdir: () => { throw new Error('read-only'); } })).toBeUndefined();
  });

  it.runIf(has(FISH))('quotes any text so fish reads it back exactly', () => {
    const tricky = `a'b\\c "d" $e (f) ; g\n\t é`;
    expect(execFileSync(FISH, ['--no-config', '-c', `printf %s ${fishQuote(tricky)}`], { encoding: 'utf8' })).toBe(tricky);
  });
});

describe('zshDotdir', () => {
  let state: ReturnType<typeof tempState>;
  beforeEach(() => {
    state = tempState('td-zdotdir-');
  });
  afterEach(() => state.cleanup());

  it('copies the zsh scripts under their dotfile names into a 0700 folder, and rewrites only what changed', () => {
    const dir = zshDotdir(state.dir);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    for (const [dot, script] of ZSH_FILES) expect(fs.readFileSync(path.join(dir, dot), 'utf8')).toBe(fs.readFileSync(path.join(SCRIPTS, 'zsh', script), 'utf8'));
    fs.writeFileSync(path.join(dir, '.zshrc'), 'stale');
    const before = fs.statSync(path.join(dir, '.zshenv')).mtimeMs;
    zshDotdir(state.dir);
    expect(fs.readFileSync(path.join(dir, '.zshrc'), 'utf8')).toBe(fs.readFileSync(path.join(SCRIPTS, 'zsh', 'zshrc.zsh'), 'utf8'));
    expect(fs.statSync(path.join(dir, '.zshenv')).mtimeMs).toBe(before);
  });
});

describe('login shells with the integration, real profiles', () => {
  let state: ReturnType<typeof tempState>;
  let core: Core;
  let paths: Paths;
  let panes: PaneService;
  let home: string;
  let integration = true;

  beforeEach(() => {
    state = tempState('td-si-');
    home = state.env.HOME!;
    // The person's own home, as written below for each shell (not the quiet test dotfiles).
    for (const f of fs.readdirSync(home)) fs.rmSync(path.join(home, f), { recursive: true });
    delete state.env.PS1;
    delete state.env.XDG_CONFIG_HOME;
    delete state.env.ZDOTDIR;
    core = new Core();
    paths = statePaths(state.env);
    integration = true;
    panes = new PaneService({ core, paths, env: state.env, cwd: state.dir, shellIntegration: () => integration });
  });

  afterEach(async () => {
    panes.dispose();
    await core.dispose();
    state.cleanup();
  });

  const write = (rel: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
    fs.writeFileSync(path.join(home, rel), text);
  };

  /** PATH as Debian's /etc/profile leaves it for this user (it sets PATH from scratch). */
  const etcProfilePath = (): string => execFileSync('/bin/sh', ['-c', '. /etc/profile >/dev/null 2>&1; printf %s "$PATH"'], { env: { HOME: home, PATH: '/usr/bin:/bin' }, encoding: 'utf8' });

  /** Type a probe and read its answer: `OUT:` then fields joined by | up to `:END`, from the output (not the echo of the typed line). */
  async function probe(paneId: string, line: string): Promise<string[]> {
    const tag = `T${Math.random().toString(36).slice(2, 8)}`;
    panes.write(paneId, `${line.replaceAll('OUT:', `${tag}:`)}\r`);
    const found = await waitFor(() => new RegExp(`^${tag}:(.*):END$`, 'm').exec(panes.allText(paneId)), `the answer to ${line}`);
    return found[1]!.split('|');
  }

  /** Run a command and wait until the marks say it ended (D) and the prompt is back. */
  async function run(paneId: string, command: string): Promise<void> {
    const before = panes.get(paneId)?.lastCommand;
    panes.write(paneId, `${command}\r`);
    await waitFor(() => panes.get(paneId)?.lastCommand !== before && panes.prompt(paneId).phase === 'prompt', `"${command}" to end with a D mark`);
  }

  const BASH_PROBE = 'echo "OUT:$(command -v terminal-delight)|$TD_PANE_ID|$TD_TAG|$TD_SESSION|$TD_SOCKET|$RAN|$PATH:END"';
  const FISH_PROBE = 'echo "OUT:"(command -v terminal-delight)"|$TD_PANE_ID|$TD_TAG|$TD_SESSION|$TD_SOCKET|$RAN|"(string join : $PATH)":END"';

  function expectAppEnv(fields: string[], paneId: string): void {
    const info = panes.get(paneId)!;
    expect(fields.slice(0, 5)).toEqual([path.join(appBin, 'terminal-delight'), info.id, info.tag, panes.session, paths.socket]);
  }

  /** The integration's own variables are gone once the prompt shows. */
  async function expectNoLeftovers(paneId: string): Promise<void> {
    expect(await probe(paneId, 'echo "OUT:$TD_SI_BIN$TD_SI_LOGIN$TD_SI_ZDOTDIR$TD_SI_KEPT:END"')).toEqual(['']);
  }

  /** The marks: a prompt, a failing command's status and time, the folder (OSC 7), the prompt safety. */
  async function expectMarks(paneId: string): Promise<void> {
    await waitFor(() => panes.prompt(paneId).integrated, 'a prompt mark');
    await run(paneId, 'false');
    expect(panes.get(paneId)!.lastCommand).toMatchObject({ exitCode: 1 });
    await run(paneId, 'sleep 1');
    expect(panes.get(paneId)!.lastCommand!.exitCode).toBe(0);
    // C to D as the core read them: a second, less any wait before C was read.
    expect(panes.get(paneId)!.lastCommand!.durationMs).toBeGreaterThanOrEqual(500);
    // A folder reached through a symlink: the shell's own word for it (OSC 7), not the OS's resolved one.
    const real = fs.mkdtempSync(path.join(state.dir, 'real '));
    const link = path.join(state.dir, 'via link é');
    fs.symlinkSync(real, link);
    await run(paneId, `cd '${link}'`);
    await waitFor(() => panes.liveCwd(paneId) === link && panes.get(paneId)!.cwd === link, `the cwd ${link} from OSC 7`);
    // The typed-line safety: at the prompt a line would run; while head reads, it would not.
    expect(panes.shellAtPrompt(paneId)).toBe(true);
    panes.write(paneId, 'head -n1\r');
    await waitFor(() => panes.prompt(paneId).phase === 'command' && !panes.shellAtPrompt(paneId), 'head to run with the prompt gone');
    panes.write(paneId, 'bye\r');
    await waitFor(() => panes.prompt(paneId).phase === 'prompt' && panes.shellAtPrompt(paneId), 'the prompt back after head');
  }

  it('bash -l: /etc/profile and ~/.bash_profile (and the ~/.bashrc it reads) run, then bin/ and TD_* are put back', async () => {
    write('.bash_profile', 'export RAN="${RAN}bash_profile,"\nexport PATH="$PATH:$HOME/mybin"\n[ -f ~/.bashrc ] && . ~/.bashrc\n');
    write('.bashrc', 'export RAN="${RAN}bashrc,"\nPS1="rc\\$ "\nexport TD_TAG=clobbered\nPROMPT_COMMAND=\'SEEN=$?\'\nunset HISTFILE\ndeclare -A MAP=([k]=kept)\n');
    const pane = panes.create({});
    expect(pane.command).toEqual(['/bin/bash', '-l']);
    await waitFor(() => /^rc\$ $/m.test(panes.screenText(pane.id)), 'the prompt from ~/.bashrc');
    const fields = await probe(pane.id, BASH_PROBE);
    expectAppEnv(fields, pane.id);
    expect(fields[5]).toBe('bash_profile,bashrc,');
    expect(fields[6]).toBe([appBin, etcProfilePath(), path.join(home, 'mybin')].join(':'));
    // The person's PROMPT_COMMAND still runs, and still sees the command's own status;
    // what their files declare is global, as in any bash (they run at the script's top level).
    await run(pane.id, '(exit 7)');
    expect(await probe(pane.id, 'echo "OUT:$SEEN|${MAP[k]}:END"')).toEqual(['7', 'kept']);
    await expectNoLeftovers(pane.id);
    await expectMarks(pane.id);
  });

  it('bash (not a login shell) reads ~/.bashrc, then bin/ and TD_* are put back', async () => {
    write('.bashrc', 'export RAN="${RAN}bashrc,"\nPS1="nl\\$ "\nexport PATH=/usr/bin:/bin\nexport TD_PANE_ID=clobbered\nunset HISTFILE\n');
    write('.bash_profile', 'export RAN="${RAN}bash_profile,"\n');
    const pane = panes.create({ command: ['/bin/bash'] });
    await waitFor(() => /^nl\$ $/m.test(panes.screenText(pane.id)), 'the prompt from ~/.bashrc');
    const fields = await probe(pane.id, BASH_PROBE);
    expectAppEnv(fields, pane.id);
    expect(fields[5]).toBe('bashrc,');
    expect(fields[6]).toBe(`${appBin}:/usr/bin:/bin`);
    await waitFor(() => panes.prompt(pane.id).integrated, 'a prompt mark');
  });

  it('a snapshot says where the prompts are, and how their commands ended, as lines above the cursor', async () => {
    write('.bash_profile', 'PS1="s\\$ "\nunset HISTFILE\n');
    const pane = panes.create({});
    await waitFor(() => panes.prompt(pane.id).integrated, 'a prompt mark');
    await run(pane.id, 'false');
    await run(pane.id, 'printf "one\\ntwo\\n"');
    await panes.settled(pane.id);
    const snap = await panes.snapshot(pane.id);
    expect(snap.data).toContain('two');
    expect(snap.prompts?.map(({ durationMs: _, ...p }) => p)).toEqual([{ offset: -4, exitCode: 1 }, { offset: -3, exitCode: 0 }, { offset: 0 }]);
    expect(snap.prompts![0]!.durationMs).toBeGreaterThanOrEqual(0);
    // With fewer history lines than the prompts span, the older prompts are left out.
    await run(pane.id, 'clear');
    await panes.settled(pane.id);
    expect((await panes.snapshot(pane.id)).prompts).toEqual([{ offset: 0 }]);
  });

  it.runIf(has(ZSH))('zsh -l: .zshenv, .zprofile, .zshrc and .zlogin run from $HOME, then bin/ and TD_* are put back and ZDOTDIR is left unset', async () => {
    write('.zshenv', 'export RAN="${RAN}zshenv,"\n');
    write('.zprofile', 'export RAN="${RAN}zprofile,"\nexport PATH=/usr/bin:/bin:$HOME/mybin\n');
    write('.zshrc', 'export RAN="${RAN}zshrc,"\nPS1="zrc%# "\nexport TD_TAG=clobbered\ntypeset -U path\ntypeset -A MAP\nMAP[k]=kept\ntypeset MINE=mine\n');
    write('.zlogin', 'export RAN="${RAN}zlogin,"\n');
    state.env.SHELL = ZSH;
    const pane = panes.create({});
    expect(pane.command).toEqual([ZSH, '-l']);
    await waitFor(() => /^zrc# $/m.test(panes.screenText(pane.id)), 'the prompt from ~/.zshrc');
    const fields = await probe(pane.id, `${BASH_PROBE.replace(':END', '|${ZDOTDIR-unset}|$MAP[k]|$MINE:END')}`);
    expectAppEnv(fields, pane.id);
    expect(fields[5]).toBe('zshenv,zprofile,zshrc,zlogin,');
    expect(fields[6]).toBe(`${appBin}:/usr/bin:/bin:${path.join(home, 'mybin')}`);
    // ZDOTDIR as the person had it (none); what their .zshrc typesets is global, as in any zsh.
    expect(fields.slice(7)).toEqual(['unset', 'kept', 'mine']);
    await expectNoLeftovers(pane.id);
    await expectMarks(pane.id);
  });

  it.runIf(has(ZSH))('zsh -l with the person\'s own ZDOTDIR reads their files there and keeps it', async () => {
    const zdot = path.join(home, '.config', 'zsh');
    write('.config/zsh/.zshenv', 'export RAN="${RAN}zshenv,"\n');
    write('.config/zsh/.zshrc', 'export RAN="${RAN}zshrc:$ZDOTDIR,"\nPS1="zd%# "\n');
    write('.zshrc', 'export RAN="${RAN}wrong-zshrc,"\n');
    const pane = panes.create({ command: [ZSH, '-l'], env: { ZDOTDIR: zdot } });
    await waitFor(() => /^zd# $/m.test(panes.screenText(pane.id)), 'the prompt from $ZDOTDIR/.zshrc');
    const fields = await probe(pane.id, `${BASH_PROBE.replace(':END', '|$ZDOTDIR:END')}`);
    expectAppEnv(fields, pane.id);
    expect(fields[5]).toBe(`zshenv,zshrc:${zdot},`);
    expect(fields[7]).toBe(zdot);
  });

  it.runIf(has(FISH))('fish -l: conf.d and config.fish run, then bin/ and TD_* are put back', async () => {
    write('.config/fish/conf.d/mine.fish', 'set -gx RAN "$RAN"confd,\n');
    write('.config/fish/config.fish', 'set -gx RAN "$RAN"config,\nset -gx PATH /usr/bin /bin $HOME/mybin\nset -gx TD_SESSION clobbered\nset -g fish_greeting\nfunction fish_prompt; echo -n "fi> "; end\n');
    state.env.SHELL = FISH;
    const pane = panes.create({});
    expect(pane.command).toEqual([FISH, '-l']);
    await waitFor(() => /^fi> $/m.test(panes.screenText(pane.id)), 'the prompt from config.fish');
    const fields = await probe(pane.id, FISH_PROBE);
    expectAppEnv(fields, pane.id);
    expect(fields[5]).toBe('confd,config,');
    expect(fields[6]).toBe(`${appBin}:/usr/bin:/bin:${path.join(home, 'mybin')}`);
    await expectNoLeftovers(pane.id);
    await expectMarks(pane.id);
  });

  it('a new pane, and the saved session, take the folder the shell reports', async () => {
    write('.bash_profile', 'PS1="b\\$ "\nunset HISTFILE\n');
    const first = panes.create({});
    await waitFor(() => panes.prompt(first.id).integrated, 'a prompt mark');
    // Reached through a symlink: the OS would say the real folder, the shell says the link.
    const dir = path.join(state.dir, 'work link');
    fs.symlinkSync(fs.mkdtempSync(path.join(state.dir, 'work-')), dir);
    await run(first.id, `cd '${dir}'`);
    await waitFor(() => panes.liveCwd(first.id) === dir, 'the folder from OSC 7');
    expect(captureSession(panes).panes.find((p) => p.id === first.id)?.cwd).toBe(dir);
    const second = panes.create({ splitOf: first.id });
    expect(second.cwd).toBe(dir);
    const third = panes.create({});
    expect(third.cwd).toBe(dir); // beside the focused pane (the second)
    expect(panes.create({ cwd: state.dir }).cwd).toBe(state.dir);
  });

  it('the setting off, or a shell it does not know, starts the command exactly as given', async () => {
    write('.bash_profile', 'PS1="off\\$ "\nunset HISTFILE\n');
    write('.profile', 'PS1="sh$ "\n');
    integration = false;
    const off = panes.create({});
    const dash = panes.create({ command: ['/bin/sh', '-l'] });
    integration = true;
    for (const [pane, prompt, argv] of [[off, /^off\$ $/m, ['/bin/bash', '-l']], [dash, /^sh\$ $/m, ['/bin/sh', '-l']]] as const) {
      await waitFor(() => prompt.test(panes.screenText(pane.id)), `the prompt ${prompt}`);
      const pid = panes.pid(pane.id)!;
      expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)).toEqual(argv);
      panes.write(pane.id, 'true\r');
      await waitFor(() => (panes.screenText(pane.id).match(prompt.source === '^off\\$ $' ? /off\$ /g : /sh\$ /g) ?? []).length >= 2, 'a second prompt');
      expect(panes.prompt(pane.id).integrated).toBe(false);
      expect(panes.get(pane.id)!.lastCommand).toBeUndefined();
    }
  });
});
