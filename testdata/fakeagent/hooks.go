package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// hookKind is the hook system a persona runs, as its real tool does.
type hookKind int

const (
	hooksNone   hookKind = iota
	hooksClaude          // Claude Code: .claude/settings*.json, sh -c, JSON on stdin
	hooksDroid           // Factory Droid: the same protocol in .factory/settings.json
	hooksGemini          // Gemini CLI: .gemini/settings.json, other event names, ms timeouts
	hooksCodex           // Codex: the notify program, JSON as its last argument
)

type toolKind int

const (
	toolWrite toolKind = iota
	toolShell
)

type hookCommand struct {
	Type    string  `json:"type"`
	Command string  `json:"command"`
	Timeout float64 `json:"timeout"` // seconds (Claude, Droid), milliseconds (Gemini)
}

type hookGroup struct {
	Matcher string        `json:"matcher"`
	Hooks   []hookCommand `json:"hooks"`
}

// hookResult says whether a hook blocked the action (exit 2, or a "deny"
// decision printed on stdout) and why.
type hookResult struct {
	blocked bool
	reason  string
}

// hookRunner fires the hook events of one agent session.
type hookRunner struct {
	kind           hookKind
	events         map[string][]hookGroup
	sources        []string // settings files read, in order
	dir            string   // project dir: cwd and $..._PROJECT_DIR of every hook
	sessionID      string
	resumed        bool // started on an earlier session (--resume ID)
	transcriptPath string
	turnParent     string    // the last transcript line's uuid (Claude)
	rolloutPath    string    // Codex's rollout file of the session, once a turn ran
	codexTotal     turnUsage // Codex's running token total
	// statusLineCmd is the statusLine command of Claude's settings (the
	// last file read wins, as in Claude); windows the usage windows the
	// account has used (!windows), nil before any.
	statusLineCmd  string
	windows        []float64
	permissionMode string
	notify         []string // codex notify argv
	log            *eventLog
	bg             sync.WaitGroup // codex notify programs still running
}

func newHookRunner(p *persona, o *options, dir string, log *eventLog) *hookRunner {
	h := &hookRunner{
		kind:           p.hooks,
		events:         map[string][]hookGroup{},
		dir:            dir,
		sessionID:      newUUID(),
		permissionMode: permissionMode(p, o),
		log:            log,
	}
	home, _ := os.UserHomeDir()
	switch h.kind {
	case hooksClaude:
		h.loadSettings(filepath.Join(home, ".claude", "settings.json"),
			filepath.Join(dir, ".claude", "settings.json"),
			filepath.Join(dir, ".claude", "settings.local.json"))
		for _, s := range o.values["settings"] {
			h.loadSettingsArg(s)
		}
		h.transcriptPath = filepath.Join(home, ".claude", "projects", claudeProject(dir), h.sessionID+".jsonl")
	case hooksDroid:
		// The "hooks" key of the settings files: what droid reads when no
		// hooks.json exists (and, as of droid 0.186, all it reads:
		// Factory-AI/factory#3). It no longer reads settings.local.json.
		h.loadSettings(filepath.Join(home, ".factory", "settings.json"),
			filepath.Join(dir, ".factory", "settings.json"))
		h.transcriptPath = filepath.Join(home, ".factory", "sessions", h.sessionID+".jsonl")
	case hooksGemini:
		h.loadSettings(filepath.Join(home, ".gemini", "settings.json"),
			filepath.Join(dir, ".gemini", "settings.json"))
		// Gemini CLI 0.61's chat file: ~/.gemini/tmp/<project id>/chats/
		// session-<time>-<id8>.jsonl, the id registered in projects.json.
		h.transcriptPath = filepath.Join(geminiHome(home), "tmp", geminiProject(geminiHome(home), dir), "chats",
			"session-"+time.Now().Format("2006-01-02T15-04")+"-"+h.sessionID[:8]+".jsonl")
	case hooksCodex:
		argv, source, err := codexNotify(o, home)
		if err != nil {
			log.event("settings_error", "file", source, "error", err.Error())
		}
		if len(argv) > 0 {
			h.notify = argv
			h.sources = append(h.sources, source)
		}
	}
	return h
}

func (h *hookRunner) loadSettings(paths ...string) {
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // a missing settings file is normal
		}
		h.addSettings(path, data)
	}
}

// loadSettingsArg reads Claude's --settings value: a file, or inline JSON.
func (h *hookRunner) loadSettingsArg(v string) {
	if strings.HasPrefix(strings.TrimSpace(v), "{") {
		h.addSettings("--settings", []byte(v))
		return
	}
	data, err := os.ReadFile(v)
	if err != nil {
		h.log.event("settings_error", "file", v, "error", err.Error())
		return
	}
	h.addSettings(v, data)
}

func (h *hookRunner) addSettings(source string, data []byte) {
	var s struct {
		Hooks      map[string]json.RawMessage `json:"hooks"`
		StatusLine *struct {
			Type    string `json:"type"`
			Command string `json:"command"`
		} `json:"statusLine"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		h.log.event("settings_error", "file", source, "error", err.Error())
		return
	}
	h.sources = append(h.sources, source)
	if s.StatusLine != nil && s.StatusLine.Type == "command" {
		h.statusLineCmd = s.StatusLine.Command
	}
	for event, raw := range s.Hooks {
		var groups []hookGroup
		if err := json.Unmarshal(raw, &groups); err != nil {
			continue // not an event (e.g. Gemini's "enabled": true)
		}
		h.events[event] = append(h.events[event], groups...)
	}
}

// ---- events, named the way each tool names them ----

func (h *hookRunner) sessionStart() {
	source := "startup"
	if h.resumed {
		source = "resume" // Claude Code's SessionStart matcher for --resume
	}
	switch h.kind {
	case hooksClaude, hooksDroid, hooksGemini:
		h.fire("SessionStart", source, map[string]any{"source": source})
	}
}

// resume takes up the session id as Claude Code 2.1.330's --resume ID
// does: the session's transcript must exist in the project's folder,
// and the session keeps its id and transcript (no --fork-session). It
// returns Claude's words for an unknown id.
//
// The codex persona takes up any id (`codex resume ID`): its rollout
// files are written only for !usage, so it cannot tell an unknown one.
// The gemini persona takes up one whose chat file exists.
func (h *hookRunner) resume(id string) error {
	if h.kind == hooksCodex && id != "" {
		h.sessionID, h.resumed = id, true
		return nil
	}
	if h.kind == hooksGemini {
		// Gemini CLI 0.61.0 (findSession): a session of the project's
		// chats by its id; else "Invalid session identifier".
		var matches []string
		if len(id) >= 8 {
			matches, _ = filepath.Glob(filepath.Join(filepath.Dir(h.transcriptPath), "session-*-"+id[:8]+".jsonl"))
		}
		if len(matches) == 0 {
			return fmt.Errorf("Invalid session identifier %q.", id)
		}
		h.sessionID, h.transcriptPath, h.resumed = id, matches[0], true
		return nil
	}
	if h.kind != hooksClaude {
		return nil
	}
	home, _ := os.UserHomeDir()
	path := filepath.Join(home, ".claude", "projects", claudeProject(h.dir), id+".jsonl")
	if _, err := os.Stat(path); err != nil || id == "" {
		return fmt.Errorf("No conversation found with session ID: %s", id)
	}
	h.sessionID, h.transcriptPath, h.resumed = id, path, true
	return nil
}

func (h *hookRunner) promptSubmit(prompt string) {
	switch h.kind {
	case hooksClaude, hooksDroid:
		h.fire("UserPromptSubmit", "", map[string]any{"prompt": prompt})
	case hooksGemini:
		h.fire("BeforeAgent", "", map[string]any{"prompt": prompt})
	}
}

// toolNames are each tool's names for its file-writing and shell tools.
var toolNames = map[hookKind][2]string{
	hooksDroid:  {toolWrite: "Create", toolShell: "Execute"},
	hooksGemini: {toolWrite: "write_file", toolShell: "run_shell_command"},
}

func (h *hookRunner) toolName(t toolKind) string {
	if names, ok := toolNames[h.kind]; ok {
		return names[t]
	}
	return [2]string{toolWrite: "Write", toolShell: "Bash"}[t]
}

func (h *hookRunner) preTool(t toolKind, input map[string]any) hookResult {
	name := h.toolName(t)
	fields := map[string]any{"tool_name": name, "tool_input": input}
	switch h.kind {
	case hooksClaude, hooksDroid:
		return h.fire("PreToolUse", name, fields)
	case hooksGemini:
		return h.fire("BeforeTool", name, fields)
	}
	return hookResult{}
}

func (h *hookRunner) postTool(t toolKind, input, response map[string]any, failed bool) {
	name := h.toolName(t)
	fields := map[string]any{"tool_name": name, "tool_input": input, "tool_response": response}
	switch h.kind {
	case hooksClaude:
		if failed {
			h.fire("PostToolUseFailure", name, map[string]any{"tool_name": name, "tool_input": input,
				"error": response["error"]})
			return
		}
		h.fire("PostToolUse", name, fields)
	case hooksDroid:
		h.fire("PostToolUse", name, fields)
	case hooksGemini:
		h.fire("AfterTool", name, fields)
	}
}

// permissionPrompt fires what the tool fires when it shows a permission prompt.
func (h *hookRunner) permissionPrompt(t toolKind, input map[string]any) {
	name := h.toolName(t)
	switch h.kind {
	case hooksClaude:
		h.fire("PermissionRequest", name, map[string]any{"tool_name": name, "tool_input": input})
		h.fire("Notification", "permission_prompt", map[string]any{
			"message": "Claude needs your permission to use " + name, "notification_type": "permission_prompt"})
	case hooksDroid:
		h.fire("Notification", "permission_prompt", map[string]any{
			"message": "Droid needs your permission to use " + name, "notification_type": "permission_prompt"})
	case hooksGemini:
		h.fire("Notification", "ToolPermission", map[string]any{
			"notification_type": "ToolPermission",
			"message":           "Tool " + name + " requires permission",
			"details":           map[string]any{"tool_name": name, "tool_input": input},
		})
	}
}

// idlePrompt is Claude's "waiting for your input" notification.
func (h *hookRunner) idlePrompt() {
	switch h.kind {
	case hooksClaude:
		h.fire("Notification", "idle_prompt", map[string]any{
			"message": "Claude is waiting for your input", "notification_type": "idle_prompt"})
	case hooksDroid:
		h.fire("Notification", "idle_prompt", map[string]any{
			"message": "Droid is waiting for your input", "notification_type": "idle_prompt"})
	}
}

// turnEnd fires at the normal end of a turn, never after an interrupt.
func (h *hookRunner) turnEnd(prompt, answer string) {
	switch h.kind {
	case hooksClaude, hooksDroid:
		h.fire("Stop", "", map[string]any{"stop_hook_active": false, "last_assistant_message": answer})
	case hooksGemini:
		h.fire("AfterAgent", "", map[string]any{"prompt": prompt, "prompt_response": answer,
			"stop_hook_active": false})
	case hooksCodex:
		h.codexTurnComplete(prompt, answer)
	}
}

// turnFailed fires when an API error ended the turn: Claude's StopFailure
// (instead of Stop); the other tools fire their usual end of turn.
func (h *hookRunner) turnFailed(errType, answer string) {
	switch h.kind {
	case hooksClaude:
		h.fire("StopFailure", errType, map[string]any{"error": errType, "last_assistant_message": answer})
	default:
		h.turnEnd("", answer)
	}
}

func (h *hookRunner) sessionEnd(reason string) {
	switch h.kind {
	case hooksClaude, hooksDroid, hooksGemini:
		h.fire("SessionEnd", reason, map[string]any{"reason": reason})
	}
}

// ---- running command hooks ----

// usesMatcher reports whether the matcher of event's groups is checked.
func (h *hookRunner) usesMatcher(event string) bool {
	switch h.kind {
	case hooksClaude:
		switch event {
		case "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "Notification",
			"SessionStart", "SessionEnd", "PreCompact", "SubagentStart", "StopFailure":
			return true
		}
	case hooksDroid:
		return event == "PreToolUse" || event == "PostToolUse"
	case hooksGemini:
		switch event {
		case "BeforeTool", "AfterTool", "SessionStart", "SessionEnd", "Notification":
			return true
		}
	}
	return false
}

// matches applies a matcher the way the tool does: Claude and Droid match
// the whole value against the regexp ("Write" only matches Write); Gemini
// matches tool names with an unanchored regexp and other values exactly.
func (h *hookRunner) matches(event, matcher, value string) bool {
	if matcher == "" || matcher == "*" || !h.usesMatcher(event) {
		return true
	}
	expr := "^(?:" + matcher + ")$"
	if h.kind == hooksGemini {
		if event != "BeforeTool" && event != "AfterTool" {
			return matcher == value
		}
		expr = matcher
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return matcher == value
	}
	return re.MatchString(value)
}

// fire runs every command hook of event whose matcher accepts value, in
// parallel, each through `sh -c` with the event JSON on stdin, and waits.
func (h *hookRunner) fire(event, value string, fields map[string]any) hookResult {
	var cmds []hookCommand
	seen := map[string]bool{}
	for _, g := range h.events[event] {
		if !h.matches(event, g.Matcher, value) {
			continue
		}
		for _, c := range g.Hooks {
			if (c.Type != "" && c.Type != "command") || c.Command == "" || seen[c.Command] {
				continue // identical commands run once, as in Claude Code
			}
			seen[c.Command] = true
			cmds = append(cmds, c)
		}
	}
	if len(cmds) == 0 {
		return hookResult{}
	}

	payload := map[string]any{
		"session_id":      h.sessionID,
		"transcript_path": h.transcriptPath,
		"cwd":             h.dir,
		"hook_event_name": event,
	}
	if h.kind == hooksGemini {
		payload["timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
	} else {
		payload["permission_mode"] = h.permissionMode
	}
	for k, v := range fields {
		payload[k] = v
	}
	data, _ := json.Marshal(payload)

	results := make([]hookResult, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = h.run(event, c, data)
		}()
	}
	wg.Wait()
	for _, r := range results {
		if r.blocked {
			return r
		}
	}
	return hookResult{}
}

func (h *hookRunner) run(event string, c hookCommand, stdin []byte) hookResult {
	timeout := 60 * time.Second
	if c.Timeout > 0 {
		unit := time.Second
		if h.kind == hooksGemini {
			unit = time.Millisecond
		}
		timeout = time.Duration(c.Timeout * float64(unit))
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	cmd := exec.CommandContext(ctx, "sh", "-c", c.Command)
	cmd.Dir = h.dir
	cmd.Env = append(os.Environ(), h.projectEnv()...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second

	start := time.Now()
	err := cmd.Run()
	code := 0
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		code = -1
	}

	kv := []any{"name", event, "command", c.Command, "exit", code,
		"ms", time.Since(start).Milliseconds()}
	if ctx.Err() == context.DeadlineExceeded {
		kv = append(kv, "timed_out", true)
	}
	if s := strings.TrimSpace(stderr.String()); s != "" {
		kv = append(kv, "stderr", truncate(s, 500))
	}
	if err != nil && code == -1 {
		kv = append(kv, "error", err.Error())
	}
	result := hookResult{}
	if code == 2 {
		result = hookResult{blocked: true, reason: strings.TrimSpace(stderr.String())}
	}
	if out := bytes.TrimSpace(stdout.Bytes()); code == 0 && len(out) > 0 {
		var decision struct {
			Decision           string `json:"decision"`
			Reason             string `json:"reason"`
			HookSpecificOutput struct {
				PermissionDecision       string `json:"permissionDecision"`
				PermissionDecisionReason string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(out, &decision); err != nil {
			if h.kind == hooksGemini { // Gemini requires JSON or nothing on stdout
				kv = append(kv, "stdout_error", err.Error())
			}
		} else if event == "PreToolUse" && decision.HookSpecificOutput.PermissionDecision == "deny" {
			result = hookResult{blocked: true, reason: decision.HookSpecificOutput.PermissionDecisionReason}
		} else if event == "BeforeTool" && (decision.Decision == "deny" || decision.Decision == "block") {
			result = hookResult{blocked: true, reason: decision.Reason}
		}
	}
	h.log.event("hook", kv...)

	// Only the "before" events can block.
	if event != "PreToolUse" && event != "BeforeTool" {
		return hookResult{}
	}
	return result
}

func (h *hookRunner) projectEnv() []string {
	switch h.kind {
	case hooksDroid:
		return []string{"FACTORY_PROJECT_DIR=" + h.dir}
	case hooksGemini:
		return []string{"GEMINI_PROJECT_DIR=" + h.dir, "CLAUDE_PROJECT_DIR=" + h.dir}
	}
	return []string{"CLAUDE_PROJECT_DIR=" + h.dir}
}

// codexTurnComplete starts the notify program with the event JSON as its
// last argument (no shell) and does not wait for it, as Codex does.
func (h *hookRunner) codexTurnComplete(prompt, answer string) {
	if len(h.notify) == 0 {
		return
	}
	data, _ := json.Marshal(map[string]any{
		"type":                   "agent-turn-complete",
		"thread-id":              h.sessionID,
		"turn-id":                newUUID(),
		"cwd":                    h.dir,
		"input-messages":         []string{prompt},
		"last-assistant-message": answer,
	})
	argv := append(append([]string{}, h.notify[1:]...), string(data))
	cmd := exec.Command(h.notify[0], argv...)
	cmd.Dir = h.dir
	logArgv := append([]string{h.notify[0]}, argv...)
	if err := cmd.Start(); err != nil {
		h.log.event("hook", "name", "notify", "command", h.notify[0], "argv", logArgv, "exit", -1,
			"error", err.Error())
		return
	}
	h.bg.Add(1)
	go func() {
		defer h.bg.Done()
		err := cmd.Wait()
		code := 0
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		} else if err != nil {
			code = -1
		}
		h.log.event("hook", "name", "notify", "command", h.notify[0], "argv", logArgv, "exit", code)
	}()
}

// wait gives notify programs still running up to d to finish.
func (h *hookRunner) wait(d time.Duration) {
	done := make(chan struct{})
	go func() {
		h.bg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}

// ---- codex configuration ----

// codexNotify finds the notify argv: the last `-c notify=[...]` on the
// command line, else the top-level notify of $CODEX_HOME/config.toml
// (default ~/.codex/config.toml). source names where it came from.
func codexNotify(o *options, home string) (argv []string, source string, err error) {
	for i := len(o.values["config"]) - 1; i >= 0; i-- {
		key, val, ok := strings.Cut(o.values["config"][i], "=")
		if ok && strings.TrimSpace(key) == "notify" {
			argv, _, err = parseTOMLStringArray(val)
			return argv, "-c notify", err
		}
	}
	dir := os.Getenv("CODEX_HOME")
	if dir == "" {
		dir = filepath.Join(home, ".codex")
	}
	path := filepath.Join(dir, "config.toml")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, path, nil
	}
	text := string(data)
	offset := 0
	for _, line := range strings.SplitAfter(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			break // a table: top-level keys are over
		}
		if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == "notify" {
			eq := strings.Index(line, "=")
			argv, _, err = parseTOMLStringArray(text[offset+eq+1:])
			return argv, path, err
		}
		offset += len(line)
	}
	return nil, path, nil
}

// parseTOMLStringArray parses a TOML array of strings at the start of s
// (basic "..." and literal '...' strings, comments, line breaks) and
// returns it with the rest of s.
func parseTOMLStringArray(s string) ([]string, string, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") {
		return nil, s, fmt.Errorf("notify: want an array of strings, got %q", truncate(s, 40))
	}
	s = s[1:]
	out := []string{}
	skip := func() {
		for {
			s = strings.TrimLeft(s, " \t\r\n")
			if !strings.HasPrefix(s, "#") {
				return
			}
			if i := strings.IndexByte(s, '\n'); i >= 0 {
				s = s[i+1:]
			} else {
				s = ""
			}
		}
	}
	for {
		skip()
		if strings.HasPrefix(s, "]") {
			return out, s[1:], nil
		}
		var str string
		var err error
		str, s, err = parseTOMLString(s)
		if err != nil {
			return nil, s, err
		}
		out = append(out, str)
		skip()
		switch {
		case strings.HasPrefix(s, ","):
			s = s[1:]
		case strings.HasPrefix(s, "]"):
			return out, s[1:], nil
		default:
			return nil, s, errors.New("notify: unterminated array")
		}
	}
}

func parseTOMLString(s string) (string, string, error) {
	if strings.HasPrefix(s, "'") {
		end := strings.IndexAny(s[1:], "'\n")
		if end < 0 || s[1+end] != '\'' {
			return "", s, errors.New("notify: unterminated string")
		}
		return s[1 : 1+end], s[end+2:], nil
	}
	if !strings.HasPrefix(s, `"`) {
		return "", s, fmt.Errorf("notify: want a string, got %q", truncate(s, 20))
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\n':
			return "", s, errors.New("notify: unterminated string")
		case '\\':
			i++
			if i >= len(s) {
				return "", s, errors.New("notify: bad escape")
			}
			switch e := s[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case '"', '\\':
				b.WriteByte(e)
			case 'u', 'U':
				n := 4
				if e == 'U' {
					n = 8
				}
				if i+n >= len(s) {
					return "", s, errors.New("notify: bad escape")
				}
				var r rune
				if _, err := fmt.Sscanf(s[i+1:i+1+n], "%x", &r); err != nil {
					return "", s, errors.New("notify: bad escape")
				}
				b.WriteRune(r)
				i += n
			default:
				return "", s, fmt.Errorf("notify: bad escape \\%c", e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", s, errors.New("notify: unterminated string")
}

// newUUID returns a random version 4 UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
