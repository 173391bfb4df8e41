// Package run is a run of many agents from one plan, without its
// effects: the plan file (tasks with dependencies and settings, parsed and
// validated strictly, the waves they run in, a plan drafted by an agent),
// the state of each registered run with its event log and store, the
// evidence read from git of what a task's own branch holds, and the
// decisions on it (Ready, Judge, retries, landing order, the clock).
//
// It performs no effect: it runs neither tmux nor an agent, merges
// nothing and sends no message (internal/run/engine does, around these
// decisions). It reads git, never writes it: a task's branch and its
// parents', what landed in into; the judge takes such readings as an
// Observation, so its decisions are tested with a fake clock and no repo.
package run
