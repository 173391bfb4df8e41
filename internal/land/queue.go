package land

import (
	"fmt"
	"slices"
	"sort"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
)

// QueueEntry is one finished worktree in merge order.
type QueueEntry struct {
	Name string `json:"name"`
	// Host is the host an agent's worktree is on ("" here): its
	// prediction is made there (owt check), after every entry here.
	Host        string `json:"host,omitempty"`
	Branch      string `json:"branch"`
	Base        string `json:"base"`
	Status      string `json:"status"`
	Ahead       int    `json:"ahead"`
	Uncommitted int    `json:"uncommitted"`
	// Size is the lines it changes; Overlaps the other queued worktrees
	// changing a file it changes, when its turn comes.
	Size     int `json:"size"`
	Overlaps int `json:"overlaps"`
	// Clean says it is predicted to merge without conflict after the
	// entries before it; Conflicts lists the files otherwise.
	Clean     bool     `json:"clean"`
	Conflicts []string `json:"conflicts,omitempty"`
}

// Skipped is a worktree the queue leaves out, and why.
type Skipped struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Queue is the merge order of the finished worktrees.
type Queue struct {
	Entries []QueueEntry `json:"queue"`
	Skipped []Skipped    `json:"skipped"`
}

// candidate is a worktree being placed in the queue.
type candidate struct {
	entry  QueueEntry
	commit string   // the branch tip, or a snapshot of its uncommitted work
	files  []string // files it changes
}

// placed is a candidate with its predicted outcome at its turn.
type placed struct {
	c         *candidate
	overlaps  int // other candidates left that change a file it changes
	clashes   int // other candidates left it is predicted to conflict with
	clean     bool
	conflicts []string
}

// landFunc merges commit onto cur (a prediction, nothing moves) and
// returns the new tip, or the conflicting files.
type landFunc func(cur, commit string) (next string, conflicts []string, err error)

// BuildQueue orders the idle and exited worktrees that have commits or
// uncommitted work so that as many as possible merge cleanly: those with
// no predicted conflict first, then fewest overlaps with the rest, then
// smallest diff. Each turn is predicted on top of the merges before it.
func (c *Context) BuildQueue() (Queue, error) { return c.BuildQueueOf(nil) }

// BuildQueueOf is BuildQueue over the worktrees keep accepts (all when
// keep is nil); the others are neither queued nor listed as skipped.
// owt queue --ship uses it to stay within the list the user confirmed.
func (c *Context) BuildQueueOf(keep func(*state.Record) bool) (Queue, error) {
	q := Queue{Entries: []QueueEntry{}, Skipped: []Skipped{}}
	recs, err := c.records()
	if err != nil {
		return q, err
	}
	if keep != nil {
		recs = slices.DeleteFunc(slices.Clone(recs), func(r *state.Record) bool { return !keep(r) })
	}
	byBase := map[string][]*candidate{}
	var bases []string
	for _, r := range recs {
		cand, why := c.queueCandidate(r)
		if cand == nil {
			q.Skipped = append(q.Skipped, Skipped{Name: r.Name, Reason: why})
			continue
		}
		if byBase[r.Base] == nil {
			bases = append(bases, r.Base)
		}
		byBase[r.Base] = append(byBase[r.Base], cand)
	}
	sort.Strings(bases)
	for _, base := range bases {
		start, err := c.Git.ResolveCommit("refs/heads/" + base)
		if err != nil {
			return q, err
		}
		order, err := orderQueue(byBase[base], start, c.predictLanding, c.predictClash)
		if err != nil {
			return q, err
		}
		for _, p := range order {
			e := p.c.entry
			e.Overlaps, e.Clean, e.Conflicts = p.overlaps, p.clean, p.conflicts
			q.Entries = append(q.Entries, e)
		}
	}
	return q, nil
}

// queueCandidate returns the candidate for r, or why r is not queued.
func (c *Context) queueCandidate(r *state.Record) (*candidate, string) {
	switch {
	case r.NoAgent:
		return nil, "no agent (ship it by name)"
	case r.Status != state.Idle && r.Status != state.Exited:
		return nil, "agent is " + string(r.Status)
	case !isDir(r.Path):
		return nil, "worktree missing"
	case !c.Git.BranchExists(r.Base):
		return nil, "base branch " + r.Base + " is gone"
	case !c.Git.BranchExists(r.Branch):
		return nil, "branch " + r.Branch + " is gone"
	}
	if op, err := git.OperationInProgress(r.Path); err != nil {
		return nil, err.Error()
	} else if op != "" {
		return nil, "a " + op + " is in progress in its worktree"
	}
	if err := checkOnBranch(r); err != nil {
		return nil, err.Error()
	}
	work, err := c.workFiles(r)
	if err != nil {
		return nil, err.Error()
	}
	ahead, _, err := c.Git.AheadBehind(git.BranchRef(r.Base), git.BranchRef(r.Branch))
	if err != nil {
		return nil, err.Error()
	}
	if ahead == 0 && len(work) == 0 {
		return nil, "no changes"
	}
	// Predict with what ship would commit: settings files without owt's hooks.
	over, err := hookOverlays(r, work)
	if err != nil {
		return nil, err.Error()
	}
	commit, err := git.SnapshotWith(r.Path, work, over)
	if err != nil {
		return nil, err.Error()
	}
	files, err := c.Git.ChangedFiles(git.BranchRef(r.Base), commit)
	if err != nil {
		return nil, err.Error()
	}
	size := 0
	if d, err := git.Diff(r.Path, git.BranchRef(r.Base)); err == nil {
		size = d.Insertions + d.Deletions
	}
	return &candidate{
		entry: QueueEntry{Name: r.Name, Branch: r.Branch, Base: r.Base, Status: string(r.Status),
			Ahead: ahead, Uncommitted: len(work), Size: size},
		commit: commit, files: files,
	}, ""
}

// predictLanding is the landFunc against the real repository: merge-tree
// and a commit no ref points to.
func (c *Context) predictLanding(cur, commit string) (string, []string, error) {
	if c.Git.IsAncestor(cur, commit) {
		return commit, nil, nil
	}
	mt, err := c.Git.MergeTree(cur, commit)
	if err != nil {
		return "", nil, err
	}
	if !mt.Clean() {
		return "", mt.Conflicts, nil
	}
	next, err := c.Git.CommitTree(mt.Tree, []string{cur, commit}, "owt queue prediction\n")
	return next, nil, err
}

// pairFunc predicts whether two candidates conflict with each other.
type pairFunc func(a, b *candidate) (bool, error)

// predictClash is the pairFunc against the real repository.
func (c *Context) predictClash(a, b *candidate) (bool, error) {
	mt, err := c.Git.MergeTree(a.commit, b.commit)
	if err != nil {
		return false, err
	}
	// A conflict on a file only one of them changes comes from a base
	// change the other carries, not from the pair (see compareWithOthers).
	return len(intersect(mt.Conflicts, intersect(a.files, b.files))) > 0, nil
}

// orderQueue places the candidates one turn at a time: among those left,
// the best that lands cleanly on what came before goes next; once none
// does, the rest follow in the same preference order, marked with their
// conflicts.
func orderQueue(cands []*candidate, start string, land landFunc, pair pairFunc) ([]placed, error) {
	clash := map[[2]*candidate]bool{}
	for i, a := range cands {
		for _, b := range cands[i+1:] {
			if len(intersect(a.files, b.files)) == 0 {
				continue // no shared file, no conflict
			}
			ok, err := pair(a, b)
			if err != nil {
				return nil, fmt.Errorf("predict merging %s with %s: %w", a.entry.Name, b.entry.Name, err)
			}
			clash[[2]*candidate{a, b}], clash[[2]*candidate{b, a}] = ok, ok
		}
	}
	left := slices.Clone(cands)
	var out []placed
	cur := start
	for len(left) > 0 {
		type option struct {
			placed
			next string
		}
		var opts []option
		for _, cand := range left {
			next, conflicts, err := land(cur, cand.commit)
			if err != nil {
				return nil, fmt.Errorf("predict merging %s: %w", cand.entry.Name, err)
			}
			p := placed{c: cand, clean: len(conflicts) == 0, conflicts: conflicts}
			for _, o := range left {
				if o == cand {
					continue
				}
				if clash[[2]*candidate{cand, o}] {
					p.clashes++
				}
				if len(intersect(cand.files, o.files)) > 0 {
					p.overlaps++
				}
			}
			opts = append(opts, option{p, next})
		}
		sort.SliceStable(opts, func(i, j int) bool { return better(opts[i].placed, opts[j].placed) })
		best := opts[0]
		if !best.clean {
			for _, o := range opts {
				out = append(out, o.placed)
			}
			break
		}
		out = append(out, best.placed)
		cur = best.next
		left = slices.DeleteFunc(left, func(x *candidate) bool { return x == best.c })
	}
	return out, nil
}

// better is the queue's preference: lands cleanly now first, then fewest
// predicted conflicts with the others left, then fewest overlaps, then
// smallest diff, then name for a stable order.
func better(a, b placed) bool {
	if a.clean != b.clean {
		return a.clean
	}
	if a.clashes != b.clashes {
		return a.clashes < b.clashes
	}
	if a.overlaps != b.overlaps {
		return a.overlaps < b.overlaps
	}
	if a.c.entry.Size != b.c.entry.Size {
		return a.c.entry.Size < b.c.entry.Size
	}
	return a.c.entry.Name < b.c.entry.Name
}
