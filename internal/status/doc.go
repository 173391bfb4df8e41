// Package status is an agent's status beyond the hook that set it, and
// showing it: the monitor's screen reconciliation, "owt wait", "owt done",
// "owt status" and "owt why"; and each session's @owt-status with the
// global summary the status bar reads (who needs you, then counts),
// rendered for tmux, plain text or a terminal. Publishing is serialized
// by one lock and never waits for tmux without limit.
//
// An event of a tool's hook is package hook's; the record-level change
// itself is state's (the status rule, through workspace.Ledger.ChangeStatus).
package status
