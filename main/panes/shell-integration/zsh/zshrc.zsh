# Terminal Delight shell integration for zsh: $ZDOTDIR/.zshrc (see zshenv.zsh).
if __td_si_enter .zshrc; then builtin source "$ZDOTDIR/.zshrc"; __td_si_leave; fi

# The app's bin/ first on PATH (once), and the TD_* variables as the app set them
# (a login shell's /etc/zsh/zprofile or the person's files may set PATH from scratch).
__td_si_restore() {
	emulate -L zsh
	local kv
	for kv in "${__td_si_kept[@]}"; do
		export "$kv"
	done
	if [[ -n "$__td_si_bin" ]]; then
		path=("$__td_si_bin" "${(@)path:#$__td_si_bin}")
		export PATH
	fi
}
__td_si_restore

# Marks: OSC 133 A/B around the prompt, C when a command starts, D;<status> when it ends,
# and OSC 7 with the folder at every prompt.
typeset -g __td_si_ran=''
typeset -g __td_si_ps1=''
typeset -g __td_si_ps1_plain=''

typeset -g __td_si_cwd=''
typeset -g __td_si_cwd_url=''

# $PWD as the path of a file:// URL, in REPLY: bytes outside [A-Za-z0-9/._~-] percent-encoded.
__td_si_urlpath() {
	emulate -L zsh
	local LC_ALL=C s="$1" c
	local -i i
	REPLY=''
	for (( i = 1; i <= ${#s}; i++ )); do
		c="${s[i]}"
		if [[ "$c" == [A-Za-z0-9/._~-] ]]; then
			REPLY+="$c"
		else
			printf -v c '%%%02X' "'$c"
			REPLY+="$c"
		fi
	done
}

__td_si_precmd() {
	local ret=$?
	emulate -L zsh
	if [[ -n "$__td_si_ran" ]]; then
		printf '\e]133;D;%s\a' "$ret"
		__td_si_ran=''
	fi
	if [[ "$PWD" != "$__td_si_cwd" ]]; then
		local REPLY
		__td_si_urlpath "$PWD"
		__td_si_cwd="$PWD"
		__td_si_cwd_url="$REPLY"
	fi
	printf '\e]7;file://%s%s\a' "${HOST-}" "$__td_si_cwd_url"
	# Wrap the prompt again whenever something else set it anew (themes do, every prompt).
	if [[ "$PS1" != "$__td_si_ps1" ]]; then
		__td_si_ps1_plain="$PS1"
		__td_si_ps1=$'%{\e]133;A\a%}'"$PS1"$'%{\e]133;B\a%}'
		PS1="$__td_si_ps1"
	fi
}

__td_si_preexec() {
	emulate -L zsh
	# The prompt as it was, so a theme that edits PS1 in place never wraps it twice.
	[[ "$PS1" == "$__td_si_ps1" ]] && PS1="$__td_si_ps1_plain" && __td_si_ps1=''
	__td_si_ran=1
	printf '\e]133;C\a'
}

autoload -Uz add-zsh-hook
# Last, so the prompt is wrapped after every other hook has set it (each sees the same $?).
add-zsh-hook precmd __td_si_precmd
add-zsh-hook preexec __td_si_preexec

# A login shell reads .zlogin next, which gives ZDOTDIR back; otherwise it is done here.
[[ -o login && -o rcs ]] || __td_si_release
