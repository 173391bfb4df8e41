package popups

import (
	"errors"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/state"
)

// landQuestion is the confirmation of s (ship) or m (merge): the owt check
// report, then the question, or why it would be refused. The rules are
// Alt+m's: ship needs work to land, no conflict with the base and a clean
// base checkout; merge needs no blocker at all.
func landQuestion(d desk, rec *state.Record, ship bool) (*question, error) {
	rep, err := d.Check(rec)
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
	body = append(body, "", afterLanding(rec))
	return &question{title: title, body: body, yes: yes, do: landing(d, rec, ship, yes, nil)}, nil
}

// landing is the work of a yes to landing rec: the verb, and when the AI
// review refuses it, the confirm step that asks whether to land anyway
// (a yes lands despite that review, not another).
func landing(d desk, rec *state.Record, ship bool, yes string, accepted *land.ReviewResult) func() tea.Msg {
	return func() tea.Msg {
		out, err := d.Land(rec, ship, accepted)
		var refused *control.ReviewRefused
		if errors.As(err, &refused) {
			return askMsg{q: reviewQuestion(d, rec, ship, yes, refused.Result)}
		}
		if err != nil {
			return verbMsg{err: err}
		}
		verb := "merged"
		if ship {
			verb = "shipped"
		}
		d.Tell(fmt.Sprintf("owt: %s %s into %s", verb, rec.Name, out.Target))
		return verbMsg{text: fmt.Sprintf("%s %s into %s; removed its worktree", verb, rec.Name, out.Target), gone: true}
	}
}

// reviewQuestion is the confirm step after the AI review refused landing
// rec: what it said, and whether to land anyway. Nothing was changed yet.
func reviewQuestion(d desk, rec *state.Record, ship bool, yes string, r land.ReviewResult) *question {
	verb := "Merge"
	if ship {
		verb = "Ship"
	}
	title := fmt.Sprintf("The AI review fails %s: %s anyway?", rec.Name, strings.ToLower(verb))
	if r.Verdict == land.ReviewUnavailable {
		title = fmt.Sprintf("No AI review of %s: %s without it?", rec.Name, strings.ToLower(verb))
	}
	body := []string{"review: " + r.Headline()}
	for _, l := range r.Lines() {
		body = append(body, "  "+l)
	}
	body = append(body, "", "Nothing was changed yet.")
	return &question{title: title, body: body, yes: yes + " despite the review", do: landing(d, rec, ship, yes, &r)}
}

// shipBlockers are the report's blockers less the ones ship itself
// resolves: uncommitted files and no commits yet (ship commits them).
func shipBlockers(rep land.Report) []string {
	rep.DirtyFiles = nil
	rep.Ahead = max(rep.Ahead, 1)
	return rep.Blockers()
}

// deleteQuestion is the confirmation of x: what would be lost, asked twice
// when something would (Alt+d's rule).
func deleteQuestion(d desk, rec *state.Record) (*question, error) {
	loss, err := d.WhatWouldBeLost(rec)
	if err != nil {
		return nil, err
	}
	var body []string
	if rep, err := d.Check(rec); err == nil {
		body = strings.Split(rep.String(), "\n")
	}
	body = append(body, "", removalOf(rec))
	if loss.Empty() {
		body = append(body, "Nothing would be lost: no uncommitted files, no commits outside "+rec.Base+".")
	} else {
		body = append(body, "This would LOSE "+loss.String()+".")
	}
	do := func() tea.Msg {
		// What was asked about must still be all there is to lose: the
		// agent may have written more since, or the name may be another
		// worktree now.
		cur, err := d.Get(rec.Repo, rec.Name)
		if err != nil {
			return verbMsg{err: err}
		}
		if cur.Path != rec.Path || cur.Branch != rec.Branch || !cur.CreatedAt.Equal(rec.CreatedAt) {
			return verbMsg{err: fmt.Errorf("%s is another worktree now: nothing was deleted", rec.Name)}
		}
		now, err := d.WhatWouldBeLost(cur)
		if err != nil {
			return verbMsg{err: err}
		}
		// Checked before the user is moved off the session; Delete checks
		// it again under its own look.
		if !now.Within(loss) {
			return verbMsg{err: fmt.Errorf("%s changed while you answered (it would now lose %s): nothing was deleted; press x again", rec.Name, now)}
		}
		if err := d.Delete(rec, loss); err != nil {
			return verbMsg{err: err}
		}
		d.Tell("owt: deleted " + rec.Name)
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
