package setupcmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/monitor"
	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/keybindings"
)

// optPopupWarned marks that the "no popups in this tmux" message was shown.
const optPopupWarned = "@owt-popup-fallback-shown"

func TmuxCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "tmux",
		Usage: "tmux integration: bind owt's keys, set up the status segment",
		Subcommands: []*cli.Command{
			{
				Name:  "init",
				Usage: "bind the keys of keybindings/owt.conf with the @owt-* options and point #{owt_status} at owt's status option (run by owt.tmux; safe to run again)",
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return cmdutil.Usagef("tmux init takes no arguments")
					}
					return tmuxInit(f.Tmux())
				},
			},
			{
				Name:  "keys",
				Usage: "list owt's keys as the @owt-* options make them",
				Flags: []cli.Flag{cmdutil.JSONFlag()},
				Action: func(c *cli.Context) error {
					if err := cmdutil.NoArgs(c, "tmux keys"); err != nil {
						return err
					}
					return tmuxKeys(c, f.Tmux())
				},
			},
		},
	}
}

// pluginSettings reads the @owt-* options (one tmux call) and the version.
type pluginSettings struct {
	settings keybindings.Settings
	prev     []keybindings.Bound
	popups   bool
	version  string
	warned   bool
}

func readPluginSettings(tm *tmux.Client) (pluginSettings, error) {
	names := keybindings.OptionNames()
	formats := make([]string, 0, len(names)+3)
	for _, n := range names {
		formats = append(formats, "#{"+n+"}")
	}
	formats = append(formats, "#{"+keybindings.OptBound+"}", "#{"+optPopupWarned+"}", "#{version}")
	vals, err := tm.Values(formats...)
	if err != nil {
		return pluginSettings{}, err
	}
	opts := map[string]string{}
	for i, n := range names {
		opts[n] = vals[i]
	}
	var ps pluginSettings
	ps.prev = keybindings.DecodeBound(vals[len(names)])
	ps.warned = vals[len(names)+1] != ""
	ps.version = vals[len(names)+2]
	major, minor, ok := parseVersion(ps.version)
	if !ok { // tmux before 3.2 has no #{version}
		if major, minor, err = tm.Version(); err != nil {
			return ps, err
		}
		ps.version = fmt.Sprintf("%d.%d", major, minor)
	}
	ps.popups = tmux.SupportsPopup(major, minor)
	ps.settings, err = keybindings.ParseSettings(opts)
	return ps, err
}

func parseVersion(v string) (major, minor int, ok bool) {
	v = strings.TrimPrefix(v, "next-")
	a, b, found := strings.Cut(v, ".")
	if !found {
		return 0, 0, false
	}
	b = strings.TrimRight(b, "abcdefghijklmnopqrstuvwxyz-")
	major, err1 := strconv.Atoi(a)
	minor, err2 := strconv.Atoi(b)
	return major, minor, err1 == nil && err2 == nil
}

// self is the running owt, the program the keys run.
func self() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find owt executable: %w", err)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return p, nil
}

func tmuxInit(tm *tmux.Client) error {
	ps, err := readPluginSettings(tm)
	if err != nil {
		return fmt.Errorf("owt tmux init: %w", err)
	}
	owt, err := self()
	if err != nil {
		return err
	}
	bindings := keybindings.Bindings(ps.settings, owt, ps.popups)
	cmds := keybindings.Commands(ps.prev, bindings)
	segment, err := statusCommands(tm)
	if err != nil {
		return err
	}
	cmds = append(cmds, segment...)
	if _, err := tm.RunBatch(cmds...); err != nil {
		err := applyOneByOne(tm, cmds, bindings)
		startMonitor(owt, tm)
		return err
	}
	_ = status.PublishSummary(tm)
	_ = lifecycle.PublishLost(tm) // ⟲ N: agents a reboot or a dead server lost
	startMonitor(owt, tm)
	if !ps.popups && !ps.warned {
		_ = tm.DisplayMessage("", fmt.Sprintf("owt: tmux %s has no popups (3.2+); owt's keys open a new window instead", ps.version))
		_ = tm.SetOption("", optPopupWarned, "1")
	}
	// While tmux starts (init run from its config) there is no client to
	// redraw yet: that is not a failure.
	_ = tm.RefreshStatus()
	return nil
}

// statusCommands point #{owt_status} in status-left and status-right at
// the options owt keeps current: the bar then reads an option, and runs
// no process, on every redraw. A segment an earlier owt put there is
// brought to this one's.
func statusCommands(tm *tmux.Client) ([][]string, error) {
	var cmds [][]string
	for _, name := range []string{"status-left", "status-right"} {
		v, err := tm.ShowOption("", name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		// An earlier owt's segment becomes this one's (the compact form).
		nv := v
		for _, past := range status.PastStatusFormats {
			nv = strings.ReplaceAll(nv, past, status.StatusPlaceholder)
		}
		if strings.Contains(nv, status.StatusPlaceholder) {
			cmds = append(cmds, []string{"set-option", "-g", name, strings.ReplaceAll(nv, status.StatusPlaceholder, status.StatusFormat)})
		}
	}
	return cmds, nil
}

// applyOneByOne runs the commands separately after the batch failed, so
// every good binding still lands and each bad one is named by its option.
// Only the keys that were bound are recorded as owt's.
func applyOneByOne(tm *tmux.Client, cmds [][]string, bindings []keybindings.Binding) error {
	var problems []string
	failed := map[string]bool{}
	for _, cmd := range cmds {
		if cmd[0] == "set-option" && len(cmd) > 2 && cmd[2] == keybindings.OptBound {
			continue // written below, with the keys that made it
		}
		_, err := tm.Run(cmd...)
		switch {
		case err == nil, cmd[0] == "unbind-key":
			// A key tmux cannot unbind was never bound: nothing to undo.
		case cmd[0] == "bind-key" && len(cmd) > 3:
			failed[cmd[3]] = true
			what := cmd[3]
			for _, b := range bindings {
				if b.Key == cmd[3] {
					what = fmt.Sprintf("%s %q", b.Option, b.Key)
				}
			}
			problems = append(problems, fmt.Sprintf("%s: %v", what, err))
		default:
			problems = append(problems, fmt.Sprintf("%s: %v", strings.Join(cmd[:min(len(cmd), 3)], " "), err))
		}
	}
	var bound []keybindings.Binding
	for _, b := range bindings {
		if !failed[b.Key] {
			bound = append(bound, b)
		}
	}
	_ = tm.SetOption("", keybindings.OptBound, keybindings.EncodeBound(bound))
	_ = status.PublishSummary(tm)
	if len(problems) == 0 {
		return nil
	}
	return errors.New(strings.Join(problems, "; "))
}

func tmuxKeys(c *cli.Context, tm *tmux.Client) error {
	ps, err := readPluginSettings(tm)
	if err != nil && !errors.Is(err, tmux.ErrNoServer) && !errors.Is(err, tmux.ErrNotInstalled) {
		return err
	}
	if err != nil { // no server: the defaults
		ps.settings, _ = keybindings.ParseSettings(nil)
		ps.popups = true
	}
	owt, err := self()
	if err != nil {
		return err
	}
	bindings := keybindings.Bindings(ps.settings, owt, ps.popups)
	if c.Bool("json") {
		return cmdutil.PrintJSON(c.App.Writer, bindings)
	}
	tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ACTION\tOPTION\tTABLE\tKEY\tRUNS")
	bound := map[string]keybindings.Binding{}
	for _, b := range bindings {
		bound[b.Action] = b
	}
	for _, k := range keybindings.Table() {
		b, ok := bound[k.Action]
		table, key := ps.settings.Table, "none"
		if ok {
			key = b.Key
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\towt %s\n", k.Action, k.Option, table, key, strings.Join(k.Runs, " "))
	}
	return tw.Flush()
}

// startMonitor makes sure this server has its status monitor (one per
// server; cheap when it already runs). A failure is logged, not fatal: the
// keys work without it, and hooks still report status.
func startMonitor(owt string, tm *tmux.Client) {
	if err := monitor.EnsureRunning(owt, tm); err != nil {
		owtlog.Errorf("tmux init", owtlog.Fields{Event: "monitor"}, "monitor: %v", err)
	}
}
