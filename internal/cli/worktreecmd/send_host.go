package worktreecmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/hosts"
)

// sendHostTimeout bounds a send on a host (the remote owt waits for a
// starting agent up to its own [agent] send_timeout).
const sendHostTimeout = 3 * time.Minute

// readSpec fills who and what from the JSON on stdin (hosts.SendSpec),
// checked as the command line's would be.
func (o *sendOptions) readSpec() error {
	b, err := io.ReadAll(io.LimitReader(o.IO.In, 1<<20))
	if err != nil {
		return err
	}
	var spec hosts.SendSpec
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return cmdutil.Usagef("--spec-stdin: %v", err)
	}
	if spec.Name == "" {
		return cmdutil.Usagef("--spec-stdin: no name")
	}
	if strings.TrimSpace(spec.Text) == "" {
		return cmdutil.Usagef("nothing to send: TEXT is empty")
	}
	if spec.Answer && strings.ContainsAny(spec.Text, "\r\n") {
		return cmdutil.Usagef("send --answer takes one line; TEXT has a line break")
	}
	o.Names, o.Text, o.Answer = []string{spec.Name}, spec.Text, spec.Answer
	return nil
}

// sendOnHost sends to one named agent that lives on a host: NAME@HOST,
// or a NAME with no agent here that one host serving this repository
// has. It reports whether the send was the host's (routed); when not,
// the local send goes on.
func (o *sendOptions) sendOnHost() (routed bool, err error) {
	if o.Group || len(o.Names) != 1 {
		return false, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), sendHostTimeout)
	defer cancel()
	h, name, _, routed, err := cmdutil.AgentHost(ctx, o.Workspace, o.Names[0])
	if !routed {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	w, err := o.Workspace()
	if err != nil {
		return true, err
	}
	results, err := control.SendRemote(w, h, name, o.Text, o.Answer)
	var he *control.HostError
	if errors.As(err, &he) {
		switch he.Code {
		case cmdutil.ExitUsage:
			return true, cmdutil.UsageError{Msg: fmt.Sprintf("on %s: %s", h.Name, he.Msg)}
		case cmdutil.ExitUnknown:
			return true, cmdutil.CodeError{Code: cmdutil.ExitUnknown, Msg: fmt.Sprintf("no agent %s on %s", name, h.Name)}
		}
	}
	if err != nil {
		return true, err
	}
	return true, o.report(results)
}
