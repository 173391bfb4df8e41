// Package run is the run model: the runs made from a plan
// (internal/runplan) — the state of each registered run with its event
// log and store, and the decisions on it (Ready, Judge, retries, landing
// order, the clock).
//
// It performs no effect: it runs neither tmux nor an agent, merges
// nothing and sends no message (internal/runengine does, around these
// decisions). It reads git, never writes it: the work on a task's branch
// and its parents' (work.go), what landed in into; the judge's decisions
// take those readings as an Observation, so they are tested with a fake
// clock and no repo.
package run
