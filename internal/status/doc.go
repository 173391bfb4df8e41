// Package status keeps each agent's recorded status true beyond its
// hooks: the monitor's screen reconciliation, "owt wait", "owt done",
// "owt status" and "owt why". The hook hot path is package hookstatus;
// the record-level change itself is statuschange's (through
// workspace.Ledger.ChangeStatus); showing it, the statusbar's.
//
// Imports statusbar, hookstatus, workspace, agent, git, state and tmux
// (and, to explain a status, the run and outbox models); never send,
// pane, lifecycle, inventory, monitor, cli or popups.
package status
