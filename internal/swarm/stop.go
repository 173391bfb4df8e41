package swarm

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/send"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// TesterReaction is the name under which the tester's edits outside test
// files show in the host's NEEDS YOU (owt dismiss clears it).
const TesterReaction = "swarm-tester"

// StopReport is what owt swarm stop did.
type StopReport struct {
	Host    string   `json:"host"`
	Stopped []string `json:"stopped"`
	// NotTests are files the tester changed that are not test files.
	NotTests []string `json:"tester_non_test_files"`
	// TesterUnchecked says why the tester's edits were not checked (its
	// tool does not report them); "" when they were, or there is no tester.
	TesterUnchecked string `json:"tester_unchecked,omitempty"`
	// Kept: the worktree, its branch and its commits stay.
	Path   string `json:"path"`
	Branch string `json:"branch"`
}

// Stop ends host's swarm: it checks the tester's edits, closes the
// workers' windows and forgets their records. The worktree, its branch,
// its commits and its uncommitted files stay.
func (s *Swarms) Stop(host string, force bool) (StopReport, error) {
	sw, err := s.Get(host)
	if err != nil {
		return StopReport{}, err
	}
	if !force {
		var busy []string
		for _, r := range sw.Workers {
			if r.Status == state.Working || r.Status == state.Starting {
				busy = append(busy, r.Name)
			}
		}
		if len(busy) > 0 {
			return StopReport{}, fmt.Errorf("%w: %s %s in the middle of a turn, which stopping now would cut short; wait (owt wait), or --force", ErrBusy, strings.Join(busy, ", "), isAre(len(busy)))
		}
	}
	rep := StopReport{Host: sw.Host, Path: sw.Path, Branch: sw.Branch, Stopped: []string{}, NotTests: []string{}}
	for _, r := range sw.Workers {
		if r.Swarm.Role == Tester {
			if prof, perr := agent.Resolve(s.W.Tools, r.Tool); perr == nil && !prof.ReportsEdits() {
				rep.TesterUnchecked = fmt.Sprintf("%s's hooks do not name the files it writes", r.Tool)
				continue
			}
			rep.NotTests, err = s.testerCheck(r)
			if err != nil {
				s.W.Warnf("could not check the tester's edits: %v", err)
			}
		}
	}
	if len(rep.NotTests) > 0 {
		if err := s.needsYou(sw.Host, rep.NotTests); err != nil {
			s.W.Warnf("%v", err)
		}
	}
	server, _ := s.W.Tmux.ServerIdentity()
	var names []string
	for _, r := range sw.Workers {
		// Pane ids are a server's own: another server's %N is another pane.
		if r.Pane != "" && r.Server != "" && r.Server == server {
			if err := s.W.Tmux.KillWindow(r.Pane); err != nil {
				return rep, fmt.Errorf("close the window of %s: %w (the swarm is still there)", r.Name, err)
			}
		}
		names = append(names, r.Name)
	}
	if err := s.forget(names); err != nil {
		return rep, fmt.Errorf("closed the workers' windows, but could not forget their records: %w", err)
	}
	rep.Stopped = names
	_ = status.PublishSummaryLocked(s.W.Tmux)
	return rep, nil
}

// ErrBusy marks a stop refused because a worker is mid-turn.
var ErrBusy = errors.New("swarm busy")

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// testerCheck lists the files the tester wrote (as its hooks reported)
// that changed in the worktree since the swarm started and are not test
// files.
func (s *Swarms) testerCheck(r *state.Record) ([]string, error) {
	out := []string{}
	if len(r.Swarm.Edited) == 0 {
		return out, nil
	}
	start := r.Swarm.Start
	if start == "" {
		// Rebuilt from tmux after a corrupt state file, the start commit
		// is lost: the worktree's own base is the nearest honest one.
		start = r.BaseCommit
		if start == "" {
			start = r.Base
		}
	}
	changed, err := git.ChangedFiles(r.Path, start)
	if err != nil {
		return out, fmt.Errorf("read the tester's changes: %w", err)
	}
	for _, c := range changed {
		if slices.Contains(r.Swarm.Edited, c.Path) && !IsTestFile(c.Path) {
			out = append(out, c.Path)
		}
	}
	return out, nil
}

// needsYou puts the tester's files outside tests into the host's NEEDS YOU.
func (s *Swarms) needsYou(host string, files []string) error {
	why := fmt.Sprintf("the swarm's tester changed %d file(s) that are not tests: %s", len(files), untrusted.Some(files, workspace.ListedMax))
	err := s.W.Store.Update(func(f *state.File) error {
		r, ok := f.Records[host]
		if !ok {
			return state.ErrNoChange
		}
		if r.Reactions == nil {
			r.Reactions = map[string]*state.Reaction{}
		}
		r.Reactions[TesterReaction] = &state.Reaction{NeedsYou: why, At: s.W.Now()}
		return nil
	})
	if err != nil {
		return fmt.Errorf("report the tester's edits on %s: %w", host, err)
	}
	return nil
}

// IsTestFile reports whether a worktree-relative, slash-separated path is
// a test file: *_test.go, anything under a test/, tests/ or testdata/
// folder, *_test.*, *.test.*, *.spec.* and test_*.py.
func IsTestFile(p string) bool {
	dirs := strings.Split(path.Dir(p), "/")
	for _, d := range dirs {
		if d == "test" || d == "tests" || d == "testdata" || d == "__tests__" || d == "spec" || d == "specs" {
			return true
		}
	}
	base := path.Base(p)
	stem, ext := strings.TrimSuffix(base, path.Ext(base)), path.Ext(base)
	switch {
	case strings.HasSuffix(stem, "_test"):
		return true
	case strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"):
		return true
	case ext == ".py" && strings.HasPrefix(base, "test_"), base == "conftest.py":
		return true
	case strings.HasSuffix(stem, "_spec"): // RSpec
		return true
	}
	return false
}

// Send types text into every running worker of host's swarm, as owt send
// --all does for a repository: a worker waiting for the user or exited
// is skipped and said so.
func (s *Swarms) Send(host string, msg untrusted.Untrusted) ([]send.Result, error) {
	sw, err := s.Get(host)
	if err != nil {
		return nil, err
	}
	var to []*state.Record
	var skipped []send.Result
	for _, r := range sw.Workers {
		switch {
		case sw.Lost[r.Name]:
			skipped = append(skipped, send.Result{Name: r.Name, Err: r.Name + ": " + WindowGone(sw.Host)})
			continue
		}
		switch r.Status {
		case state.Exited:
			skipped = append(skipped, send.Result{Name: r.Name, Err: r.Name + ": its agent exited"})
		case state.Waiting:
			skipped = append(skipped, send.Result{Name: r.Name, Err: r.Name + ": it waits for you (see 'owt status " + r.Name + "')"})
		default:
			to = append(to, r)
		}
	}
	return append(send.Each(s.W, to, msg), skipped...), nil
}

// TesterOutsideTests lists the files the tester of host's swarm changed
// that are not test files; none when host has no swarm or no tester.
func (s *Swarms) TesterOutsideTests(host string) ([]string, error) {
	recs, err := s.W.Records()
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		if r.WorkerOf(host) && r.Swarm.Role == Tester {
			return s.testerCheck(r)
		}
	}
	return nil, nil
}
