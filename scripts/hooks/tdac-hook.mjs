#!/usr/bin/env node
// Terminal Delight's Claude Code hook: TDAC 0.2, the agent channel.
//
// Claude Code runs this for SessionStart, UserPromptSubmit, PreToolUse and PostToolUse
// (AskUserQuestion), PermissionRequest and Stop, with the hook's JSON on standard input. It appends one
// TDAC 0.2 event a line to inbound.jsonl in the pane's folder
// ($XDG_STATE_HOME/terminal-delight/surfaces/$TD_SESSION/$TD_PANE_ID), and for a question
// or a permission prompt, while the pane's bench is open (bench.json), waits for the
// person's answer in answers/<id>.json and hands it back through the hook's documented
// output. Outside a pane, or on anything unexpected, it exits 0 with no output, so
// Claude Code carries on as if there were no hook.
//
// Plain Node (>= 18), no dependencies: it ships with the app and runs wherever Claude
// Code runs. docs/spec/td-surface-protocol.md ("TDAC 0.2") describes what it writes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';

const TDAC = '0.2';
/** How long a question or permission prompt waits for the bench, in seconds. */
const WAIT_S = positiveNumber(process.env.TD_QUESTION_WAIT_S, 540);
/** How long the window may take to read a question before the hook stops waiting for it. */
const WINDOW_GRACE_S = positiveNumber(process.env.TD_WINDOW_GRACE_S, 5);
/** How often the answer file and bench.json are looked at while waiting. */
const POLL_MS = positiveNumber(process.env.TD_QUESTION_POLL_MS, 200);
/** Longest text an event carries (a reply, a prompt); the rest is cut with a mark. */
const MAX_TEXT = 64 * 1024;
/** Longest tool input a permission event carries, as JSON. */
const MAX_TOOL_INPUT = 16 * 1024;

function positiveNumber(value, fallback) {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** A name safe as one path segment and as a TDSP id: A-Za-z0-9._:- only, 1 to 128 long. */
function safeSegment(value) {
  return typeof value === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(value) && value !== '.' && value !== '..';
}

function paneFolder(env) {
  if (!safeSegment(env.TD_SESSION) || !safeSegment(env.TD_PANE_ID)) return undefined;
  const stateHome = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME)
    ? env.XDG_STATE_HOME
    : path.join(os.homedir(), '.local', 'state');
  return path.join(stateHome, 'terminal-delight', 'surfaces', env.TD_SESSION, env.TD_PANE_ID);
}

/** All of standard input; a non-blocking pipe (EAGAIN) is waited on, for at most 10 s. */
function readStdin() {
  const chunks = [];
  const buf = Buffer.alloc(64 * 1024);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const giveUp = Date.now() + 10_000;
  for (;;) {
    let n;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if (e && e.code === 'EAGAIN' && Date.now() < giveUp) {
        Atomics.wait(pause, 0, 0, 10);
        continue;
      }
      if (e && e.code === 'EOF') break;
      return '';
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

function cut(text, max) {
  if (typeof text !== 'string') return undefined;
  return text.length > max ? `${text.slice(0, max)}\n… (cut at ${max} characters)` : text;
}

function newId(prefix) {
  return `${prefix}-${crypto.randomBytes(6).toString('hex')}`;
}

/** Appends one event as one line with one write to an O_APPEND file. */
function append(folder, event) {
  const line = Buffer.from(`${JSON.stringify({ tdac: TDAC, ...event, at: event.at ?? new Date().toISOString() })}\n`);
  fs.mkdirSync(folder, { recursive: true });
  const fd = fs.openSync(path.join(folder, 'inbound.jsonl'), 'a', 0o600);
  try {
    let done = 0;
    while (done < line.length) done += fs.writeSync(fd, line, done, line.length - done);
    return fs.fstatSync(fd).size;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Whether the window has read inbound.jsonl up to `end`: the agent channel keeps its
 * read offset in .agent-channel.json, so a window that is there passes `end` within a
 * second or so of the append.
 */
function windowRead(folder, end) {
  const state = readJson(path.join(folder, '.agent-channel.json'));
  return !!state && typeof state.offset === 'number' && state.offset >= end;
}

function benchOpen(folder) {
  try {
    const bench = JSON.parse(fs.readFileSync(path.join(folder, 'bench.json'), 'utf8'));
    return bench !== null && typeof bench === 'object' && bench.open === true;
  } catch {
    return false;
  }
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Claude Code ending a waiting hook: noted, so the wait closes cleanly (answers/<id>.closed
 * and an `unanswered` event). Armed before the question's event is appended, so a signal
 * that lands between the two is never the default, silent death.
 */
let stopReason;
function armSignals() {
  const onSignal = () => { stopReason = 'cancelled'; };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', onSignal);
}

/**
 * Waits while the bench is open for answers/<id>.json and returns its parsed value, or
 * undefined once the bench closes, the wait times out or Claude Code ends the hook. On
 * giving up it writes answers/<id>.closed (so the window refuses a late answer) and
 * appends an `unanswered` event with the reason; an answer that landed in that very
 * moment is still taken, once.
 */
async function waitForAnswer(folder, id, end, accept) {
  const answersDir = path.join(folder, 'answers');
  const answerFile = path.join(answersDir, `${id}.json`);
  const deadline = Date.now() + WAIT_S * 1000;
  const graceEnd = Date.now() + WINDOW_GRACE_S * 1000;
  let seen = false;
  const tryAnswer = () => {
    if (!fs.existsSync(answerFile)) return undefined;
    const value = readJson(answerFile);
    return value !== undefined && accept(value) ? value : undefined;
  };
  let reason = 'bench_closed';
  if (benchOpen(folder)) {
    for (;;) {
      const value = tryAnswer();
      if (value !== undefined) return value;
      if (stopReason) { reason = stopReason; break; }
      if (Date.now() >= deadline) { reason = 'timeout'; break; }
      if (!benchOpen(folder)) { reason = 'bench_closed'; break; }
      if (!seen) {
        seen = windowRead(folder, end);
        // No window reads this pane (it quit, or this is a leftover shell): ask in the terminal.
        if (!seen && Date.now() >= graceEnd) { reason = 'no_window'; break; }
      }
      await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
    }
  }
  // Say the wait is over before the last look, so an answer is either taken now or refused.
  try {
    fs.mkdirSync(answersDir, { recursive: true });
    fs.writeFileSync(path.join(answersDir, `${id}.closed`), `${JSON.stringify({ reason, at: new Date().toISOString() })}\n`, { flag: 'wx' });
  } catch {
    // already closed, or the folder is gone: nothing more to say
  }
  const late = tryAnswer();
  if (late !== undefined) return late;
  append(folder, { type: 'unanswered', id: newId('u'), of: id, reason });
  return undefined;
}

function questionsOf(toolInput) {
  const list = toolInput && Array.isArray(toolInput.questions) ? toolInput.questions : [];
  return list.filter((q) => q && typeof q.question === 'string' && q.question.length > 0);
}

function optionLabels(q) {
  return Array.isArray(q.options)
    ? q.options.map((o) => (o && typeof o.label === 'string' ? o.label : typeof o === 'string' ? o : undefined)).filter((l) => l !== undefined)
    : [];
}

async function onQuestion(folder, input) {
  const toolInput = input.tool_input && typeof input.tool_input === 'object' ? input.tool_input : {};
  const questions = questionsOf(toolInput);
  if (questions.length === 0) return undefined;
  const id = safeSegment(input.tool_use_id) ? input.tool_use_id : newId('q');
  const first = questions[0];
  armSignals();
  const end = append(folder, {
    type: 'question',
    id,
    session_id: input.session_id,
    question: first.question,
    header: typeof first.header === 'string' ? first.header : undefined,
    options: optionLabels(first),
    multiple: first.multiSelect === true,
    questions: questions.map((q) => ({
      question: q.question,
      header: typeof q.header === 'string' ? q.header : undefined,
      options: Array.isArray(q.options)
        ? q.options.filter((o) => o && typeof o.label === 'string').map((o) => ({ label: o.label, description: typeof o.description === 'string' ? o.description : undefined }))
        : [],
      multiple: q.multiSelect === true,
    })),
  });
  const answer = await waitForAnswer(folder, id, end, (v) => v && typeof v === 'object' && (v.pass === true || (v.answers && typeof v.answers === 'object')));
  if (!answer || answer.pass === true) return undefined;
  const answers = {};
  for (const q of questions) {
    const a = answer.answers[q.question];
    if (typeof a === 'string') answers[q.question] = a;
    else if (Array.isArray(a)) answers[q.question] = a.filter((x) => typeof x === 'string').join(', ');
  }
  append(folder, { type: 'answer', id: newId('a'), of: id, answers });
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      permissionDecisionReason: 'Answered on the Terminal Delight workbench',
      updatedInput: { ...toolInput, questions: toolInput.questions, answers },
    },
  };
}

async function onPermission(folder, input) {
  // AskUserQuestion's own dialog is a permission prompt too; it is the PreToolUse hook's.
  if (typeof input.tool_name !== 'string' || input.tool_name === 'AskUserQuestion') return undefined;
  const id = newId('perm');
  let toolInput = input.tool_input ?? {};
  let truncated;
  const json = JSON.stringify(toolInput);
  if (json && json.length > MAX_TOOL_INPUT) {
    toolInput = { text: cut(json, MAX_TOOL_INPUT) };
    truncated = true;
  }
  armSignals();
  const end = append(folder, { type: 'permission', id, session_id: input.session_id, tool_name: input.tool_name, tool_input: toolInput, truncated });
  const answer = await waitForAnswer(folder, id, end, (v) => v && typeof v === 'object' && (v.pass === true || v.behavior === 'allow' || v.behavior === 'deny'));
  if (!answer || answer.pass === true) return undefined;
  const decision = { behavior: answer.behavior };
  if (answer.behavior === 'deny' && typeof answer.message === 'string' && answer.message) decision.message = answer.message;
  append(folder, { type: 'answer', id: newId('a'), of: id, behavior: answer.behavior, message: decision.message });
  return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } };
}

/** The last assistant text in a Claude Code transcript, for a Stop without last_assistant_message. */
function lastAssistantText(transcriptPath) {
  if (typeof transcriptPath !== 'string' || !path.isAbsolute(transcriptPath)) return undefined;
  let fd;
  try {
    fd = fs.openSync(transcriptPath, 'r');
    const size = fs.fstatSync(fd).size;
    const start = Math.max(0, size - 256 * 1024);
    const buf = Buffer.alloc(size - start);
    fs.readSync(fd, buf, 0, buf.length, start);
    const lines = buf.toString('utf8').split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      let entry;
      try { entry = JSON.parse(lines[i]); } catch { continue; }
      const content = entry && entry.type === 'assistant' && entry.message ? entry.message.content : undefined;
      if (typeof content === 'string' && content.trim()) return content;
      if (Array.isArray(content)) {
        const text = content.filter((c) => c && c.type === 'text' && typeof c.text === 'string').map((c) => c.text).join('\n');
        if (text.trim()) return text;
      }
    }
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
  return undefined;
}

async function main() {
  const folder = paneFolder(process.env);
  if (!folder) return undefined;
  let input;
  try {
    input = JSON.parse(readStdin());
  } catch {
    return undefined;
  }
  if (!input || typeof input !== 'object') return undefined;
  const event = typeof input.hook_event_name === 'string' ? input.hook_event_name : process.argv[2];
  switch (event) {
    case 'SessionStart':
      append(folder, {
        type: 'session',
        id: newId('s'),
        session_id: input.session_id,
        transcript_path: input.transcript_path,
        source: input.source,
        cwd: input.cwd,
      });
      return undefined;
    case 'UserPromptSubmit':
      append(folder, { type: 'prompt', id: newId('p'), session_id: input.session_id, text: cut(input.prompt, MAX_TEXT) ?? '' });
      return undefined;
    case 'PreToolUse':
      return input.tool_name === 'AskUserQuestion' ? onQuestion(folder, input) : undefined;
    case 'PostToolUse':
      // A question answered in the terminal (one answered from the bench was reported already).
      if (input.tool_name === 'AskUserQuestion' && safeSegment(input.tool_use_id) && !fs.existsSync(path.join(folder, 'answers', `${input.tool_use_id}.json`))) {
        const response = input.tool_response && typeof input.tool_response === 'object' ? input.tool_response : {};
        const given = response.answers && typeof response.answers === 'object' ? response.answers : input.tool_input && input.tool_input.answers;
        const answers = {};
        if (given && typeof given === 'object') for (const [q, a] of Object.entries(given)) if (typeof a === 'string') answers[q] = a;
        append(folder, { type: 'answer', id: newId('a'), of: input.tool_use_id, session_id: input.session_id, answers, via: 'terminal' });
      }
      return undefined;
    case 'PermissionRequest':
      return onPermission(folder, input);
    case 'Stop': {
      const text = typeof input.last_assistant_message === 'string' ? input.last_assistant_message : lastAssistantText(input.transcript_path);
      append(folder, { type: 'reply', id: newId('r'), session_id: input.session_id, text: cut(text, MAX_TEXT) ?? '' });
      return undefined;
    }
    default:
      return undefined;
  }
}

main().then(
  (output) => {
    if (output) process.stdout.write(`${JSON.stringify(output)}\n`, () => process.exit(0));
    else process.exit(0);
  },
  () => process.exit(0),
);
