// Package runcmd holds the commands of runs (task graphs): owt run and
// its subcommands, batch, and plan/orchestrate, which write a run's plan.
package runcmd
