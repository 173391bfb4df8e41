// Package facts is what owt does with a repository's memory (package
// memory holds it): the facts a new agent starts with, written into its
// instructions file within a budget, pinned first; mining facts from what
// agents and the user already wrote (done summaries, the note, review
// comments reactions delivered, messages of merged commits), each with its
// source; and consolidation (duplicates merged, stale sources marked,
// contradictions and stale worktrees reported).
//
// Imports memory, notes, outbox, git, state, text and workspace; never
// lifecycle, monitor, cli or popups.
package facts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/notes"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/text"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Exists reports whether the repository at root has a memory yet: the
// paths that only read it do not create one.
func Exists(root string) bool {
	_, err := os.Stat(memory.PathFor(root))
	return !errors.Is(err, fs.ErrNotExist)
}

// ForTask is the facts an agent with task starts with: every pinned fact,
// then the ones that share the most words with the task, until budget
// tokens (about 4 characters each) are used; and the block they make.
func ForTask(db *memory.DB, task string, budget int) ([]memory.Item, string, error) {
	if budget <= 0 {
		return nil, "", nil
	}
	pinned, err := db.Pinned()
	if err != nil {
		return nil, "", err
	}
	relevant, err := db.Relevant(task, 50)
	if err != nil {
		return nil, "", err
	}
	var chosen []memory.Item
	seen := map[int64]bool{}
	used := 0
	for _, it := range append(pinned, relevant...) {
		if seen[it.ID] || it.Stale != "" && !it.Pinned {
			continue
		}
		line := Line(it)
		cost := (len(line) + 3) / 4
		if used+cost > budget {
			if it.Pinned {
				continue // a long pinned fact does not crowd out the rest
			}
			break
		}
		seen[it.ID] = true
		used += cost
		chosen = append(chosen, it)
	}
	var b strings.Builder
	for _, it := range chosen {
		b.WriteString(Line(it))
		b.WriteByte('\n')
	}
	return chosen, strings.TrimRight(b.String(), "\n"), nil
}

// Line is a fact as an agent reads it: one list item, drawn inert (no
// control characters, no marker of owt's blocks).
func Line(it memory.Item) string {
	t := text.From(it.Text).Block()
	t = strings.ReplaceAll(t, "<!--", "<! --")
	t = strings.ReplaceAll(t, "\n", "\n  ")
	pin := ""
	if it.Pinned {
		pin = ", pinned"
	}
	src := it.Source.From
	if it.Source.Agent != "" {
		src += " " + it.Source.Agent
	}
	return fmt.Sprintf("- (%s%s; from %s) %s", it.Kind, pin, src, t)
}

// Inject writes the facts for rec's task into its worktree (the file the
// note goes to) and tells the user: how many facts went where (progress),
// or why none did (a warning). A memory that cannot be read never stops
// an agent from starting.
func Inject(w *workspace.Workspace, rec *state.Record) {
	line, failed := inject(w, rec)
	switch {
	case line == "":
	case failed:
		w.Warnf("%s", line)
	default:
		w.Logf("%s", line)
	}
}

func inject(w *workspace.Workspace, rec *state.Record) (line string, failed bool) {
	if rec.NoAgent || w.Config.Memory.InjectTokens <= 0 || !Exists(w.Repo.Root) {
		return "", false
	}
	db, err := memory.Open(w.Repo.Root)
	if err != nil {
		return fmt.Sprintf("memory: %v; %s starts without facts", err, rec.Name), true
	}
	defer db.Close()
	items, block, err := ForTask(db, rec.Task, w.Config.Memory.InjectTokens)
	if err != nil {
		return fmt.Sprintf("memory: %v; %s starts without facts", err, rec.Name), true
	}
	if len(items) == 0 {
		return "", false
	}
	res := notes.Of(w).ApplyMemory(rec, block)
	switch res.Action {
	case "written", "unchanged":
		return fmt.Sprintf("memory: %d fact(s) for %s in %s", len(items), rec.Name, res.File), false
	}
	return fmt.Sprintf("memory: facts not written for %s: %s", rec.Name, res.Reason), true
}
