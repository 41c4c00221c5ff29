#!/bin/sh
# Terminal Delight's Claude Code hook (TDAC 0.2), the command Claude Code runs.
# Outside a Terminal Delight pane it does nothing, at once, silently, and exits 0,
# without starting node. Inside one it hands over to tdac-hook.mjs (Node >= 18).
[ -n "$TD_SESSION" ] && [ -n "$TD_PANE_ID" ] || exit 0
command -v node >/dev/null 2>&1 || exit 0
case "$0" in
  */*) dir=${0%/*} ;;
  *) dir=. ;;
esac
exec node "$dir/tdac-hook.mjs" "$@"
