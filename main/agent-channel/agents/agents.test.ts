import { describe, expect, it } from 'vitest';
import { AGENTS, agentOf, isAgentName } from './index.ts';
import { resumeFlags } from './argv.ts';
import { permissionOf } from './gemini.ts';

let n = 0;
const ctx = { id: (p: string) => `${p}-${++n}` };

describe('the agents table', () => {
  it('recognises each agent by argv[0], with or without a path', () => {
    expect(agentOf(['claude'])?.name).toBe('claude');
    expect(agentOf(['/usr/local/bin/claude-code'])?.name).toBe('claude');
    expect(agentOf(['/home/ada/.npm/bin/codex', 'resume'])?.name).toBe('codex');
    expect(agentOf(['gemini'])?.name).toBe('gemini');
    expect(agentOf(['opencode'])?.name).toBe('opencode');
    expect(agentOf(['claudette'])).toBeUndefined();
    expect(agentOf([])).toBeUndefined();
    expect(isAgentName('codex')).toBe(true);
    expect(isAgentName('toString')).toBe(false);
  });

  it('says what each can do, and a sentence where the bench cannot answer', () => {
    for (const a of Object.values(AGENTS)) {
      expect(a.label).toBeTruthy();
      if (!a.can.permissionsFromBench) expect(a.cannotAnswer).toMatch(/terminal/);
    }
    expect(AGENTS.codex.can).toEqual({ permissionsFromBench: true, questionsFromBench: false, transcript: true, resume: true });
  });
});

describe('resume argv', () => {
  it('keeps options with their values, drops prompts and session flags', () => {
    const spec = { value: ['-m'], variadic: ['--dirs'], optional: ['-r'], drop: ['-r'] };
    expect(resumeFlags(['-m', 'x', 'a prompt', '--flag', '--dirs', 'a', 'b', '-r', 'old', '-m=y'], spec)).toEqual(['-m', 'x', '--flag', '--dirs', 'a', 'b', '-m=y']);
    expect(resumeFlags(['-r', '--next'], spec)).toEqual(['--next']);
  });
  it('Codex: codex resume <flags> <id>', () => {
    expect(AGENTS.codex.resumeArgv(['codex', '-m', 'gpt-5', '--full-auto', 'fix the build'], 'S')).toEqual(['codex', 'resume', '-m', 'gpt-5', '--full-auto', 'S']);
    expect(AGENTS.codex.resumeArgv(['codex', 'resume', '--last', '-c', 'model="o3"'], 'S')).toEqual(['codex', 'resume', '-c', 'model="o3"', 'S']);
  });
  it('Gemini CLI: --resume <id>, without its old session id or prompt', () => {
    expect(AGENTS.gemini.resumeArgv(['gemini', '--session-id', 'old', '-m', 'flash', '-i', 'hello', '--yolo'], 'S')).toEqual(['gemini', '--resume', 'S', '-m', 'flash', '--yolo']);
    expect(AGENTS.gemini.startArgv(['gemini', '--resume', 'latest'], 'U')).toEqual({ argv: ['gemini', '--resume', 'latest'] });
  });
  it('OpenCode: --session <id>, without --continue or a project folder', () => {
    expect(AGENTS.opencode.resumeArgv(['opencode', '-c', '--model', 'a/b', '/srv/project'], 'S')).toEqual(['opencode', '--session', 'S', '--model', 'a/b']);
  });
});

describe('Codex hook payloads (Claude Code\'s protocol)', () => {
  it('maps its events, and a permission waits for allow or deny', () => {
    const h = AGENTS.codex.hook;
    expect(h({ hook_event_name: 'SessionStart', session_id: 'c1', transcript_path: '/r.jsonl', source: 'startup' }, ctx).events[0]).toMatchObject({ type: 'session', session_id: 'c1', transcript_path: '/r.jsonl' });
    const perm = h({ hook_event_name: 'PermissionRequest', session_id: 'c1', turn_id: 't', tool_name: 'Bash', tool_input: { command: 'touch x', description: 'why' } }, ctx);
    expect(perm.wait?.event).toMatchObject({ type: 'permission', tool_name: 'Bash', tool_input: { command: 'touch x' } });
    expect(perm.wait?.output({ behavior: 'allow' })).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    expect(h({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'touch x' }, tool_use_id: 'call_1' }, ctx).events[0]).toMatchObject({ type: 'tool', tool_use_id: 'call_1' });
    expect(h({ hook_event_name: 'Stop', last_assistant_message: 'Done.' }, ctx).events[0]).toMatchObject({ type: 'reply', text: 'Done.' });
    expect(h({ hook_event_name: 'PreToolUse', tool_name: 'Bash' }, ctx)).toEqual({ events: [] });
  });
});

describe('Gemini CLI hook payloads', () => {
  it('a permission notification is a card the bench cannot answer; AfterTool is the tool having run', () => {
    const h = AGENTS.gemini.hook;
    expect(h({ hook_event_name: 'BeforeAgent', session_id: 'g', prompt: 'go' }, ctx).events[0]).toMatchObject({ type: 'prompt', text: 'go' });
    // as Gemini CLI 0.61.0 sends it (hookSystem.ts toSerializableDetails)
    const p = h({ hook_event_name: 'Notification', session_id: 'g', notification_type: 'ToolPermission', message: 'Tool Confirm Shell Command requires execution', details: { type: 'exec', title: 'Confirm Shell Command', command: 'touch x', rootCommand: 'touch' } }, ctx);
    expect(p.wait).toBeUndefined();
    expect(p.events[0]).toMatchObject({ type: 'permission', tool_name: 'Shell', answerable: false, tool_input: { command: 'touch x', root_command: 'touch' } });
    expect(h({ hook_event_name: 'Notification', notification_type: 'Other' }, ctx)).toEqual({ events: [] });
    expect(h({ hook_event_name: 'AfterTool', tool_name: 'run_shell_command', tool_input: { command: 'ls' } }, ctx).events[0]).toMatchObject({ type: 'tool', tool_name: 'run_shell_command' });
    // Gemini CLI's result: its display text (llmContent, what the model got, when there is none).
    expect(h({ hook_event_name: 'AfterTool', tool_name: 'run_shell_command', tool_input: { command: 'ls' }, tool_response: { llmContent: 'a.ts\nb.ts', returnDisplay: 'a.ts b.ts' } }, ctx).events[0]).toMatchObject({ tool_output: 'a.ts b.ts' });
    expect(h({ hook_event_name: 'AfterTool', tool_name: 'read_file', tool_input: {}, tool_response: { llmContent: 'the file' } }, ctx).events[0]).toMatchObject({ tool_output: 'the file' });
    // BeforeTool runs before the policy check and the prompt: it is not evidence of an answer
    expect(h({ hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command: 'ls' } }, ctx)).toEqual({ events: [] });
    expect(h({ hook_event_name: 'AfterAgent', prompt: 'go', prompt_response: 'All done.' }, ctx).events[0]).toMatchObject({ type: 'reply', text: 'All done.' });
    // its transcript is one JSON document: not handed to the JSONL transcript route
    expect(h({ hook_event_name: 'SessionStart', session_id: 'g', transcript_path: '/x.json', source: 'startup' }, ctx).events[0]).not.toHaveProperty('transcript_path');
  });

  it('names each kind of confirmation as a person knows it', () => {
    expect(permissionOf({ type: 'edit', title: 'Confirm Edit: a.ts', fileName: 'a.ts', filePath: '/w/a.ts', fileDiff: '@@' })).toEqual({ tool_name: 'Edit', tool_input: { file_path: '/w/a.ts' } });
    expect(permissionOf({ type: 'mcp', serverName: 'gh', toolName: 'create_issue', toolDisplayName: 'Create issue' })).toEqual({ tool_name: 'Create issue', tool_input: { server: 'gh', tool: 'create_issue' } });
    expect(permissionOf({ type: 'info', prompt: 'fetch it', urls: ['https://x'] })).toEqual({ tool_name: 'Web fetch', tool_input: { prompt: 'fetch it', urls: ['https://x'] } });
    expect(permissionOf({ type: 'new-kind', title: 'Confirm Thing' })).toEqual({ tool_name: 'Confirm Thing', tool_input: {} });
  });
});

describe('OpenCode plugin payloads', () => {
  it('a permission waits and is answered with once or reject; a reply in the TUI is an answer from the terminal', () => {
    const h = AGENTS.opencode.hook;
    const p = h({ hook_event_name: 'permission.asked', session_id: 'o', permission_id: 'per_1', permission: 'bash', patterns: ['touch x'], metadata: {}, call_id: 'call_7' }, ctx);
    expect(p.wait?.event).toMatchObject({ type: 'permission', id: 'per_1', tool_name: 'bash', tool_input: { command: 'touch x' }, tool_use_id: 'call_7' });
    expect(p.wait?.output({ behavior: 'allow' })).toEqual({ reply: 'once' });
    expect(p.wait?.output({ behavior: 'deny', message: 'no' })).toEqual({ reply: 'reject', message: 'no' });
    expect(h({ hook_event_name: 'permission.replied', session_id: 'o', permission_id: 'per_1', reply: 'reject' }, ctx).events[0]).toMatchObject({ type: 'answer', of: 'per_1', behavior: 'deny', via: 'terminal' });
    expect(h({ hook_event_name: 'session.idle', session_id: 'o', text: 'Done.' }, ctx).events[0]).toMatchObject({ type: 'reply', text: 'Done.' });
    // The plugin passes the tool's output text as tool_response.
    expect(h({ hook_event_name: 'tool.execute.after', session_id: 'o', tool: 'bash', args: { command: 'make' }, call_id: 'call_8', tool_response: 'make: *** Error 2' }, ctx).events[0]).toMatchObject({ type: 'tool', tool_name: 'bash', tool_output: 'make: *** Error 2' });
  });
});
