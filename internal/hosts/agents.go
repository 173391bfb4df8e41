package hosts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/git"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/ssh"
	"github.com/owt-tmux/owt/internal/state"
)

// remoteOwt is the owt command on a host: owt found first in
// ~/.local/bin (where owt host add puts it), then on the PATH.
func remoteOwt(args ...string) []string { return append([]string{"owt"}, args...) }

// Agents are the agents of the host's clone at dir (owt list --json
// there), or every repository's with dir "" (owt list --all --json). Each
// is marked with the host. What the host says is kept; when it cannot be
// reached, the last list it gave comes back marked Unreachable, with the
// error (which wraps ssh.ErrUnreachable).
func (h *Host) Agents(ctx context.Context, dir string) ([]lifecycle.Item, error) {
	if items, ok := h.fromStream(dir, time.Now()); ok {
		return items, nil
	}
	return h.agents(ctx, dir, false)
}

// seenFresh is how long the host's last list is reused while its status
// stream says the same agents run there (the local figures' rule: git
// figures reused up to 10 s while the status holds).
const seenFresh = 10 * time.Second

// fromStream is the host's last list about dir, when it is under
// seenFresh old and the monitor's stream of the host is up and tells of
// exactly those agents: each with its status from the stream (now, not
// then). No ssh call. Otherwise false, and the host is asked.
func (h *Host) fromStream(dir string, now time.Time) ([]lifecycle.Item, bool) {
	s, err := h.seenFile().Load()
	if err != nil {
		return nil, false
	}
	last, ok := (*s)[dir]
	if !ok || last.Changed || now.Sub(last.At) > seenFresh || now.Before(last.At) || (dir != "" && len(last.Items) == 0) {
		return nil, false // an empty list does not say which clone's agents the stream's are
	}
	var hs *state.HostStatus
	for _, st := range state.HostStatuses() {
		if st.Host == h.Name {
			hs = &st
		}
	}
	if hs == nil || !hs.Reachable {
		return nil, false
	}
	repos := map[string]bool{}
	for _, it := range last.Items {
		repos[it.Repo] = true
	}
	stream := map[state.Key]state.RemoteAgent{}
	for _, a := range hs.Agents {
		if dir == "" || repos[a.Repo] {
			stream[state.Key{Repo: a.Repo, Name: a.Name}] = a
		}
	}
	if len(stream) != len(last.Items) {
		return nil, false
	}
	items := make([]lifecycle.Item, len(last.Items))
	for i, it := range last.Items {
		a, ok := stream[state.Key{Repo: it.Repo, Name: it.Name}]
		if !ok {
			return nil, false
		}
		it.Host, it.Status, it.StatusSince = h.Name, string(a.Status), a.Since
		items[i] = it
	}
	return items, true
}

// FreshAgents is Agents with every git figure computed now (owt list
// --fresh there), for a decision that must not rest on a cached one:
// whether an agent has uncommitted work before its branch lands.
func (h *Host) FreshAgents(ctx context.Context, dir string) ([]lifecycle.Item, error) {
	return h.agents(ctx, dir, true)
}

func (h *Host) agents(ctx context.Context, dir string, fresh bool) ([]lifecycle.Item, error) {
	r := ssh.Remote{Dir: dir, Argv: remoteOwt("list", "--json")}
	if dir == "" {
		r.Argv = remoteOwt("list", "--all", "--json")
	}
	if fresh {
		r.Argv = append(r.Argv, "--fresh")
	}
	out, err := h.SSH.Output(ctx, r)
	if err != nil {
		if errors.Is(err, ssh.ErrUnreachable) || ctx.Err() != nil {
			return h.lastSeen(dir), err
		}
		return nil, err
	}
	var items []lifecycle.Item
	if err := json.Unmarshal(bytes.TrimSpace(out), &items); err != nil {
		return nil, fmt.Errorf("owt list on %s: %w (is owt there the same version? owt host check %s)", h.Name, err, h.Name)
	}
	for i := range items {
		items[i].Host = h.Name
	}
	h.remember(dir, items)
	return items, nil
}

// seen is a host's last answers, by the dir asked about ("" for all).
type seen map[string]seenList

type seenList struct {
	At    time.Time        `json:"at"`
	Items []lifecycle.Item `json:"items"`
	// Changed: owt changed the host's agents since (a new one, a
	// delete): the list is not reused (fromStream), only shown as last
	// seen.
	Changed bool `json:"changed,omitempty"`
}

func (h *Host) seenFile() state.JSONFile[seen] {
	path := filepath.Join(state.Dir(), "hosts", h.Name+".json")
	return state.JSONFile[seen]{Path: path, What: "last agents seen on " + h.Name, Load: func() (*seen, error) {
		s := seen{}
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return &s, nil
		}
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &s); err != nil {
			return &seen{}, nil // a cache: a bad one is started afresh
		}
		return &s, nil
	}}
}

func (h *Host) remember(dir string, items []lifecycle.Item) {
	_ = h.seenFile().Update(func(s *seen) (bool, error) {
		(*s)[dir] = seenList{At: time.Now().UTC(), Items: items}
		return true, nil
	})
}

// lastSeen is the host's last answer about dir, each agent marked
// unreachable: its status is the last known one, not "exited".
func (h *Host) lastSeen(dir string) []lifecycle.Item {
	s, err := h.seenFile().Load()
	if err != nil {
		return nil
	}
	last, ok := (*s)[dir]
	if !ok {
		return nil
	}
	at := last.At
	// The stream's last word, when newer than that answer, has the
	// agents' statuses since (owt list reuses the answer while the stream
	// holds: fromStream).
	newer := map[state.Key]state.RemoteAgent{}
	for _, st := range state.HostStatuses() {
		if st.Host == h.Name && st.At.After(last.At) {
			at = st.At // seen then, by the stream
			for _, a := range st.Agents {
				newer[state.Key{Repo: a.Repo, Name: a.Name}] = a
			}
		}
	}
	for i := range last.Items {
		if a, ok := newer[state.Key{Repo: last.Items[i].Repo, Name: last.Items[i].Name}]; ok {
			last.Items[i].Status, last.Items[i].StatusSince = string(a.Status), a.Since
		}
		last.Items[i].Host = h.Name
		last.Items[i].Unreachable = true
		last.Items[i].SeenAt = &at
	}
	return last.Items
}

// NewSpec is an owt new for a host: everything the user chose, sent as
// JSON on the remote owt's stdin (owt new --spec-stdin), never on the
// ssh command line.
type NewSpec struct {
	Task     string `json:"task"`
	Name     string `json:"name,omitempty"`
	Branch   string `json:"branch,omitempty"`
	Base     string `json:"base"`
	StartAt  string `json:"start_at"`
	Tool     string `json:"tool,omitempty"`
	Template string `json:"template,omitempty"`
	NoAgent  bool   `json:"no_agent,omitempty"`
	Plan     bool   `json:"plan,omitempty"`
	NoSetup  bool   `json:"no_setup,omitempty"`
	// MaxAgents is the host's max_agents, enforced by its owt new while
	// it reserves the name (owt new --host calls at once).
	MaxAgents int `json:"max_agents,omitempty"`
	// Issue is the GitHub issue Task was read from on the user's machine
	// (owt new --host --issue): recorded there so owt pr closes it, never
	// read there.
	Issue int `json:"issue,omitempty"`
}

// ErrNoClone is a host without a clone of the repository.
var ErrNoClone = errors.New("no clone of this repository on the host")

// BaseRef is the ref of the host's clone a base commit is pushed to:
// owt's own namespace, never a branch.
func BaseRef(commit string) string { return "refs/owt/base/" + commit }

// NewAgent starts an agent on the host in its clone of repo: the base
// branch's commit is pushed there first (to BaseRef, never forced, never
// into a branch), then the host's owt creates the worktree, session and
// agent starting at that commit, recording the base branch's name.
func (h *Host) NewAgent(ctx context.Context, repo git.Repo, spec NewSpec) (lifecycle.Item, error) {
	var item lifecycle.Item
	clone, err := h.FindClone(ctx, repo)
	if err != nil {
		return item, err
	}
	if spec.Base == "" {
		spec.Base = repo.HeadBranch
		if spec.Base == "" {
			return item, errors.New("HEAD is detached here: pass --base BRANCH")
		}
	}
	commit, err := repo.ResolveCommit(git.BranchRef(spec.Base))
	if err != nil || !repo.BranchExists(spec.Base) {
		return item, fmt.Errorf("unknown base %q: no such local branch", spec.Base)
	}
	if spec.StartAt != "" {
		// A start commit of the caller's (a run's task whose parents'
		// work was merged for it), recorded against the base branch.
		if commit, err = repo.ResolveCommit(spec.StartAt); err != nil {
			return item, fmt.Errorf("start commit %s: %w", spec.StartAt, err)
		}
	}
	if err := h.checkRoom(ctx); err != nil {
		return item, err
	}
	gitSSH, err := h.SSH.GitCommand()
	if err != nil {
		return item, err
	}
	if err := repo.WithContext(ctx).PushCommitTo(h.SSH.GitURL(clone), commit, BaseRef(commit), gitSSH); err != nil {
		return item, fmt.Errorf("send the base commit to %s:%s: %w", h.Name, clone, err)
	}
	// The base branch there too, when git takes it without force: a
	// fast-forward of a branch not checked out there. The agent's figures
	// there (ahead, changes) count from that branch; when it cannot move,
	// they may count commits it lacks, and the caller is told.
	// Checked out is asked first, in every worktree there: git's own
	// refusal covers only the main one, and a host may allow that too.
	if busy, err := h.checkedOut(ctx, clone); err != nil || busy[spec.Base] {
		h.BaseBehind = fmt.Sprintf("%s on %s was left as it is (checked out there): the agent's figures there count from it", spec.Base, h.Name)
	} else if err := repo.WithContext(ctx).PushBranchTo(h.SSH.GitURL(clone), commit, spec.Base, gitSSH); err != nil {
		h.BaseBehind = fmt.Sprintf("%s on %s was left as it is (it went its own way there): the agent's figures there count from it", spec.Base, h.Name)
	}
	spec.StartAt = commit
	spec.MaxAgents = h.Config.MaxAgents
	in, err := json.Marshal(spec)
	if err != nil {
		return item, err
	}
	out, err := h.SSH.Output(ctx, ssh.Remote{Dir: clone, Argv: remoteOwt("new", "--spec-stdin", "--json"), Stdin: bytes.NewReader(in)})
	h.forgetLists()
	var ee *ssh.ExitError
	if err != nil && !errors.As(err, &ee) {
		// The connection ended with the create under way there: it may
		// have finished, undone itself, or been cut off half-way.
		return item, fmt.Errorf("%w; the connection ended while owt new ran on %s: owt list shows whether the agent was made there, owt doctor whether one was left half-made (owt delete NAME@%s undoes it)", err, h.Name, h.Name)
	}
	if err != nil && strings.Contains(ee.Stderr, lifecycle.MaxAgentsRefused) {
		// Its owt counted the agents there while it reserved the name (a
		// few owt new at once passed checkRoom together).
		return item, fmt.Errorf("%w: %s: %s", ErrFull, h.Name, strings.TrimPrefix(strings.TrimSpace(ee.Stderr), "owt: "))
	}
	if err != nil {
		return item, err
	}
	if err := json.Unmarshal(bytes.TrimSpace(out), &item); err != nil {
		return item, fmt.Errorf("owt new on %s: %w", h.Name, err)
	}
	item.Host = h.Name
	return item, nil
}

// SendSpec is an owt send for an agent on a host: who and what, sent as
// JSON on the remote owt's stdin (owt send --spec-stdin).
type SendSpec struct {
	Name   string `json:"name"`
	Text   string `json:"text"`
	Answer bool   `json:"answer,omitempty"`
}

// Send types spec's text into the agent of the host's clone at dir, as
// owt send there does, and returns what that owt said (owt send --json:
// one result per agent). A failed send still returns its results with
// the error.
func (h *Host) Send(ctx context.Context, dir string, spec SendSpec) ([]byte, error) {
	in, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	return h.SSH.Output(ctx, ssh.Remote{Dir: dir, Argv: remoteOwt("send", "--spec-stdin", "--json"), Stdin: bytes.NewReader(in)})
}

// ErrFull is a host running its max_agents already.
var ErrFull = errors.New("host is full")

// checkRoom refuses a new agent on a host that runs max_agents agents
// already (every repository's; an exited agent no longer counts).
func (h *Host) checkRoom(ctx context.Context) error {
	if h.Config.MaxAgents <= 0 {
		return nil
	}
	items, err := h.Agents(ctx, "")
	if err != nil {
		return err
	}
	live := 0
	for _, it := range items {
		if it.Status != string(state.Exited) {
			live++
		}
	}
	if live >= h.Config.MaxAgents {
		return fmt.Errorf("%w: %s runs %d agent(s), its max_agents is %d: finish one there, or raise max_agents in [hosts.%s]", ErrFull, h.Name, live, h.Config.MaxAgents, h.Name)
	}
	return nil
}

// Verbs are the commands a local owt may run, through owt host exec, on
// an agent of a host: ones that read or wait, about one named agent
// (check: the report before a landing, made where the worktree is);
// delete, the teardown after its work landed here (owt merge NAME@HOST);
// commit, the host's half of owt ship NAME@HOST; pr, pushed from where
// the branch is.
var Verbs = map[string]bool{"status": true, "why": true, "wait": true, "diff": true, "delete": true,
	"check": true, "commit": true, "pr": true}

// Exec runs owt argv (argv[0] one of Verbs) in the host's clone at dir,
// its output streamed to stdout and stderr. The argv travels as JSON on
// the remote owt's stdin (owt host exec), never on the ssh line. A
// failure of the remote owt is an *ssh.ExitError with its exit code
// (its own message went to stderr already).
func (h *Host) Exec(ctx context.Context, dir string, argv []string, stdout, stderr io.Writer) error {
	if len(argv) == 0 || !Verbs[argv[0]] {
		return fmt.Errorf("owt host exec: %q is not a command owt runs on a host", argv)
	}
	in, err := json.Marshal(argv)
	if err != nil {
		return err
	}
	if argv[0] == "delete" {
		// The agents there change: the last lists must not stand in for
		// them until the stream has caught up (fromStream).
		defer h.forgetLists()
	}
	err = h.exec(ctx, dir, in, stdout, stderr)
	if err == nil && argv[0] == "delete" && len(argv) > 1 && argv[len(argv)-2] == "--" && !slices.Contains(argv, "--dry-run") {
		// Gone there: never shown again as last seen on a host that
		// went away since.
		h.forgetAgent(dir, argv[len(argv)-1])
	}
	return err
}

func (h *Host) exec(ctx context.Context, dir string, in []byte, stdout, stderr io.Writer) error {
	// The argv, then stdin stays open while the verb runs: its end (this
	// owt gone, killed or done) ends the verb there (owt host exec).
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return err
	}
	defer stdinR.Close()
	defer stdinW.Close()
	if _, err := stdinW.Write(append(in, '\n')); err != nil {
		return err
	}
	return h.SSH.Run(ctx, ssh.Remote{Dir: dir, Argv: remoteOwt("host", "exec"), Stdin: stdinR, Stdout: stdout, Stderr: stderr})
}

// forgetAgent drops the agent called name of the host's clone at dir
// from the host's last lists: owt deleted it there.
func (h *Host) forgetAgent(dir, name string) {
	_ = h.seenFile().Update(func(s *seen) (bool, error) {
		repos := map[string]bool{}
		for _, it := range (*s)[dir].Items {
			repos[it.Repo] = true // the clone's own path there
		}
		for d, l := range *s {
			kept := l.Items[:0:0]
			for _, it := range l.Items {
				if it.Name == name && (d == dir || repos[it.Repo]) {
					continue
				}
				kept = append(kept, it)
			}
			l.Items = kept
			(*s)[d] = l
		}
		return true, nil
	})
}

// forgetLists drops the host's last lists' freshness: the next owt list
// asks the host (a host that does not answer still gives them, as last
// seen).
func (h *Host) forgetLists() {
	_ = h.seenFile().Update(func(s *seen) (bool, error) {
		for dir, l := range *s {
			l.Changed = true
			(*s)[dir] = l
		}
		return len(*s) > 0, nil
	})
}

// AttachArgv is the argv (ssh first) that attaches the user's terminal
// to the agent's tmux session on the host: ssh -t HOST tmux attach.
func (h *Host) AttachArgv(session string) ([]string, error) {
	if session == "" {
		return nil, fmt.Errorf("no tmux session on %s", h.Name)
	}
	return h.SSH.InteractiveArgs(ssh.Remote{Argv: []string{"tmux", "attach-session", "-t", "=" + session}})
}

// FetchBranch brings the branch of the agent called name, in the host's
// clone of repo, into repo under the same name (fast-forward only, never
// into a branch checked out here), and returns the branch and its commit.
// It is owt host fetch's: landing fetches into owt's own branch
// (FetchForLanding), never into a branch of the user's or a local agent's.
func (h *Host) FetchBranch(ctx context.Context, repo git.Repo, name string) (string, string, error) {
	branch, clone, err := h.agentBranch(ctx, repo, name)
	if err != nil {
		return "", "", err
	}
	gitSSH, err := h.SSH.GitCommand()
	if err != nil {
		return "", "", err
	}
	if repo.BranchExists(branch) {
		// A branch of that name is here already (the user's, or a local
		// agent's of the same name): moved only when it is behind the
		// host's, and never when it is checked out here.
		if path, found, err := repo.CheckedOutAt(branch); err != nil {
			return branch, "", err
		} else if found {
			return branch, "", fmt.Errorf("fetch %s from %s: a branch %s is here already, checked out at %s, and is never moved; land %s@%s with owt merge (it does not touch it), or switch that checkout away",
				branch, h.Name, branch, path, name, h.Name)
		}
		f, err := h.fetchAs(ctx, repo, clone, branch, gitSSH)
		defer func() {
			if repo.BranchExists(f.Local) {
				_ = repo.DeleteBranch(f.Local, true)
			}
		}()
		if err != nil {
			return branch, "", err
		}
		if !repo.IsAncestor(git.BranchRef(branch), f.Commit) {
			return branch, "", fmt.Errorf("fetch %s from %s: a branch %s is here already with commits that %s@%s's lacks, and is never forced; land %s@%s with owt merge (it does not touch it), or rename yours",
				branch, h.Name, branch, name, h.Name, name, h.Name)
		}
	}
	if err := repo.WithContext(ctx).FetchBranchFrom(h.SSH.GitURL(clone), branch, gitSSH); err != nil {
		return branch, "", err
	}
	commit, err := repo.ResolveCommit(git.BranchRef(branch))
	return branch, commit, err
}

// Fetched is the branch of an agent on a host brought home to be landed:
// Branch its name on the host, Local owt's own branch here holding it
// (LandingBranch), Commit its tip.
type Fetched struct {
	Branch, Local, Commit string
}

// LandingBranch is owt's own local branch that the branch of an agent on
// host is fetched into to be landed: owt/remote/HOST/BRANCH, so a local
// agent or a user's branch of the same name is never touched.
func LandingBranch(host, branch string) string {
	return git.OwnFetchPrefix + host + "/" + branch
}

// FetchForLanding brings the branch of the agent called name, in the
// host's clone of repo, into owt's own branch LandingBranch here (moved
// to it whatever it was: it is owt's, for this host's agent only). The
// caller deletes Local once it has landed.
func (h *Host) FetchForLanding(ctx context.Context, repo git.Repo, name string) (Fetched, error) {
	branch, clone, err := h.agentBranch(ctx, repo, name)
	if err != nil {
		return Fetched{}, err
	}
	gitSSH, err := h.SSH.GitCommand()
	if err != nil {
		return Fetched{}, err
	}
	return h.fetchAs(ctx, repo, clone, branch, gitSSH)
}

func (h *Host) fetchAs(ctx context.Context, repo git.Repo, clone, branch, gitSSH string) (Fetched, error) {
	f := Fetched{Branch: branch, Local: LandingBranch(h.Name, branch)}
	if err := repo.WithContext(ctx).FetchBranchAs(h.SSH.GitURL(clone), branch, f.Local, gitSSH); err != nil {
		return f, err
	}
	var err error
	f.Commit, err = repo.ResolveCommit(git.BranchRef(f.Local))
	return f, err
}

// agentBranch is the branch of the agent called name in the host's clone
// of repo, and that clone.
func (h *Host) agentBranch(ctx context.Context, repo git.Repo, name string) (string, string, error) {
	clone, ok := h.Clone(repo.Root)
	if !ok {
		return "", "", fmt.Errorf("%w: %s", ErrNoClone, h.Name)
	}
	items, err := h.Agents(ctx, clone)
	if err != nil {
		return "", "", err
	}
	branch := ""
	for _, it := range items {
		if it.Name == name {
			branch = it.Branch
		}
	}
	if branch == "" {
		return "", "", fmt.Errorf("no agent %s on %s", name, h.Name)
	}
	return branch, clone, nil
}

// checkedOut are the branches checked out in any worktree of the host's
// clone at dir.
func (h *Host) checkedOut(ctx context.Context, dir string) (map[string]bool, error) {
	out, err := h.SSH.Output(ctx, ssh.Remote{Dir: dir, Argv: []string{"git", "worktree", "list", "--porcelain"}})
	if err != nil {
		return nil, err
	}
	busy := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if b, ok := strings.CutPrefix(line, "branch refs/heads/"); ok {
			busy[b] = true
		}
	}
	return busy, nil
}

// PreviewAgent asks the host's owt what owt new would start an agent
// with in its clone at dir (owt new --spec-stdin --dry-run --json there:
// the first prompt with its templates and memory), changing nothing
// there; spec travels on stdin. It returns that owt's JSON.
func (h *Host) PreviewAgent(ctx context.Context, dir string, spec NewSpec) ([]byte, error) {
	in, err := json.Marshal(spec)
	if err != nil {
		return nil, err
	}
	return h.SSH.Output(ctx, ssh.Remote{Dir: dir, Argv: remoteOwt("new", "--spec-stdin", "--dry-run", "--json"), Stdin: bytes.NewReader(in)})
}
