// What an agent tool's hook event says: the event's JSON (HookEvent),
// the status it reports (HookStatus), the tool's session id (HookSession),
// what a waiting agent waits for (HookWaitReason), a failed turn's error
// (HookTurnError) and a usage limit's words and reset time (LimitIn): the
// tools' knowledge, beside what their screens say (classify.go).

package agent

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// Statuses a hook event can report: the state package's status names.
const (
	hookWorking = string(state.Working)
	hookWaiting = string(state.Waiting)
	hookIdle    = string(state.Idle)
	hookExited  = string(state.Exited)
	hookLimited = string(state.Limited)
)

// HookEvent is what owt reads from a hook's JSON (stdin, or Codex's last
// argument). Fields a tool does not send stay empty.
type HookEvent struct {
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

// HookStatus maps a tool's hook event to the status it means, and false
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
func HookStatus(kind, event string, ev HookEvent) (string, bool) {
	switch kind {
	case "claude", "droid", "codex":
		if kind == "codex" && event == "notify" {
			if ev.Type == "agent-turn-complete" {
				return hookIdle, true
			}
			return "", false
		}
		switch event {
		case "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure":
			return hookWorking, true
		case "PermissionRequest":
			return hookWaiting, true
		case "StopFailure":
			if ev.Error == RateLimitError {
				return hookLimited, true
			}
			return hookIdle, true
		case "Stop", "Interrupt": // Interrupt: Codex's Esc
			return hookIdle, true
		case "Notification":
			return notificationStatus(ev)
		case "SessionEnd":
			return sessionEnd(ev)
		}
	case "gemini":
		switch event {
		case "BeforeAgent", "BeforeTool", "AfterTool":
			return hookWorking, true
		case "AfterAgent":
			return hookIdle, true
		case "Notification":
			// Gemini's only notification is ToolPermission.
			return hookWaiting, true
		case "SessionEnd":
			return sessionEnd(ev)
		}
	}
	return "", false
}

// HookSession is the tool's own session id an event names, for the
// tools whose hooks send one: Claude Code, Droid, Gemini CLI and Codex's
// lifecycle hooks (session_id), Codex's notify (thread-id). It is the id
// the tool's resume option takes (Profile.Resume).
func HookSession(kind, event string, ev HookEvent) string {
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
func notificationStatus(ev HookEvent) (string, bool) {
	switch ev.NotificationType {
	case "permission_prompt", "elicitation_dialog", "elicitation_url_dialog", "agent_needs_input", "worker_permission_prompt":
		return hookWaiting, true
	case "idle_prompt":
		return hookIdle, true
	case "":
		msg := strings.ToLower(ev.Message)
		switch {
		case strings.Contains(msg, "permission"), strings.Contains(msg, "approval"):
			return hookWaiting, true
		case strings.Contains(msg, "waiting for your input"):
			return hookIdle, true
		}
	}
	return "", false
}

func sessionEnd(ev HookEvent) (string, bool) {
	switch ev.Reason {
	case "clear", "logout":
		return "", false
	}
	return hookExited, true
}

// HookWaitReason says what a waiting hook event waits for (see
// HookWaitReason's names): a question for an elicitation or an agent that
// needs input, a login for a URL to open, else a permission.
func HookWaitReason(event string, ev HookEvent) string {
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
func LimitIn(ev HookEvent, now time.Time) state.Limit {
	for _, words := range []string{ev.ErrorDetails, ev.LastAssistantMessage} {
		if l, ok := LimitOf(words, now); ok {
			return l
		}
	}
	if ev.ErrorDetails != "" {
		return state.Limit{Text: untrusted.From(firstLine(ev.ErrorDetails))}
	}
	return state.Limit{Text: untrusted.From(ev.Error)}
}

// HookTurnError is why a turn failed, from an event that ends one with an
// error (Claude's StopFailure), or "". A usage limit is no failed turn:
// the agent is limited.
func HookTurnError(event string, ev HookEvent) string {
	if event != "StopFailure" || ev.Error == RateLimitError {
		return ""
	}
	if ev.Error == "" {
		return "unknown"
	}
	return ev.Error
}

// Reasons a screen waits for the user, as HookWaitReason names them.
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
