# zsh -f zsh_complete.zsh FOLDER LINE
# Starts an interactive zsh in a pseudo-terminal with the completion functions of FOLDER on
# $fpath, types LINE and a Tab, and prints each candidate the completion system adds, one per
# line. Used by zsh_completion_test.sh.
zmodload zsh/zpty || exit 1
folder=$1
line=$2

# The shell is set up by its startup file, before its line editor reads any key.
home=$(mktemp -d) || exit 1
trap 'rm -rf $home' EXIT
cat >$home/.zshrc <<SETUP
PS1=''
PROMPT_EOL_MARK=''
fpath=(${(q)folder} \$fpath)
autoload -Uz compinit && compinit -u -D
zstyle ':completion:*' menu no
# Report each candidate as well as adding it. -O, -A and -D only collect matches into arrays
# for the caller, so those calls run as they are.
compadd() {
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd "\$@"; return; fi
  local -a hits
  builtin compadd -A hits "\$@"
  local hit
  for hit in \$hits; do print -r -- "<candidate>\$hit</candidate>"; done
  builtin compadd "\$@"
}
# Tab completes, then prints a marker to wait for: keys typed while completion runs would make
# it stop early, as it yields to typeahead.
complete-and-mark() { zle complete-word; print -n -- "<completed>"; }
zle -N complete-and-mark
bindkey '^I' complete-and-mark
zle-line-init() { print -n -- "<editing>"; }
zle -N zle-line-init
SETUP

zpty completer env ZDOTDIR=$home HOME=$home zsh -i
zpty -r completer setup '*<editing>*' || exit 1
zpty -n -w completer "$line"$'\t'
zpty -r completer output '*<completed>*' || exit 1
zpty -d completer
print -r -- $output | grep -o '<candidate>.*</candidate>' | sed -e 's/^<candidate>//' -e 's/<\/candidate>$//' | sort -u
