// Package hookevent is what an agent tool's hook event says: the event's
// JSON (Event), the status it reports (Status), the tool's session id,
// what a waiting agent waits for, a failed turn's error and a usage
// limit's words and reset time. It is the vocabulary the hook hot path
// shares with the screen classifier (package agent), kept apart so that
// owt-hook links none of the tool profiles, the classifier or the config
// they load.
//
// Imports the standard library only.
package hookevent

import (
	"encoding/json"
	"strings"
	"time"
)

// Statuses a hook event can report: the state package's status names
// (hookevent, like agent, sits beside state and does not import it).
const (
	Working = "working"
	Waiting = "waiting"
	Idle    = "idle"
	Exited  = "exited"
	Limited = "limited"
)

// Event is what owt reads from a hook's JSON (stdin, or Codex's last
// argument). Fields a tool does not send stay empty.
type Event struct {
	SessionID string `json:"session_id"`
	// TranscriptPath is Claude Code's transcript of the session (the
	// usage tracker reads its tokens).
	TranscriptPath   string `json:"transcript_path"`
	Cwd              string `json:"cwd"`
	HookEventName    string `json:"hook_event_name"`
	NotificationType string `json:"notification_type"`
	Message          string `json:"message"`
	Reason           string `json:"reason"`
	// Error is why Claude's StopFailure ended a turn ("rate_limit",
	// "authentication_failed", …).
	Error string `json:"error"`
	// ErrorDetails and LastAssistantMessage are StopFailure's words on
	// it: where a usage limit says when it resets.
	ErrorDetails         string `json:"error_details"`
	LastAssistantMessage string `json:"last_assistant_message"`
	// Type is Codex's notify event ("agent-turn-complete").
	Type string `json:"type"`
	// ThreadID is Codex's notify name for its session id (0.169.0:
	// "thread-id"; its lifecycle hooks say session_id).
	ThreadID string `json:"thread-id"`
	// ToolName and ToolInput.FilePath say which file a tool-use event
	// writes (EditedFile).
	// ToolInput is kept raw: it is read only for a swarm worker, and its
	// shape differs by tool.
	ToolName  string          `json:"tool_name"`
	ToolInput json.RawMessage `json:"tool_input"`
}

// Status maps a tool's hook event to the status it means, and false
// for events that say nothing about the status (a Notification about a
// login, Codex notify types other than a finished turn).
//
//	Claude Code, Droid (and Codex lifecycle hooks, same names):
//	  UserPromptSubmit, PreToolUse, PostToolUse, PostToolUseFailure → working
//	  PermissionRequest, Notification permission_prompt|elicitation_dialog|
//	    elicitation_url_dialog|agent_needs_input|worker_permission_prompt → waiting
//	  Stop, StopFailure (an API or auth error ended the turn),
//	    Notification idle_prompt → idle
//	  StopFailure with error rate_limit (a usage limit) → limited
//	  SessionEnd → exited (not for /clear or /logout: the tool goes on)
//	Gemini CLI:
//	  BeforeAgent, BeforeTool, AfterTool → working; AfterAgent → idle;
//	  Notification (ToolPermission) → waiting; SessionEnd → exited
//	Codex notify: agent-turn-complete → idle
func Status(kind, event string, ev Event) (string, bool) {
	switch kind {
	case "claude", "droid", "codex":
		if kind == "codex" && event == "notify" {
			if ev.Type == "agent-turn-complete" {
				return Idle, true
			}
			return "", false
		}
		switch event {
		case "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure":
			return Working, true
		case "PermissionRequest":
			return Waiting, true
		case "StopFailure":
			if ev.Error == RateLimitError {
				return Limited, true
			}
			return Idle, true
		case "Stop", "Interrupt": // Interrupt: Codex's Esc
			return Idle, true
		case "Notification":
			return notificationStatus(ev)
		case "SessionEnd":
			return sessionEnd(ev)
		}
	case "gemini":
		switch event {
		case "BeforeAgent", "BeforeTool", "AfterTool":
			return Working, true
		case "AfterAgent":
			return Idle, true
		case "Notification":
			// Gemini's only notification is ToolPermission.
			return Waiting, true
		case "SessionEnd":
			return sessionEnd(ev)
		}
	}
	return "", false
}

// Session is the tool's own session id an event names, for the
// tools whose hooks send one: Claude Code, Droid, Gemini CLI and Codex's
// lifecycle hooks (session_id), Codex's notify (thread-id). It is the id
// the tool's resume option takes (Profile.Resume).
func Session(kind, event string, ev Event) string {
	switch kind {
	case "claude", "droid", "gemini":
		return ev.SessionID
	case "codex":
		if event == "notify" {
			return ev.ThreadID
		}
		return ev.SessionID
	}
	return ""
}

// notificationStatus reads Claude-style notifications. Droid may leave out
// notification_type; its messages then say what it is.
func notificationStatus(ev Event) (string, bool) {
	switch ev.NotificationType {
	case "permission_prompt", "elicitation_dialog", "elicitation_url_dialog", "agent_needs_input", "worker_permission_prompt":
		return Waiting, true
	case "idle_prompt":
		return Idle, true
	case "":
		msg := strings.ToLower(ev.Message)
		switch {
		case strings.Contains(msg, "permission"), strings.Contains(msg, "approval"):
			return Waiting, true
		case strings.Contains(msg, "waiting for your input"):
			return Idle, true
		}
	}
	return "", false
}

func sessionEnd(ev Event) (string, bool) {
	switch ev.Reason {
	case "clear", "logout":
		return "", false
	}
	return Exited, true
}

// WaitReason says what a waiting hook event waits for (see
// WaitReason's names): a question for an elicitation or an agent that
// needs input, a login for a URL to open, else a permission.
func WaitReason(event string, ev Event) string {
	switch ev.NotificationType {
	case "elicitation_dialog", "agent_needs_input":
		return "question"
	case "elicitation_url_dialog":
		return WaitLogin
	}
	return WaitPermission
}

// LimitIn is the usage limit a limited event reports: the tool's words
// and reset time when its details carry them, else just its error.
func LimitIn(ev Event, now time.Time) Limit {
	for _, words := range []string{ev.ErrorDetails, ev.LastAssistantMessage} {
		if l, ok := LimitOf(words, now); ok {
			return l
		}
	}
	if ev.ErrorDetails != "" {
		return Limit{Text: firstLine(ev.ErrorDetails)}
	}
	return Limit{Text: ev.Error}
}

// TurnError is why a turn failed, from an event that ends one with an
// error (Claude's StopFailure), or "". A usage limit is no failed turn:
// the agent is limited.
func TurnError(event string, ev Event) string {
	if event != "StopFailure" || ev.Error == RateLimitError {
		return ""
	}
	if ev.Error == "" {
		return "unknown"
	}
	return ev.Error
}

// Reasons a screen waits for the user, as WaitReason names them.
const (
	WaitTrust = "trust"
	// WaitHooks: Codex's "Hooks need review" asks the user to review and
	// trust hook commands (owt's, after owt tools codex-hooks): no folder.
	WaitHooks      = "hooks"
	WaitLogin      = "login"
	WaitAPIKey     = "API key"
	WaitPermission = "permission"
)

// FirstRunWait reports whether reason is a first-run screen's question
// (a folder or hooks to trust, a sign-in, an API key): typed text would
// answer that screen, and no turn of the agent's runs behind it.
func FirstRunWait(reason string) bool {
	switch reason {
	case WaitTrust, WaitHooks, WaitLogin, WaitAPIKey:
		return true
	}
	return false
}
