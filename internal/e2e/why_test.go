package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// whyView is the part of owt why --json the tests read: the stable field
// names scripts rely on.
type whyView struct {
	Name        string `json:"name"`
	Tool        string `json:"tool"`
	Status      string `json:"status"`
	Source      string `json:"source"`
	WaitingFor  string `json:"waiting_for"`
	Interrupted bool   `json:"interrupted"`
	Summary     string `json:"summary"`
	Hooks       []struct {
		Event  string    `json:"event"`
		Detail string    `json:"detail"`
		Status string    `json:"status"`
		At     time.Time `json:"at"`
	} `json:"hook_events"`
	Screen *struct {
		Status      string   `json:"status"`
		Rule        string   `json:"rule"`
		RuleText    string   `json:"rule_text"`
		Lines       []string `json:"lines"`
		Set         bool     `json:"set"`
		Was         string   `json:"was"`
		WasSource   string   `json:"was_source"`
		Interrupted bool     `json:"interrupted"`
		Mark        string   `json:"mark"`
	} `json:"screen"`
	Task      *json.RawMessage  `json:"task"`
	Reactions []json.RawMessage `json:"reactions"`
	Outbox    []json.RawMessage `json:"outbox"`
}

func (e *Env) why(repo, name string) whyView {
	e.t.Helper()
	out := e.MustOwt(repo, "why", name, "--json")
	var v whyView
	require.NoError(e.t, json.Unmarshal([]byte(out), &v), out)
	return v
}

// A permission prompt: owt why names the hook event that set waiting and
// the screen rule that confirmed it, with the row it matched; --json has
// the same under stable names.
func TestWhyNamesTheHookAndTheScreenRuleOfAPermissionPrompt(t *testing.T) {
	e, repo := statusEnv(t, "")
	newJSON(t, e, repo, "--tool", "claude", "--name", "a", "!ask make test\n!sleep 3s")
	r := e.Owt(repo, "wait", "a", "--until", "waiting", "--timeout", "20s")
	require.Equal(t, 0, r.Code, r.Stderr)

	var v whyView
	e.Eventually(15*time.Second, "the monitor confirms the wait on screen", func() bool {
		v = e.why(repo, "a")
		return v.Screen != nil
	})
	require.Equal(t, "a", v.Name)
	require.Equal(t, "claude", v.Tool)
	require.Equal(t, "waiting", v.Status)
	require.Equal(t, "hook", v.Source)
	var events []string
	for _, h := range v.Hooks {
		events = append(events, h.Event+"→"+h.Status)
		require.False(t, h.At.IsZero())
	}
	require.Contains(t, events, "UserPromptSubmit→working")
	require.Contains(t, events, "PermissionRequest→waiting")
	require.LessOrEqual(t, len(v.Hooks), 8, "the ring is bounded")
	require.Equal(t, "waiting", v.Screen.Status)
	require.Equal(t, "claude/permission", v.Screen.Rule)
	require.Equal(t, "waiting: permission prompt (claude)", v.Screen.RuleText)
	require.False(t, v.Screen.Set, "the hook set it; the screen confirmed it")
	require.Contains(t, v.Screen.Lines, "Do you want to proceed?")
	require.NotNil(t, v.Reactions)
	require.NotNil(t, v.Outbox)
	require.Nil(t, v.Task, "no run task")

	human := e.MustOwt(repo, "why", "a")
	first, rest, _ := strings.Cut(human, "\n")
	require.Regexp(t, `^a: waiting for permission since \d\d:\d\d \(hook PermissionRequest, confirmed by screen: 'Do you want to proceed\?' — rule claude/permission\)$`, first)
	require.Equal(t, strings.TrimPrefix(first, "a: "), v.Summary)
	require.Contains(t, rest, "PermissionRequest")
	require.Contains(t, rest, "rule claude/permission (waiting: permission prompt (claude))")
	require.Contains(t, rest, "│ Do you want to proceed?")
	require.Contains(t, rest, "none pending")
}

// Esc fires no hook: the hook said working, the screen says idle. owt why
// says the screen corrected the hook, by which rule.
func TestWhySaysTheScreenCorrectedTheHookAfterEsc(t *testing.T) {
	e, repo := statusEnv(t, "[status]\nstill_after = \"10m\"\n")
	it := newJSON(t, e, repo, "--tool", "claude", "--name", "a", "!sleep 60s")
	e.WaitScreen(it.Session, "esc to interrupt")
	e.WaitStatus(repo, "a", "working", 10*time.Second)
	e.WaitScreen(it.Session, "(3s · esc to interrupt)")
	require.Equal(t, "hook", e.why(repo, "a").Source)

	e.Tmux("send-keys", "-t", it.Session, "Escape")
	e.WaitStatus(repo, "a", "idle", 20*time.Second)
	v := e.why(repo, "a")
	require.Equal(t, "screen", v.Source)
	require.True(t, v.Interrupted)
	require.NotNil(t, v.Screen)
	require.True(t, v.Screen.Set)
	require.Equal(t, "working", v.Screen.Was)
	require.Equal(t, "hook", v.Screen.WasSource)
	require.Equal(t, "claude/prompt", v.Screen.Rule)
	require.True(t, v.Screen.Interrupted)
	require.Contains(t, v.Screen.Mark, "Interrupted · What should Claude do instead?")
	require.NotEmpty(t, v.Screen.Lines)
	require.Equal(t, "working", v.Hooks[len(v.Hooks)-1].Status, "the hook's last word was working")
	require.Contains(t, v.Summary, "the screen corrected what the hook said working")
	require.Contains(t, v.Summary, "rule claude/prompt")
	require.Contains(t, v.Summary, "turn interrupted ('")

	human := e.MustOwt(repo, "why", "a")
	require.Contains(t, human, "set idle, correcting working from hook")
	require.Contains(t, human, "the turn was interrupted")
	// Text stays owt.log's format by default: the monitor's line says the rule.
	e.requireTextLog()
	require.NotEmpty(t, logLinesWith(e.LogLines("monitor"), "a: idle on screen (was working from hook; rule claude/prompt)"))
}

// owt why of a name with no record: one line on stderr, exit 3 like every
// command given an unknown NAME, and nothing written.
func TestWhyOfAnUnknownNameChangesNothing(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "a")
	e.Eventually(5*time.Second, "shell session settles", func() bool { return e.Find(repo, "a").Status == "idle" })
	before := e.snapshot(repo)

	r := e.Owt(repo, "why", "nosuch")
	requireOneLineError(t, r, "nosuch")
	require.Equal(t, 3, r.Code)
	require.Empty(t, r.Stdout)
	r = e.Owt(repo, "why", "nosuch", "--json")
	require.Equal(t, 3, r.Code)
	require.Empty(t, r.Stdout)
	require.Equal(t, 2, e.Owt(repo, "why").Code)
	require.Equal(t, 2, e.Owt(repo, "why", "a", "b").Code)
	require.Equal(t, before, e.snapshot(repo), "owt why writes nothing")

	v := e.why(repo, "a")
	require.Equal(t, "a", v.Name)
	require.Empty(t, v.Hooks)
	require.Contains(t, v.Summary, "(owt)")
}

// The screen's rows owt why shows are the agent's words: a dialog row the
// agent filled with escape sequences is shown as the text on its screen,
// and nothing reaches the terminal but text.
func TestWhyDrawsTheAgentsScreenRowsInert(t *testing.T) {
	e, repo := statusEnv(t, "")
	newJSON(t, e, repo, "--tool", "claude", "--name", "a",
		"!ask Do you want to run \x1b[31mrm -rf /\x1b[0m\x1b]0;PWNED\x07 now?\n!sleep 3s")
	r := e.Owt(repo, "wait", "a", "--until", "waiting", "--timeout", "20s")
	require.Equal(t, 0, r.Code, r.Stderr)
	var v whyView
	e.Eventually(15*time.Second, "the monitor confirms the wait on screen", func() bool {
		v = e.why(repo, "a")
		return v.Screen != nil
	})
	var row string
	for _, l := range v.Screen.Lines {
		if strings.Contains(l, "rm -rf /") {
			row = l
		}
	}
	require.NotEmpty(t, row, "the agent's own row matched the rule: %q", v.Screen.Lines)
	human := e.MustOwt(repo, "why", "a")
	require.Contains(t, human, "│ "+row+"\n")
	for _, out := range []string{human, e.MustOwt(repo, "why", "a", "--json")} {
		require.NotContains(t, out, "\x1b")
		require.NotContains(t, out, "\x07")
	}
}

// A run's task: owt why shows its state and what the run's judge saw.
func TestWhyShowsTheRunTaskAndWhatTheJudgeSaw(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "g.toml", `[run]
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"
`)
	e.MustOwt(repo, "run", "start", "g.toml")
	e.MustOwt(repo, "tmux", "init")
	e.Eventually(40*time.Second, "run g finished", func() bool { return e.runStatus(repo, "g").State == "finished" })

	out := e.MustOwt(repo, "why", "g-a", "--json")
	var v struct {
		Task *struct {
			Run, ID, State string
			Evidence       struct {
				Signal, Summary string
				Commits         int
			}
		} `json:"task"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	require.NotNil(t, v.Task, out)
	require.Equal(t, "g", v.Task.Run)
	require.Equal(t, "a", v.Task.ID)
	require.Equal(t, "done", v.Task.State)
	require.Equal(t, "owt done", v.Task.Evidence.Signal)
	require.Equal(t, 1, v.Task.Evidence.Commits)

	human := e.MustOwt(repo, "why", "g-a")
	require.Contains(t, human, "run task: a of run g, done since ")
	require.Regexp(t, `the judge saw \(\d\d:\d\d:\d\d\): signal owt done, 1 commit\(s\)`, human)
	require.Contains(t, human, "said: did-a.txt")
}

// A working agent whose tool told no hook of the turn (OpenCode has no
// hooks; Codex, run with -c notify, reports only the turn's end): owt
// (the runner, owt send) set working on what the screen showed, and owt
// why gives that screen, with its rule, as the evidence.
func TestWhyGivesTheScreenOfAWorkingAgentWithoutHooks(t *testing.T) {
	e, repo := statusEnv(t, "")
	for _, tool := range []string{"opencode", "codex"} {
		newJSON(t, e, repo, "--tool", tool, "--no-setup", "--name", tool, "!sleep 60s")
		e.WaitStatus(repo, tool, "working", 15*time.Second)
		var v whyView
		e.Eventually(15*time.Second, tool+": the screen's evidence for working", func() bool {
			v = e.why(repo, tool)
			return v.Screen != nil
		})
		require.Equal(t, "working", v.Status, tool)
		require.Equal(t, "owt", v.Source, tool)
		require.Equal(t, "working", v.Screen.Status, tool)
		require.True(t, strings.HasPrefix(v.Screen.Rule, tool+"/"), "%s: %s", tool, v.Screen.Rule)
		require.NotEmpty(t, v.Screen.Lines, tool)
		require.Contains(t, v.Summary, "owt, confirmed by screen: '", tool)
		require.Contains(t, e.MustOwt(repo, "why", tool), "confirmed working at", tool)
	}
}
