package main

import (
	"encoding/json"
	"fmt"
	"time"
)

// sendFigures measures owt send to an idle fake agent: the text typed,
// Enter pressed, and the prompt taken. Each send waits for the agent to be
// idle again, so every one finds the same screen.
func sendFigures(w *world, bin, repo string) {
	if !w.installFakeAgent() {
		return
	}
	w.must(repo, bin, "new", "--tool", "claude", "--no-setup", "--name", "sent", "Bench the sends")
	defer func() { _ = w.cmd(repo, bin, "delete", "--force", "--yes", "sent").Run() }()
	var sends []time.Duration
	for i := 0; i < 10; i++ {
		if !w.waitIdle(repo, bin, "sent") {
			fmt.Println("owt send: the agent never got idle; no figures")
			return
		}
		sends = append(sends, w.time(repo, bin, "send", "sent", fmt.Sprintf("bench message %d", i)))
	}
	fmt.Printf("%-44s p50 %7s   (no budget; max %s; to an idle agent, until owt send returns)\n", "owt send", ms(p50(sends)), ms(maxOf(sends)))
}

// waitIdle polls owt status until the agent called name is idle.
func (w *world) waitIdle(repo, bin, name string) bool {
	var it struct{ Status string }
	for deadline := time.Now().Add(20 * time.Second); it.Status != "idle"; {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
		if out, err := w.cmd(repo, bin, "status", name, "--json").Output(); err == nil {
			_ = json.Unmarshal(out, &it)
		}
	}
	return true
}
