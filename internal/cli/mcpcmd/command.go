package mcpcmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/peers"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Command is owt mcp.
func Command(f *cmdutil.Factory, version string) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "the MCP server an agent's tool starts (stdio): peers, messages, spawning (see docs/guides/peers-and-swarms.md)",
		Description: "owt registers this server with every agent it starts; run by hand it answers the MCP protocol on stdin/stdout.\n" +
			"It acts as the agent named by OWT_NAME in the repository OWT_REPO, and only with that agent's secret (OWT_MCP_TOKEN),\n" +
			"which owt makes each time it starts the agent's tool and hands to that tool's registration of this server alone.",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdutil.Usagef("mcp takes no arguments")
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			id := Identity{Name: os.Getenv("OWT_NAME"), Repo: os.Getenv("OWT_REPO"), Token: os.Getenv(state.MCPTokenEnv)}
			return Serve(ctx, id, f.Socket, version, &mcp.StdioTransport{})
		},
	}
}

// Identity is the agent a server acts as, and the secret that proves it.
type Identity struct{ Name, Repo, Token string }

// Serve answers MCP on t as the agent id until the client goes away. An
// identity that is not an agent of owt's still serves: every tool then
// says why it cannot act, so the agent's tool shows the reason.
func Serve(ctx context.Context, id Identity, socket, version string, t mcp.Transport) error {
	src := &source{id: id, socket: socket}
	return Server(src.get, version).Run(ctx, t)
}

// source builds the agent's peers for each call: with the config as it
// is now (a user who lowers [mcp] limits is obeyed at once), sharing one
// cache of the peers' changed files for the server's whole life.
type source struct {
	id     Identity
	socket string
	files  peers.FileCache
	mu     sync.Mutex
	vetted bool // the process tree was checked: this is the agent's own server
}

func (s *source) get() (*peers.Peers, error) {
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
	w, cfgErr := workspace.OpenRoot(s.id.Repo, tm)
	var err error
	if w == nil {
		return nil, cfgErr
	}
	// Protocol owns stdout.
	w.Log, w.Warn = os.Stderr, os.Stderr
	// New sessions, hooks and the monitor run owt, not this program.
	if w.Self, err = memory.Owt(); err != nil {
		return nil, err
	}
	if cfgErr != nil {
		fmt.Fprintf(os.Stderr, "owt mcp: %v (using the defaults; spawn_agent is refused until it is fixed)\n", cfgErr)
	}
	p, err := peers.Open(w, s.id.Name)
	if err != nil {
		return nil, err
	}
	p.Files, p.ConfigErr = &s.files, cfgErr
	// Every call, not once: an agent that is deleted, or started again,
	// has a new secret, and its old servers act no more.
	if err := state.CheckMCPToken(s.id.Repo, s.id.Name, s.id.Token); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.vetted {
		if err := peers.CheckAncestry(w, s.id.Name, os.Getpid()); err != nil {
			return nil, err
		}
		s.vetted = true
	}
	return p, nil
}
