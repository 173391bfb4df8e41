package runcmd

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/cli/cmdtest"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/git"
)

const validPlan = "[[task]]\nid = \"models\"\ntask = \"add the models\"\n\n[[task]]\nid = \"api\"\ntask = \"add the API\"\ndepends_on = [\"models\"]\n"

// planWorld is an empty place to plan in: no repository around, no user
// config, temp files in a temp dir.
func planWorld(t *testing.T) string {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	xdg.Reload() // the XDG directories are read once, at start
	t.Setenv("TMPDIR", filepath.Join(dir, "tmp"))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "tmp"), 0o755))
	return dir
}

// planAs runs owt plan in-process with a tool that answers answer (or
// fails with askErr), in a repository at dir.
func planAs(t *testing.T, dir, answer string, askErr error, args ...string) (asked bool, stdout, stderr string, code int) {
	t.Helper()
	swap := func(f *cmdutil.Factory) *cli.Command {
		return PlanCommand(f, func(o *planOptions) error {
			o.Repo = func() (git.Repo, error) { return git.Repo{Root: dir}, nil }
			o.Profile = func(tool string) (agent.Profile, error) {
				if tool == "" {
					tool = "fake"
				}
				return agent.Profile{Name: tool}, nil
			}
			o.Ask = func(p agent.Profile, in, prompt string, _ io.Writer) (string, error) {
				asked = true
				require.Equal(t, dir, in)
				require.Contains(t, prompt, "Goal:\nadd login with tokens\n")
				return answer, askErr
			}
			return planRun(o)
		})
	}
	stdout, stderr, code = cmdtest.RunAlone("", swap, append([]string{"plan"}, args...)...)
	return asked, stdout, stderr, code
}

var keptIn = regexp.MustCompile(`the tool's answer is kept in (\S+)\n$`)

func TestPlanPrintsOrWritesAValidPlan(t *testing.T) {
	dir := planWorld(t)
	asked, out, stderr, code := planAs(t, dir, "Here:\n```toml\n"+validPlan+"```\n", nil, "add", "login", "with", "tokens")
	require.True(t, asked)
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	require.Equal(t, validPlan, out)
	require.Equal(t, "owt: asking fake to plan (headless, in "+dir+")…\n", stderr)

	file := filepath.Join(dir, "auth.toml")
	_, out, stderr, code = planAs(t, dir, validPlan, nil, "add login with tokens", "-o", file, "--tool", "codex")
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	require.Contains(t, stderr, "asking codex to plan")
	require.Regexp(t, `^wrote `+regexp.QuoteMeta(file)+`: .*; start it with 'owt run start `+regexp.QuoteMeta(file)+`'\n$`, out)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, validPlan, string(b))

	// The file is there now: not asked again without --force.
	asked, _, stderr, code = planAs(t, dir, validPlan, nil, "add login with tokens", "-o", file)
	require.False(t, asked)
	require.Equal(t, cmdutil.ExitUsage, code)
	require.Equal(t, "owt: "+file+" exists: give --force to overwrite it, or another -o FILE\n", stderr)

	_, _, stderr, code = planAs(t, dir, validPlan+"\n[[task]]\nid = \"docs\"\ntask = \"docs\"\n", nil, "add login with tokens", "-o", file, "--force")
	require.Equal(t, cmdutil.ExitOK, code, stderr)
	b, _ = os.ReadFile(file)
	require.Contains(t, string(b), `id = "docs"`)
}

func TestPlanRefusesBeforeAskingWhatItCouldNotWrite(t *testing.T) {
	dir := planWorld(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{}, `plan takes a GOAL, e.g. owt plan "add login with tokens" -o auth.toml`},
		{[]string{" "}, `plan takes a GOAL`},
		{[]string{"add login with tokens", "-o", dir}, dir + " is a directory: give -o a file"},
		{[]string{"add login with tokens", "-o", dir, "--force"}, dir + " is a directory: give -o a file"},
	} {
		asked, out, stderr, code := planAs(t, dir, validPlan, nil, c.args...)
		require.False(t, asked, c.args)
		require.Equal(t, cmdutil.ExitUsage, code, c.args)
		require.Empty(t, out, c.args)
		require.Contains(t, stderr, "owt: "+c.want, c.args)
	}
}

// An answer that is no valid plan, or a tool that fails, writes nothing
// and keeps what the tool said (it cost a call).
func TestPlanKeepsAnAnswerItCannotUse(t *testing.T) {
	dir := planWorld(t)
	file := filepath.Join(dir, "auth.toml")
	bad := "```toml\n[[task]]\nid = \"a\"\ntask = \"a\"\ntool = \"nosuchtool\"\n```\n"
	_, out, stderr, code := planAs(t, dir, bad, nil, "add login with tokens", "-o", file)
	require.Equal(t, cmdutil.ExitError, code)
	require.Empty(t, out)
	require.Contains(t, stderr, `owt: fake's plan: task[a].tool: unknown tool "nosuchtool" (see 'owt tools')`)
	require.Contains(t, stderr, "owt: fake's plan is not valid (1 problem(s) above); nothing written;")
	kept := keptIn.FindStringSubmatch(stderr)
	require.NotNil(t, kept, stderr)
	b, err := os.ReadFile(kept[1])
	require.NoError(t, err)
	require.Equal(t, bad, string(b))
	require.NoFileExists(t, file)

	_, _, stderr, code = planAs(t, dir, "half an answer", errors.New("fake exited 1"), "add login with tokens")
	require.Equal(t, cmdutil.ExitError, code)
	require.Contains(t, stderr, "owt: fake exited 1; the tool's answer is kept in ")
	kept = keptIn.FindStringSubmatch(stderr)
	require.NotNil(t, kept, stderr)
	b, _ = os.ReadFile(kept[1])
	require.Equal(t, "half an answer", string(b))
}
