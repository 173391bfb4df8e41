package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/proc"
	"github.com/owt-tmux/owt/internal/usage"
)

// chainedEnv marks the user's own statusLine command run by owt's: were
// it owt's again (a settings file that names owt), it does not run a
// third.
const chainedEnv = "OWT_STATUSLINE_CHAINED"

// statusLineWait bounds the user's own statusLine command; Claude Code
// cancels a slow one itself too.
var statusLineWait = 5 * time.Second

// StatusLine is "owt hook claude statusline", the statusLine command owt
// registers in a Claude Code worktree (agent.StatusLineCommand): it keeps
// the usage windows of the JSON on in (usage.WriteLimits), for the agent
// of its environment (OWT_REPO, OWT_NAME) or else the worktree holding
// its cwd, then runs the statusLine the user set in the project's or
// their own Claude settings, which owt's hides, with the same JSON, and
// prints its output on out. Without one it prints nothing. Like every
// hook it never fails; problems go to owt's log.
func StatusLine(in io.Reader, out io.Writer, inTTY bool) {
	neverFail(func() {
		var data []byte
		if !inTTY {
			data = readStdin(in)
		}
		var ev struct {
			Cwd       string `json:"cwd"`
			Workspace struct {
				Current string `json:"current_dir"`
				Project string `json:"project_dir"`
			} `json:"workspace"`
		}
		_ = json.Unmarshal(data, &ev)
		dir, _ := os.Getwd()
		keepLimits(data, firstOf(ev.Workspace.Current, ev.Cwd, dir))
		if os.Getenv(chainedEnv) != "" {
			return
		}
		if cmd := ownStatusLine(firstOf(ev.Workspace.Project, dir)); cmd != "" {
			runOwnStatusLine(cmd, data, dir, out)
		}
	})
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// keepLimits keeps the windows of Claude's JSON for its agent; JSON with
// none (before the first answer, an API key) keeps what was there.
func keepLimits(data []byte, dir string) {
	if len(bytes.TrimSpace(data)) == 0 {
		return
	}
	ls, err := usage.ParseClaudeStatusLine(data, time.Now())
	if err != nil {
		owtlog.Errorf("hook", fields(agent.StatusLineEvent), "claude statusline: %v", err)
		return
	}
	if len(ls) == 0 {
		return
	}
	repo, name := os.Getenv("OWT_REPO"), os.Getenv("OWT_NAME")
	if repo == "" || name == "" {
		_, rec, err := FindByPath(dir, "")
		if err != nil {
			owtlog.Logf("hook", fields(agent.StatusLineEvent), "claude statusline: %v", err)
			return
		}
		repo, name = rec.Repo, rec.Name
	}
	if err := usage.WriteLimits(repo, name, ls); err != nil {
		owtlog.Errorf("hook", fields(agent.StatusLineEvent), "claude statusline: %v", err)
	}
}

// ownStatusLine is the statusLine command Claude would run were owt's not
// in the worktree's settings.local.json: the project's
// (.claude/settings.json of project), else the user's
// ($CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json).
func ownStatusLine(project string) string {
	userDir := os.Getenv("CLAUDE_CONFIG_DIR")
	if userDir == "" {
		home, _ := os.UserHomeDir()
		userDir = filepath.Join(home, ".claude")
	}
	for _, p := range []string{filepath.Join(project, ".claude", "settings.json"), filepath.Join(userDir, "settings.json")} {
		if data, err := os.ReadFile(p); err == nil {
			if cmd := agent.UserStatusLine(data); cmd != "" {
				return cmd
			}
		}
	}
	return ""
}

// runOwnStatusLine runs the user's statusLine command as Claude would (sh
// -c, the JSON on stdin, in the session's folder) and copies what it
// prints to out. The command is the user's own setting, run where they
// meant it to run; no text of an agent's is in it.
func runOwnStatusLine(command string, data []byte, dir string, out io.Writer) {
	ctx, cancel := context.WithTimeout(context.Background(), statusLineWait)
	defer cancel()
	cmd := proc.Command(ctx, "sh", "-c", command)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(data)
	cmd.Env = append(os.Environ(), chainedEnv+"=1")
	var buf bytes.Buffer
	cmd.Stdout = &limitedWriter{w: &buf, n: 64 << 10}
	if err := proc.Run(ctx, cmd); err != nil {
		owtlog.Logf("hook", fields(agent.StatusLineEvent), "your statusLine command: %v", err)
	}
	_, _ = out.Write(buf.Bytes())
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	k := len(p)
	if len(p) > l.n {
		p = p[:l.n]
	}
	l.n -= len(p)
	if len(p) > 0 {
		if _, err := l.w.Write(p); err != nil {
			return 0, err
		}
	}
	return k, nil
}
