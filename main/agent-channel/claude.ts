/**
 * What the window knows of Claude Code to start it in a pane: whether a command is
 * Claude, the `--session-id` the app gives it, and the transcript path that session will
 * have, so the pane's transcript is known from the first second. Pure functions.
 */
import os from 'node:os';
import path from 'node:path';
import type { AgentStatus } from '../../preload/contract.ts';
import type { TdacEvent } from './events.ts';

export function isClaude(command: readonly string[]): boolean {
  const name = command[0] ? path.basename(command[0]) : '';
  return name === 'claude' || name === 'claude-code';
}

/** Flags after which Claude Code picks or continues a session itself. */
const SESSION_FLAGS = new Set(['--session-id', '--resume', '-r', '--continue', '-c', '--fork-session']);

/**
 * The command with `--session-id <uuid>` added when it starts Claude Code and names no
 * session of its own; `sessionId` is undefined when nothing was added.
 */
export function withSessionId(command: readonly string[], uuid: string): { argv: string[]; sessionId?: string } {
  if (!isClaude(command) || command.slice(1).some((a) => SESSION_FLAGS.has(a.split('=')[0]))) return { argv: [...command] };
  return { argv: [command[0], '--session-id', uuid, ...command.slice(1)], sessionId: uuid };
}

/** Java's String.hashCode over UTF-16 units, as a 32-bit signed integer. */
function hash32(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * Claude Code's project folder name for a working directory: every character outside
 * A-Za-z0-9 becomes `-` (so `/home/ada/my_app.v2` is `-home-ada-my-app-v2`); a name
 * longer than 200 is cut to 200 and given `-` and a base-36 hash of the whole path.
 */
export function projectKey(cwd: string): string {
  const key = cwd.replace(/[^A-Za-z0-9]/g, '-');
  return key.length <= 200 ? key : `${key.slice(0, 200)}-${Math.abs(hash32(cwd)).toString(36)}`;
}

/** ~/.claude (or $CLAUDE_CONFIG_DIR), where Claude Code keeps settings and transcripts. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CLAUDE_CONFIG_DIR && path.isAbsolute(env.CLAUDE_CONFIG_DIR)) return env.CLAUDE_CONFIG_DIR;
  return path.join(env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir(), '.claude');
}

/** ~/.claude/projects/<projectKey(cwd)>/<session>.jsonl */
export function transcriptPath(cwd: string, sessionId: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(claudeConfigDir(env), 'projects', projectKey(cwd), `${sessionId}.jsonl`);
}

/** The agent status an event leaves the pane in, and the detail shown with it; undefined: unchanged. */
export function statusAfter(event: TdacEvent): { status: AgentStatus; detail?: string } | undefined {
  const short = (s: string) => {
    const one = s.replace(/\s+/g, ' ').trim();
    return one.length > 120 ? `${one.slice(0, 117)}…` : one;
  };
  switch (event.type) {
    case 'session': return { status: 'idle', detail: event.source ? `session ${event.source}` : undefined };
    case 'prompt': return { status: 'working', detail: event.text ? short(event.text) : undefined };
    case 'question': return { status: 'blocked', detail: short(event.questions[0].question) };
    case 'permission': return { status: 'blocked', detail: `permission for ${event.tool_name}` };
    case 'answer': return { status: 'working' };
    case 'reply': return { status: 'done', detail: event.text ? short(event.text) : undefined };
    case 'unanswered': return undefined;
  }
}
