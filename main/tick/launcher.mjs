#!/usr/bin/env node
// The Tick launcher (Tick protocol 3, "the launcher process started for each Tick").
// Runs inside a new pane's PTY, as the leader of that PTY's session and process group,
// and starts the Tick in the same (foreground) process group with:
//   stdin, stdout  pipes relayed to the host over a Unix socket (TICKLOOP_SOCKET, mode
//                  0600, in a private folder); the first line the launcher sends is the
//                  instance's token (TICKLOOP_TOKEN), then only the Tick's bytes;
//   stderr         the pane (inherited), so it shows in the view;
//   /dev/tty       the pane's PTY (the session's controlling terminal).
// argv: launcher.mjs <absolute path of the Tick> [args...]. The launcher exits when the
// Tick exits, with its exit code (or by the same signal). SIGTERM to the group reaches
// the Tick; the launcher itself waits for the Tick. Standard library only, plain JS.
import { spawn } from 'node:child_process';
import net from 'node:net';

const [file, ...args] = process.argv.slice(2);
const socketPath = process.env.TICKLOOP_SOCKET;
const token = process.env.TICKLOOP_TOKEN;

function fail(message) {
  process.stderr.write(`\r\nterminal-delight: ${message}\r\n`);
  process.exit(127);
}

if (!file || !socketPath || !token) fail('the Tick launcher needs a program, TICKLOOP_SOCKET and TICKLOOP_TOKEN; it is started by the Tick host, not by hand');

// The launcher outlives a SIGTERM to the group just long enough to report the Tick's end.
// A hangup (the pane closed) reaches the launcher alone, as the session leader: pass it on.
let child;
process.on('SIGTERM', () => {});
process.on('SIGHUP', () => {
  if (child) child.kill('SIGHUP');
  else process.exit(129);
});

const env = { ...process.env };
delete env.TICKLOOP_SOCKET;
delete env.TICKLOOP_TOKEN;
delete env.ELECTRON_RUN_AS_NODE;

const sock = net.connect({ path: socketPath, allowHalfOpen: true });
let connected = false;
// Before connecting, a socket error means there is no host: say so. After, the relay
// simply ends, the Tick sees EOF on its standard input, and the launcher follows its exit.
sock.on('error', (err) => {
  if (!connected) fail(`the Tick host's socket failed (${err.message})`);
});
sock.once('connect', () => {
  connected = true;
  sock.write(token + '\n');
  child = spawn(file, args, { cwd: process.cwd(), env, stdio: ['pipe', 'pipe', 'inherit'] });
  child.on('error', (err) => fail(`could not start ${file} (${err.message})`));
  child.stdin.on('error', () => {});
  sock.pipe(child.stdin);
  child.stdout.pipe(sock);
  let exited;
  let done = false;
  const finish = () => {
    if (!exited || done) return;
    done = true;
    const { code, signal } = exited;
    sock.end(() => {
      if (signal) {
        process.removeAllListeners(signal);
        process.kill(process.pid, signal);
      }
      process.exit(code ?? 1);
    });
  };
  child.stdout.on('end', finish);
  child.on('exit', (code, signal) => {
    exited = { code, signal };
    if (child.stdout.readableEnded) finish();
    // A grandchild may keep standard output open: the Tick's exit still ends the launcher.
    setTimeout(finish, 300).unref();
  });
});
