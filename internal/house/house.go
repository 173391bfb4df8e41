// Package house is owt's floor plan: which room (package) sits on which
// floor, and so which imports are allowed. Its test reads every package's
// imports and fails on one that points up, or sideways without being
// listed, naming both packages, so the layout cannot decay silently. It
// holds no code owt runs.
//
// The floors, top to bottom (a package imports only from floors below
// its own, plus the same-floor arrows the test lists):
//
//	entry      cmd/owt, cmd/owt-popup, cmd/owt-mcp, cmd/owt-wait:
//	           wiring only
//	faces      the CLI, the popups
//	drivers    the monitor (one per tmux server) and the run engine it drives
//	verbs      control (ship, merge, delete from every face), reactions,
//	           pull requests, the outbox's courier, the pane runner,
//	           resolve (a conflict handed to its agent, then checked)
//	use cases  one concern each: lifecycle, status, a hook event's whole
//	           path (hook), status bar, inventory, typing into panes,
//	           notes, merge, checks, keys
//	core       workspace: a repository as owt manages it
//	models     the run model and its plan and evidence, the outbox queue,
//	           agent profiles and the screen classifier, what a hook
//	           event says
//	ground     git, tmux, gh (the only code that runs them), state (and
//	           the rule of a status change), setup,
//	           the monitor starter and its bell, usage (tokens read from
//	           the tools' session files)
//	base       untrusted text, starting programs, atomic files, config:
//	           they import nothing of owt's
package house
