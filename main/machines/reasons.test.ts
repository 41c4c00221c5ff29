import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BRIDGE_MARK, FRAME, LinkReader, MAX_LINK_FRAME, encodeFrame, frameHead, parseBridgeHello } from './link-frames.ts';
import { backoffMs, linkFailure, sshDestination, machineName, parseTarget, sshArgv, targetText, versionProblem } from './reasons.ts';

describe('targets', () => {
  it('reads [user@]host[:port] as ssh would, and refuses what could be an option', () => {
    expect(parseTarget('build-box')).toEqual({ host: 'build-box' });
    expect(parseTarget('ada@10.0.0.7:2222')).toEqual({ user: 'ada', host: '10.0.0.7', port: 2222 });
    expect(parseTarget('[::1]:22')).toEqual({ host: '::1', port: 22 });
    expect(targetText(parseTarget('ada@[::1]:22') as never)).toBe('ada@[::1]:22');
    expect(parseTarget('-oProxyCommand=x')).toBe('"-oProxyCommand=x" is not a machine: give [user@]host[:port], as you would to ssh (a Host alias from ~/.ssh/config works too)');
    expect(parseTarget('box:70000')).toBe('port 70000 is not a port: give a whole number from 1 to 65535');
    expect(machineName(undefined, { host: 'build-box' })).toBe('build-box');
    expect(machineName('a/b', { host: 'x' })).toEqual({ error: '"a/b" cannot name a machine: use up to 40 letters, digits, dots, dashes or underscores' });
  });

  it('runs ssh in batch mode with keep-alives, the host after --, and no forward or host-key override', () => {
    const argv = sshArgv({ user: 'ada', host: 'box', port: 2222 }, 'terminal-delight');
    expect(argv).toEqual(['-T', '-o', 'BatchMode=yes', '-o', 'ServerAliveInterval=5', '-o', 'ServerAliveCountMax=3', '-p', '2222', '-l', 'ada', '--', 'box', 'terminal-delight', 'bridge']);
    expect(argv.join(' ')).not.toMatch(/StrictHostKeyChecking|-L|-R/);
  });
});

describe('why a link failed', () => {
  const say = (code: number | null, stderr: string) => linkFailure('box', { code, signal: null, stderr }, 'terminal-delight connect box');
  it('tells each cause apart, with the command that fixes it', () => {
    expect(say(255, 'ssh: connect to host 127.0.0.1 port 9: Connection refused\r\n')).toEqual({ kind: 'unreachable', sentence: 'box is unreachable (ssh: connect to host 127.0.0.1 port 9: Connection refused): check that it is up and its address and port are right, then `terminal-delight connect box`' });
    expect(say(255, 'ada@box: Permission denied (publickey).\n').kind).toBe('auth');
    expect(say(255, 'Host key verification failed.\n').sentence).toBe('ssh does not know box\'s host key yet: run `ssh box` once in a terminal to check and accept it, then `terminal-delight connect box`');
    expect(say(255, '@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key verification failed.\n').kind).toBe('hostkey');
    expect(say(127, 'sh: 1: terminal-delight: not found\n').kind).toBe('missing');
    expect(say(0, '').kind).toBe('lost');
  });

  it('names the machine by its own name, and ssh\'s commands in the fix by how ssh reaches it (a name given to it is no ssh host)', () => {
    const dest = sshDestination({ user: 'ada', host: 'build.example', port: 2222 });
    expect(dest).toBe('-p 2222 ada@build.example');
    expect(sshDestination({ host: 'box' })).toBe('box');
    const f = (stderr: string) => linkFailure('cave', { code: 255, signal: null, stderr }, 'terminal-delight connect ada@build.example:2222 --name cave', dest).sentence;
    expect(f('ada@build.example: Permission denied (publickey).\n')).toBe('ssh could not log in to cave (ada@build.example: Permission denied (publickey)): add your key there with `ssh-copy-id -p 2222 ada@build.example`, or load it into your agent with `ssh-add`, then `terminal-delight connect ada@build.example:2222 --name cave`');
    expect(f('Host key verification failed.\n')).toBe('ssh does not know cave\'s host key yet: run `ssh -p 2222 ada@build.example` once in a terminal to check and accept it, then `terminal-delight connect ada@build.example:2222 --name cave`');
    expect(f('@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @\n')).toBe('cave\'s host key has changed and ssh refuses it: check with its owner that it was changed, then run `ssh-keygen -R build.example` and `ssh -p 2222 ada@build.example` once to accept the new one');
  });

  it('names the older side when the protocols differ', () => {
    const home = { bridge: 1, version: '0.2.0', protocol: 2 };
    expect(versionProblem('box', { bridge: 1, version: '0.2.1', protocol: 2 }, home)).toBeUndefined();
    expect(versionProblem('box', { bridge: 1, version: '0.1.0', protocol: 1 }, home)?.sentence).toBe('box runs terminal-delight 0.1.0 (protocol 1), too old for this one (0.2.0, protocol 2): update terminal-delight there (README, "Machines"), then run `terminal-delight service restart` there');
    expect(versionProblem('box', { bridge: 1, version: '0.3.0', protocol: 3 }, home)?.sentence).toMatch(/newer than this one .*update terminal-delight on this machine/);
  });

  it('backs off 1, 2, 4, 8, 16, then 30 s, within a fifth either way', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((n) => backoffMs(n, 0.5))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    expect(backoffMs(0, 0)).toBe(800);
    expect(backoffMs(0, 0.999)).toBe(1200);
  });
});

describe('the link stream', () => {
  const read = () => {
    const got: Array<[number, number, string]> = [];
    const hello: string[] = [];
    const fails: string[] = [];
    const r = new LinkReader(BRIDGE_MARK, (h) => hello.push(h), (k, c, p) => got.push([k, c, p.toString()]), (w) => fails.push(w));
    return { r, got, hello, fails };
  };

  it('skips a far shell\'s chatter before the hello, then reads frames split anywhere', () => {
    const { r, got, hello, fails } = read();
    const bytes = Buffer.concat([Buffer.from('Welcome to box\nTD-BRIDGE {"bridge":1}\n'), encodeFrame(FRAME.line, 3, '{"t":"res"}'), encodeFrame(FRAME.ping, 0)]);
    for (const b of bytes) r.push(Buffer.from([b]));
    expect(hello).toEqual(['{"bridge":1}']);
    expect(r.skipped).toBe('Welcome to box\n');
    expect(got).toEqual([[FRAME.line, 3, '{"t":"res"}'], [FRAME.ping, 0, '']]);
    expect(fails).toEqual([]);
  });

  it('reads large frames in any chunking, the hello and frames in one chunk, as the same frames (parts joined once a frame is whole)', () => {
    const big = Buffer.alloc(200_000);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) % 251;
    const frames = [encodeFrame(FRAME.binary, 2, big), encodeFrame(FRAME.line, 1, '{"t":"evt"}'), Buffer.concat([frameHead(FRAME.binary, 4, 70_000), big.subarray(0, 70_000)]), encodeFrame(FRAME.close, 4, 'bye')];
    const bytes = Buffer.concat([Buffer.from('TD-BRIDGE {"bridge":1}\n'), ...frames]);
    for (const size of [bytes.length, 1, 4, 9, 1000, 32_768, 65_536, 65_545]) {
      const { r, got, hello, fails } = read();
      for (let at = 0; at < bytes.length; at += size) r.push(bytes.subarray(at, at + size));
      expect([hello, fails]).toEqual([['{"bridge":1}'], []]);
      expect(got).toEqual([[FRAME.binary, 2, big.toString()], [FRAME.line, 1, '{"t":"evt"}'], [FRAME.binary, 4, big.subarray(0, 70_000).toString()], [FRAME.close, 4, 'bye']]);
    }
  });

  it('cuts off a stream with an oversized frame, a kind no link knows, or no hello, in one sentence', () => {
    const big = read();
    const h = Buffer.alloc(9);
    h.writeUInt32BE(MAX_LINK_FRAME + 1, 0);
    big.r.push(Buffer.concat([Buffer.from('TD-BRIDGE {}\n'), h]));
    expect(big.fails).toEqual([`it sent a frame of ${MAX_LINK_FRAME + 1} bytes, outside 5 to ${MAX_LINK_FRAME}`]);
    const odd = read();
    odd.r.push(Buffer.concat([Buffer.from('TD-BRIDGE {}\n'), encodeFrame(9 as never, 1, 'x'), encodeFrame(FRAME.line, 1, 'never read')]));
    expect(odd.fails).toEqual(['it sent a frame of kind 9, which no link knows']);
    expect(odd.got).toEqual([]);
    const none = read();
    none.r.push(Buffer.alloc(70_000, 0x41));
    expect(none.fails).toEqual(['it sent no hello: is what runs there terminal-delight\'s bridge?']);
  });

  it('keeps only plain text of what a far hello says', () => {
    expect(parseBridgeHello('{"bridge":1,"version":"1.0.0","protocol":1,"hostname":"b\\u001b[2Jox","error":"x\\ny"}')).toEqual({ bridge: 1, version: '1.0.0', protocol: 1, hostname: 'b[2Jox', error: 'x y' });
    expect(parseBridgeHello('[]')).toBe('its hello has no bridge protocol');
  });
});

describe('terminal-delight connect', () => {
  it('says what the far machine needs in --help, and refuses bad arguments in one sentence with exit 2', () => {
    const bin = path.resolve(import.meta.dirname, '..', '..', 'bin', 'terminal-delight');
    const run = (...args: string[]) => spawnSync(bin, args, { encoding: 'utf8', env: { ...process.env, TD_NODE: process.execPath } });
    const help = run('connect', '--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^usage: terminal-delight connect \[user@\]host\[:port\] /);
    expect(help.stdout).toContain('needs Node 22.12 or newer and terminal-delight');
    const none = run('connect');
    expect([none.status, none.stderr]).toEqual([2, 'connect: give one machine; usage: terminal-delight connect [user@]host[:port] [--name NAME] [--colour #RRGGBB] [--command PATH]\n']);
    expect(run('connect', 'a', '--port', '2').status).toBe(2);
  });
});
