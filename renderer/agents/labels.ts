/** The agent CLIs' names as people know them, by the app's short name (`PaneInfo.agentCli.name`). */
export const AGENT_LABELS: Readonly<Record<string, string>> = { claude: 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', opencode: 'OpenCode' };
