// Package run is the run model: the runs made from a plan
// (internal/runplan) — the state of each registered run with its event
// log and store, and the decisions on it (Ready, Judge, retries, landing
// order, the clock).
//
// It performs no effect: it runs neither tmux nor an agent, merges
// nothing and sends no message (internal/runengine does, around these
// decisions). It reads git, never writes it: a task's branch and its
// parents' (through internal/runwork), what landed in into; the judge
// takes such readings as an Observation, so its decisions are tested with
// a fake clock and no repo.
package run
