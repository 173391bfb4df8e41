// Package engine performs a run's effects: driven by the monitor of
// one tmux server (Engine.Tick), it starts ready tasks through owt new's
// Create, reads the git and agent evidence the run model's judge decides
// on, and through internal/land runs checks, lands done work by merge's
// path and opens pull requests; it queues messages to agents in the
// outbox. A task placed on a host is started, judged on
// evidence read there, checked there and brought home to land through
// internal/hosts, every ssh step off the tick (engine_remote.go).
// What to do is decided by the model (internal/run);
// this package only does it and records the outcome there.
package engine
