package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// turnUsage is what one turn's model request used, as Claude's API
// reports it (message.usage).
type turnUsage struct{ input, output, cacheWrite, cacheRead int64 }

// defaultUsage is a turn's usage unless "!usage" says otherwise.
var defaultUsage = turnUsage{input: 100, output: 50, cacheWrite: 1000, cacheRead: 2000}

// parseUsage reads "!usage IN OUT [CACHE_WRITE [CACHE_READ]]".
func parseUsage(arg string) turnUsage {
	var n [4]int64
	for i, f := range strings.Fields(arg) {
		if i < 4 {
			n[i], _ = strconv.ParseInt(f, 10, 64)
		}
	}
	return turnUsage{input: n[0], output: n[1], cacheWrite: n[2], cacheRead: n[3]}
}

// claudeModel is the model the fake Claude's transcript names.
const claudeModel = "claude-sonnet-4-5-20250929"

// transcriptUser appends the user's prompt to Claude's transcript, in
// Claude Code's format (~/.claude/projects/<cwd with non-alphanumerics
// as ->/<session-id>.jsonl): only for the claude persona.
func (h *hookRunner) transcriptUser(prompt string) {
	if h.kind != hooksClaude {
		return
	}
	h.turnParent = newUUID()
	h.appendTranscript(map[string]any{"type": "user", "uuid": h.turnParent,
		"message": map[string]any{"role": "user", "content": prompt}})
}

// transcriptAssistant appends the turn's answer as Claude Code writes an
// assistant message: one line per content block (here a thinking block
// and a text block), each with the message's id, model and usage.
func (h *hookRunner) transcriptAssistant(answer string, u turnUsage) {
	if h.kind != hooksClaude {
		return
	}
	msgID, reqID := "msg_"+strings.ReplaceAll(newUUID(), "-", ""), "req_"+strings.ReplaceAll(newUUID(), "-", "")
	usage := map[string]any{"input_tokens": u.input, "cache_creation_input_tokens": u.cacheWrite,
		"cache_read_input_tokens": u.cacheRead, "output_tokens": u.output, "service_tier": "standard",
		"cache_creation": map[string]any{"ephemeral_5m_input_tokens": u.cacheWrite, "ephemeral_1h_input_tokens": 0}}
	for _, block := range []map[string]any{
		{"type": "thinking", "thinking": "Working on it.", "signature": "fake"},
		{"type": "text", "text": answer},
	} {
		uuid := newUUID()
		h.appendTranscript(map[string]any{"type": "assistant", "uuid": uuid, "parentUuid": h.turnParent, "requestId": reqID,
			"message": map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": claudeModel,
				"content": []any{block}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
		h.turnParent = uuid
	}
}

func (h *hookRunner) appendTranscript(line map[string]any) {
	line["sessionId"] = h.sessionID
	line["cwd"] = h.dir
	line["version"] = "2.1.332"
	line["userType"] = "external"
	line["isSidechain"] = false
	line["timestamp"] = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	if _, ok := line["parentUuid"]; !ok {
		line["parentUuid"] = nil
	}
	h.appendTranscriptLine(line)
}

// appendTranscriptLine appends one JSON line to the session's transcript.
func (h *hookRunner) appendTranscriptLine(line map[string]any) {
	data, err := json.Marshal(line)
	if err != nil || h.transcriptPath == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(h.transcriptPath), 0o700); err != nil {
		h.log.event("transcript_error", "error", err.Error())
		return
	}
	f, err := os.OpenFile(h.transcriptPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		h.log.event("transcript_error", "error", err.Error())
		return
	}
	defer f.Close()
	if _, err := f.Write(append(data, '\n')); err != nil {
		h.log.event("transcript_error", "error", err.Error())
	}
}

// claudeProject is Claude Code's folder name for a cwd: every UTF-16
// unit but ASCII letters and digits turned into '-'; past 200, the first
// 200, '-' and the path's Java-style hash in base 36.
func claudeProject(dir string) string {
	units := utf16.Encode([]rune(dir))
	b := make([]byte, len(units))
	var h int32
	for i, u := range units {
		b[i] = '-'
		if u < 128 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9') {
			b[i] = byte(u)
		}
		h = h<<5 - h + int32(u)
	}
	if len(b) <= 200 {
		return string(b)
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return string(b[:200]) + "-" + strconv.FormatInt(abs, 36)
}

// codexRollout appends one turn to Codex's rollout file of the session,
// in codex 0.169.0's format ($CODEX_HOME/sessions/YYYY/MM/DD/
// rollout-<time>-<id>.jsonl, session_meta first): the user's message, the
// turn_context with the model, and a token_count event with the
// session's running total (OpenAI's input_tokens include the cached
// ones). Only for the codex persona.
func (h *hookRunner) codexRollout(prompt string, u turnUsage) {
	if h.kind != hooksCodex {
		return
	}
	now := time.Now()
	ts := now.UTC().Format("2006-01-02T15:04:05.000Z")
	if h.rolloutPath == "" {
		dir := os.Getenv("CODEX_HOME")
		if dir == "" {
			home, _ := os.UserHomeDir()
			dir = filepath.Join(home, ".codex")
		}
		h.rolloutPath = filepath.Join(dir, "sessions", now.Format("2006"), now.Format("01"), now.Format("02"),
			"rollout-"+now.Format("2006-01-02T15-04-05")+"-"+h.sessionID+".jsonl")
		h.appendRollout(map[string]any{"timestamp": ts, "type": "session_meta", "payload": map[string]any{
			"id": h.sessionID, "timestamp": ts, "cwd": h.dir, "originator": "codex_cli_rs", "cli_version": "0.169.0"}})
	}
	h.codexTotal.input += u.input + u.cacheRead
	h.codexTotal.cacheRead += u.cacheRead
	h.codexTotal.output += u.output
	usage := func(in, cached, out int64) map[string]any {
		return map[string]any{"input_tokens": in, "cached_input_tokens": cached, "output_tokens": out,
			"reasoning_output_tokens": 0, "total_tokens": in + out}
	}
	h.appendRollout(map[string]any{"timestamp": ts, "type": "response_item", "payload": map[string]any{
		"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": prompt}}}})
	h.appendRollout(map[string]any{"timestamp": ts, "type": "turn_context", "payload": map[string]any{
		"cwd": h.dir, "approval_policy": "on-request", "model": codexModel, "effort": "medium", "summary": "auto"}})
	h.appendRollout(map[string]any{"timestamp": ts, "type": "event_msg", "payload": map[string]any{
		"type": "token_count", "info": map[string]any{
			"total_token_usage":    usage(h.codexTotal.input, h.codexTotal.cacheRead, h.codexTotal.output),
			"last_token_usage":     usage(u.input+u.cacheRead, u.cacheRead, u.output),
			"model_context_window": 272000},
		"rate_limits": h.codexRateLimits(now)}})
}

// parseWindows reads "!windows FIVE_HOUR WEEKLY": the shares used, in
// percent.
func parseWindows(arg string) []float64 {
	var out []float64
	for _, f := range strings.Fields(arg) {
		if v, err := strconv.ParseFloat(f, 64); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// windowResets are when the fake's windows reset: the 5-hour one in 2
// hours, the weekly one in 3 days.
func windowResets(now time.Time) (five, week int64) {
	return now.Add(2 * time.Hour).Unix(), now.Add(72 * time.Hour).Unix()
}

// codexRateLimits is a token_count's rate_limits as codex 0.169.0 writes
// them (primary 5-hour, secondary weekly), nil before !windows.
func (h *hookRunner) codexRateLimits(now time.Time) any {
	if len(h.windows) < 2 {
		return nil
	}
	five, week := windowResets(now)
	return map[string]any{"limit_id": "codex", "limit_name": nil,
		"primary":   map[string]any{"used_percent": h.windows[0], "window_minutes": 300, "resets_at": five},
		"secondary": map[string]any{"used_percent": h.windows[1], "window_minutes": 10080, "resets_at": week},
		"credits":   nil, "plan_type": "plus"}
}

// statusLine runs the statusLine command of Claude's settings, as Claude
// Code 2.1.330 does when its screen changes: sh -c in the session's
// folder, its JSON on stdin (with rate_limits once !windows said them).
// Only for the claude persona; its output is logged.
func (h *hookRunner) statusLine() {
	if h.kind != hooksClaude || h.statusLineCmd == "" {
		return
	}
	in := map[string]any{"session_id": h.sessionID, "transcript_path": h.transcriptPath, "cwd": h.dir,
		"model":     map[string]any{"id": "claude-sonnet-4-5", "display_name": "Sonnet 4.5"},
		"workspace": map[string]any{"current_dir": h.dir, "project_dir": h.dir, "added_dirs": []string{}},
		"version":   "2.1.330"}
	if len(h.windows) >= 2 {
		five, week := windowResets(time.Now())
		in["rate_limits"] = map[string]any{
			"five_hour": map[string]any{"used_percentage": h.windows[0], "resets_at": five},
			"seven_day": map[string]any{"used_percentage": h.windows[1], "resets_at": week}}
	}
	data, _ := json.Marshal(in)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", h.statusLineCmd)
	cmd.Dir = h.dir
	cmd.Env = append(os.Environ(), h.projectEnv()...)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	kv := []any{"command", h.statusLineCmd, "output", strings.TrimSpace(string(out))}
	if err != nil {
		kv = append(kv, "error", err.Error())
	}
	h.log.event("statusline", kv...)
}

// codexModel is the model the fake Codex's rollout names.
const codexModel = "gpt-5-codex"

func (h *hookRunner) appendRollout(line map[string]any) {
	data, err := json.Marshal(line)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(h.rolloutPath), 0o700); err != nil {
		h.log.event("transcript_error", "error", err.Error())
		return
	}
	f, err := os.OpenFile(h.rolloutPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		h.log.event("transcript_error", "error", err.Error())
		return
	}
	defer f.Close()
	if _, err := f.Write(append(data, '\n')); err != nil {
		h.log.event("transcript_error", "error", err.Error())
	}
}

// geminiHome is Gemini CLI's folder: $GEMINI_CLI_HOME/.gemini, else
// ~/.gemini.
func geminiHome(home string) string {
	if h := os.Getenv("GEMINI_CLI_HOME"); h != "" {
		home = h
	}
	return filepath.Join(home, ".gemini")
}

// geminiProject is the short id Gemini CLI's project registry
// (<gemini>/projects.json, {"projects": {PATH: ID}}) gives dir,
// registering one (the folder's base name, lower case) the first time.
func geminiProject(gemini, dir string) string {
	path := filepath.Join(gemini, "projects.json")
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if data, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(data, &reg)
	}
	if reg.Projects == nil {
		reg.Projects = map[string]string{}
	}
	if id := reg.Projects[dir]; id != "" {
		return id
	}
	id := strings.ToLower(filepath.Base(dir))
	for n := 1; ; n++ {
		taken := false
		for _, v := range reg.Projects {
			taken = taken || v == id
		}
		if !taken {
			break
		}
		id = strings.ToLower(filepath.Base(dir)) + "-" + strconv.Itoa(n)
	}
	reg.Projects[dir] = id
	if data, err := json.Marshal(reg); err == nil {
		_ = os.MkdirAll(gemini, 0o700)
		_ = os.WriteFile(path, data, 0o600)
		_ = os.MkdirAll(filepath.Join(gemini, "tmp", id), 0o700)
		_ = os.WriteFile(filepath.Join(gemini, "tmp", id, ".project_root"), []byte(dir), 0o600)
	}
	return id
}

// geminiChat appends one turn to Gemini CLI's chat file of the session,
// as its ChatRecordingService writes it: the session's metadata record
// first, the user's message, then the model's message appended again
// once its tokens are known (the same id, the later record wins). Only
// for the gemini persona.
func (h *hookRunner) geminiChat(prompt, answer string, u turnUsage) {
	if h.kind != hooksGemini || h.transcriptPath == "" {
		return
	}
	ts := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	if _, err := os.Stat(h.transcriptPath); err != nil {
		h.appendTranscriptLine(map[string]any{"sessionId": h.sessionID, "projectHash": filepath.Base(filepath.Dir(filepath.Dir(h.transcriptPath))),
			"startTime": ts, "lastUpdated": ts, "kind": "main"})
	}
	h.appendTranscriptLine(map[string]any{"id": newUUID(), "timestamp": ts, "type": "user", "content": []any{map[string]any{"text": prompt}}})
	msg := map[string]any{"id": newUUID(), "timestamp": ts, "type": "gemini", "content": answer, "thoughts": []any{}, "model": geminiModel}
	h.appendTranscriptLine(msg)
	msg["tokens"] = map[string]any{"input": u.input + u.cacheRead, "output": u.output, "cached": u.cacheRead,
		"thoughts": 0, "tool": 0, "total": u.input + u.cacheRead + u.output}
	h.appendTranscriptLine(msg)
	h.appendTranscriptLine(map[string]any{"$set": map[string]any{"lastUpdated": ts}})
}

// geminiModel is the model the fake Gemini's chat names.
const geminiModel = "gemini-2.5-pro"
