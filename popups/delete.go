package popups

import (
	"fmt"
	"os/signal"
	"syscall"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/tmux"
)

// Delete is the Alt+d popup: for the worktree of the current session (a
// picker elsewhere) it shows what would be lost — uncommitted files,
// commits the base does not have — and asks to confirm; when work would be
// lost it asks a second time, explicitly, and then deletes with force.
func Delete(tm *tmux.Client, s Screen) error {
	return finish(s, deleteOne(tm, s))
}

func deleteOne(tm *tmux.Client, s Screen) error {
	t, h, err := chooseTarget(tm, "delete")
	if err != nil {
		return err
	}
	r := t.rec
	loss, err := lifecycle.Of(t.w).WhatWouldBeLost(r)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("Session %s, worktree %s and branch %s will be removed.", r.Session, r.Path, r.Branch)
	if rep, err := mergeContext(t.w).Check(r, ""); err == nil {
		fmt.Fprintln(s.Out, rep.String())
	}
	if loss.Empty() {
		what += "\nNothing would be lost: no uncommitted files, no commits outside " + r.Base + "."
	} else {
		what += "\nThis would LOSE " + loss.String() + "."
	}
	ok, err := confirm("Delete "+r.Name+"?", what, "Delete")
	if err != nil || !ok {
		return orCancelled(err)
	}
	if !loss.Empty() {
		ok, err = confirm("Really lose this work?",
			fmt.Sprintf("%s: %s.\nIt cannot be recovered by owt.", r.Name, loss), "Yes, lose it")
		if err != nil || !ok {
			return orCancelled(err)
		}
	}
	// From here on the deletion must finish even if the popup closes under
	// it (its client leaving or losing the session being deleted).
	signal.Ignore(syscall.SIGHUP)
	if h.SessionName == r.Session {
		// Leave the session before it goes, so the client is not detached.
		if other := otherSession(tm, r.Session, r.Repo); other != "" {
			_ = tm.SwitchClientOf(h.Client, other)
		}
	}
	if err := lifecycle.Of(t.w).Delete(r.Name, lifecycle.DeleteOptions{Accept: &loss}); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "deleted %s\n", r.Name)
	_ = tm.DisplayMessage(h.Client, "owt: deleted "+r.Name)
	return nil
}

// orCancelled is err, or errCancelled when the user said no.
func orCancelled(err error) error {
	if err != nil {
		return err
	}
	return errCancelled
}

// otherSession is where a client goes when its session is deleted: a
// session in the main checkout if there is one, else any other session.
func otherSession(tm *tmux.Client, leaving, repo string) string {
	ss, _ := tm.Sessions()
	fallback := ""
	for _, s := range ss {
		if s.Name == leaving {
			continue
		}
		if s.Path == repo {
			return s.ID
		}
		if fallback == "" {
			fallback = s.ID
		}
	}
	return fallback
}
