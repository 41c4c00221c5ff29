# Terminal Delight shell integration for bash.
#
# The app starts an interactive bash as `bash --init-file <this file>` (main/panes/integration.ts),
# never editing the person's files. This file:
#   1. keeps what the app gave the pane (its bin/ folder, every exported TD_* variable);
#   2. runs the person's own startup files as bash would: for a login shell (TD_SI_LOGIN=1)
#      /etc/profile, then the first of ~/.bash_profile, ~/.bash_login, ~/.profile; otherwise
#      ~/.bashrc (bash itself has read /etc/bash.bashrc where it is built to);
#   3. puts back the app's bin/ first on PATH and the TD_* variables (Debian's /etc/profile
#      sets PATH from scratch, which left `terminal-delight` off it);
#   4. marks the prompt with OSC 133 (A prompt start, B input start, C command start,
#      D;<status> command end) and reports the folder with OSC 7 (file://host/path).
# The marks need bash 4.4 or newer (PS0, ${x@P}); older bash gets steps 1-3 only.

if [[ -n "${__td_si_loaded-}" ]]; then
	builtin return
fi
__td_si_loaded=1

# 1. What the app gave the pane.
__td_si_bin="${TD_SI_BIN-}"
__td_si_login="${TD_SI_LOGIN-}"
__td_si_kept=()
for __td_si_name in $(builtin compgen -e); do
	case "$__td_si_name" in
		TD_SI_*) ;;
		TD_*) __td_si_kept+=("$__td_si_name=${!__td_si_name}") ;;
	esac
done
builtin unset -v __td_si_name TD_SI_BIN TD_SI_LOGIN

# 2. The person's own startup files.
if [[ -n "$__td_si_login" ]]; then
	if [[ -r /etc/profile ]]; then
		builtin . /etc/profile
	fi
	if [[ -r ~/.bash_profile ]]; then
		builtin . ~/.bash_profile
	elif [[ -r ~/.bash_login ]]; then
		builtin . ~/.bash_login
	elif [[ -r ~/.profile ]]; then
		builtin . ~/.profile
	fi
elif [[ -r ~/.bashrc ]]; then
	builtin . ~/.bashrc
fi
builtin unset -v __td_si_login

# 3. The app's bin/ first on PATH (once), and the TD_* variables as the app set them.
for __td_si_kv in "${__td_si_kept[@]}"; do
	builtin export "$__td_si_kv"
done
builtin unset -v __td_si_kv __td_si_kept
if [[ -n "$__td_si_bin" ]]; then
	__td_si_rest=":${PATH-}:"
	while [[ "$__td_si_rest" == *":$__td_si_bin:"* ]]; do
		__td_si_rest="${__td_si_rest/":$__td_si_bin:"/:}"
	done
	__td_si_rest="${__td_si_rest#:}"
	__td_si_rest="${__td_si_rest%:}"
	builtin export PATH="$__td_si_bin${__td_si_rest:+:$__td_si_rest}"
	builtin unset -v __td_si_rest
fi
builtin unset -v __td_si_bin

# 4. Marks (bash 4.4+).
if ((BASH_VERSINFO[0] < 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] < 4))); then
	builtin return
fi

__td_si_A='\[\e]133;A\a\]'
__td_si_B='\[\e]133;B\a\]'
__td_si_C='\e]133;C\a'
__td_si_ps1=''
__td_si_cmdno=''
__td_si_cwd=''
__td_si_cwd_osc=''

# $PWD as the path of a file:// URL: bytes outside [A-Za-z0-9/._~-] percent-encoded.
__td_si_urlpath() {
	builtin local LC_ALL=C s="$1" out='' c i
	if [[ "$s" != *[!A-Za-z0-9/._~-]* ]]; then
		builtin printf '%s' "$s"
		builtin return
	fi
	for ((i = 0; i < ${#s}; i++)); do
		c="${s:i:1}"
		case "$c" in
			[A-Za-z0-9/._~-]) out+="$c" ;;
			*) builtin printf -v c '%%%02X' "'$c"; out+="$c" ;;
		esac
	done
	builtin printf '%s' "$out"
}

# First in PROMPT_COMMAND: the command's end (D with its status) when one ran since the
# last prompt (bash counts commands in \#), and the folder; $? is kept for what follows.
__td_si_before() {
	builtin local status=$? n='\#'
	n="${n@P}"
	if [[ "$n" != "$__td_si_cmdno" ]]; then
		[[ -n "$__td_si_cmdno" ]] && builtin printf '\e]133;D;%s\a' "$status"
		__td_si_cmdno="$n"
	fi
	if [[ "$PWD" != "$__td_si_cwd" ]]; then
		__td_si_cwd="$PWD"
		__td_si_cwd_osc="$(__td_si_urlpath "$PWD")"
	fi
	builtin printf '\e]7;file://%s%s\a' "${HOSTNAME-}" "$__td_si_cwd_osc"
	builtin return "$status"
}

# Last in PROMPT_COMMAND: the prompt wrapped in A ... B (again whenever something else set
# PS1 anew, as prompt tools do at every prompt), and C at the start of PS0 (shown once a
# command line is read, before it runs).
__td_si_after() {
	builtin local status=$?
	if [[ "$PS1" != "$__td_si_ps1" ]]; then
		__td_si_ps1="$__td_si_A$PS1$__td_si_B"
		PS1="$__td_si_ps1"
	fi
	if [[ "${PS0-}" != "$__td_si_C"* ]]; then
		PS0="$__td_si_C${PS0-}"
	fi
	builtin return "$status"
}

if ((BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1))); then
	# bash 5.1+: PROMPT_COMMAND may be a list; the person's entries stay in the middle.
	PROMPT_COMMAND=(__td_si_before "${PROMPT_COMMAND[@]}" __td_si_after)
elif [[ -n "${PROMPT_COMMAND-}" ]]; then
	PROMPT_COMMAND="__td_si_before
$PROMPT_COMMAND
__td_si_after"
else
	PROMPT_COMMAND="__td_si_before
__td_si_after"
fi
