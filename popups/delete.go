package popups

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/tmux"
)

// Delete is the Alt+d popup: for the worktree of the current session (a
// picker elsewhere) it shows what would be lost — uncommitted files,
// commits the base does not have — and asks to confirm; when work would be
// lost it asks a second time, explicitly, and then deletes with force.
func Delete(tm *tmux.Client, s Screen) error {
	useFormTheme(themeOf(tm, s))
	return finish(s, deleteOne(tm, s))
}

func deleteOne(tm *tmux.Client, s Screen) error {
	r, d, err := chooseTarget(tm, s, "delete")
	if err != nil {
		return err
	}
	loss, err := d.WhatWouldBeLost(r)
	if err != nil {
		return err
	}
	what := removalOf(r)
	if rep, err := d.Check(r); err == nil {
		fmt.Fprintln(s.Out, rep.String())
	}
	if r.InPlace {
		what = fmt.Sprintf("Session %s ends; it works in place, so your checkout %s and its branch %s stay, files and all.", r.Session, r.Path, r.Branch)
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
	// control's Delete finishes even if the popup closes under it, and
	// notes the deletion for RECENT.
	if err := d.Delete(r, loss); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "deleted %s\n", r.Name)
	d.Tell("owt: deleted " + r.Name)
	return nil
}

// orCancelled is err, or errCancelled when the user said no.
func orCancelled(err error) error {
	if err != nil {
		return err
	}
	return errCancelled
}
