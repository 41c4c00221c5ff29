# Terminal Delight shell integration for zsh: $ZDOTDIR/.zprofile (see zshenv.zsh).
if __td_si_enter .zprofile; then builtin source "$ZDOTDIR/.zprofile"; __td_si_leave; fi
