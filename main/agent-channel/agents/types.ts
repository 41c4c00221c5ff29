/**
 * What the app knows of one agent CLI, in one module per agent (claude.ts, codex.ts,
 * gemini.ts, opencode.ts): how it is recognised, how its hook payloads become TDAC
 * events (so the window and the bench never know which agent they talk to), what it
 * can and cannot do, and how a pane running it is started and resumed.
 */
import type { AgentName } from '../../../preload/contract.ts';
import type { AnswerFile } from '../answers.ts';

/** A TDAC event as an agent's mapping makes it; the hook adds `tdac`, `at` and `agent`. */
export type EventDraft = { type: string; id: string } & Record<string, unknown>;

/** A question or permission prompt the hook waits on while the bench may answer it. */
export interface HookWait {
  /** The `question` or `permission` event (its id names the wait and the answer file). */
  event: EventDraft;
  /** Whether an answer file can hold this kind of answer (a question's answers, or allow/deny). */
  accepts(answer: AnswerFile): boolean;
  /** What the hook prints on stdout to hand the person's answer to the agent. */
  output(answer: AnswerFile): unknown;
}

/** What one hook call does: events to append now, and at most one wait. */
export interface HookPlan {
  events: EventDraft[];
  wait?: HookWait;
}

/** What the hook gives a mapping besides the payload. */
export interface HookContext {
  /** A fresh event id with this prefix (`s`, `p`, `perm`, …). */
  id(prefix: string): string;
  /** The hook event's name when the agent passes it as an argument rather than in the payload. */
  eventArg?: string;
}

export interface AgentCapabilities {
  /** The bench can answer its permission prompts (allow / deny) through its hook. */
  permissionsFromBench: boolean;
  /** It asks questions through a tool the hook sees, and the bench can answer them. */
  questionsFromBench: boolean;
  /** It keeps a JSONL transcript the transcript route reads (```td blocks in replies). */
  transcript: boolean;
  /** It can be resumed by session id. */
  resume: boolean;
}

export interface AgentModule {
  name: AgentName;
  /** As people call it: "Claude Code". */
  label: string;
  /** argv[0] basenames that start it. */
  programs: readonly string[];
  /** How a person installs it: one command line. */
  install: string;
  can: AgentCapabilities;
  /**
   * One sentence for a permission card the bench cannot answer (shown on the card);
   * undefined when it can.
   */
  cannotAnswer?: string;
  /** The agent's hook payload (parsed stdin) as TDAC events and, for a prompt, a wait. */
  hook(input: Record<string, unknown>, ctx: HookContext): HookPlan;
  /**
   * The argv a new pane starts with: the agent's own flags plus, where the agent takes
   * one, a session id the app chose (then known from the first second).
   */
  startArgv(argv: readonly string[], uuid: string): { argv: string[]; sessionId?: string };
  /** The argv that resumes `sessionId`, keeping the original flags that still apply. Pure. */
  resumeArgv(argv: readonly string[], sessionId: string): string[];
  /** Where its JSONL transcript for a session will be, when that is known before its first event. */
  transcriptPath?(cwd: string, sessionId: string, env: NodeJS.ProcessEnv): string;
}
