package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/adrg/xdg"

	"github.com/owt-tmux/owt/internal/usage"
)

// usageFigures times the monitor's usage tick (internal/usage.Tracker)
// on n Claude agents: each has a transcript of 200 turns read once (the
// catch-up), then every tick each agent's transcript gains a turn, as a
// busy agent's does between two usage ticks. The figure is the CPU one
// tick costs (user + system, this process), as a share of one core over
// the 15 s between usage ticks (budget ≤ 0.5 %).
func usageFigures(root string, n int) {
	check(os.Setenv("XDG_STATE_HOME", filepath.Join(root, "state")))
	xdg.Reload()
	home := filepath.Join(root, "usage-home")
	const repo = "/bench/usage-repo"
	srcs := make([]usage.Source, n)
	paths := make([]string, n)
	for i := range srcs {
		dir := fmt.Sprintf("/bench/usage-repo.worktrees/agent-%d", i)
		srcs[i] = usage.Source{Repo: repo, Name: fmt.Sprintf("agent-%d", i), Tool: "claude", Dir: dir, Since: time.Now().Add(-time.Hour)}
		paths[i] = filepath.Join(home, ".claude", "projects", usage.ClaudeProject(dir), fmt.Sprintf("s%d.jsonl", i))
		check(os.MkdirAll(filepath.Dir(paths[i]), 0o700))
		var b strings.Builder
		for t := 0; t < 200; t++ {
			b.WriteString(benchTurn(i, t))
		}
		check(os.WriteFile(paths[i], []byte(b.String()), 0o600))
	}
	tr := &usage.Tracker{Home: home, ClaudeDir: filepath.Join(home, ".claude")}
	var catchUp time.Duration
	for {
		cpu := cpuTime()
		_, more := tr.Tick(srcs, time.Now())
		catchUp += cpuTime() - cpu
		if !more {
			break
		}
	}
	var ticks []time.Duration
	for k := 0; k < 20; k++ {
		for i, p := range paths {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0o600)
			check(err)
			_, err = f.WriteString(benchTurn(i, 200+k))
			check(err)
			check(f.Close())
		}
		cpu := cpuTime()
		tr.Tick(srcs, time.Now())
		ticks = append(ticks, cpuTime()-cpu)
	}
	per := p50(ticks)
	fmt.Printf("%-44s p50 %7s   (%.3f%% of a core at one tick per 15 s; budget ≤ 0.5%%; catch-up of 200 turns each: %s once)\n",
		fmt.Sprintf("usage tick, %d agents, one turn each", n), ms(per), 100*per.Seconds()/15, ms(catchUp))
}

// benchTurn is one Claude turn in its transcript's format: the prompt,
// and the answer as two content-block lines of one message.
func benchTurn(agent, turn int) string {
	ts := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	user := fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s%d","version":"2.1.332","type":"user","message":{"role":"user","content":"turn %d: %s"},"uuid":"u%d-%d","timestamp":"%s"}`,
		agent, turn, strings.Repeat("context ", 60), agent, turn, ts)
	var b strings.Builder
	b.WriteString(user + "\n")
	for k, block := range []string{`{"type":"thinking","thinking":"` + strings.Repeat("hmm ", 80) + `","signature":"x"}`, `{"type":"text","text":"` + strings.Repeat("done ", 80) + `"}`} {
		fmt.Fprintf(&b, `{"parentUuid":"u%d-%d","isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s%d","version":"2.1.332","message":{"id":"msg_%d_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[%s],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"cache_creation_input_tokens":900,"cache_read_input_tokens":30000,"cache_creation":{"ephemeral_5m_input_tokens":900,"ephemeral_1h_input_tokens":0},"output_tokens":%d,"service_tier":"standard"}},"requestId":"req_%d_%d","type":"assistant","uuid":"a%d-%d-%d","timestamp":"%s"}`+"\n",
			agent, turn, agent, agent, turn, block, 100+k*200, agent, turn, agent, turn, k, ts)
	}
	return b.String()
}

// cpuTime is the CPU this process used so far (user + system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
