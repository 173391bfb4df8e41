package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// owt's hooks in the user's Codex hooks file, as an owt before Codex's
// 3 s cap wrote them (10 s for Interrupt and SessionEnd too): Codex
// clamps them and warns at every start. owt doctor says so; --fix writes
// them again within the caps, the user's own hook kept.
func TestDoctorRewritesCodexHookTimeoutsCodexClamps(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	home := filepath.Join(e.Home, ".codex")
	require.NoError(t, os.MkdirAll(home, 0o700))
	e.Set("CODEX_HOME", home)
	hook := func(cmd string, timeout int) []map[string]any {
		return []map[string]any{{"matcher": "", "hooks": []map[string]any{{"type": "command", "command": cmd, "timeout": timeout}}}}
	}
	old := map[string]any{"hooks": map[string]any{
		"Stop":       append(hook("my-stop", 30), hook(owtBin+" hook codex Stop", 10)...),
		"Interrupt":  hook(owtBin+" hook codex Interrupt", 10),
		"SessionEnd": hook(owtBin+" hook codex SessionEnd", 10),
	}}
	data, err := json.Marshal(old)
	require.NoError(t, err)
	file := filepath.Join(home, "hooks.json")
	require.NoError(t, os.WriteFile(file, data, 0o600))

	rep := doctorJSON(t, e.Owt(repo, "doctor", "--json").Stdout)
	var found bool
	for _, f := range rep.Findings {
		if f.Kind == "codex-hook-timeouts" {
			found = true
			require.False(t, f.Fixed)
		}
	}
	require.True(t, found, "doctor names the clamped timeouts: %+v", rep.Findings)
	before, _ := os.ReadFile(file)
	require.Equal(t, data, before, "doctor without --fix writes nothing")

	e.Owt(repo, "doctor", "--fix")
	var now struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	after, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(after, &now))
	timeouts := map[string]int{}
	for event, groups := range now.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				who := "owt"
				if !strings.Contains(h.Command, " hook codex "+event) {
					who = h.Command
				}
				timeouts[event+" "+who] = h.Timeout
			}
		}
	}
	require.Equal(t, 30, timeouts["Stop my-stop"], "the user's hook is kept")
	require.Equal(t, 10, timeouts["Stop owt"])
	require.Equal(t, 3, timeouts["Interrupt owt"])
	require.Equal(t, 3, timeouts["SessionEnd owt"])
	for _, f := range doctorJSON(t, e.Owt(repo, "doctor", "--json").Stdout).Findings {
		require.NotEqual(t, "codex-hook-timeouts", f.Kind, "fixed")
	}
}
