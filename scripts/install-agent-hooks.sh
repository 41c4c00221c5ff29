#!/bin/sh
# Installs Terminal Delight's Claude Code hooks (TDAC 0.2) and registers its MCP server
# with Claude Code, merging into what is there; --uninstall takes out exactly that.
#
#   scripts/install-agent-hooks.sh [--project DIR] [--settings FILE] [--mcp-config FILE | --no-mcp] [--uninstall]
#
# Without --project: the user's ~/.claude/settings.json and ~/.claude.json (mcpServers,
# Claude Code's user scope); $CLAUDE_CONFIG_DIR moves both as it does for Claude Code.
# With --project DIR: DIR/.claude/settings.json and DIR/.mcp.json (project scope).
# --settings FILE and --mcp-config FILE name other files. Needs node (Claude Code's own).
# (--record FILE, from `terminal-delight hooks`: note the files changed in that record.)
set -eu

usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
}

die() {
  echo "install-agent-hooks: $*" >&2
  exit 2
}

mode=install
project=
settings=
mcp=
no_mcp=
record=
while [ $# -gt 0 ]; do
  case $1 in
    --project) [ $# -ge 2 ] || die "--project needs a folder, like --project ~/src/app"; project=$2; shift 2 ;;
    --project=*) project=${1#*=}; shift ;;
    --settings) [ $# -ge 2 ] || die "--settings needs a file, like --settings ~/.claude/settings.json"; settings=$2; shift 2 ;;
    --settings=*) settings=${1#*=}; shift ;;
    --mcp-config) [ $# -ge 2 ] || die "--mcp-config needs a file, like --mcp-config ~/.claude.json"; mcp=$2; shift 2 ;;
    --mcp-config=*) mcp=${1#*=}; shift ;;
    --no-mcp) no_mcp=1; shift ;;
    --record) [ $# -ge 2 ] || die "--record needs a file"; record=$2; shift 2 ;;
    --uninstall) mode=uninstall; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option \"$1\": see --help" ;;
  esac
done

command -v node >/dev/null 2>&1 || die "node is not on PATH: install Node (Claude Code runs on it) and run again; nothing was changed"

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

if [ -n "$project" ]; then
  [ -d "$project" ] || die "project folder \"$project\" does not exist: give an existing folder; nothing was changed"
  project=$(cd "$project" && pwd)
  [ -n "$settings" ] || settings=$project/.claude/settings.json
  [ -n "$mcp" ] || mcp=$project/.mcp.json
else
  home=${HOME:-}
  [ -n "$home" ] || [ -n "${CLAUDE_CONFIG_DIR:-}" ] || die "HOME is not set: pass --settings and --mcp-config; nothing was changed"
  config_dir=${CLAUDE_CONFIG_DIR:-$home/.claude}
  [ -n "$settings" ] || settings=$config_dir/settings.json
  if [ -z "$mcp" ]; then
    if [ -n "${CLAUDE_CONFIG_DIR:-}" ]; then mcp=$CLAUDE_CONFIG_DIR/.claude.json; else mcp=$home/.claude.json; fi
  fi
fi
[ -z "$no_mcp" ] || mcp=none

exec node "$root/scripts/hooks/settings-merge.mjs" "$mode" \
  --settings "$settings" --mcp "$mcp" \
  --hook "$root/scripts/hooks/tdac-hook.sh" --bin "$root/bin/terminal-delight" \
  ${record:+--record "$record"}
