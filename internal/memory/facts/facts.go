// Package facts is a repository's memory and what owt does with it: the
// facts its agents and its user learned (decisions, conventions, gotchas,
// plain facts), each with where it came from, kept in SQLite with a
// full-text index; the facts a new agent starts with, written into its
// instructions file within a budget, pinned first; mining facts from what
// agents and the user already wrote (done summaries, the note, review
// comments reactions delivered, messages of merged commits), each with its
// source; and consolidation (duplicates merged, stale sources marked,
// contradictions and stale worktrees reported).
//
// It links SQLite, so only owt-mcp links it, never owt itself: owt reaches
// it through package memory (its parent), which runs owt-mcp. The hot
// paths (hooks, the status line, owt list, the monitor's tick) never open
// the database.
package facts

import (
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/memory"

	"github.com/owt-tmux/owt/internal/notes"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// ForTask is the facts an agent with task starts with: every pinned fact,
// then the ones that share the most words with the task, until budget
// tokens (about 4 characters each) are used; and the block they make.
// Left are the pinned facts that did not fit: the caller says so.
func ForTask(db *DB, task string, budget int) (chosen []Item, block string, left []Item, err error) {
	if budget <= 0 {
		return nil, "", nil, nil
	}
	pinned, err := db.Pinned()
	if err != nil {
		return nil, "", nil, err
	}
	relevant, err := db.Relevant(task, 50)
	if err != nil {
		return nil, "", nil, err
	}
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
				// A long pinned fact does not crowd out the rest, but
				// it is said: pinned means every agent gets it.
				seen[it.ID] = true
				left = append(left, it)
				continue
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
	return chosen, strings.TrimRight(b.String(), "\n"), left, nil
}

// leftLine says which pinned facts did not fit the budget, "" if none.
func leftLine(left []Item, budget int) string {
	if len(left) == 0 {
		return ""
	}
	ids := make([]string, len(left))
	for i, it := range left {
		ids[i] = fmt.Sprintf("#%d", it.ID)
	}
	return fmt.Sprintf("%d pinned fact(s) left out (%s): over [memory] inject_tokens = %d; raise it, or shorten them",
		len(left), strings.Join(ids, ", "), budget)
}

// Line is a fact as an agent reads it: one list item, drawn inert (no
// control characters, no marker of owt's blocks).
func Line(it Item) string {
	t := untrusted.From(it.Text).Block()
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
// note goes to), or with dry only says which; the line tells the user
// how many facts went where, or why none did (Failed: the agent starts
// without them). A memory that cannot be read never stops an agent from
// starting. owt runs it through owt-mcp (memory.Inject).
func Inject(w *workspace.Workspace, rec *state.Record, dry bool) memory.Injection {
	if rec.NoAgent || w.Config.Memory.InjectTokens <= 0 || !memory.Exists(w.Repo.Root) {
		return memory.Injection{}
	}
	failed := func(err error) memory.Injection {
		return memory.Injection{Line: fmt.Sprintf("memory: %v; %s starts without facts", err, rec.Name), Failed: true}
	}
	db, err := Open(w.Repo.Root)
	if err != nil {
		return failed(err)
	}
	defer db.Close()
	items, block, left, err := ForTask(db, rec.Task, w.Config.Memory.InjectTokens)
	if err != nil {
		return failed(err)
	}
	inj := memory.Injection{Block: block, Facts: []memory.Fact{}, Left: len(left)}
	if len(left) > 0 {
		inj.Line = "memory: " + leftLine(left, w.Config.Memory.InjectTokens) + " for " + rec.Name
	}
	for _, it := range items {
		f := memory.Fact{ID: it.ID, Text: it.Text, Kind: string(it.Kind), Pinned: it.Pinned}
		f.Source.From, f.Source.Agent = it.Source.From, it.Source.Agent
		inj.Facts = append(inj.Facts, f)
	}
	if len(items) == 0 || dry {
		return inj
	}
	res := notes.Of(w).ApplyMemory(rec, block)
	switch res.Action {
	case "written", "unchanged":
		inj.Line = fmt.Sprintf("memory: %d fact(s) for %s in %s", len(items), rec.Name, res.File)
		if l := leftLine(left, w.Config.Memory.InjectTokens); l != "" {
			inj.Line += "; " + l
		}
	default:
		inj.Line, inj.Failed = fmt.Sprintf("memory: facts not written for %s: %s", rec.Name, res.Reason), true
	}
	return inj
}
