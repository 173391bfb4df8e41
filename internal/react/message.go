package react

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"text/template"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// defaultMessages are the messages of reactions whose config sets none.
var defaultMessages = map[string]string{
	config.ChecksFailed:     "owt: the repo's checks fail on your latest commit. Fix them and commit again.\n\n{{.Failure}}",
	config.CIFailed:         "owt: CI fails on your pull request #{{.PR}}. Fix it, commit and push.\n\n{{.Failure}}",
	config.ChangesRequested: "owt: changes were requested on your pull request #{{.PR}}. Address each comment, commit and push.\n\n{{.Failure}}",
	config.Conflict:         "owt: your branch now conflicts with {{.Base}}. Merge or rebase onto {{.Base}} and resolve it in your worktree.\n\n{{.Failure}}",
}

// MessageData is what a reaction's message template may use.
type MessageData = config.MessageData

// render is the message of a reaction: its template with d, control
// characters removed (a log's colours would reach the agent as keys).
func render(cfg config.Reaction, d MessageData) string {
	text := cfg.Message
	if text == "" {
		text = defaultMessages[d.Reaction]
	}
	t, err := template.New(d.Reaction).Parse(text)
	var b bytes.Buffer
	if err != nil || t.Execute(&b, d) != nil {
		b.Reset()
		b.WriteString(d.Failure) // config validation refuses a bad template; never lose the failure
	}
	return strings.TrimSpace(untrusted.Clean(b.String()))
}

// digest is a short hash of parts, for signatures.
func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func short(id string) string {
	if len(id) > 7 {
		return id[:7]
	}
	return id
}
