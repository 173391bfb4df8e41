// Package hook is owt's side of the agent tools' hooks, the whole path
// of an event:
//
//   - the process a tool starts for each event, "owt hook KIND EVENT"
//     (Run): it reads the event's JSON, prints nothing and always exits 0,
//     since tools read a hook's output as a decision and a failing hook can
//     stop the agent; problems go to owt's log;
//   - the event applied to the record it is about (Handle), in one locked
//     update of the state, and, when the status changed, the monitor's
//     bell rung (else a detached "owt _publish") so that tmux shows it.
//     The agent waits for this on every turn: it loads no config and runs
//     no git and no tmux;
//   - the settings that make the tools run it, written into a worktree
//     (Files.Install, Renew), merged with the user's own and kept out of
//     git, the info/exclude lines of linked files, and Codex's user-level
//     hooks file; and telling the user's own edits of a tracked settings
//     file from owt's lines (Work).
//
// What an event says (its status, session, wait, failed turn, usage
// limit) is the tools' knowledge, in package agent; the rule of a status
// change on a record is state's. Screen reconciliation, owt wait, done and
// why are package status's.
package hook
