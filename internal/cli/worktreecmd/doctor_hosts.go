package worktreecmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/workspace"
)

// HostUnreachable is a finding of owt doctor: a host serving the
// repository that did not answer, so its agents were not looked at.
const HostUnreachable = "host-unreachable"

// addHostFindings adds what owt doctor finds of this repository's agents
// on its hosts: each owt new there that was cut off (its ssh connection
// dropped) and left a half-made agent, which --fix undoes as owt delete
// NAME@HOST does (the host's owt keeps what holds someone's work); and
// each host that did not answer.
func addHostFindings(w *workspace.Workspace, rep *lifecycle.DoctorReport, fix bool) {
	serving, err := hosts.Serving(w.Config, w.Repo.Root)
	if err != nil {
		rep.Findings = append(rep.Findings, lifecycle.Finding{Kind: HostUnreachable, Detail: "hosts not checked: " + err.Error()})
		return
	}
	for _, h := range serving {
		clone, _ := h.Clone(w.Repo.Root)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		items, err := h.FreshAgents(ctx, clone)
		cancel()
		if err != nil {
			rep.Findings = append(rep.Findings, lifecycle.Finding{Kind: HostUnreachable, Name: "@" + h.Name,
				Detail: fmt.Sprintf("host %s: its agents were not checked: %v", h.Name, err)})
			continue
		}
		for _, it := range items {
			if it.Creating != "interrupted" {
				continue
			}
			ref := it.Name + "@" + h.Name
			f := lifecycle.Finding{Kind: lifecycle.InterruptedCreate, Name: ref,
				Detail: fmt.Sprintf("owt new %s was interrupted before it finished there (branch %s, worktree %s on %s)", ref, it.Branch, it.Path, h.Name),
				Action: fmt.Sprintf("--fix removes what it left there, as 'owt delete %s' does", ref)}
			if fix {
				if err := control.DeleteRemote(w, h, it.Name, lifecycle.DeleteOptions{CutOffOnly: true}); err != nil {
					f.Action = "left alone: " + strings.TrimPrefix(err.Error(), it.Name+": left alone: ")
				} else {
					f.Fixed, f.Action = true, "removed what it left there (branch, worktree, record)"
				}
			}
			rep.Findings = append(rep.Findings, f)
		}
	}
}
