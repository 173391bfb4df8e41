package tmux

import (
	"context"
)

// RunContext is Run bounded by ctx: when ctx ends first, the tmux client
// is killed and the error says why. A stopped or wedged server then costs
// the caller the deadline, not forever.
func (c *Client) RunContext(ctx context.Context, args ...string) (string, error) {
	return c.runIn(ctx, nil, args...)
}

// SetOptionContext is SetOption bounded by ctx.
func (c *Client) SetOptionContext(ctx context.Context, target, name, value string) error {
	args := []string{"set-option", "-q"}
	if target == "" {
		args = append(args, "-g")
	} else {
		args = append(args, "-t", target)
	}
	_, err := c.RunContext(ctx, append(args, name, value)...)
	return err
}

// SetOptionsContext is SetOptions bounded by ctx.
func (c *Client) SetOptionsContext(ctx context.Context, target string, opts map[string]string) error {
	return c.SetOptionSetsContext(ctx, OptionSet{Target: target, Options: opts})
}

// OptionSet is options of one target ("" for the global ones).
type OptionSet struct {
	Target  string
	Options map[string]string
}

// SetOptionSetsContext sets the options of several targets in one tmux
// call, bounded by ctx, in the order given. tmux stops a call's commands
// at the first that fails (a session killed a moment ago), so a set whose
// target may be gone goes last.
func (c *Client) SetOptionSetsContext(ctx context.Context, sets ...OptionSet) error {
	var cmds [][]string
	for _, set := range sets {
		cmds = append(cmds, setOptionCommands(set.Target, set.Options)...)
	}
	if len(cmds) == 0 {
		return nil
	}
	_, err := c.runBatches(ctx, cmds)
	return err
}
