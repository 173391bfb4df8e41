package worktreecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/ssh"
)

// restoreOnHosts runs owt restore on the hosts, as here (owt restore
// there: every agent whose session went with its tmux server, each on
// its own conversation): the hosts serving this repository, in their
// clones, or with --all every configured host for every repository
// there. Each result is named NAME@HOST. A host that cannot be asked is
// said on errOut and skipped.
func restoreOnHosts(o *restoreOptions, out, errOut io.Writer) []RestoreResult {
	type place struct {
		h   *hosts.Host
		dir string
	}
	var places []place
	if o.All {
		cfg, _, err := cmdutil.LoadConfig()
		if err != nil {
			return nil
		}
		all, err := hosts.All(cfg)
		if err != nil {
			fmt.Fprintf(errOut, "owt: hosts: %v (not restored there)\n", err)
			return nil
		}
		for _, h := range all {
			places = append(places, place{h: h})
		}
	} else {
		w, err := o.Workspace()
		if err != nil {
			return nil
		}
		serving, err := hosts.Serving(w.Config, w.Repo.Root)
		if err != nil {
			fmt.Fprintf(errOut, "owt: hosts: %v (not restored there)\n", err)
			return nil
		}
		for _, h := range serving {
			clone, _ := h.Clone(w.Repo.Root)
			places = append(places, place{h: h, dir: clone})
		}
	}
	var results []RestoreResult
	for _, p := range places {
		argv := []string{"owt", "restore", "--json", fmt.Sprintf("--wait=%s", o.Wait)}
		if o.All {
			argv = append(argv, "--all")
		}
		if o.DryRun {
			argv = append(argv, "--dry-run")
		}
		ctx, cancel := context.WithTimeout(context.Background(), o.Wait+time.Minute)
		var stderr bytes.Buffer
		b, err := p.h.SSH.Output(ctx, ssh.Remote{Dir: p.dir, Argv: argv, Stderr: &stderr})
		cancel()
		var there []RestoreResult
		if jerr := json.Unmarshal(bytes.TrimSpace(b), &there); jerr != nil {
			why := err
			if why == nil {
				why = jerr
			}
			if errors.Is(why, ssh.ErrUnreachable) {
				fmt.Fprintf(errOut, "owt: host %s unreachable: its agents were not restored (%v)\n", p.h.Name, why)
			} else {
				fmt.Fprintf(errOut, "owt: host %s: owt restore there: %s\n", p.h.Name, cmdutil.OneLine(strings.TrimSpace(why.Error())))
			}
			continue
		}
		for _, r := range there {
			r.Name += "@" + p.h.Name
			results = append(results, r)
			printRestored(out, o.All, r)
		}
	}
	return results
}
