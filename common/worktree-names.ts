/**
 * Names and words for worktrees: a branch name from a first prompt or made up, the
 * folder name a branch gets, a commit message from the agent's last reply. Pure, no
 * Node imports (the window's dialog shows the same name the core will make).
 */
/** The first few words of a prompt as a branch name ("Fix the login bug!" → "fix-the-login-bug"); '' when it has none. */
export function nameFromPrompt(prompt: string): string {
  const words = prompt.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').match(/[a-z0-9]+/g) ?? [];
  let name = '';
  for (const w of words.slice(0, 6)) {
    const next = name ? `${name}-${w}` : w;
    if (next.length > 40) break;
    name = next;
  }
  return name;
}

/** A short made-up name: "agent-" and four letters or digits. */
export function madeUpName(random: () => number = Math.random): string {
  const abc = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 4; i++) s += abc[Math.floor(random() * abc.length) % abc.length];
  return `agent-${s}`;
}

/** What is wrong with a worktree name (it becomes the branch and the folder), in one sentence; undefined when it is fine. */
export function nameProblem(name: string): string | undefined {
  if (!name) return 'the worktree needs a name: type one (it becomes the branch name)';
  if (name.length > 100) return `the name is ${name.length} characters: keep it to 100 or fewer`;
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(name)) return `"${name}" is not usable as a branch name: use letters, digits, ".", "_", "-" and "/", starting with a letter or digit`;
  if (/\.\.|\/\/|\/$|\.$|\.lock$|\/\.|@\{/.test(name)) return `"${name}" is not usable as a branch name: no "..", "//", "/." and no "/", "." or ".lock" at the end`;
  return undefined;
}

/** The folder a branch's worktree gets inside the worktrees folder ("fix/login" → "fix-login"). */
export function folderName(branch: string): string {
  return branch.replace(/\//g, '-');
}

/**
 * A commit message from the agent's last reply: its first sentence as the subject (at
 * most 72 characters, Markdown marks taken off), the reply (at most 2000 characters)
 * as the body; without a reply, "Work on <branch>".
 */
export function commitMessage(reply: string | undefined, branch: string): string {
  const text = (reply ?? '').replace(/\r\n/g, '\n').trim();
  if (!text) return `Work on ${branch}`;
  const plain = text.replace(/```[\s\S]*?```/g, ' ').replace(/[*_`#>]+/g, '').replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(plain);
  let subject = (m ? m[1]! : plain).replace(/[.]$/, '');
  if (subject.length > 72) subject = `${subject.slice(0, 71).replace(/\s+\S*$/, '')}…`;
  if (!subject) return `Work on ${branch}`;
  const body = text.length > 2000 ? `${text.slice(0, 1999)}…` : text;
  return body === subject ? subject : `${subject}\n\n${body}`;
}
