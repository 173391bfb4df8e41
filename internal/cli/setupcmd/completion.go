package setupcmd

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/urfave/cli/v2"
)

// The scripts ask owt itself: "owt WORDS… CURRENT --generate-bash-completion"
// prints what completes CURRENT (commands, flags, agent names, runs and
// their tasks, tools, templates, hosts, branches), one a line, filtered
// by what is typed; a first line ":files" asks for the shell's own path
// completion. zsh and fish set OWT_COMPLETE_DESCRIBE and get
// "WORD<tab>what it is". Nothing typed is evaluated by the shell, and
// every word the shell puts on the line is quoted for it: bash's by
// printf %q in the script, zsh's and fish's by the shells themselves.

const bashCompletion = `# owt bash completion: eval "$(owt completion bash)" in ~/.bashrc
_owt_complete() {
	local cur=${COMP_WORDS[COMP_CWORD]} pre= out
	# bash splits --tool=codex at the "=": complete after it, keep it.
	if [[ $cur == = ]]; then
		cur= pre==
	fi
	# The words go as typed, quotes and all: owt reads them as bash will.
	out=$(OWT_COMPLETE_TYPED=1 "${COMP_WORDS[0]}" "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" --generate-bash-completion 2>/dev/null) || return 0
	COMPREPLY=()
	if [[ $out == :files* ]]; then
		compopt -o default 2>/dev/null
		return 0
	fi
	if [[ -n $out ]]; then
		mapfile -t COMPREPLY <<<"$out"
		# bash pastes a word as it is: quote each, so a branch called
		# x$(cmd) goes in as x\$\(cmd\), a name, never a command.
		local i
		for i in "${!COMPREPLY[@]}"; do
			printf -v "COMPREPLY[i]" %q "${COMPREPLY[i]}"
		done
		if [[ -n $pre ]]; then
			COMPREPLY=("${COMPREPLY[@]/#/$pre}")
		fi
	fi
}
complete -F _owt_complete owt
`

const zshCompletion = `#compdef owt
# owt zsh completion: eval "$(owt completion zsh)" in ~/.zshrc, after compinit
_owt() {
	local out line word
	local -a cands
	out=$(OWT_COMPLETE_DESCRIBE=1 ${words[1]} "${(@Q)words[2,CURRENT-1]}" "${(Q)words[CURRENT]}" --generate-bash-completion 2>/dev/null) || return 1
	if [[ $out == :files* ]]; then
		_files
		return
	fi
	for line in "${(@f)out}"; do
		[[ -z $line ]] && continue
		word=${line%%$'\t'*}
		word=${word//:/\\:}
		if [[ $line == *$'\t'* ]]; then
			cands+=("$word:${line#*$'\t'}")
		else
			cands+=("$word")
		fi
	done
	_describe -t owt 'owt' cands
}
compdef _owt owt
`

const fishCompletion = `# owt fish completion: owt completion fish | source (in ~/.config/fish/config.fish)
function __owt_complete
	set -l words (commandline -opc)
	set -l cur (commandline -ct)
	set -l out (env OWT_COMPLETE_DESCRIBE=1 $words "$cur" --generate-bash-completion 2>/dev/null)
	if test "$out[1]" = ":files"
		__fish_complete_path "$cur"
		return
	end
	printf '%s\n' $out
end
complete -c owt -f -a '(__owt_complete)'
`

// CompletionCommand is owt completion SHELL: the script that makes SHELL
// complete owt's command lines.
func CompletionCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish): commands, flags, agents, runs, tools, templates, hosts",
		ArgsUsage: "bash|zsh|fish",
		Action: func(c *cli.Context) error {
			scripts := map[string]string{"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion}
			s, ok := scripts[c.Args().First()]
			if c.NArg() != 1 || !ok {
				return cmdutil.Usagef("completion takes one of: bash, zsh, fish")
			}
			_, err := fmt.Fprint(c.App.Writer, s)
			return err
		},
	}
}
