package facts

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/memory"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Report is what one consolidation pass did and found.
type Report struct {
	Repo  string    `json:"repo"`
	At    time.Time `json:"at"`
	Mined Mined     `json:"mined"`
	// Merged are the groups of duplicates folded into their first id.
	Merged [][]int64 `json:"merged"`
	// Stale are facts whose source is gone, with why.
	Stale []Finding `json:"stale"`
	// Contradictions are pairs of facts on one subject that disagree:
	// for the user to settle (owt memory forget), never picked by owt.
	Contradictions []Contradiction `json:"contradictions"`
	// StaleWorktrees are agents idle for long, or whose branch landed.
	StaleWorktrees []Finding `json:"stale_worktrees"`
}

// Finding is one fact or worktree and why it was reported.
type Finding struct {
	ID   int64  `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
	Why  string `json:"why"`
}

// Contradiction is two facts that disagree, and on what.
type Contradiction struct {
	A   Item   `json:"a"`
	B   Item   `json:"b"`
	Why string `json:"why"`
}

// Lines are the report as a person reads it.
func (r Report) Lines() []string {
	out := []string{fmt.Sprintf("mined %d new fact(s) (done %d, note %d, review %d, commits %d); merged %d group(s) of duplicates",
		r.Mined.Total(), r.Mined.Done, r.Mined.Note, r.Mined.Review, r.Mined.Commits, len(r.Merged))}
	for _, s := range r.Stale {
		out = append(out, fmt.Sprintf("stale fact #%d: %s", s.ID, s.Why))
	}
	for _, c := range r.Contradictions {
		out = append(out, fmt.Sprintf("contradiction: #%d and #%d (%s): keep one with owt memory forget", c.A.ID, c.B.ID, c.Why))
	}
	for _, s := range r.StaleWorktrees {
		out = append(out, fmt.Sprintf("stale worktree %s: %s", s.Name, s.Why))
	}
	return out
}

// Consolidate mines new facts, merges duplicates and near-duplicates
// (into the pinned one, else the oldest), marks facts whose source is gone
// as stale, reports contradictions and stale worktrees, and keeps the
// report (owt memory reports, and the control plane's BACKGROUND).
func Consolidate(w *workspace.Workspace, db *DB, now time.Time) (Report, error) {
	rep := Report{Repo: w.Repo.Root, At: now}
	var err error
	if rep.Mined, err = Mine(w, db, now); err != nil {
		return rep, err
	}
	all, err := db.List("")
	if err != nil {
		return rep, err
	}
	// Oldest first: the first of a group is the one kept.
	sort.Slice(all, func(i, j int) bool {
		if all[i].Pinned != all[j].Pinned {
			return all[i].Pinned
		}
		return all[i].ID < all[j].ID
	})
	groups, contras := compare(all)
	for _, g := range groups {
		if err := db.Merge(g[0], g[1:]); err != nil {
			return rep, err
		}
	}
	rep.Merged, rep.Contradictions = groups, contras
	merged := map[int64]bool{}
	for _, g := range groups {
		for _, id := range g[1:] {
			merged[id] = true
		}
	}
	fate, err := branchFates(w)
	if err != nil {
		return rep, err
	}
	for _, it := range all {
		if merged[it.ID] {
			continue
		}
		why := staleWhy(w.Repo, it, fate)
		if why != it.Stale {
			if err := db.SetStale(it.ID, why); err != nil {
				return rep, err
			}
		}
		if why != "" {
			rep.Stale = append(rep.Stale, Finding{ID: it.ID, Why: why})
		}
	}
	if rep.StaleWorktrees, err = staleWorktrees(w, now); err != nil {
		return rep, err
	}
	body, _ := json.Marshal(rep)
	if err := db.AddReport(now, string(body)); err != nil {
		return rep, err
	}
	return rep, saveLast(rep)
}

// compare finds duplicates (nearly the same words) and contradictions
// (the same subject, but one says not where the other does not, or they
// give different numbers). Each fact is compared only with facts that
// share one of its two rarest words, so 10,000 facts stay quick.
func compare(all []Item) (groups [][]int64, contras []Contradiction) {
	type doc struct {
		words   map[string]bool
		subject map[string]bool
		neg     bool
		nums    string
	}
	docs := make([]doc, len(all))
	freq := map[string]int{}
	for i, it := range all {
		d := doc{words: map[string]bool{}, subject: map[string]bool{}}
		var nums []string
		for _, w := range Words(it.Text) {
			d.words[w] = true
			switch {
			case negations[w]:
				d.neg = true
			case isNumber(w):
				nums = append(nums, w)
			default:
				d.subject[w] = true
			}
		}
		sort.Strings(nums)
		d.nums = strings.Join(nums, " ")
		docs[i] = d
		for w := range d.subject {
			freq[w]++
		}
	}
	index := map[string][]int{}
	rare := make([][]string, len(all))
	for i, d := range docs {
		ws := make([]string, 0, len(d.subject))
		for w := range d.subject {
			ws = append(ws, w)
		}
		sort.Slice(ws, func(a, b int) bool {
			if freq[ws[a]] != freq[ws[b]] {
				return freq[ws[a]] < freq[ws[b]]
			}
			return ws[a] < ws[b]
		})
		if len(ws) > 2 {
			ws = ws[:2]
		}
		rare[i] = ws
		for _, w := range ws {
			index[w] = append(index[w], i)
		}
	}
	into := map[int]int{} // a merged fact → the group's first
	byFirst := map[int][]int64{}
	var order []int
	for i := range all {
		if _, ok := into[i]; ok {
			continue
		}
		seen := map[int]bool{}
		for _, w := range rare[i] {
			for _, j := range index[w] {
				if j <= i || seen[j] {
					continue
				}
				seen[j] = true
				if _, ok := into[j]; ok {
					continue
				}
				a, b := docs[i], docs[j]
				if jaccard(a.subject, b.subject) < 0.5 {
					continue
				}
				switch {
				case a.neg != b.neg:
					contras = append(contras, Contradiction{A: all[i], B: all[j], Why: "one says not"})
				case a.nums != b.nums && a.nums != "" && b.nums != "":
					contras = append(contras, Contradiction{A: all[i], B: all[j], Why: "different numbers: " + a.nums + " / " + b.nums})
				case jaccard(a.words, b.words) >= 0.8:
					into[j] = i
					if _, ok := byFirst[i]; !ok {
						order = append(order, i)
						byFirst[i] = []int64{all[i].ID}
					}
					byFirst[i] = append(byFirst[i], all[j].ID)
				}
			}
		}
	}
	for _, i := range order {
		groups = append(groups, byFirst[i])
	}
	return groups, contras
}

var negations = map[string]bool{"not": true, "never": true, "no": true, "don": true, "dont": true, "doesn": true,
	"isn": true, "avoid": true, "without": true, "cannot": true, "won": true, "shouldn": true, "mustn": true}

func isNumber(w string) bool {
	for _, r := range w {
		if (r < '0' || r > '9') && r != '.' {
			return false
		}
	}
	return w != ""
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return float64(n) / float64(len(a)+len(b)-n)
}

// pathLike finds what looks like a path in a fact: words joined by
// slashes ("internal/api/server.go").
var pathLike = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?:^|[\\s`'\"(])((?:[\\w.-]+/)+[\\w.-]+)(?:$|[\\s`'\"),:;])")
})

// branchFate is what staleWhy knows of branches: those that exist, and
// those owt deleted after their work landed (a merge, a ship, a delete
// of a branch its base holds).
type branchFate struct{ exists, landed map[string]bool }

// branchFates reads the repository's branches and the landed ones of the
// agents owt tore down.
func branchFates(w *workspace.Workspace) (branchFate, error) {
	exists, err := w.Repo.Branches()
	if err != nil {
		return branchFate{}, fmt.Errorf("list the branches: %w", err)
	}
	gone, err := memory.GoneOf(w.Repo.Root)
	if err != nil {
		return branchFate{}, err
	}
	landed := map[string]bool{}
	for _, g := range gone {
		if g.Landed {
			landed[g.Branch] = true
		}
	}
	return branchFate{exists: exists, landed: landed}, nil
}

// staleWhy says why a fact's source is gone: its commit is no longer in
// the repository, the branch it was learned on was deleted without its
// work landing, or a path it names under a folder of the main checkout is
// not there any more. What owt cannot check (a bare file name, words with
// a slash such as "and/or" whose first part is no folder of the
// repository) never makes a fact stale.
func staleWhy(repo git.Repo, it Item, fate branchFate) string {
	if it.Source.From == "commit" && it.Source.Ref != "" && !repo.HasCommit(it.Source.Ref) {
		return "its commit " + short(it.Source.Ref) + " is gone"
	}
	if b := it.Source.Branch; b != "" && fate.exists != nil && !fate.exists[b] && !fate.landed[b] {
		return "its branch " + b + " was deleted without being merged"
	}
	for _, m := range pathLike().FindAllStringSubmatch(it.Text, 5) {
		p := strings.TrimSuffix(m[1], ".")
		if strings.Contains(p, "://") || strings.HasPrefix(p, "/") || strings.Contains(p, "..") {
			continue
		}
		first, _, _ := strings.Cut(p, "/")
		if fi, err := os.Stat(filepath.Join(repo.Root, first)); err != nil || !fi.IsDir() {
			continue // not under a folder of the repository: not a path owt can check
		}
		if _, err := os.Stat(filepath.Join(repo.Root, filepath.FromSlash(p))); err != nil {
			return "it names " + p + ", which is not in " + filepath.Base(repo.Root) + " any more"
		}
	}
	return ""
}

func short(h string) string {
	if len(h) > 10 {
		return h[:10]
	}
	return h
}

// staleWorktrees are agents whose turn ended long ago, and worktrees whose
// commits have all landed on their base.
func staleWorktrees(w *workspace.Workspace, now time.Time) ([]Finding, error) {
	recs, err := w.Records()
	if err != nil {
		return nil, err
	}
	var out []Finding
	for _, r := range recs {
		if r.Swarm != nil || r.Creating {
			continue
		}
		idle := r.Status == state.Idle || r.Status == state.Exited || r.NoAgent
		if idle && now.Sub(r.StatusSince) >= w.Config.Memory.StaleAfter.Duration {
			out = append(out, Finding{Name: r.Name, Why: fmt.Sprintf("%s for %s", r.Status, workspace.Age(now.Sub(r.StatusSince)))})
			continue
		}
		tip, err := w.Repo.ResolveCommit(git.BranchRef(r.Branch))
		if err != nil || tip == r.BaseCommit || r.Base == "" {
			continue
		}
		if w.Repo.IsAncestor(tip, git.BranchRef(r.Base)) {
			out = append(out, Finding{Name: r.Name, Why: "its branch " + r.Branch + " has landed on " + r.Base + ": owt delete " + r.Name})
		}
	}
	return out, nil
}

func saveLast(rep Report) error {
	return memory.Save(memory.Last{Repo: rep.Repo, At: rep.At, Lines: rep.Lines()})
}

// ParseReport reads a report as AddReport kept it.
func ParseReport(body string) (Report, error) {
	var r Report
	err := json.Unmarshal([]byte(body), &r)
	return r, err
}
