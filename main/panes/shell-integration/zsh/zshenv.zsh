# Terminal Delight shell integration for zsh: $ZDOTDIR/.zshenv.
#
# The app starts zsh with ZDOTDIR pointing at a folder of its own holding this file as
# .zshenv (and zprofile.zsh, zshrc.zsh, zlogin.zsh as .zprofile, .zshrc, .zlogin), never
# editing the person's files. Each one runs the person's own file of the same name from
# their ZDOTDIR (TD_SI_ZDOTDIR, else $HOME) with ZDOTDIR set to it, then sets ZDOTDIR back
# to the app's folder so zsh finds the next one here. zshrc.zsh puts back the app's PATH
# entry and TD_* variables and adds the marks; the last file read gives the person's
# ZDOTDIR back for good.

# What the app gave the pane, before any of the person's files run (once per shell).
if [[ -z "${__td_si_user_zdotdir+x}" ]]; then
	typeset -g __td_si_dir="$ZDOTDIR"
	typeset -g __td_si_user_zdotdir="${TD_SI_ZDOTDIR:-$HOME}"
	typeset -g __td_si_zdotdir_was_set="${TD_SI_ZDOTDIR:+1}"
	typeset -g __td_si_bin="${TD_SI_BIN-}"
	typeset -ga __td_si_kept
	__td_si_kept=()
	() {
		local name
		for name in ${(k)parameters[(I)TD_*]}; do
			[[ "$name" == TD_SI_* || "${parameters[$name]}" != *export* ]] && continue
			__td_si_kept+=("$name=${(P)name}")
		done
	}
fi

# Around one of the person's startup files ($1: .zshenv, .zprofile, .zshrc or .zlogin),
# which each app file sources at its top level (inside a function, its typeset and
# local would make the person's variables local to that function):
#   if __td_si_enter .zshrc; then builtin source "$ZDOTDIR/.zshrc"; __td_si_leave; fi
# enter says whether zsh would read it and sets ZDOTDIR to the person's; leave follows a
# ZDOTDIR their file set, and sets the app's back so zsh finds the next file here.
__td_si_enter() {
	[[ -o rcs && -f "$__td_si_user_zdotdir/$1" && "$__td_si_user_zdotdir" != "$__td_si_dir" ]] || return 1
	ZDOTDIR="$__td_si_user_zdotdir"
}
__td_si_leave() {
	__td_si_user_zdotdir="${ZDOTDIR:-$HOME}"
	ZDOTDIR="$__td_si_dir"
}

# The person's ZDOTDIR back (unset when they had none), once the app's files are done.
__td_si_release() {
	unset TD_SI_BIN TD_SI_ZDOTDIR
	if [[ -n "$__td_si_zdotdir_was_set" || "$__td_si_user_zdotdir" != "$HOME" ]]; then
		export ZDOTDIR="$__td_si_user_zdotdir"
	else
		unset ZDOTDIR
	fi
}

if __td_si_enter .zshenv; then builtin source "$ZDOTDIR/.zshenv"; __td_si_leave; fi
# A non-interactive zsh (a script run while this one starts) reads no more files.
[[ -o interactive ]] || __td_si_release
