// Terminal Delight's OpenCode plugin (TDAC 0.2), written into OpenCode's plugin folder by
// `terminal-delight hooks --agent opencode`. Outside a Terminal Delight pane it does
// nothing. Inside one it forwards the events that matter to the agent hook
// (tdac-hook.sh --agent opencode, the payload on stdin; main/agent-channel/agents/
// opencode.ts maps them) and hands a permission answer from the bench back to OpenCode
// through its own client, as the TUI's reply (once or reject).
import { spawn } from 'node:child_process';

const HOOK = '@@HOOK@@';
/** How long one forwarded event's hook holds the next back (a turn's end takes a checkpoint: seconds); TD_HOOK_TURN_MS for tests. */
const HOOK_TURN_MS = Number(process.env.TD_HOOK_TURN_MS) > 0 ? Number(process.env.TD_HOOK_TURN_MS) : 30_000;

/** Runs the hook with one payload; resolves with what it printed (empty when nothing). */
function hook(payload) {
  return new Promise((resolve) => {
    let out = '';
    let child;
    try {
      child = spawn('sh', [HOOK, '--agent', 'opencode'], { stdio: ['pipe', 'pipe', 'ignore'] });
    } catch {
      resolve('');
      return;
    }
    child.stdout.on('data', (d) => { out += d; });
    child.on('error', () => resolve(''));
    child.on('close', () => resolve(out.trim()));
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

/**
 * Answers a permission as the TUI does. Seen with OpenCode 1.18.33: the plugin's client is
 * the v1 SDK, whose own HTTP client reaches the running server in-process; the route the
 * TUI posts to (/permission/{requestID}/reply) takes a reject's message, which reaches the
 * model; the v1 route (/session/{id}/permissions/{permissionID}) takes no message.
 */
async function reply(client, sessionID, permissionID, answer) {
  const response = answer.reply === 'once' ? 'once' : 'reject';
  const message = response === 'reject' && answer.message ? answer.message : undefined;
  if (client && client.permission && typeof client.permission.reply === 'function') {
    await client.permission.reply({ requestID: permissionID, reply: response, ...(message ? { message } : {}) });
  } else if (client && client._client && typeof client._client.post === 'function') {
    const r = await client._client.post({
      url: '/permission/{requestID}/reply', path: { requestID: permissionID },
      body: { reply: response, ...(message ? { message } : {}) }, headers: { 'Content-Type': 'application/json' },
    });
    if (r && r.error && typeof client.postSessionIdPermissionsPermissionId === 'function') {
      await client.postSessionIdPermissionsPermissionId({ path: { id: sessionID, permissionID }, body: { response } });
    }
  } else if (client && typeof client.postSessionIdPermissionsPermissionId === 'function') {
    await client.postSessionIdPermissionsPermissionId({ path: { id: sessionID, permissionID }, body: { response } });
  }
}

export const TerminalDelight = async ({ client }) => {
  if (!process.env.TD_SESSION || !process.env.TD_PANE_ID) return {};
  const roles = new Map();
  const texts = new Map();
  // OpenCode does not wait for one event's handler before the next: each payload reaches the
  // hook after the one before it has, so a permission's reply is never written after the turn's end.
  // A hook that hangs holds the rest back HOOK_TURN_MS at most.
  let last = Promise.resolve();
  const inOrder = (payload) => {
    const run = last.then(() => new Promise((resolve) => {
      const t = setTimeout(resolve, HOOK_TURN_MS, '');
      if (t && typeof t.unref === 'function') t.unref();
      hook(payload).catch(() => '').then((out) => { clearTimeout(t); resolve(out); });
    }));
    last = run;
    return run;
  };
  return {
    event: async ({ event }) => {
      const p = event.properties || {};
      switch (event.type) {
        case 'session.created':
          await inOrder({ hook_event_name: 'session.created', session_id: p.info ? p.info.id : p.sessionID });
          break;
        case 'message.updated':
          if (p.info) roles.set(p.info.id, p.info.role);
          break;
        case 'message.part.updated':
          if (p.part && p.part.type === 'text' && roles.get(p.part.messageID) === 'assistant') texts.set(p.part.sessionID, p.part.text);
          break;
        case 'session.idle': {
          const text = texts.get(p.sessionID) || '';
          texts.delete(p.sessionID);
          await inOrder({ hook_event_name: 'session.idle', session_id: p.sessionID, text });
          break;
        }
        case 'permission.asked':
        case 'permission.updated': {
          // not awaited, and not waited for by what follows: OpenCode goes on delivering events while the bench decides
          last.then(() => hook({ hook_event_name: 'permission.asked', session_id: p.sessionID, permission_id: p.id, permission: p.permission || p.type, patterns: p.patterns || (p.pattern ? [].concat(p.pattern) : []), title: p.title, metadata: p.metadata, call_id: p.tool ? p.tool.callID : p.callID }))
            .then((out) => (out ? reply(client, p.sessionID, p.id, JSON.parse(out)) : undefined))
            .catch(() => {});
          break;
        }
        case 'permission.replied':
          await inOrder({ hook_event_name: 'permission.replied', session_id: p.sessionID, permission_id: p.requestID || p.permissionID, reply: p.reply || p.response });
          break;
        default:
          break;
      }
    },
    'chat.message': async (input, output) => {
      const parts = (output && output.parts) || [];
      await inOrder({ hook_event_name: 'chat.message', session_id: input.sessionID, text: parts.filter((x) => x.type === 'text').map((x) => x.text).join('\n') });
    },
    'tool.execute.after': async (input, output) => {
      await inOrder({ hook_event_name: 'tool.execute.after', session_id: input.sessionID, tool: input.tool, call_id: input.callID, args: input.args, tool_response: output && typeof output.output === 'string' ? output.output : undefined });
    },
  };
};
