// Package memory is owt's door to a repository's memory: where its
// database is and whether there is one, the summary of the last
// consolidation (a small file the control plane and the monitor read),
// what a torn-down worktree left to mine, and running owt-mcp for the
// rest. The facts themselves, and what owt does with them, are package
// memory/facts, which links SQLite and so lives in owt-mcp only: every
// owt start (a hook, the status line) would pay for SQLite's and the MCP
// SDK's initialisation (about 3 ms, measured).
package memory

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/adrg/xdg"

	"github.com/owt-tmux/owt/internal/atomicfile"
	"github.com/owt-tmux/owt/internal/proc"
	"github.com/owt-tmux/owt/internal/state"
)

// PathFor is the database of the repository whose main checkout is root:
// $XDG_DATA_HOME/owt/memory/NAME-HASH.db.
func PathFor(root string) string {
	sum := sha256.Sum256([]byte(root))
	name := strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, filepath.Base(root))
	return filepath.Join(xdg.DataHome, "owt", "memory", name+"-"+hex.EncodeToString(sum[:6])+".db")
}

// Exists reports whether the repository at root has a memory yet: the
// paths that only read it do not create one.
func Exists(root string) bool {
	_, err := os.Stat(PathFor(root))
	return !errors.Is(err, fs.ErrNotExist)
}

// Last is the summary of a repository's last consolidation.
type Last struct {
	Repo   string    `json:"repo"`
	At     time.Time `json:"at"`
	Lines  []string  `json:"lines"`
	Failed bool      `json:"failed,omitempty"`
	// Earlier are the passes before it, newest first (Save keeps
	// KeptPasses in all): the control plane shows a few.
	Earlier []Last `json:"earlier,omitempty"`
}

// KeptPasses is how many passes the summary file keeps, the last one
// included.
const KeptPasses = 3

func lastPath(root string) string {
	return filepath.Join(state.Dir(), "memory", filepath.Base(PathFor(root))+".last.json")
}

// Save keeps l as its repository's last consolidation, and the one that
// was the last before it among the earlier ones (KeptPasses in all).
func Save(l Last) error {
	l.Earlier = nil
	if prev, ok := LastOf(l.Repo); ok {
		older := prev.Earlier
		prev.Earlier = nil
		l.Earlier = append([]Last{prev}, older...)
		if len(l.Earlier) > KeptPasses-1 {
			l.Earlier = l.Earlier[:KeptPasses-1]
		}
	}
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(lastPath(l.Repo)), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(lastPath(l.Repo), data)
}

// SaveFailed keeps a failed pass as the repository's last one: the
// control plane shows why, and the monitor tries again only after
// [memory] consolidate_every, not on every check.
func SaveFailed(root string, at time.Time, err error) error {
	return Save(Last{Repo: root, At: at, Lines: []string{"consolidation failed: " + err.Error()}, Failed: true})
}

// LastOf is the last consolidation of the repository at root, if any.
func LastOf(root string) (Last, bool) {
	data, err := os.ReadFile(lastPath(root))
	if err != nil {
		return Last{}, false
	}
	var l Last
	if json.Unmarshal(data, &l) != nil {
		return Last{}, false
	}
	return l, true
}

// Program is the name of the binary that holds the memory and the MCP
// server, installed beside owt.
const Program = "owt-mcp"

// Find is owt-mcp: next to the running owt (self), else on PATH.
func Find(self string) (string, error) {
	return proc.Sibling(self, Program)
}

// Fact is one fact as owt-mcp hands it to owt (its JSON).
type Fact struct {
	ID     int64  `json:"id"`
	Text   string `json:"text"`
	Kind   string `json:"kind"`
	Pinned bool   `json:"pinned"`
	Source struct {
		From  string `json:"from"`
		Agent string `json:"agent,omitempty"`
	} `json:"source"`
}

// Injection is what owt-mcp did to give an agent its facts.
type Injection struct {
	// Line says it for the user ("" when nothing was to be said);
	// Failed makes it a warning: the agent starts without facts.
	Line   string `json:"line"`
	Failed bool   `json:"failed,omitempty"`
	// Facts and Block are what the agent gets (dry runs show them).
	Facts []Fact `json:"facts"`
	Block string `json:"block"`
	// Left counts the pinned facts over the budget, left out: Line says
	// which, as a warning.
	Left int `json:"left_out,omitempty"`
}

// Say tells the user what the injection did: a warning (warnf) when the
// agent starts without its facts, or without some pinned ones (Left),
// else a line for the log (logf); nothing when there is nothing to say.
func (inj Injection) Say(warnf, logf func(format string, args ...any)) {
	switch {
	case inj.Line == "":
	case inj.Failed || inj.Left > 0:
		warnf("%s", inj.Line)
	default:
		logf("%s", inj.Line)
	}
}

// InjectTimeout bounds an injection: a memory database another process
// holds locked (or a wedged owt-mcp) must never keep an agent from
// starting; it starts without facts, and owt new says so.
var InjectTimeout = 5 * time.Second

// Inject runs "owt-mcp memory _inject" for the agent name of the
// repository at root: it writes the facts for the agent's task into its
// worktree (task and tool, when given, stand for the record's: a swarm's
// goal and its members' tool). dry asks only what it would write; with
// no name it is an agent not made yet. A repository without a memory
// costs a stat, no process. It takes at most InjectTimeout.
func Inject(self, root, name, task, tool string, dry bool) Injection {
	if !Exists(root) {
		return Injection{}
	}
	bin, err := Find(self)
	if err != nil {
		return Injection{Line: "memory: " + err.Error() + "; the agent starts without facts", Failed: true}
	}
	ctx, cancel := context.WithTimeout(context.Background(), InjectTimeout)
	defer cancel()
	args := []string{"memory", "_inject", "--json"}
	for _, kv := range [][2]string{{"--name", name}, {"--task", task}, {"--tool", tool}} {
		if kv[1] != "" {
			args = append(args, kv[0], kv[1])
		}
	}
	if dry {
		args = append(args, "--dry-run")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = root
	cmd.WaitDelay = time.Second // a child holding its output open cannot hold owt new either
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return Injection{Line: fmt.Sprintf("memory: no facts injected: the memory did not answer within %s (is its database %s locked by another process?); the agent starts without facts",
			InjectTimeout, PathFor(root)), Failed: true}
	}
	var inj Injection
	if err := json.Unmarshal(out.Bytes(), &inj); err != nil {
		why := strings.TrimSpace(stderr.String())
		if why == "" && runErr != nil {
			why = runErr.Error()
		}
		return Injection{Line: "memory: " + why + "; the agent starts without facts", Failed: true}
	}
	return inj
}

// Owt is the owt beside the running program (owt-mcp, owt-popup: they
// are built and installed together), else owt on PATH: the program new
// sessions, hooks and the monitor run, which a sibling must name, never
// itself.
func Owt() (string, error) {
	me, err := os.Executable()
	if err != nil {
		me = ""
	}
	return proc.Sibling(me, "owt")
}

// Ask runs "owt-mcp ARGS…" beside owt (self) with in as JSON on its
// stdin and decodes its JSON answer into out: how owt asks the SQLite
// databases it does not link (OpenCode's usage). ctx bounds it.
func Ask(ctx context.Context, self string, args []string, in, out any) error {
	bin, err := Find(self)
	if err != nil {
		return err
	}
	data, err := json.Marshal(in)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.WaitDelay = time.Second
	cmd.Stdin = bytes.NewReader(data)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if why := strings.TrimSpace(stderr.String()); why != "" {
			return fmt.Errorf("%s %s: %s", Program, args[0], why)
		}
		return fmt.Errorf("%s %s: %w", Program, args[0], err)
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return fmt.Errorf("%s %s: its answer is not JSON: %w", Program, args[0], err)
	}
	return nil
}
