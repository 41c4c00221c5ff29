import { describe, expect, it } from 'vitest';
import { describeTool, parseEvent, permissionCard, questionCard, questionCardId, replyCard, splitReply, statusAfter } from './events.ts';

const line = (v: unknown) => JSON.stringify(v);
const at = '2026-11-30T01:00:00.000Z';

describe('parseEvent', () => {
  it('reads each TDAC 0.2 type', () => {
    expect(parseEvent(line({ tdac: '0.2', type: 'session', id: 's-1', at, session_id: 'abc', transcript_path: '/t.jsonl', source: 'startup' })))
      .toEqual({ type: 'session', id: 's-1', at, session_id: 'abc', transcript_path: '/t.jsonl', source: 'startup', cwd: undefined });
    expect(parseEvent(line({ tdac: '0.2', type: 'prompt', id: 'p-1', at, text: 'hi' }))).toMatchObject({ type: 'prompt', text: 'hi' });
    expect(parseEvent(line({ tdac: '0.2', type: 'reply', id: 'r-1', at, text: 'ok.' }))).toMatchObject({ type: 'reply', text: 'ok.' });
    expect(parseEvent(line({ tdac: '0.2', type: 'permission', id: 'perm-1', at, tool_name: 'Bash', tool_input: { command: 'ls' } })))
      .toMatchObject({ type: 'permission', tool_name: 'Bash', tool_input: { command: 'ls' } });
    expect(parseEvent(line({ tdac: '0.2', type: 'answer', id: 'a-1', at, of: 'q1', answers: { Q: 'A', bad: 3 } })))
      .toMatchObject({ type: 'answer', of: 'q1', answers: { Q: 'A' } });
    expect(parseEvent(line({ tdac: '0.2', type: 'unanswered', id: 'u-1', at, of: 'q1', reason: 'timeout' }))).toMatchObject({ type: 'unanswered', of: 'q1', reason: 'timeout' });
    expect(parseEvent(line({ tdac: '0.2', type: 'tool', id: 't-1', at, agent: 'codex', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'call_1' })))
      .toEqual({ type: 'tool', id: 't-1', at, agent: 'codex', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'call_1' });
    expect(parseEvent(line({ tdac: '0.2', type: 'answer', id: 'a-2', at, of: 'perm-1', behavior: 'allow', via: 'terminal' }))).toMatchObject({ via: 'terminal', behavior: 'allow' });
    expect(parseEvent(line({ tdac: '0.2', type: 'permission', id: 'perm-1', at, tool_name: 'x' }))).toMatchObject({ answerable: true });
    expect(parseEvent(line({ tdac: '0.2', type: 'permission', id: 'perm-1', at, tool_name: 'x', answerable: false }))).toMatchObject({ answerable: false });
    expect(parseEvent(line({ tdac: '0.2', type: 'prompt', id: 'p-2', at, agent: 'Not An Agent!' }))).not.toHaveProperty('agent');
  });

  it('reads a question with its questions list, or the short form', () => {
    expect(parseEvent(line({ tdac: '0.2', type: 'question', id: 'q1', at, questions: [{ question: 'Q?', header: 'H', options: [{ label: 'A', description: 'a' }, { label: 'B' }], multiple: true }] })))
      .toMatchObject({ questions: [{ question: 'Q?', header: 'H', options: [{ label: 'A', description: 'a' }, { label: 'B' }], multiple: true }] });
    expect(parseEvent(line({ tdac: '0.2', type: 'question', id: 'q2', at, question: 'Coffee?', options: ['Yes', 'No'] })))
      .toMatchObject({ questions: [{ question: 'Coffee?', options: [{ label: 'Yes' }, { label: 'No' }], multiple: false }] });
  });

  it('refuses what is not a TDAC 0.2 event', () => {
    for (const bad of [
      'not json', '[]', 'null', line({ type: 'prompt', id: 'x' }), line({ tdac: '1.0', type: 'prompt', id: 'x' }),
      line({ tdac: 0.2, type: 'prompt', id: 'x' }), line({ tdac: '0.2', type: 'prompt' }), line({ tdac: '0.2', type: 'prompt', id: 'a/b' }),
      line({ tdac: '0.2', type: 'telepathy', id: 'x' }), line({ tdac: '0.2', type: 'question', id: 'x', questions: [] }),
      line({ tdac: '0.2', type: 'permission', id: 'x' }), line({ tdac: '0.2', type: 'answer', id: 'x' }),
    ]) expect(parseEvent(bad), bad).toBeUndefined();
  });

  it('a missing or broken time becomes now', () => {
    const before = Date.now();
    const e = parseEvent(line({ tdac: '0.2', type: 'prompt', id: 'p', at: 'yesterday' }))!;
    expect(Date.parse(e.at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(e.at)).toBeLessThanOrEqual(Date.now());
  });
});

describe('splitReply', () => {
  it('first sentence as layman, the rest as body', () => {
    expect(splitReply('The theme is in. Run `npm start` to see it.\n\nDetails follow.'))
      .toEqual({ layman: 'The theme is in.', body: 'Run `npm start` to see it.\n\nDetails follow.' });
  });
  it('one sentence: no body', () => expect(splitReply('  All done!  ')).toEqual({ layman: 'All done!' }));
  it('a version number does not end a sentence', () => expect(splitReply('Bumped to 1.2.3 today. Next.').layman).toBe('Bumped to 1.2.3 today.'));
  it('the first paragraph ends the sentence; Markdown marks go', () => {
    expect(splitReply('## Summary of the change\n\n- one\n- two')).toEqual({ layman: 'Summary of the change', body: '- one\n- two' });
  });
  it('an overlong first sentence is cut and the whole reply kept as body', () => {
    const long = `${'word '.repeat(100)}end.`;
    const r = splitReply(long);
    expect(r.layman.length).toBeLessThanOrEqual(281);
    expect(r.layman.endsWith('…')).toBe(true);
    expect(r.body).toBe(long.trim());
  });
  it('an empty reply still gives a layman', () => expect(splitReply('  ').layman).toMatch(/without a written reply/));
});

describe('cards', () => {
  const q = parseEvent(line({ tdac: '0.2', type: 'question', id: 'toolu_1', at, questions: [
    { question: 'Which?', header: 'Pick', options: [{ label: 'A', description: 'first' }, { label: 'B' }], multiSelect: false },
    { question: 'Also?', options: [{ label: 'X' }], multiSelect: true },
  ] }))! as Extract<ReturnType<typeof parseEvent>, { type: 'question' }>;

  const claude = { label: 'Claude Code' };
  it('a question card per question, ids derived from the event id, the asker named by its label', () => {
    expect(questionCard(q, 0, 'waiting', undefined, claude)).toEqual({
      td: '0.4', op: 'present', kind: 'question', id: 'question-toolu_1-1', title: 'Claude Code asks: Pick',
      model: { question: 'Which?', options: [{ name: 'A', detail: 'first' }, { name: 'B' }], multiple: false, free_text: true, state: 'waiting', part: '1 of 2' },
    });
    expect(questionCard(q, 1, 'answered_here', 'X', claude)).toMatchObject({ id: 'question-toolu_1-2', title: 'Claude Code asks', model: { multiple: true, state: 'answered_here', answer: 'X' } });
    expect(questionCard(q, 1).title).toBe('The agent asks');
    expect(questionCardId('e', 0, 1)).toBe('question-e');
    expect(questionCardId('x'.repeat(128), 3, 4).length).toBeLessThanOrEqual(128);
  });

  it('a permission prompt is a decision with allow (recommended) and deny', () => {
    const p = parseEvent(line({ tdac: '0.2', type: 'permission', id: 'perm-1', at, tool_name: 'Bash', tool_input: { command: 'rm -rf build' } }))!;
    const card = permissionCard(p as never);
    expect(card).toMatchObject({
      kind: 'decision', id: 'permission-perm-1', title: 'Permission: Bash',
      model: { question: 'Allow Bash: rm -rf build?', options: [{ name: 'allow', recommended: true }, { name: 'deny' }], state: 'waiting' },
    });
    expect((card.model as { context: string }).context).toContain('"command": "rm -rf build"');
  });

  it('each ended state says what happened, in the asker\'s name', () => {
    const p = parseEvent(line({ tdac: '0.2', type: 'permission', id: 'perm-2', at, tool_name: 'Bash', tool_input: { command: 'ls' } })) as never;
    const codex = { label: 'Codex' };
    expect(permissionCard(p, 'answered_in_terminal', 'allow', codex).model).toMatchObject({ state: 'answered_in_terminal', state_note: "Answered in Codex's terminal.", answer: 'allow' });
    expect(permissionCard(p, 'cancelled', undefined, codex).model).toMatchObject({ state: 'cancelled', state_note: expect.stringMatching(/^Cancelled in the terminal/) });
    expect(permissionCard(p, 'timed_out', undefined, codex).model).toMatchObject({ state: 'timed_out', state_note: expect.stringContaining('Codex asks in its terminal') });
    expect(permissionCard(p, 'invalidated', undefined, codex, 'bench_closed').model).toMatchObject({ state: 'invalidated', state_note: 'The bench was closed, so Codex asked in its terminal.' });
    expect(permissionCard(p, 'answered_here', 'deny', codex).model).not.toHaveProperty('state_note');
    expect((permissionCard(p, 'waiting', undefined, codex).model as { context: string }).context).toMatch(/^Codex asks to use \*\*Bash\*\*/);
  });

  it('a permission the bench cannot answer says so and is marked not answerable', () => {
    const p = parseEvent(line({ tdac: '0.2', type: 'permission', id: 'perm-3', at, tool_name: 'run_shell_command', tool_input: {}, answerable: false })) as never;
    expect(permissionCard(p, 'waiting', undefined, { label: 'Gemini CLI', cannotAnswer: 'Answer in its terminal.' }).model).toMatchObject({ state: 'waiting', state_note: 'Answer in its terminal.', answerable: false });
  });

  it('describeTool says what the tool would touch', () => {
    expect(describeTool('Write', { file_path: '/a/b.ts', content: 'x' })).toBe('Allow Write: /a/b.ts?');
    expect(describeTool('mcp__x__y', {})).toBe('Allow mcp__x__y?');
    expect(describeTool('Bash', { command: 'a\nb' })).toBe('Allow Bash: a b?');
  });

  it('a reply becomes a done response', () => {
    const r = parseEvent(line({ tdac: '0.2', type: 'reply', id: 'r-1', at, text: 'Fixed it. Details.' }))!;
    expect(replyCard(r as never)).toEqual({ td: '0.4', op: 'present', kind: 'response', id: 'reply-r-1', title: 'Reply', model: { layman: 'Fixed it.', body: 'Details.', register: 'done' } });
  });
});

describe('status after an event', () => {
  it('prompt → working, question/permission → blocked, answer and tool → working, reply → done, session → idle', () => {
    expect(statusAfter({ type: 'prompt', id: 'p', at, text: 'Add a dark theme' })).toEqual({ status: 'working', detail: 'Add a dark theme' });
    expect(statusAfter({ type: 'question', id: 'q', at, questions: [{ question: 'Which?', options: [], multiple: false }] })).toEqual({ status: 'blocked', detail: 'Which?' });
    expect(statusAfter({ type: 'permission', id: 'x', at, tool_name: 'Bash', tool_input: {}, answerable: true })).toEqual({ status: 'blocked', detail: 'permission for Bash' });
    expect(statusAfter({ type: 'answer', id: 'a', at, of: 'q' })).toEqual({ status: 'working' });
    expect(statusAfter({ type: 'tool', id: 't', at, tool_name: 'Bash', tool_input: {} })).toEqual({ status: 'working' });
    expect(statusAfter({ type: 'reply', id: 'r', at, text: 'Done.' })).toEqual({ status: 'done', detail: 'Done.' });
    expect(statusAfter({ type: 'session', id: 's', at, source: 'startup' })).toEqual({ status: 'idle', detail: 'session startup' });
    expect(statusAfter({ type: 'unanswered', id: 'u', at, of: 'q', reason: 'timeout' })).toBeUndefined();
  });
});
