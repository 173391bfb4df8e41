// Package worktreecmd holds the commands about one agent's worktree and
// session: new, list, usage, switch/attach, send, delete, status, wait, done,
// note, doctor, swarm (a coordinator and workers in one worktree), the
// agents' hook and publish, and _run (a session's
// first process).
package worktreecmd
