package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHostsAreStrictAndTheUsers(t *testing.T) {
	root := setup(t, `
[hosts.box]
address = "me@box.example:2222"
labels = ["gpu", "bigmem"]
max_agents = 4
repos = { "/home/me/src/app" = "~/src/app" }
search = ["~/src", "/srv"]
`, "")
	cfg, err := Load(root)
	require.NoError(t, err)
	require.Equal(t, Host{Address: "me@box.example:2222", Labels: []string{"gpu", "bigmem"}, MaxAgents: 4,
		Repos: map[string]string{"/home/me/src/app": "~/src/app"}, Search: []string{"~/src", "/srv"}}, cfg.Hosts["box"])

	for _, c := range []struct{ file, want string }{
		{"[hosts.box]\naddress = \"box\"\nport = 22\n", "hosts.box.port: unknown key"},
		{"[hosts.box]\nlabels = [\"x\"]\n", "hosts.box.address: is required"},
		{"[hosts.box]\naddress = \"-oProxyCommand=x\"\n", "hosts.box.address"},
		{"[hosts.box]\naddress = \"box\"\nmax_agents = -1\n", "hosts.box.max_agents: must be 0"},
		{"[hosts.box]\naddress = \"box\"\nrepos = { \"rel\" = \"/x\" }\n", `local path "rel" must be absolute`},
		{"[hosts.box]\naddress = \"box\"\nrepos = { \"/a\" = \"x\" }\n", `remote path "x" (for /a) must be absolute or start with ~/`},
		{"[hosts.box]\naddress = \"box\"\nsearch = [\"src\"]\n", `hosts.box.search: "src"`},
		{"[hosts.\"a b\"]\naddress = \"box\"\n", `host name "a b"`},
		{"[hosts.box]\naddress = 3\n", "hosts.box.address: must be a string"},
	} {
		_, err := Load(setup(t, c.file, ""))
		require.ErrorContains(t, err, c.want, c.file)
	}
	root = setup(t, "", "[hosts.box]\naddress = \"box\"\n")
	cfg, err = Load(root)
	require.ErrorContains(t, err, "hosts are the user's machines")
	require.Empty(t, cfg.Hosts, "a repository's hosts are not taken")
}

// owt host add and remove change only their host's table, keeping the
// user's own lines and comments.
func TestAddAndRemoveHostKeepTheRestOfTheFile(t *testing.T) {
	root := setup(t, "# my config\n[agent]\ntool = \"codex\" # mine\n\n[hosts.old]\naddress = \"old\"\n", "")
	require.NoError(t, AddHost("box", Host{Address: "me@box:2222", Labels: []string{"gpu"}, MaxAgents: 2}))
	require.ErrorContains(t, AddHost("box", Host{Address: "x"}), "already")
	require.Error(t, AddHost("-x", Host{Address: "x"}))
	cfg, err := Load(root)
	require.NoError(t, err)
	require.Equal(t, Host{Address: "me@box:2222", Labels: []string{"gpu"}, MaxAgents: 2}, cfg.Hosts["box"])
	require.Equal(t, "codex", cfg.Agent.Tool)

	require.NoError(t, RemoveHost("old"))
	b, err := os.ReadFile(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "owt", "config.toml"))
	require.NoError(t, err)
	require.Contains(t, string(b), "# my config\n[agent]\ntool = \"codex\" # mine\n")
	require.Contains(t, string(b), "\n[hosts.box]\naddress = \"me@box:2222\"\nlabels = [\"gpu\"]\nmax_agents = 2\n")
	require.NoError(t, AddHost("plain", Host{Address: "plain"}))
	b, err = os.ReadFile(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "owt", "config.toml"))
	require.NoError(t, err)
	require.Contains(t, string(b), "\n[hosts.plain]\naddress = \"plain\"\n")
	require.NotContains(t, string(b), "max_agents = 0")
	require.NoError(t, RemoveHost("plain"))
	cfg, err = Load(root)
	require.NoError(t, err)
	require.NotContains(t, cfg.Hosts, "old")
	require.Contains(t, cfg.Hosts, "box")
	require.NoError(t, RemoveHost("box"))
	require.Error(t, RemoveHost("box"))
	cfg, err = Load(root)
	require.NoError(t, err)
	require.Empty(t, cfg.Hosts)
}
