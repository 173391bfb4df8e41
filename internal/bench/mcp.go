package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/adrg/xdg"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/owt-tmux/owt/internal/state"
)

// mcpToken is the MCP secret of the agent name, as its tool is handed it
// (state.NewMCPToken), from the world's state home; one is made the way
// the runner makes it when the worktree runs no agent.
func mcpToken(stateHome, repo, name string) (string, error) {
	old, had := os.LookupEnv("XDG_STATE_HOME")
	os.Setenv("XDG_STATE_HOME", stateHome)
	xdg.Reload()
	defer func() {
		if had {
			os.Setenv("XDG_STATE_HOME", old)
		} else {
			os.Unsetenv("XDG_STATE_HOME")
		}
		xdg.Reload()
	}()
	if data, err := os.ReadFile(state.MCPTokenPath(repo, name)); err == nil && strings.TrimSpace(string(data)) != "" {
		return strings.TrimSpace(string(data)), nil
	}
	return state.NewMCPToken(repo, name)
}

// mcpFigures times owt mcp as an agent's tool uses it: from starting the
// server to the end of the MCP initialize handshake, and list_peers as
// the first worktree of repo (its peers: the other worktrees).
func mcpFigures(w *world, bin, repo string) {
	var items []struct{ Name, Repo string }
	out, err := w.cmd(repo, bin, "list", "--json").Output()
	if err != nil || json.Unmarshal(out, &items) != nil || len(items) == 0 {
		fmt.Println("owt mcp: no worktrees; no figure")
		return
	}
	me := items[0]
	tok, err := mcpToken(filepath.Join(w.root, "state"), me.Repo, me.Name)
	if err != nil {
		fmt.Printf("owt mcp: %v; no figure\n", err)
		return
	}
	connect := func() (*mcp.ClientSession, time.Duration, error) {
		cmd := w.cmd(repo, bin, "mcp")
		cmd.Env = append(append([]string(nil), cmd.Env...), "OWT_NAME="+me.Name, "OWT_REPO="+me.Repo, state.MCPTokenEnv+"="+tok)
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		start := time.Now()
		cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		return cs, time.Since(start), err
	}
	var starts []time.Duration
	for i := 0; i < 10; i++ {
		cs, d, err := connect()
		if err != nil {
			fmt.Printf("owt mcp: %v; no figure\n", err)
			return
		}
		starts = append(starts, d)
		_ = cs.Close()
	}
	fmt.Printf("%-44s p50 %7s   (no budget; max %s; start → initialize answered)\n", "owt mcp start to initialized", ms(p50(starts)), ms(maxOf(starts)))

	cs, _, err := connect()
	if err != nil {
		fmt.Printf("owt mcp: %v; no figure\n", err)
		return
	}
	defer cs.Close()
	listPeers := func() (time.Duration, error) {
		start := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_peers"})
		if err == nil && res.IsError {
			err = fmt.Errorf("list_peers failed: %v", res.Content)
		}
		return time.Since(start), err
	}
	cold, err := listPeers()
	if err != nil {
		fmt.Printf("owt mcp: %v; no figure\n", err)
		return
	}
	var calls []time.Duration
	for i := 0; i < *runs; i++ {
		d, err := listPeers()
		if err != nil {
			fmt.Printf("owt mcp: %v; no figure\n", err)
			return
		}
		calls = append(calls, d)
	}
	fmt.Printf("%-44s p50 %7s   (budget ≤ 20 ms; first call %s reads every peer's files with git; later ones reuse them until a status changes)\n",
		fmt.Sprintf("list_peers, %d agents", len(items)), ms(p50(calls)), ms(cold))
}
