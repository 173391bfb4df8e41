// Package mcpcmd holds the commands of owt-mcp, the program that links
// SQLite: owt mcp, the Model Context Protocol server (spoken over stdio,
// built on the official Go SDK) that each agent's tool starts; owt
// messages, which shows the user the traffic between agents; and owt
// memory, the user's door to the repository's memory. The tools are
// thin: what they do is package peers' and memory/facts'.
//
// Nothing but protocol is written to stdout: progress and warnings of
// what a tool does (a spawn's worktree) go to stderr, which the agent's
// tool keeps as the server's log.
package mcpcmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/memory/facts"
	"github.com/owt-tmux/owt/internal/peers"
)

// instructions tell the agent's model what the server is for.
const instructions = `owt runs several coding agents side by side, each on its own branch and worktree. These tools reach the other agents (your peers) of this repository: list_peers shows who works on what and which files overlap with yours; send_message types a message into a peer when it is idle (it sees "[from YOU] ..."); check_messages reads what peers sent you; get_peer_files shows a peer's changes; share_note adds to the note every agent reads; spawn_agent starts an executor agent on its own branch that reports back to you; remember keeps a fact about the repository for later agents, recall searches them. Message peers about shared files before you both edit them; do not answer every message with a message.`

// handler does one tool's work as the agent p; its value is the result,
// and a result whose value fails (failed) is marked an error result.
type handler[In any] func(p *peers.Peers, in In) (v any, failed bool, err error)

// addTool adds a tool whose calls act as the agent open builds: one that
// cannot be built (no identity, not an agent) answers every call with
// why, as an error result.
func addTool[In any](s *mcp.Server, open func() (*peers.Peers, error), t *mcp.Tool, h handler[In]) {
	mcp.AddTool(s, t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		p, err := open()
		if err != nil {
			return nil, nil, err
		}
		v, failed, err := h(p, in)
		if err != nil {
			return nil, nil, err
		}
		res, out, err := result(v)
		if res != nil && failed {
			res.IsError = true
		}
		return res, out, err
	})
}

// readOnly marks the tools that change nothing an agent works on (reading
// its messages only marks them read): a tool in a read-only mode (Claude
// Code's plan mode, a swarm's reviewer) may call them.
var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true}

// Server is the MCP server of one agent's peers.
func Server(open func() (*peers.Peers, error), version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "owt", Title: "owt peers", Version: version},
		&mcp.ServerOptions{Instructions: instructions})

	addTool(s, open, &mcp.Tool{
		Name:        "list_peers",
		Annotations: readOnly,
		Description: "Every other agent of this repository: name, tool, status (working, waiting, idle, exited), branch, task, the files it changed against its base, and which of them you changed too (overlap).",
	}, func(p *peers.Peers, _ struct{}) (any, bool, error) {
		list, err := p.List()
		if err != nil {
			return nil, false, err
		}
		return map[string]any{"me": p.Me, "peers": list}, false, nil
	})

	type sendIn struct {
		To   string `json:"to" jsonschema:"the peer's name (as list_peers shows it), or all"`
		Text string `json:"text" jsonschema:"the message (at most 32 KiB); the peer sees it as [from YOUR-NAME] text"`
	}
	addTool(s, open, &mcp.Tool{
		Name:        "send_message",
		Description: "Send a message to a peer (or to all). It is typed into the peer only when its turn is over and the user is not on its pane; the result says delivered or queued, with an id. Repeating your last message to a peer is dropped, and too many messages to one peer are refused (the user is asked to look).",
	}, func(p *peers.Peers, in sendIn) (any, bool, error) {
		if in.To == "" {
			return nil, false, errors.New("to is empty: name a peer (list_peers) or all")
		}
		sent, err := p.Send(in.To, in.Text)
		if err != nil {
			return nil, false, err
		}
		return map[string]any{"sent": sent}, allFailed(sent), nil
	})

	type checkIn struct {
		All bool `json:"all,omitempty" jsonschema:"also the messages you read before (the last week, at most 50)"`
	}
	addTool(s, open, &mcp.Tool{
		Name:        "check_messages",
		Annotations: readOnly,
		Description: "The messages peers sent you that you have not read, oldest first (all: the read ones too); they are marked read, and one not typed into you yet will not be.",
	}, func(p *peers.Peers, in checkIn) (any, bool, error) {
		msgs, err := p.Check(in.All)
		if err != nil {
			return nil, false, err
		}
		return map[string]any{"messages": msgs}, false, nil
	})

	type filesIn struct {
		Name string `json:"name" jsonschema:"the peer's name"`
		File string `json:"file,omitempty" jsonschema:"one path it changed, to get that file's diff"`
	}
	addTool(s, open, &mcp.Tool{
		Name:        "get_peer_files",
		Annotations: readOnly,
		Description: "A peer's changed files against its base with +/- line counts, which of them you changed too, and optionally one file's diff.",
	}, func(p *peers.Peers, in filesIn) (any, bool, error) {
		files, err := p.PeerFiles(in.Name, in.File)
		if err != nil {
			return nil, false, err
		}
		return files, false, nil
	})

	type noteIn struct {
		Text string `json:"text" jsonschema:"what every agent of this repository should know"`
	}
	addTool(s, open, &mcp.Tool{
		Name:        "share_note",
		Description: "Share a short note with every agent of this repository: it goes into each one's instructions file (owt note's file), under a heading of agents' notes, each line signed with your name. The user's own note stays above it. At most 8 KiB of agents' notes are kept, the oldest dropped first.",
	}, func(p *peers.Peers, in noteIn) (any, bool, error) {
		res, dropped, err := p.ShareNote(in.Text)
		if err != nil {
			return nil, false, err
		}
		return map[string]any{"worktrees": res, "dropped_oldest": dropped}, false, nil
	})

	type spawnIn struct {
		Task string `json:"task" jsonschema:"what the new agent should do"`
		Name string `json:"name,omitempty" jsonschema:"its worktree name; derived from the task when empty"`
		Tool string `json:"tool,omitempty" jsonschema:"its tool (claude, codex, gemini, opencode ...); the configured one when empty"`
		Base string `json:"base,omitempty" jsonschema:"the branch it starts from; yours when empty"`
	}
	addTool(s, open, &mcp.Tool{
		Name:        "spawn_agent",
		Description: "Start an executor agent on its own branch and worktree with a task, as owt new would; it is told to report back to you with send_message when it is done or blocked. Bounded by [mcp] max_spawned live agents.",
	}, func(p *peers.Peers, in spawnIn) (any, bool, error) {
		rec, err := p.Spawn(peers.SpawnOptions{Task: in.Task, Name: in.Name, Tool: in.Tool, Base: in.Base})
		if err != nil {
			return nil, false, err
		}
		return map[string]any{"name": rec.Name, "branch": rec.Branch, "tool": rec.Tool, "base": rec.Base,
			"result": fmt.Sprintf("started %s on %s; it reports back with send_message", rec.Name, rec.Branch)}, false, nil
	})
	type rememberIn struct {
		Text string `json:"text" jsonschema:"the fact, in one or two sentences, true beyond your own task"`
		Kind string `json:"kind,omitempty" jsonschema:"decision, convention, gotcha or fact (default fact)"`
	}
	addTool(s, open, &mcp.Tool{
		Name:        "remember",
		Description: "Keep a fact about this repository for every later agent (a decision made, a convention, a gotcha that cost you time): it is found by recall and given to new agents whose task it concerns.",
	}, func(p *peers.Peers, in rememberIn) (any, bool, error) {
		it, err := remember(p, in.Text, in.Kind)
		if err != nil {
			return nil, false, err
		}
		return map[string]any{"id": it.ID, "kind": it.Kind, "result": "remembered"}, false, nil
	})

	type recallIn struct {
		Query string `json:"query" jsonschema:"words to look for"`
	}
	addTool(s, open, &mcp.Tool{
		Name:        "recall",
		Annotations: readOnly,
		Description: "Search what earlier agents and the user remembered about this repository, best match first, each with its kind, source and age.",
	}, func(p *peers.Peers, in recallIn) (any, bool, error) {
		hits, err := recall(p, in.Query)
		if err != nil {
			return nil, false, err
		}
		return map[string]any{"facts": hits}, false, nil
	})
	return s
}

// remember adds an agent's fact to its repository's memory, with the
// agent and its branch as the source.
func remember(p *peers.Peers, txt, kind string) (facts.Item, error) {
	k, err := facts.ParseKind(kind)
	if err != nil {
		return facts.Item{}, err
	}
	rec, err := p.W.Get(p.Me)
	if err != nil {
		return facts.Item{}, err
	}
	db, err := facts.Open(p.W.Repo.Root)
	if err != nil {
		return facts.Item{}, err
	}
	defer db.Close()
	return db.Add(txt, k, false, facts.Source{From: "agent", Agent: p.Me, Branch: rec.Branch}, time.Now())
}

// recall searches the repository's memory (at most 10 hits).
func recall(p *peers.Peers, query string) ([]facts.Item, error) {
	if !memory.Exists(p.W.Repo.Root) {
		return []facts.Item{}, nil
	}
	db, err := facts.Open(p.W.Repo.Root)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	hits, err := db.Search(query, 10)
	if hits == nil {
		hits = []facts.Item{}
	}
	return hits, err
}

// result is v as a tool's result: JSON text a model reads, and the same
// as structured content.
func result(v any) (*mcp.CallToolResult, any, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	var structured any
	_ = json.Unmarshal(data, &structured)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}, StructuredContent: structured}, nil, nil
}

// allFailed: no message of sent was queued or delivered.
func allFailed(sent []peers.Sent) bool {
	for _, s := range sent {
		if s.Result == peers.Queued || s.Result == peers.Delivered {
			return false
		}
	}
	return true
}
