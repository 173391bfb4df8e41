package plugincmd

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/urfave/cli/v2"
)

const bashCompletion = `# owt bash completion: eval "$(owt completion bash)"
_owt_complete() {
	local cur words
	cur="${COMP_WORDS[COMP_CWORD]}"
	words=("${COMP_WORDS[@]:0:COMP_CWORD}")
	COMPREPLY=($(compgen -W "$("${words[@]}" --generate-bash-completion 2>/dev/null)" -- "$cur"))
}
complete -o default -F _owt_complete owt
`

const zshCompletion = `#compdef owt
# owt zsh completion: eval "$(owt completion zsh)"
_owt() {
	local -a opts
	opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
	_describe 'owt' opts
}
compdef _owt owt
`

const fishCompletion = `# owt fish completion: owt completion fish | source
complete -c owt -f -a '(commandline -opc | string join " " | xargs -I{} sh -c "{} --generate-bash-completion" 2>/dev/null)'
`

func CompletionCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
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
