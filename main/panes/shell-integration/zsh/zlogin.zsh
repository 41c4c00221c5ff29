# Terminal Delight shell integration for zsh: $ZDOTDIR/.zlogin (see zshenv.zsh).
if __td_si_enter .zlogin; then builtin source "$ZDOTDIR/.zlogin"; __td_si_leave; fi
# Read after .zshrc in a login shell: the person's .zlogin may have moved PATH too.
__td_si_restore
__td_si_release
