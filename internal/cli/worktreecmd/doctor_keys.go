package worktreecmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/keybindings"
)

// reloadHint is how a user binds owt's keys again after fixing tmux.conf.
const reloadHint = "tmux source-file ~/.tmux.conf (or where your tmux.conf is)"

// keysCheck checks that the running tmux server has owt's keys bound,
// each to owt: 'run-shell owt tmux init' can fail when tmux starts (an
// owt not on tmux's PATH, a wrong @owt-* option), and then Alt+s and the
// rest do nothing while every other check passes. ok is false when
// there is nothing to check: no tmux, or no server (its tmux.conf binds
// the keys when it starts).
func keysCheck(tm *tmux.Client) (c lifecycle.Check, ok bool) {
	c = lifecycle.Check{Name: "keys"}
	if tm == nil || tm.Available() != nil {
		return c, false
	}
	names := keybindings.OptionNames()
	formats := make([]string, len(names))
	for i, n := range names {
		formats[i] = "#{" + n + "}"
	}
	vals, err := tm.Values(formats...)
	if errors.Is(err, tmux.ErrNoServer) {
		return c, false
	}
	if err != nil {
		c.Detail = "could not read the @owt-* options of the tmux server: " + err.Error()
		return c, true
	}
	opts := map[string]string{}
	for i, n := range names {
		opts[n] = vals[i]
	}
	s, err := keybindings.ParseSettings(opts)
	if err != nil {
		c.Detail = "owt tmux init refuses these options, so it bound no keys: " + err.Error()
		c.Fix = "correct them in tmux.conf, then reload it: " + reloadHint
		return c, true
	}
	bindings := keybindings.Bindings(s, "owt", true)
	if len(bindings) == 0 {
		c.OK, c.Detail = true, "every key option (@owt-key-switch and the others) is none: owt binds no keys"
		return c, true
	}
	var missing []string
	for _, b := range bindings {
		got, err := tm.KeyBinding(b.Table, b.Key)
		if err != nil {
			c.Detail = fmt.Sprintf("could not list the binding of %s in table %s: %v", b.Key, b.Table, err)
			return c, true
		}
		if !strings.Contains(got, "owt") {
			missing = append(missing, fmt.Sprintf("%s (%s)", b.Key, b.Option))
		}
	}
	table := "table " + s.Table
	switch {
	case len(missing) == 0:
		c.OK, c.Detail = true, fmt.Sprintf("%d keys bound to owt in %s", len(bindings), table)
	case len(missing) == len(bindings):
		c.Detail = fmt.Sprintf("none of owt's keys is bound in %s of this tmux server (%s…): 'owt tmux init' did not run, or failed, when tmux started", table, bindings[0].Key)
		c.Fix = "run 'owt tmux init' in a pane to bind them and see any error; keep run-shell 'owt tmux init' (or the plugin line) in tmux.conf so tmux binds them when it starts, with owt on the PATH tmux starts with ('owt doctor' checks it)"
	default:
		c.Detail = fmt.Sprintf("%d of owt's %d keys are not bound to owt in %s: %s (tmux.conf or another plugin binds them after owt, or unbound them)",
			len(missing), len(bindings), table, strings.Join(missing, ", "))
		c.Fix = "put run-shell 'owt tmux init' (or the plugin line) after the other bindings in tmux.conf, or choose other keys with the key options (@owt-key-switch and the others); then reload it: " + reloadHint
	}
	return c, true
}
