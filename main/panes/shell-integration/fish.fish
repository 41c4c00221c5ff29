# Terminal Delight shell integration for fish.
#
# The app starts fish with `--init-command "source <this file>"` (main/panes/integration.ts),
# never editing the person's files; fish runs an init command after its configuration
# (conf.d, config.fish), so here the person's files have all run. This file puts back the
# app's bin/ (TD_SI_BIN) first on PATH and the TD_* variables as the app set them
# (TD_SI_KEPT: NAME=value lines), then marks the prompt with OSC 133 (A prompt start,
# B input start, C command start, D;<status> command end) and reports the folder with
# OSC 7 (file://host/path).

status is-interactive; or return
set -q __td_si_loaded; and return
set -g __td_si_loaded 1

# The TD_* variables as the app set them, and its bin/ first on PATH (once).
for __td_si_kv in (string split \n -- "$TD_SI_KEPT")
    set -l __td_si_pair (string split -m 1 = -- $__td_si_kv)
    test (count $__td_si_pair) -eq 2; and set -gx $__td_si_pair[1] $__td_si_pair[2]
end
set -e __td_si_kv
if test -n "$TD_SI_BIN"
    set -gx PATH $TD_SI_BIN (string match -v -- $TD_SI_BIN $PATH)
end
set -e TD_SI_KEPT
set -e TD_SI_BIN

function __td_si_status --description 'Terminal Delight: give back a status'
    return $argv[1]
end

# $PWD as the path of a file:// URL: bytes outside [A-Za-z0-9/._~-] percent-encoded.
function __td_si_urlpath --description 'Terminal Delight: a path for a file:// URL'
    string escape --style=url -- $argv[1] | string replace -a '%2F' /
end

function __td_si_preexec --on-event fish_preexec --description 'Terminal Delight: a command starts'
    set -g __td_si_ran 1
    printf '\e]133;C\a'
end

function __td_si_postexec --on-event fish_postexec --description 'Terminal Delight: a command ended'
    set -l ret $status
    if set -q __td_si_ran
        set -e __td_si_ran
        printf '\e]133;D;%s\a' $ret
    end
end

function __td_si_cwd --on-event fish_prompt --description 'Terminal Delight: the folder'
    if test "$PWD" != "$__td_si_cwd"
        set -g __td_si_cwd $PWD
        set -g __td_si_cwd_url (__td_si_urlpath $PWD)
    end
    printf '\e]7;file://%s%s\a' $hostname $__td_si_cwd_url
end

# The person's prompt wrapped in A ... B, with their $status kept for it.
if functions -q fish_prompt
    functions -c fish_prompt __td_si_user_prompt
else
    function __td_si_user_prompt
        printf '%s@%s %s> ' $USER $hostname (prompt_pwd)
    end
end
function fish_prompt --description 'Terminal Delight: the prompt, marked'
    set -l ret $status
    printf '\e]133;A\a'
    __td_si_status $ret
    __td_si_user_prompt
    printf '\e]133;B\a'
end
