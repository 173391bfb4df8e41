package mcpcmd

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/peers"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Command is owt mcp.
func Command(f *cmdutil.Factory, version string) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "the MCP server an agent's tool starts (stdio): peers, messages, spawning (see 'Agents talking to each other' in the README)",
		Description: "owt registers this server with every agent it starts; run by hand it answers the MCP protocol on stdin/stdout.\n" +
			"It acts as the agent named by OWT_NAME in the repository OWT_REPO, which owt sets in each agent's session.",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdutil.Usagef("mcp takes no arguments")
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			id := Identity{Name: os.Getenv("OWT_NAME"), Repo: os.Getenv("OWT_REPO")}
			return Serve(ctx, id, f.Socket, version, &mcp.StdioTransport{})
		},
	}
}

// Identity is the agent a server acts as.
type Identity struct{ Name, Repo string }

// Serve answers MCP on t as the agent id until the client goes away. An
// identity that is not an agent of owt's still serves: every tool then
// says why it cannot act, so the agent's tool shows the reason.
func Serve(ctx context.Context, id Identity, socket, version string, t mcp.Transport) error {
	src := &source{id: id, socket: socket}
	return Server(src.get, version).Run(ctx, t)
}

// source opens the agent's peers on first use, and again after a failure
// (the record may not be written yet while the agent starts).
type source struct {
	id     Identity
	socket string
	mu     sync.Mutex
	p      *peers.Peers
}

func (s *source) get() (*peers.Peers, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p != nil {
		return s.p, nil
	}
	if s.id.Name == "" || s.id.Repo == "" {
		return nil, peers.ErrNoIdentity
	}
	// The agent's server is the one its record names, whatever TMUX the
	// tool passed on (some tools start servers with a reduced environment).
	tm := tmux.New()
	tm.Socket = s.socket
	if f, err := state.ForRepo(s.id.Repo).Peek(); err == nil {
		if r := f.Records[s.id.Name]; r != nil && r.Socket != "" {
			tm.Socket = r.Socket
		}
	}
	w, err := workspace.OpenRoot(s.id.Repo, tm)
	if w == nil {
		return nil, err
	}
	// Protocol owns stdout.
	w.Log, w.Warn = os.Stderr, os.Stderr
	p, err := peers.Open(w, s.id.Name)
	if err != nil {
		return nil, err
	}
	s.p = p
	return p, nil
}
