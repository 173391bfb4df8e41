package run

import (
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/state"
)

// ValidName reports whether s can name a run or a task: a task's id
// becomes part of a worktree, branch and session name, so the rule is
// state.ValidateName's.
func ValidName(s string) bool { return state.ValidateName(s) == nil }

// NameRule is the sentence that says ValidName's rule.
const NameRule = "use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit, not ending in .lock, without '..', and not 'h' or 'help')"

// graph checks the ids and the dependencies: every id present, usable as
// a name and unique; every dependency a known other task; no cycle.
func (d *decoder) graph(tasks []rawTask) {
	first := map[string]rawTask{}
	for _, r := range tasks {
		id := r.task.ID
		switch {
		case !r.hasID:
			// missing or mistyped: already reported
		case id == "":
			d.add(r.label+".id", "is empty")
		case !ValidName(id):
			d.add(r.label+".id", "%q cannot name a worktree: %s", id, NameRule)
		default:
			if prev, dup := first[id]; dup {
				d.add(r.label+".id", "duplicate id %q (task #%d has it too)", id, prev.index)
				continue
			}
			first[id] = r
		}
	}
	edges := map[string][]string{}
	var order []string
	for _, r := range tasks {
		id := r.task.ID
		if first[id].index != r.index {
			id = "" // a task without a usable id has no place in the graph
		}
		seen := map[string]bool{}
		for _, dep := range r.task.DependsOn {
			switch _, known := first[dep]; {
			case dep != "" && dep == r.task.ID:
				d.add(r.label+".depends_on", "%q is the task itself: a task cannot depend on itself", dep)
			case !known:
				d.add(r.label+".depends_on", "unknown task %q", dep)
			case seen[dep]:
				d.add(r.label+".depends_on", "lists %q twice", dep)
			case id != "":
				edges[id] = append(edges[id], dep)
			}
			seen[dep] = true
		}
		if id != "" {
			order = append(order, id)
		}
	}
	for _, c := range cycles(order, edges) {
		d.add(first[c[0]].label+".depends_on", "dependency cycle %s", strings.Join(c, " → "))
	}
}

// cycles finds the dependency cycles, each once, as the ids along it with
// the first repeated at the end ("a → b → a"). ids are visited in file
// order, so the answer is stable.
func cycles(ids []string, deps map[string][]string) [][]string {
	const (
		unseen = iota
		onPath
		finished
	)
	mark := map[string]int{}
	var path []string
	var found [][]string
	var visit func(id string)
	visit = func(id string) {
		mark[id] = onPath
		path = append(path, id)
		for _, dep := range deps[id] {
			switch mark[dep] {
			case unseen:
				visit(dep)
			case onPath:
				start := indexOf(path, dep)
				c := append(append([]string{}, path[start:]...), dep)
				found = append(found, c)
			}
		}
		path = path[:len(path)-1]
		mark[id] = finished
	}
	for _, id := range ids {
		if mark[id] == unseen {
			visit(id)
		}
	}
	return found
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// Waves are the plan's topological layers: the first holds the tasks
// without dependencies, each next one the tasks whose dependencies are all
// in earlier waves. Within a wave, tasks keep the file's order. The plan
// must be valid (no cycle).
func (p *Plan) Waves() [][]string {
	depth := map[string]int{}
	var depthOf func(t *Task) int
	depthOf = func(t *Task) int {
		if d, ok := depth[t.ID]; ok {
			return d
		}
		d := 0
		for _, dep := range t.DependsOn {
			if parent, ok := p.TaskByID(dep); ok {
				d = max(d, depthOf(parent)+1)
			}
		}
		depth[t.ID] = d
		return d
	}
	var waves [][]string
	for i := range p.Tasks {
		d := depthOf(&p.Tasks[i])
		for len(waves) <= d {
			waves = append(waves, nil)
		}
		waves[d] = append(waves[d], p.Tasks[i].ID)
	}
	return waves
}

// String says the plan's shape in one line.
func (p *Plan) String() string {
	return fmt.Sprintf("%d tasks in %d waves, at most %d at once", len(p.Tasks), len(p.Waves()), p.MaxConcurrent)
}
