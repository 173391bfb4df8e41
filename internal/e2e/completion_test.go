package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/run"
)

// The completion scripts, run by the real shells, complete owt's flags
// and its values from this world: the tools installed, the templates and
// hosts of the config, the agents of this repository, the runs and their
// tasks. owt run status <TAB> offers no "help".
func TestShellCompletionOffersFlagsAndValues(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("shop")
	e.userConfig("[hosts.gpu1]\naddress = \"me@gpu1.example.invalid\"\n\n[templates.spike]\nprompt = \"Spike: {{.Task}}\"\n")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "cart", "the cart page")
	e.WriteFile(repo, "launch.toml", "[[task]]\nid = \"models\"\ntask = \"Models\"\n\n[[task]]\nid = \"api\"\ntask = \"The API\"\ndepends_on = [\"models\"]\n")
	p, err := run.ParseFile(filepath.Join(repo, "launch.toml"))
	require.NoError(t, err)
	// Registered straight in the store: completion reads runs, and no
	// engine needs to start their agents for that.
	store := run.Store{Dir: filepath.Join(e.Var("XDG_STATE_HOME"), "owt", "runs")}
	require.NoError(t, os.MkdirAll(store.Dir, 0o700))
	require.NoError(t, store.Create(run.NewRun("launch", repo, "main", p, time.Now())))

	// The shells find owt on PATH, as a user's do.
	env := e.Environ("PATH=" + filepath.Dir(owtBin) + string(os.PathListSeparator) + e.Var("PATH"))
	script := e.MustOwt(repo, "completion", "bash")
	bash := func(words ...string) []string {
		t.Helper()
		cmd := exec.Command("bash", "--norc", "--noprofile", "-c", script+`
COMP_WORDS=(owt "$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
_owt_complete
printf '%s\n' "${COMPREPLY[@]}"`, "bash")
		cmd.Args = append(cmd.Args, words...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return strings.Fields(string(out))
	}
	for _, c := range []struct {
		words     []string
		want, not []string
	}{
		{[]string{"new", "--"}, []string{"--tool", "--template", "--host", "--switch"}, []string{"--spec-stdin"}},
		{[]string{"new", "--tool", ""}, []string{"claude", "codex"}, nil},
		{[]string{"new", "--tool", "=", "cl"}, []string{"claude"}, []string{"codex"}},
		{[]string{"new", "--template", ""}, []string{"auto", "none", "bugfix", "spike"}, nil},
		{[]string{"new", "--host", ""}, []string{"gpu1"}, nil},
		{[]string{"new", "--base", ""}, []string{"main"}, nil},
		{[]string{"switch", ""}, []string{"cart"}, []string{"help", "h"}},
		{[]string{"merge", "c"}, []string{"cart"}, nil},
		{[]string{"wait", "cart", ""}, nil, []string{"cart"}},
		{[]string{"run", "status", ""}, []string{"launch"}, []string{"help", "h"}},
		{[]string{"run", "retry", "launch", ""}, []string{"models", "api"}, nil},
		{[]string{"host", "check", ""}, []string{"gpu1"}, nil},
		{[]string{"lis"}, []string{"list"}, nil},
	} {
		got := bash(c.words...)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("bash: owt %s<TAB> offers %q, without %q", strings.Join(c.words, " "), got, w)
			}
		}
		for _, w := range c.not {
			if slices.Contains(got, w) {
				t.Errorf("bash: owt %s<TAB> offers %q, with %q", strings.Join(c.words, " "), got, w)
			}
		}
	}

	// A branch may hold shell syntax (any agent can make one: refs are
	// shared). bash pastes what completion gives as it is, so the script
	// quotes it: the completed line, run by the shell on Enter, hands owt
	// the name and runs nothing. Typed quoted, it completes the same.
	pwn := filepath.Join(e.Root, "PWN")
	hostile := "x$(touch${IFS}" + pwn + ")"
	e.Git(repo, "branch", hostile)
	enter := func(words ...string) string {
		t.Helper()
		cmd := exec.Command("bash", "--norc", "--noprofile", "-c", script+`
COMP_WORDS=(owt "$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
_owt_complete
[[ ${#COMPREPLY[@]} == 1 ]] || { echo "offered: ${COMPREPLY[*]}"; exit 1; }
COMP_WORDS[COMP_CWORD]=${COMPREPLY[0]}
line="${COMP_WORDS[*]}"
printf '%s\n' "$line"
owt() { printf '<%s>\n' "$@"; }
eval "$line"`, "bash")
		cmd.Args = append(cmd.Args, words...)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	for _, typed := range []string{"x", `x\$\(tou`, `'x$(to`} {
		out := enter("new", "--base", typed)
		require.Contains(t, out, "\n<new>\n<--base>\n<"+hostile+">\n", "owt new --base %s<TAB> then Enter", typed)
		require.NoFileExists(t, pwn, "owt new --base %s<TAB> then Enter ran the branch's $(…)", typed)
	}

	// fish completes the same way from its own script, with what each is.
	if _, err := exec.LookPath("fish"); err == nil {
		e.WriteFile(e.Root, "owt.fish", e.MustOwt(repo, "completion", "fish"))
		cmd := exec.Command("fish", "--no-config", "-c", "source "+filepath.Join(e.Root, "owt.fish")+`; complete -C"owt run status "; complete -C"owt new --tem"; complete -C"owt switch "`)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "launch\tactive")
		require.Contains(t, string(out), "--template\ttask TEMPLATE")
		require.Contains(t, string(out), "cart\t")
		require.NotContains(t, string(out), "help")
	} else {
		t.Log("fish is not installed: its script is not tried")
	}
	// zsh: the script's function, with zsh's own completion calls
	// standing in (they need an interactive shell): what it hands them.
	if _, err := exec.LookPath("zsh"); err == nil {
		cmd := exec.Command("zsh", "-f", "-c", `compdef() {}
eval "$(owt completion zsh)"
_describe() { print -rl -- "${(@P)${@[-1]}}" }
_files() { print FILES }
words=(owt new --tool ''); CURRENT=4; _owt
words=(owt run start ''); CURRENT=4; _owt`)
		cmd.Dir, cmd.Env = repo, env
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Contains(t, string(out), "claude:")
		require.Contains(t, string(out), "\nFILES")
	} else {
		t.Log("zsh is not installed: its script is not tried")
	}
}
