package popups

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/merge"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// landQuestion is the confirmation of s (ship) or m (merge): the owt check
// report, then the question, or why it would be refused. The rules are
// Alt+m's: ship needs work to land, no conflict with the base and a clean
// base checkout; merge needs no blocker at all.
func landQuestion(w *workspace.Workspace, rec *state.Record, ship bool, h tmux.Here, tm *tmux.Client) (*question, error) {
	rep, err := control.MergeContext(w).Check(rec, "")
	if err != nil {
		return nil, err
	}
	body := strings.Split(rep.String(), "\n")
	var blockers []string
	if ship {
		switch {
		case rep.Empty:
			blockers = []string{"nothing to ship: no commits and no uncommitted changes"}
		case len(rep.ConflictsWithBase()) > 0 || len(rep.BaseCheckoutDirty) > 0 || rep.Busy != "" || rep.BaseMissing:
			blockers = shipBlockers(rep)
		}
	} else {
		blockers = rep.Blockers()
	}
	if len(blockers) > 0 {
		verb := "Merge"
		if ship {
			verb = "Ship"
		}
		body = append(body, "", verb+" would be refused:")
		for _, b := range blockers {
			body = append(body, "  ! "+b)
		}
		return &question{title: fmt.Sprintf("%s %s: refused, nothing changed", verb, rec.Name), body: body, refused: true}, nil
	}
	title := fmt.Sprintf("Merge %s into %s?", rec.Branch, rep.Base)
	yes := "merging " + rec.Name
	if ship {
		title = fmt.Sprintf("Commit everything in %s and merge it into %s?", rec.Name, rep.Base)
		yes = "shipping " + rec.Name
	}
	body = append(body, "", fmt.Sprintf("Afterwards the session %s, the worktree and the branch are removed.", rec.Session))
	do := func() tea.Msg {
		leaveSession(tm, h, rec)
		var out control.Landed
		var err error
		if ship {
			out, err = control.Ship(w, rec, "", false, false)
		} else {
			out, err = control.Merge(w, rec, merge.Options{}, false, false)
		}
		if err != nil {
			return verbMsg{err: err}
		}
		verb := "merged"
		if ship {
			verb = "shipped"
		}
		_ = tm.DisplayMessage(h.Client, fmt.Sprintf("owt: %s %s into %s", verb, rec.Name, out.Target))
		return verbMsg{text: fmt.Sprintf("%s %s into %s; removed its worktree", verb, rec.Name, out.Target), gone: true}
	}
	return &question{title: title, body: body, yes: yes, do: do}, nil
}

// shipBlockers are the report's blockers less the ones ship itself
// resolves: uncommitted files and no commits yet (ship commits them).
func shipBlockers(rep merge.Report) []string {
	rep.DirtyFiles = nil
	rep.Ahead = max(rep.Ahead, 1)
	return rep.Blockers()
}

// deleteQuestion is the confirmation of x: what would be lost, asked twice
// when something would (Alt+d's rule).
func deleteQuestion(w *workspace.Workspace, rec *state.Record, h tmux.Here, tm *tmux.Client) (*question, error) {
	loss, err := lifecycle.Of(w).WhatWouldBeLost(rec)
	if err != nil {
		return nil, err
	}
	var body []string
	if rep, err := control.MergeContext(w).Check(rec, ""); err == nil {
		body = strings.Split(rep.String(), "\n")
	}
	body = append(body, "", fmt.Sprintf("Session %s, worktree %s and branch %s will be removed.", rec.Session, rec.Path, rec.Branch))
	if loss.Empty() {
		body = append(body, "Nothing would be lost: no uncommitted files, no commits outside "+rec.Base+".")
	} else {
		body = append(body, "This would LOSE "+loss.String()+".")
	}
	do := func() tea.Msg {
		// What was asked about must still be all there is to lose: the
		// agent may have written more since, or the name may be another
		// worktree now.
		cur, err := w.Get(rec.Name)
		if err != nil {
			return verbMsg{err: err}
		}
		if cur.Path != rec.Path || cur.Branch != rec.Branch || !cur.CreatedAt.Equal(rec.CreatedAt) {
			return verbMsg{err: fmt.Errorf("%s is another worktree now: nothing was deleted", rec.Name)}
		}
		now, err := lifecycle.Of(w).WhatWouldBeLost(cur)
		if err != nil {
			return verbMsg{err: err}
		}
		// Checked before the user is moved off the session; Delete checks
		// it again under its own look.
		if !now.Within(loss) {
			return verbMsg{err: fmt.Errorf("%s changed while you answered (it would now lose %s): nothing was deleted; press x again", rec.Name, now)}
		}
		leaveSession(tm, h, rec)
		if err := control.Delete(w, rec.Name, lifecycle.DeleteOptions{Accept: &loss}); err != nil {
			return verbMsg{err: err}
		}
		_ = tm.DisplayMessage(h.Client, "owt: deleted "+rec.Name)
		return verbMsg{text: "deleted " + rec.Name, gone: true}
	}
	q := &question{title: "Delete " + rec.Name + "?", body: body, yes: "deleting " + rec.Name, do: do}
	if !loss.Empty() {
		q.next = &question{
			title: "Really lose this work?",
			body:  []string{fmt.Sprintf("%s: %s.", rec.Name, loss), "It cannot be recovered by owt."},
			yes:   q.yes, do: do,
		}
	}
	return q, nil
}

// leaveSession moves the client off the session about to go, so it is not
// detached.
func leaveSession(tm *tmux.Client, h tmux.Here, rec *state.Record) {
	if h.SessionName == rec.Session {
		if other := otherSession(tm, rec.Session, rec.Repo); other != "" {
			_ = tm.SwitchClientOf(h.Client, other)
		}
	}
}
