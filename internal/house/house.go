// Package house is owt's floor plan: which room (package) sits on which
// floor, and so which imports are allowed. Its test reads every package's
// imports and fails on one that points up or sideways against the plan,
// naming both packages, so the layout cannot decay silently. It holds no
// code owt runs.
//
// The floors, top to bottom (a package imports only from floors below
// its own, plus the few same-floor arrows listed in Sideways):
//
//	entry     cmd/owt, cmd/owt-popup: wiring only
//	faces     the CLI and the popups
//	drivers   the monitor and the run engine: what acts on its own
//	use cases one concern each: lifecycle, status, merge, control verbs …
//	models    the run model, the outbox queue, agent profiles
//	ground    git, tmux, gh, state …: the only code that runs those programs
//	base      text, proc, atomicfile, config: imported by all, import nothing of owt's
package house
