// Package land brings an agent's work home, and everything that gates it
// on the way: the check report shown before every merge, ship or delete
// (uncommitted files, ahead/behind, overlaps and predicted conflicts with
// the base and with the other worktrees), merge, ship, the merge queue,
// sync and the cleanup plan (merge.go and beside it); running a task's
// check commands (checks.go); opening a pull request (pr.go); and the AI
// review gate (review.go). owt check, merge, ship, queue, sync, cleanup
// and pr (internal/cli/landcmd), the control verbs and the run engine all
// land through it.
package land
