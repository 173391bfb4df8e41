package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// scriptCmd is one scripted command: a line of a prompt that starts with
// !ask, !write, !commit, !exec, !mcp, !sleep, !exit or !fail.
type scriptCmd struct {
	name string
	arg  string
}

func parseScript(text string) []scriptCmd {
	var cmds []scriptCmd
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "!") {
			continue
		}
		name, arg := t[1:], ""
		if i := strings.IndexAny(name, " \t"); i >= 0 {
			name, arg = name[:i], strings.TrimSpace(name[i+1:])
		}
		switch name {
		case "ask", "write", "commit", "exec", "sleep", "think", "exit", "fail", "limit", "swallow-enter", "on-next", "mcp", "usage", "windows":
			cmds = append(cmds, scriptCmd{name: name, arg: arg})
		}
	}
	return cmds
}

// runTurn plays one turn: it works for OWT_FAKE_WORK, runs the scripted
// commands in order, then ends the turn (Stop hook and friends) and
// returns the one-line answer. It returns "" when the turn was interrupted
// (Esc, Ctrl-C, a "no" to a permission prompt): then no end-of-turn hook runs.
func (a *app) runTurn(ctx context.Context, gen int, text string) string {
	a.hooks.promptSubmit(text)
	a.hooks.transcriptUser(text)
	// Lines an earlier prompt held back for this one (!on-next) run first.
	own := parseScript(text)
	if len(own) == 0 { // no script in the prompt: the playbook's, if any
		own = parseScript(playbookFor(os.Getenv("OWT_FAKE_PLAYBOOK"), text))
	}
	script := append(parseScript(a.takeNext()), own...)
	if !sleepCtx(ctx, a.work) {
		return ""
	}
	exitCode := -1
	failure, limit := "", ""
	used := defaultUsage
	for _, c := range script {
		if ctx.Err() != nil {
			return ""
		}
		switch c.name {
		case "ask":
			if !a.askPermission(ctx, gen, c.arg) {
				return ""
			}
		case "write":
			if !a.refuseInReadOnly(gen, "write "+c.arg) {
				a.doWrite(gen, c.arg)
			}
		case "commit":
			if !a.refuseInReadOnly(gen, "commit") {
				a.doCommit(gen, c.arg)
			}
		case "exec":
			a.doExec(gen, c.arg)
		case "mcp":
			a.doMCP(ctx, gen, c.arg)
		case "sleep":
			if !sleepCtx(ctx, parseDuration(c.arg, time.Second)) {
				return ""
			}
		case "think":
			if !a.update(gen, func() { a.thinking = true }) {
				return ""
			}
			if !sleepCtx(ctx, parseDuration(c.arg, time.Second)) {
				return ""
			}
			a.update(gen, func() { a.thinking = false })
		case "exit":
			n, err := strconv.Atoi(c.arg)
			if err != nil {
				n = 0
			}
			exitCode = n
		case "swallow-enter":
			n, err := strconv.Atoi(c.arg)
			if err != nil {
				n = 1
			}
			a.mu.Lock()
			a.swallow = n
			a.mu.Unlock()
		case "on-next":
			a.mu.Lock()
			a.next = append(a.next, c.arg)
			a.mu.Unlock()
		case "usage":
			used = parseUsage(c.arg)
		case "windows":
			a.hooks.windows = parseWindows(c.arg)
		case "fail":
			failure = c.arg
			if failure == "" {
				failure = "authentication_failed"
			}
		case "limit":
			limit = c.arg
			if limit == "" {
				limit = a.nextMinute()
			}
		}
	}
	if limit != "" {
		// A usage limit ends the turn with the tool's words for it.
		words, line := a.limitWords(limit)
		if !a.beginTurnEnd(gen, line) {
			return ""
		}
		a.hooks.turnFailed("rate_limit", words)
		a.finishTurn(gen, exitCode)
		return words
	}

	answer := "Done: " + summary(text)
	if failure != "" {
		// An API error ends the turn (Claude: "API Error: …", StopFailure
		// instead of Stop).
		answer = "API Error: " + failure
	}
	if !a.beginTurnEnd(gen, answer) {
		return ""
	}
	if failure != "" {
		a.hooks.turnFailed(failure, answer)
	} else {
		a.hooks.transcriptAssistant(answer, used)
		a.hooks.codexRollout(text, used)
		a.hooks.statusLine()
		a.hooks.geminiChat(text, answer, used)
		a.openCodeTurn(text, used)
		a.hooks.turnEnd(text, answer)
	}
	a.finishTurn(gen, exitCode)
	return answer
}

// takeNext returns the lines held back for the next prompt (!on-next)
// and forgets them.
func (a *app) takeNext() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	lines := strings.Join(a.next, "\n")
	a.next = nil
	return lines
}

// askPermission shows a permission prompt for a shell command and waits
// for the answer. It reports whether the turn goes on.
func (a *app) askPermission(ctx context.Context, gen int, command string) bool {
	if command == "" {
		command = "echo hello"
	}
	input := map[string]any{"command": command, "description": "Run " + command}
	if r := a.hooks.preTool(toolShell, input); r.blocked {
		a.say(gen, a.blockedLine(r))
		return true
	}

	a.mu.Lock()
	auto := a.bypass || a.allowAlways
	a.mu.Unlock()
	switch {
	case auto:
		a.log.event("ask", "command", command, "answer", "auto")
	case a.headless:
		a.log.event("ask", "command", command, "answer", "denied")
		a.say(gen, "Permission to run `"+command+"` denied (non-interactive run)")
		return true
	default:
		reply := make(chan int, 1)
		if !a.update(gen, func() {
			a.st.mode = modeAsking
			a.st.ask = &askPrompt{command: command, reply: reply}
		}) {
			return false
		}
		a.hooks.permissionPrompt(toolShell, input)
		select {
		case <-reply: // the main loop logged the answer and went back to working
		case <-ctx.Done():
			return false
		}
	}
	a.say(gen, a.toolLine(a.hooks.toolName(toolShell), command))
	a.say(gen, "  ⎿  (fake) ran "+command)
	a.hooks.postTool(toolShell, input, map[string]any{"stdout": "", "stderr": "", "interrupted": false}, false)
	return true
}

// doWrite handles "!write PATH [TEXT]". TEXT understands \n, \t and \\ and
// gets a final newline; without TEXT the file holds "fake change\n".
func (a *app) doWrite(gen int, arg string) {
	path, text := arg, ""
	if i := strings.IndexAny(arg, " \t"); i >= 0 {
		path, text = arg[:i], strings.TrimSpace(arg[i+1:])
	}
	if path == "" {
		a.say(gen, "  ⎿  Error: !write needs a path")
		return
	}
	content := "fake change\n"
	if text != "" {
		content = unescape(text)
		if !strings.HasSuffix(content, "\n") {
			content += "\n"
		}
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(a.cwd, path)
	}
	input := map[string]any{"file_path": abs, "content": content}
	if r := a.hooks.preTool(toolWrite, input); r.blocked {
		a.say(gen, a.blockedLine(r))
		return
	}
	err := os.MkdirAll(filepath.Dir(abs), 0o755)
	if err == nil {
		err = os.WriteFile(abs, []byte(content), 0o644)
	}
	a.say(gen, a.toolLine(a.hooks.toolName(toolWrite), path))
	if err != nil {
		a.log.event("tool", "tool", "write", "path", path, "error", err.Error())
		a.say(gen, "  ⎿  Error: "+err.Error())
		a.hooks.postTool(toolWrite, input, map[string]any{"error": err.Error()}, true)
		return
	}
	a.log.event("tool", "tool", "write", "path", path)
	a.say(gen, "  ⎿  Wrote "+strconv.Itoa(strings.Count(content, "\n"))+" lines to "+path)
	a.hooks.postTool(toolWrite, input, map[string]any{"filePath": abs, "success": true}, false)
}

// doCommit handles "!commit MSG": git add -A, then git commit -m MSG, run
// directly (no shell) in the working directory.
func (a *app) doCommit(gen int, msg string) {
	if msg == "" {
		msg = "fake commit"
	}
	shown := "git add -A && git commit -m " + shellQuote(msg)
	input := map[string]any{"command": shown, "description": "Commit the changes"}
	if r := a.hooks.preTool(toolShell, input); r.blocked {
		a.say(gen, a.blockedLine(r))
		return
	}
	out, err := a.git("add", "-A")
	if err == nil {
		out, err = a.git("commit", "-m", msg)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
	a.say(gen, a.toolLine(a.hooks.toolName(toolShell), shown))
	if err != nil {
		a.log.event("tool", "tool", "commit", "message", msg, "error", err.Error(), "output", out)
		a.say(gen, "  ⎿  Error: "+first)
		a.hooks.postTool(toolShell, input, map[string]any{"error": err.Error() + ": " + out}, true)
		return
	}
	a.log.event("tool", "tool", "commit", "message", msg)
	a.say(gen, "  ⎿  "+first)
	a.hooks.postTool(toolShell, input, map[string]any{"stdout": out, "stderr": "", "interrupted": false}, false)
}

// doExec handles "!exec PROGRAM ARGS...": the words run as argv (split
// on spaces, no shell, no quoting) in the working directory, the way a
// real agent runs a command with its shell tool, hooks and all.
func (a *app) doExec(gen int, arg string) {
	argv := strings.Fields(arg)
	if len(argv) == 0 {
		a.say(gen, "  ⎿  Error: !exec needs a program")
		return
	}
	input := map[string]any{"command": arg, "description": "Run " + argv[0]}
	if r := a.hooks.preTool(toolShell, input); r.blocked {
		a.say(gen, a.blockedLine(r))
		return
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = a.cwd
	out, err := cmd.CombinedOutput()
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	a.say(gen, a.toolLine(a.hooks.toolName(toolShell), arg))
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	a.log.event("tool", "tool", "exec", "argv", argv, "exit", code, "output", string(out))
	if err != nil {
		a.say(gen, "  ⎿  Error: "+err.Error()+": "+first)
		a.hooks.postTool(toolShell, input, map[string]any{"error": err.Error() + ": " + string(out)}, true)
		return
	}
	a.say(gen, "  ⎿  "+first)
	a.hooks.postTool(toolShell, input, map[string]any{"stdout": string(out), "stderr": "", "interrupted": false}, false)
}

func (a *app) git(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = a.cwd
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (a *app) toolLine(tool, arg string) string {
	if a.p.bullet == "" {
		return tool + "(" + arg + ")"
	}
	return a.p.bullet + " " + tool + "(" + arg + ")"
}

func (a *app) blockedLine(r hookResult) string {
	reason := r.reason
	if reason == "" {
		reason = "no reason given"
	}
	first, _, _ := strings.Cut(reason, "\n")
	return "  ⎿  Blocked by hook: " + first
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// parseDuration reads a Go duration; a bare number counts in unit.
func parseDuration(s string, unit time.Duration) time.Duration {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		return d
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(f * float64(unit))
	}
	return 0
}

func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '\\':
			b.WriteByte('\\')
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// shellQuote quotes s for display as one shell word.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r >= '0' && r <= '9' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// limitWords are the persona's words for a usage limit that resets at
// reset, and the line it draws them on.
func (a *app) limitWords(reset string) (words, line string) {
	switch a.p.name {
	case "codex":
		words = "You've hit your usage limit. Try again at " + reset + "."
		return words, "■ " + words
	default:
		words = "You've hit your 5-hour limit · resets " + reset
		return words, "  ⎿  " + words
	}
}

// nextMinute is the next whole minute of the local clock in the
// persona's format: Claude's "3:04pm", Codex's "3:04 PM".
func (a *app) nextMinute() string {
	t := time.Now().Truncate(time.Minute).Add(time.Minute)
	if a.p.name == "codex" {
		return t.Format("3:04 PM")
	}
	return strings.ToLower(t.Format("3:04PM"))
}
