package main

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// controlFigures measures the control popup (Alt+o) the way the switch
// picker is measured: from new-window to its first frame on screen (the
// key line at its foot is drawn with the rows), then Esc.
func controlFigures(w *world, bin, repo string, agents int) {
	var frames []time.Duration
	for i := 0; i < 10; i++ {
		frames = append(frames, w.popupFrame(repo, bin, "control", "q close"))
	}
	fmt.Printf("%-44s p50 %7s   (budget ≤ 150 ms; max %s; from new-window to the sections on screen)\n",
		fmt.Sprintf("control popup first frame, %d agents", agents), ms(p50(frames)), ms(maxOf(frames)))
}

// popupFrame runs a popup in a new tmux window and measures the time until
// want is on screen, polling capture-pane; then it closes it with Esc.
func (w *world) popupFrame(dir, bin, popup, want string) time.Duration {
	start := time.Now()
	out, err := w.cmd(dir, "tmux", "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "bench:", "-c", dir, bin, "popup", popup).Output()
	check(err)
	pane := strings.TrimSpace(string(out))
	var took time.Duration
	for {
		screen, err := w.cmd(dir, "tmux", "capture-pane", "-p", "-t", pane).Output()
		if err == nil && strings.Contains(string(screen), want) {
			took = time.Since(start)
			break
		}
		if time.Since(start) > 10*time.Second {
			fmt.Fprintf(os.Stderr, "%s popup never showed %q:\n%s", popup, want, screen)
			exit(1)
		}
		// Poll gently: a busy loop of tmux processes would steal the CPU
		// the popup needs (2 cores) and measure the poller, not owt.
		time.Sleep(2 * time.Millisecond)
	}
	w.must(dir, "tmux", "send-keys", "-t", pane, "Escape")
	for i := 0; i < 200; i++ {
		panes, _ := w.cmd(dir, "tmux", "list-panes", "-a", "-F", "#{pane_id}").Output()
		if !strings.Contains(string(panes), pane+"\n") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return took
}
