#!/bin/sh
# Terminal Delight's agent hook (TDAC 0.2), the command Claude Code, Codex and Gemini CLI
# run (and OpenCode's plugin): tdac-hook.sh [--agent NAME] [EVENT], the payload on stdin.
# Outside a Terminal Delight pane it does nothing, at once, silently, and exits 0,
# without starting node. Inside one it runs main/agent-channel/hook.ts with the app's
# own runtime ($TD_NODE, which every pane has; Electron runs as plain Node).
[ -n "$TD_SESSION" ] && [ -n "$TD_PANE_ID" ] || exit 0
node=${TD_NODE:-node}
command -v "$node" >/dev/null 2>&1 || exit 0
case "$0" in
  */*) dir=${0%/*} ;;
  *) dir=. ;;
esac
ELECTRON_RUN_AS_NODE=1 exec "$node" --experimental-strip-types --no-warnings=ExperimentalWarning "$dir/../../main/agent-channel/hook.ts" "$@"
