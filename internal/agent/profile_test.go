package agent

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
)

func builtin(t *testing.T, name string) Profile {
	t.Helper()
	for _, p := range Builtins() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no builtin %q", name)
	return Profile{}
}

func TestBuiltinsOrderAndValidity(t *testing.T) {
	var names []string
	for _, p := range Builtins() {
		names = append(names, p.Name)
		assert.Empty(t, validate("tools."+p.Name, p), p.Name)
		assert.NotEmpty(t, p.InstallHint, p.Name)
		assert.NotEmpty(t, p.Headless, p.Name)
		assert.NotEmpty(t, p.Ready, p.Name)
		assert.NotEmpty(t, p.Working, p.Name)
		assert.NotEmpty(t, p.Idle, p.Name)
		assert.NotContains(t, p.InstallHint, "npmjs", p.Name)
		assert.NotContains(t, p.InstallHint, "pypi", p.Name)
	}
	assert.Equal(t, []string{"claude", "codex", "gemini", "opencode", "droid", "amp", "pi", "cursor-agent", "aider"}, names)
}

func TestBuiltinsAreCopies(t *testing.T) {
	a := Builtins()
	a[0].Command[0] = "changed"
	assert.Equal(t, "claude", Builtins()[0].Command[0])
}

func TestArgv(t *testing.T) {
	tricky := "fix \"quoted\" 'bits'\nsecond line $(rm -rf /) `id` ; && | * ~ $HOME"
	cases := []struct {
		tool    string
		task    string
		plan    bool
		approve bool
		want    []string
	}{
		{"claude", "do it", false, false, []string{"claude", "do it"}},
		{"claude", "do it", true, false, []string{"claude", "--permission-mode", "plan", "do it"}},
		{"claude", "do it", false, true, []string{"claude", "--dangerously-skip-permissions", "do it"}},
		{"claude", "do it", true, true, []string{"claude", "--permission-mode", "plan", "--dangerously-skip-permissions", "do it"}},
		{"claude", "", false, false, []string{"claude"}},
		{"claude", tricky, false, false, []string{"claude", tricky}},
		{"codex", "t", true, false, []string{"codex", "--sandbox", "read-only", "t"}},
		{"codex", "t", false, true, []string{"codex", "--dangerously-bypass-approvals-and-sandbox", "t"}},
		{"gemini", "t", false, false, []string{"gemini", "-i", "t"}},
		{"gemini", tricky, false, false, []string{"gemini", "-i", tricky}},
		{"gemini", "", false, false, []string{"gemini"}},
		{"gemini", "t", true, false, []string{"gemini", "--approval-mode", "plan", "-i", "t"}},
		{"gemini", "t", false, true, []string{"gemini", "--approval-mode", "yolo", "-i", "t"}},
		// plan wins over a conflicting approve flag
		{"gemini", "t", true, true, []string{"gemini", "--approval-mode", "plan", "-i", "t"}},
		{"opencode", "t", false, false, []string{"opencode", "--prompt", "t"}},
		{"opencode", "t", true, true, []string{"opencode", "--agent", "plan", "--auto", "--prompt", "t"}},
		{"droid", "t", false, true, []string{"droid", "--skip-permissions-unsafe", "t"}},
		{"pi", tricky, false, false, []string{"pi", tricky}},
		{"pi", "t", false, true, []string{"pi", "t"}}, // nothing to skip
		{"cursor-agent", "t", true, true, []string{"cursor-agent", "--mode=plan", "--force", "t"}},
		// paste tools never get the task on the command line
		{"amp", "t", false, false, []string{"amp"}},
		{"amp", "t", false, true, []string{"amp", "--dangerously-allow-all"}},
		{"aider", tricky, false, false, []string{"aider"}},
		{"aider", "t", true, true, []string{"aider", "--chat-mode", "ask", "--yes-always"}},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			got, err := builtin(t, c.tool).Argv(c.task, c.plan, c.approve)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}
}

func TestArgvTaskIsOneElement(t *testing.T) {
	task := "line one\nline \"two\"\t$(whoami) `date` 'x' \\ end"
	for _, p := range Builtins() {
		if p.Prompt != PromptArg {
			continue
		}
		argv, err := p.Argv(task, false, false)
		require.NoError(t, err)
		assert.Equal(t, task, argv[len(argv)-1], p.Name)
		n := 0
		for _, a := range argv {
			if strings.Contains(a, "line") {
				n++
			}
		}
		assert.Equal(t, 1, n, p.Name)
	}
}

func TestArgvNoPlanMode(t *testing.T) {
	for _, name := range []string{"droid", "amp", "pi"} {
		_, err := builtin(t, name).Argv("t", true, false)
		require.Error(t, err, name)
		assert.True(t, errors.Is(err, ErrNoPlanMode))
		assert.Equal(t, `tool "`+name+`" has no plan mode`, err.Error())
	}
}

func TestArgvDoesNotAlias(t *testing.T) {
	p := builtin(t, "claude")
	argv, err := p.Argv("t", true, false)
	require.NoError(t, err)
	argv[0] = "x"
	argv[1] = "y"
	assert.Equal(t, "claude", p.Command[0])
	assert.Equal(t, "--permission-mode", p.Plan[0])
}

func TestHeadlessArgv(t *testing.T) {
	task := "multi\nline \"task\" $(x)"
	want := map[string][]string{
		"claude":       {"claude", "-p", task},
		"codex":        {"codex", "exec", task},
		"gemini":       {"gemini", "-p", task},
		"opencode":     {"opencode", "run", task},
		"droid":        {"droid", "exec", task},
		"amp":          {"amp", "-x", task},
		"pi":           {"pi", "-p", task},
		"cursor-agent": {"cursor-agent", "-p", task},
		"aider":        {"aider", "--message", task},
	}
	for _, p := range Builtins() {
		got, err := p.HeadlessArgv(task)
		require.NoError(t, err, p.Name)
		assert.Equal(t, want[p.Name], got, p.Name)
	}

	_, err := Profile{Name: "x", Command: []string{"x"}}.HeadlessArgv("t")
	assert.True(t, errors.Is(err, ErrNoHeadless))
	_, err = builtin(t, "claude").HeadlessArgv("")
	assert.Error(t, err)
}

func TestNeedsPaste(t *testing.T) {
	assert.True(t, builtin(t, "aider").NeedsPaste("t"))
	assert.True(t, builtin(t, "amp").NeedsPaste("t"))
	assert.False(t, builtin(t, "aider").NeedsPaste(""))
	assert.False(t, builtin(t, "claude").NeedsPaste("t"))
	assert.False(t, Profile{Prompt: PromptNone}.NeedsPaste("t"))
}

func TestProfilesNoConfig(t *testing.T) {
	ps, err := Profiles(config.Config{})
	require.NoError(t, err)
	assert.Len(t, ps, len(Builtins()))
	assert.Equal(t, builtin(t, "codex"), ps["codex"])
}

func TestProfilesOverrideOneField(t *testing.T) {
	cfg := config.Defaults()
	cfg.Tools = map[string]config.Tool{
		"claude": {Approve: []string{"--permission-mode", "acceptEdits"}},
	}
	ps, err := Profiles(cfg)
	require.NoError(t, err)
	c := ps["claude"]
	want := builtin(t, "claude")
	assert.Equal(t, []string{"--permission-mode", "acceptEdits"}, c.Approve)
	assert.Equal(t, want.Command, c.Command)
	assert.Equal(t, want.Plan, c.Plan)
	assert.Equal(t, want.Working, c.Working)
	assert.Equal(t, want.Prompt, c.Prompt)
	assert.Equal(t, "claude", c.Hooks)
	// other builtins untouched
	assert.Equal(t, builtin(t, "codex"), ps["codex"])
}

func TestProfilesEmptyPlanMeansNone(t *testing.T) {
	cfg := config.Config{Tools: map[string]config.Tool{"claude": {Plan: []string{}}}}
	ps, err := Profiles(cfg)
	require.NoError(t, err)
	_, err = ps["claude"].Argv("t", true, false)
	assert.True(t, errors.Is(err, ErrNoPlanMode))
}

func TestProfilesCustomTool(t *testing.T) {
	cfg := config.Config{Tools: map[string]config.Tool{
		"mybot": {
			Command: []string{"mybot", "--tui"},
			Ready:   `^ready>`,
			Working: `busy`,
		},
	}}
	ps, err := Profiles(cfg)
	require.NoError(t, err)
	p := ps["mybot"]
	assert.Equal(t, "mybot", p.Name)
	assert.Equal(t, PromptArg, p.Prompt, "custom tools default to a positional prompt")
	assert.Equal(t, "", p.Hooks)
	assert.Nil(t, p.Plan)
	argv, err := p.Argv("hello world", false, true)
	require.NoError(t, err)
	assert.Equal(t, []string{"mybot", "--tui", "hello world"}, argv)
	assert.Equal(t, append(builtinOrder(), "mybot"), Order(ps))
}

func TestProfilesErrorsNameKey(t *testing.T) {
	cases := []struct {
		name  string
		tool  config.Tool
		tname string
		want  string
	}{
		{"bad regex on builtin", config.Tool{Ready: `([`}, "claude", "tools.claude.ready: invalid regex: "},
		{"bad regex on custom", config.Tool{Command: []string{"x"}, Waiting: `a(`}, "foo", "tools.foo.waiting: invalid regex: "},
		{"custom without command", config.Tool{Ready: "x"}, "foo", "tools.foo.command: required"},
		{"bad prompt", config.Tool{Prompt: "later"}, "codex", `tools.codex.prompt: must be "arg", "paste" or "none", not "later"`},
		{"paste without ready", config.Tool{Command: []string{"x"}, Prompt: "paste"}, "foo", "tools.foo.ready: required"},
		{"reserved name", config.Tool{Command: []string{"x"}}, "auto", `tools.auto: "auto" cannot be a tool name`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Profiles(config.Config{Tools: map[string]config.Tool{c.tname: c.tool}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, strings.HasPrefix(err.Error(), "tools."+c.tname), err.Error())
		})
	}
}

func TestProfilesReportsEveryProblem(t *testing.T) {
	_, err := Profiles(config.Config{Tools: map[string]config.Tool{
		"a": {Ready: "("},
		"b": {Command: []string{"b"}, Idle: "["},
	}})
	require.Error(t, err)
	lines := strings.Split(err.Error(), "\n")
	assert.Len(t, lines, 3)
	assert.True(t, strings.HasPrefix(lines[0], "tools.a.command: "))
	assert.True(t, strings.HasPrefix(lines[1], "tools.a.ready: invalid regex: "))
	assert.True(t, strings.HasPrefix(lines[2], "tools.b.idle: invalid regex: "))
}

func TestCompilePattern(t *testing.T) {
	re, err := CompilePattern("")
	require.NoError(t, err)
	assert.Nil(t, re)

	re, err = CompilePattern(`^ready$`)
	require.NoError(t, err)
	assert.True(t, re.MatchString("junk\nready\nmore"), "multiline is implied")

	re, err = CompilePattern(`(?i)^READY$`)
	require.NoError(t, err)
	assert.True(t, re.MatchString("junk\nready\nmore"))

	re, err = CompilePattern(`(?mi)^READY$`)
	require.NoError(t, err)
	assert.Equal(t, `(?mi)^READY$`, re.String())
}

// screens holds text as each tool shows it (or as owt's fake agent mimics
// it), per state, for the pattern checks below.
var screens = map[string]map[string]string{
	"claude": {
		"idle":    "╭──────────────────────╮\n│ > │\n╰──────────────────────╯\n  ? for shortcuts",
		"idle2":   "⏺ Done.\n\n────────────────\n❯ \n────────────────\n  ? for shortcuts",
		"working": "✻ Thinking… (12s · ↑ 1.2k tokens · esc to interrupt)\n\n│ > │",
		"waiting": " Bash command\n   rm -rf build\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and don't ask again\n   3. No, and tell Claude what to do differently (esc)",
	},
	"codex": {
		"idle":    "› Ask Codex to do anything\n\n  ? for shortcuts        100% context left",
		"working": "• Working (3s • esc to interrupt)\n› Ask Codex to do anything",
		"waiting": "Would you like to run the following command?\n  $ make test\n› 1. Yes, proceed\n  2. No, and tell Codex what to do differently",
	},
	"gemini": {
		"idle":    "╭────────────────────────────────────╮\n│ >   Type your message or @path/to/file │\n╰────────────────────────────────────╯",
		"working": "⠏ Thinking about it (esc to cancel, 5s)",
		"waiting": "Allow execution of: 'npm test'?\n● 1. Yes, allow once\n  2. Yes, allow always\n  3. No, suggest changes (esc)",
	},
	"opencode": {
		"idle":    "> \n  enter send   ctrl+p commands",
		"working": "■■⬝⬝⬝  esc interrupt",
		"waiting": "△ Permission required\n  $ rm -rf dist\n  Allow once   Allow always   Reject\n  ⇆ select  enter confirm",
	},
	"droid": {
		"idle":    "│ > │\n",
		"working": "Thinking... (esc to stop)",
		"waiting": "Execute: rm -rf dist\nUse up/down to navigate, enter to select",
	},
	"amp": {
		"idle":    "╭─37% of 168k · $1.24 (free)──────────smart─╮\n│                                            │\n╰────────────────────~/src/app (main)────────╯",
		"working": "≋ Running tools...  Esc to cancel",
		"waiting": "Run this command?\n  Approve   Allow All for This Session   Deny",
	},
	"pi": {
		"idle":    "~/src/app (main)\n↑1.2k ↓300 $0.012 3.4%/200k (auto)        claude-sonnet-4",
		"working": "⠋ Working... (esc to interrupt)",
	},
	"cursor-agent": {
		"idle":    "  → Plan, search, build anything\n  Auto   app | main",
		"working": "  Generating  1.2k tokens   ctrl+c to stop",
		"waiting": "  $ npm test\n  → Run (once) (y)\n    Skip (esc or n)",
	},
	"aider": {
		"idle":    "Tokens: 1.2k sent, 300 received.\n\n> ",
		"working": "░█ Waiting for claude-3-5-sonnet",
		"waiting": "Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: ",
	},
}

func TestScreenPatterns(t *testing.T) {
	for _, p := range Builtins() {
		ready, err := CompilePattern(p.Ready)
		require.NoError(t, err)
		working, err := CompilePattern(p.Working)
		require.NoError(t, err)
		waiting, err := CompilePattern(p.Waiting)
		require.NoError(t, err)
		idle, err := CompilePattern(p.Idle)
		require.NoError(t, err)
		match := func(re *regexp.Regexp, s string) bool { return re != nil && re.MatchString(s) }
		for state, screen := range screens[p.Name] {
			switch {
			case strings.HasPrefix(state, "idle"):
				assert.True(t, match(idle, screen), "%s idle should match %q", p.Name, screen)
				assert.True(t, match(ready, screen), "%s ready should match %q", p.Name, screen)
				assert.False(t, match(working, screen), "%s working should not match idle %q", p.Name, screen)
				assert.False(t, match(waiting, screen), "%s waiting should not match idle %q", p.Name, screen)
			case state == "working":
				assert.True(t, match(working, screen), "%s working should match %q", p.Name, screen)
				assert.False(t, match(waiting, screen), "%s waiting should not match working %q", p.Name, screen)
			case state == "waiting":
				assert.True(t, match(waiting, screen), "%s waiting should match %q", p.Name, screen)
				assert.False(t, match(working, screen), "%s working should not match waiting %q", p.Name, screen)
			}
		}
	}
}

func TestClaudeMenuIsNotTheInputPrompt(t *testing.T) {
	idle, err := CompilePattern(builtin(t, "claude").Idle)
	require.NoError(t, err)
	assert.False(t, idle.MatchString(" Do you want to proceed?\n ❯ 1. Yes\n   2. No"))
}

// writeExe puts an executable named name in dir.
func writeExe(t *testing.T, dir, name string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nexit 0\n"), 0o755))
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	ps, err := Profiles(config.Config{Tools: map[string]config.Tool{
		"mybot": {Command: []string{"mybot"}},
	}})
	require.NoError(t, err)

	// nothing installed
	_, err = Resolve(ps, "auto")
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrNotInstalled))
	assert.Contains(t, err.Error(), "claude, codex, gemini")
	assert.Contains(t, err.Error(), "npm install -g @anthropic-ai/claude-code")

	// auto follows the fixed order, not the alphabet
	writeExe(t, dir, "aider")
	writeExe(t, dir, "mybot")
	p, err := Resolve(ps, "auto")
	require.NoError(t, err)
	assert.Equal(t, "aider", p.Name)

	writeExe(t, dir, "codex")
	writeExe(t, dir, "pi")
	for _, name := range []string{"", "auto"} {
		p, err = Resolve(ps, name)
		require.NoError(t, err)
		assert.Equal(t, "codex", p.Name)
	}

	// by name
	p, err = Resolve(ps, "pi")
	require.NoError(t, err)
	assert.Equal(t, "pi", p.Name)
	path, ok := p.LookPath()
	assert.True(t, ok)
	assert.Equal(t, filepath.Join(dir, "pi"), path)

	p, err = Resolve(ps, "mybot")
	require.NoError(t, err)
	assert.Equal(t, "mybot", p.Name)

	// unknown
	_, err = Resolve(ps, "nope")
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrUnknownTool))
	assert.False(t, errors.Is(err, ErrNotInstalled))
	assert.Equal(t, `unknown tool "nope" (known: claude, codex, gemini, opencode, droid, amp, pi, cursor-agent, aider, mybot)`, err.Error())

	// known but not installed
	_, err = Resolve(ps, "gemini")
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrNotInstalled))
	assert.Equal(t, `tool "gemini" is not installed: npm install -g @google/gemini-cli`, err.Error())

	// custom, not installed, no hint
	ps["other"] = Profile{Name: "other", Command: []string{"otherbot"}, Prompt: PromptArg}
	_, err = Resolve(ps, "other")
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrNotInstalled))
	assert.Equal(t, `tool "other" is not installed: "otherbot" was not found on PATH`, err.Error())
}

func TestResolveSkipsNonExecutable(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "claude"), []byte("x"), 0o644))
	writeExe(t, dir, "gemini")
	ps, err := Profiles(config.Config{})
	require.NoError(t, err)
	p, err := Resolve(ps, "auto")
	require.NoError(t, err)
	assert.Equal(t, "gemini", p.Name)
}

func TestOrder(t *testing.T) {
	ps := map[string]Profile{
		"zeta":  {Name: "zeta"},
		"aider": {Name: "aider"},
		"alpha": {Name: "alpha"},
		"codex": {Name: "codex"},
	}
	assert.Equal(t, []string{"codex", "aider", "alpha", "zeta"}, Order(ps))
}
