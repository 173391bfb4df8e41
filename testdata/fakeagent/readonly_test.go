package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPlanModeRefusesWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := startAgent(t, agentConfig{persona: "claude", dir: dir, args: []string{"--permission-mode", "plan", "!write x.txt"}})
	a.waitScreen(0, "write x.txt refused: read-only mode")
	a.waitScreen(0, "Done: !write x.txt")
	if _, err := os.Stat(filepath.Join(dir, "x.txt")); err == nil {
		t.Fatal("a write in plan mode happened")
	}
	a.waitEvent(1, is("refused"))
}

func TestReadOnlyFlags(t *testing.T) {
	for _, c := range []struct {
		persona string
		args    []string
		want    bool
	}{
		{"claude", []string{"--permission-mode", "plan"}, true},
		{"claude", []string{"--permission-mode", "acceptEdits"}, false},
		{"codex", []string{"--sandbox", "read-only"}, true},
		{"codex", []string{"-s", "workspace-write"}, false},
		{"gemini", []string{"--approval-mode", "plan"}, true},
		{"opencode", []string{"--agent", "plan"}, true},
		{"opencode", []string{"--agent", "build"}, false},
	} {
		p := personas[c.persona]
		if got := readOnly(p, parseArgs(p.args, c.args)); got != c.want {
			t.Errorf("%s %v: read-only = %v, want %v", c.persona, c.args, got, c.want)
		}
	}
}
