// Package hostcmd is owt host: add, list, check and remove the machines
// agents may run on over ssh (package hosts does the work). Each command
// turns its flags into an options struct and hands it to a run function
// with injected streams.
package hostcmd

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/buildinfo"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/ssh"
)

// probeTimeout bounds one host's checks; installTimeout a copy of owt.
const (
	probeTimeout   = 30 * time.Second
	installTimeout = 5 * time.Minute
)

// Command is owt host; version is this owt's (a host must run the same).
func Command(f *cmdutil.Factory, version string) *cli.Command {
	return &cli.Command{
		Name:  "host",
		Usage: "machines agents run on over ssh: add, list, check, remove",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "check a machine over ssh (tmux, git, owt there; copies owt with your yes) and add it as [hosts.NAME]",
				ArgsUsage: "NAME [user@]host[:port]",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "label", Usage: "`LABELS` of the machine, comma-separated (gpu,bigmem)"},
					&cli.IntFlag{Name: "max-agents", Usage: "at most `N` agents there (0: no limit)"},
					&cli.StringSliceFlag{Name: "repo", Usage: "`LOCAL=REMOTE`: the host's clone (REMOTE, absolute or ~/…) of the local repository LOCAL; repeatable"},
					&cli.StringSliceFlag{Name: "search", Usage: "`DIR` on the host (absolute, or '~/src' quoted) whose checkouts owt new --host searches for a clone by origin URL; repeatable"},
					&cli.BoolFlag{Name: "clone", Usage: "clone each --repo there from its origin when the host has no checkout at REMOTE"},
					&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "copy owt there without asking when it is missing or another version"},
				},
				Action: func(c *cli.Context) error {
					if c.NArg() != 2 {
						return cmdutil.Usagef("host add takes NAME and [user@]host[:port]")
					}
					var labels []string
					for _, l := range strings.Split(c.String("label"), ",") {
						if l = strings.TrimSpace(l); l != "" {
							labels = append(labels, l)
						}
					}
					repos := map[string]string{}
					for _, r := range c.StringSlice("repo") {
						local, remote, ok := strings.Cut(r, "=")
						if !ok || local == "" || remote == "" {
							return cmdutil.Usagef("--repo %q: give LOCAL=REMOTE (/home/me/src/app=~/src/app)", r)
						}
						if abs, err := filepath.Abs(local); err == nil {
							local = abs
						}
						if real, err := filepath.EvalSymlinks(local); err == nil {
							local = real // the repository's root as git names it
						}
						repos[local] = remote
					}
					return addRun(&addOptions{IO: f.IO, Version: version, Name: c.Args().Get(0), Address: c.Args().Get(1),
						Labels: labels, MaxAgents: c.Int("max-agents"), Repos: repos, Search: c.StringSlice("search"), Clone: c.Bool("clone"), Yes: c.Bool("yes")})
				},
			},
			{
				Name:  "list",
				Usage: "every host: reachable, latency, agents, owt version",
				Flags: []cli.Flag{cmdutil.JSONFlag()},
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return cmdutil.Usagef("host list takes no arguments")
					}
					return listRun(&listOptions{IO: f.IO, Version: version, JSON: c.Bool("json")})
				},
			},
			{
				Name:      "check",
				Usage:     "check one host: ssh without a prompt, tmux, git, owt at this version",
				ArgsUsage: "NAME",
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return cmdutil.Usagef("host check takes one NAME")
					}
					return checkRun(&checkOptions{IO: f.IO, Version: version, Name: c.Args().First()})
				},
			},
			{
				Name:      "fetch",
				Usage:     "bring an agent's branch home from its host: the branch of the same name here, fast-forward only",
				ArgsUsage: "NAME[@HOST]",
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return cmdutil.Usagef("host fetch takes one NAME (or NAME@HOST)")
					}
					return fetchRun(f, c.Args().First())
				},
			},
			{
				Name:   "stream",
				Hidden: true,
				Usage:  "print this machine's agents as JSON lines whenever a status changes, until stdin ends (a follower's remote side)",
				Action: func(c *cli.Context) error {
					stop := make(chan struct{})
					go func() {
						_, _ = io.Copy(io.Discard, f.IO.In)
						close(stop)
					}()
					return hosts.Stream(context.Background(), f.IO.Out, stop)
				},
			},
			{
				Name:   "exec",
				Hidden: true,
				Usage:  "run the owt command given as a JSON argv on stdin (status, why, wait): how a local owt asks about an agent here",
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return cmdutil.Usagef("host exec takes its command as JSON on stdin")
					}
					return execRun(f.IO)
				},
			},
			{
				Name:   "evidence",
				Hidden: true,
				Usage:  "print, as JSON, the evidence a run's judge needs of the agent named on stdin (JSON) in this repository: how a local run judges a task here",
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return cmdutil.Usagef("host evidence takes the agent's name as JSON on stdin")
					}
					return evidenceRun(f.IO)
				},
			},
			{
				Name:   "checks",
				Hidden: true,
				Usage:  "run a run task's checks (JSON on stdin) in the worktree of its agent in this repository and print how they went: how a local run checks a task here",
				Action: func(c *cli.Context) error {
					if c.NArg() > 0 {
						return cmdutil.Usagef("host checks takes its checks as JSON on stdin")
					}
					return checksRun(f.IO)
				},
			},
			{
				Name:      "remove",
				Usage:     "take a host out of the config (refused while agents live there, unless --force, which leaves them running)",
				ArgsUsage: "NAME",
				Flags:     []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "remove it even with agents there (they keep running) or when it cannot be reached"}},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return cmdutil.Usagef("host remove takes one NAME")
					}
					return removeRun(&removeOptions{IO: f.IO, Name: c.Args().First(), Force: c.Bool("force")})
				},
			},
		},
	}
}

// loadConfig is the merged config, or the one line saying what is wrong.
func loadConfig() (config.Config, error) {
	cfg, root, err := cmdutil.LoadConfig()
	if err != nil {
		return cfg, cmdutil.ConfigProblem(root, err)
	}
	return cfg, nil
}

// openHost is the configured host name; an unknown one is bad usage.
func openHost(name string) (*hosts.Host, error) {
	cfg, err := loadConfig()
	if err != nil {
		return nil, err
	}
	h, err := hosts.Open(cfg, name)
	if errors.Is(err, hosts.ErrUnknown) {
		return nil, cmdutil.UsageError{Msg: err.Error()}
	}
	return h, err
}

type addOptions struct {
	IO        *cmdutil.IOStreams
	Version   string
	Name      string
	Address   string
	Labels    []string
	MaxAgents int
	Repos     map[string]string
	Search    []string
	Clone     bool
	Yes       bool
}

// addRun checks the machine and, when it has what owt needs (owt copied
// with the user's yes), writes [hosts.NAME]. Nothing is written otherwise.
func addRun(o *addOptions) error {
	if err := config.ValidHostName(o.Name); err != nil {
		return cmdutil.UsageError{Msg: err.Error()}
	}
	if _, err := ssh.ParseAddress(o.Address); err != nil {
		return cmdutil.UsageError{Msg: err.Error()}
	}
	if o.MaxAgents < 0 {
		return cmdutil.Usagef("--max-agents %d: give 0 (no limit) or more", o.MaxAgents)
	}
	hc := config.Host{Address: o.Address, Labels: o.Labels, MaxAgents: o.MaxAgents}
	if len(o.Repos) > 0 {
		hc.Repos = o.Repos
	}
	hc.Search = o.Search
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	if _, taken := cfg.Hosts[o.Name]; taken {
		return cmdutil.Usagef("host %s already exists (owt host remove %s first, or pick another name)", o.Name, o.Name)
	}
	if ps := config.ValidateHosts(config.Config{Hosts: map[string]config.Host{o.Name: hc}}); len(ps) > 0 {
		return cmdutil.UsageError{Msg: ps[0].Error()}
	}
	h, err := hosts.New(o.Name, hc)
	if err != nil {
		return cmdutil.UsageError{Msg: err.Error()}
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	p, err := h.Probe(ctx)
	if err != nil {
		return fmt.Errorf("host %s: %w", o.Name, err)
	}
	if lacks := p.Lacks(); len(lacks) > 0 {
		return fmt.Errorf("host %s (%s) cannot run agents: %s; install them there and run owt host add again", o.Name, o.Address, strings.Join(lacks, "; "))
	}
	// The checkouts are looked at first: a host refused for a missing one
	// gets no owt; they are cloned (--clone) only once owt is there.
	if err := clones(o, h, false); err != nil {
		return err
	}
	if !p.OwtMatches(o.Version, hosts.SelfSum()) {
		if err := installOwt(o, h, p); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		if p, err = h.Probe(ctx); err != nil {
			return fmt.Errorf("host %s after copying owt: %w", o.Name, err)
		}
		if !p.OwtMatches(o.Version, hosts.SelfSum()) {
			return fmt.Errorf("host %s: owt there is still %s after the copy, not %s: is another owt before ~/.local/bin on its PATH?", o.Name, orNone(p.Owt), o.Version)
		}
	}
	if o.Clone {
		if err := clones(o, h, true); err != nil {
			return err
		}
	}
	if err := config.AddHost(o.Name, hc); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "added host %s (%s): %s, tmux %s, git %s, owt %s, %s round trip\n",
		o.Name, o.Address, p.Uname, p.Tmux, p.Git, p.Owt, p.Latency.Round(time.Millisecond))
	if others, err := hosts.All(cfg); err == nil && len(others) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		if same := hosts.SameMachine(ctx, others, p.Machine); len(same) > 0 {
			fmt.Fprintf(o.IO.ErrOut, "owt: note: %s is the same machine and account as %s: its agents show, and count, under each name; keep one (owt host remove %s)\n",
				o.Name, strings.Join(same, ", "), o.Name)
		}
	}
	return nil
}

// clones checks the host has a checkout at each --repo's REMOTE (one
// missing is refused without --clone) and, when clone, makes the missing
// ones from the local repository's origin.
func clones(o *addOptions, h *hosts.Host, clone bool) error {
	locals := make([]string, 0, len(o.Repos))
	for l := range o.Repos {
		locals = append(locals, l)
	}
	sort.Strings(locals)
	for _, local := range locals {
		remote := o.Repos[local]
		url := ""
		if repo, err := git.FindRepo(local); err == nil {
			url, _ = repo.RemoteURL("origin")
		}
		if o.Clone && url == "" {
			return fmt.Errorf("--clone %s: it has no origin to clone from on %s", local, o.Name)
		}
		ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
		said, err := h.EnsureClone(ctx, remote, url, clone)
		cancel()
		switch {
		case err != nil:
			return err
		case said == "missing" && !o.Clone:
			return fmt.Errorf("host %s has no checkout at %s: clone %s there, or pass --clone", o.Name, remote, local)
		case said == "cloned":
			fmt.Fprintf(o.IO.ErrOut, "cloned %s to %s:%s\n", cmdutil.Shown(url), o.Name, remote)
		}
	}
	return nil
}

// installOwt copies this owt to the host, after the user's yes.
func installOwt(o *addOptions, h *hosts.Host, p hosts.Probe) error {
	what := "owt is not installed there"
	if p.Owt != "" {
		what = fmt.Sprintf("owt there is %s, this one is %s", owtThere(p, o.Version), o.Version)
	}
	if !p.CanTake() {
		return fmt.Errorf("host %s: %s, and it is %s while this owt is built for another system: install owt %s there (make install) and run owt host add again", o.Name, what, p.Uname, o.Version)
	}
	files, err := hosts.Binaries()
	if err != nil {
		return err
	}
	if !o.Yes {
		if !o.IO.InTTY {
			return fmt.Errorf("host %s: %s; owt can copy itself to ~/.local/bin there: pass --yes to let it", o.Name, what)
		}
		if !cmdutil.Confirm(o.IO, fmt.Sprintf("host %s: %s. Copy this owt to ~/.local/bin there?", o.Name, what)) {
			return fmt.Errorf("host %s: not added: %s", o.Name, what)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	return h.Install(ctx, files, o.IO.ErrOut)
}

// owtThere names the host's owt against this one's version: a dev build
// of the same name is another build.
func owtThere(p hosts.Probe, local string) string {
	if p.Owt == local && buildinfo.IsDev(local) {
		return "another dev build"
	}
	return orNone(p.Owt)
}

func orNone(v string) string {
	if v == "" {
		return "missing"
	}
	return v
}

type listOptions struct {
	IO      *cmdutil.IOStreams
	Version string
	JSON    bool
}

// hostStatus is one row of owt host list.
type hostStatus struct {
	Name      string   `json:"name"`
	Address   string   `json:"address"`
	Labels    []string `json:"labels"`
	MaxAgents int      `json:"max_agents"`
	Reachable bool     `json:"reachable"`
	LatencyMS float64  `json:"latency_ms"`
	Agents    int      `json:"agents"`
	Version   string   `json:"version"`
	Error     string   `json:"error,omitempty"`
	// SameAs are the other hosts that are this machine and account: its
	// agents are counted under each of those names too.
	SameAs  []string `json:"same_as,omitempty"`
	machine string
}

func listRun(o *listOptions) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	all, err := hosts.All(cfg)
	if err != nil {
		return err
	}
	rows := make([]hostStatus, len(all))
	var wg sync.WaitGroup
	for i, h := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows[i] = status(h)
		}()
	}
	wg.Wait()
	for i := range rows {
		for j := range rows {
			if i != j && rows[i].machine != "" && rows[i].machine == rows[j].machine {
				rows[i].SameAs = append(rows[i].SameAs, rows[j].Name)
			}
		}
	}
	if o.JSON {
		return cmdutil.PrintJSON(o.IO.Out, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "no hosts; add one with: owt host add NAME [user@]host[:port]")
		return nil
	}
	printHosts(o.IO.Out, rows)
	return nil
}

// status asks one host how it is.
func status(h *hosts.Host) hostStatus {
	s := hostStatus{Name: h.Name, Address: h.Config.Address, Labels: h.Config.Labels, MaxAgents: h.Config.MaxAgents}
	if s.Labels == nil {
		s.Labels = []string{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	p, err := h.Probe(ctx)
	if err != nil {
		s.Error = err.Error()
		return s
	}
	s.Reachable, s.Version, s.machine = true, p.Owt, p.Machine
	s.LatencyMS = float64(p.Latency.Microseconds()) / 1000
	items, err := h.Agents(ctx, "")
	if err != nil {
		s.Error = err.Error()
	}
	s.Agents = len(items)
	return s
}

func printHosts(w io.Writer, rows []hostStatus) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tADDRESS\tREACHABLE\tLATENCY\tAGENTS\tVERSION\tLABELS")
	for _, r := range rows {
		reach, lat, agents := "yes", fmt.Sprintf("%.0fms", r.LatencyMS), fmt.Sprint(r.Agents)
		if !r.Reachable {
			reach, lat, agents = "no", "-", "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Address, reach, lat, agents, orNone(r.Version), strings.Join(r.Labels, ","))
	}
	_ = tw.Flush()
	for _, r := range rows {
		if r.Error != "" {
			fmt.Fprintf(w, "%s: %s\n", r.Name, cmdutil.Shown(r.Error))
		}
		if len(r.SameAs) > 0 {
			fmt.Fprintf(w, "%s: the same machine and account as %s: its agents are counted under each name (keep one: owt host remove %s)\n", r.Name, strings.Join(r.SameAs, ", "), r.Name)
		}
	}
}

type checkOptions struct {
	IO      *cmdutil.IOStreams
	Version string
	Name    string
}

// checkRun says what the host has, line by line, and fails when it lacks
// anything owt needs.
func checkRun(o *checkOptions) error {
	h, err := openHost(o.Name)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	p, err := h.Probe(ctx)
	if err != nil {
		return fmt.Errorf("host %s: %w", o.Name, err)
	}
	fmt.Fprintf(o.IO.Out, "ssh %s: ok, no prompt, %s round trip\n", h.Config.Address, p.Latency.Round(time.Millisecond))
	fmt.Fprintf(o.IO.Out, "system: %s\n", p.Uname)
	fmt.Fprintf(o.IO.Out, "tmux: %s\ngit: %s\nowt: %s\n", orNone(p.Tmux), orNone(p.Git), orNone(p.Owt))
	bad := p.Lacks()
	if !p.OwtMatches(o.Version, hosts.SelfSum()) {
		bad = append(bad, fmt.Sprintf("owt there is %s, not %s (owt host remove %s && owt host add %s %s copies this one)", owtThere(p, o.Version), o.Version, o.Name, o.Name, h.Config.Address))
	}
	if len(bad) > 0 {
		return fmt.Errorf("host %s: %s", o.Name, strings.Join(bad, "; "))
	}
	fmt.Fprintf(o.IO.Out, "host %s is ready\n", o.Name)
	return nil
}

type removeOptions struct {
	IO    *cmdutil.IOStreams
	Name  string
	Force bool
}

// removeRun takes the host out of the config. With agents there, or
// when it cannot tell, it refuses unless --force; the agents are never
// touched either way.
func removeRun(o *removeOptions) error {
	h, err := openHost(o.Name)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	items, err := h.Agents(ctx, "")
	switch {
	case o.Force:
	case err != nil:
		return fmt.Errorf("host %s: cannot tell whether agents live there (%v): --force removes it anyway", o.Name, err)
	case len(items) > 0:
		names := make([]string, 0, len(items))
		for _, it := range items {
			names = append(names, it.Name)
		}
		return fmt.Errorf("host %s has %d agent(s) (%s): finish them first, or --force removes the host and leaves them running", o.Name, len(items), cmdutil.Shown(strings.Join(names, ", ")))
	}
	if err := config.RemoveHost(o.Name); err != nil {
		return err
	}
	_ = h.SSH.Close(ctx) // the shared connection, if open
	if err := h.Forget(); err != nil {
		fmt.Fprintf(o.IO.ErrOut, "owt: host %s: %v\n", o.Name, err)
	}
	msg := "removed host " + o.Name
	if len(items) > 0 {
		msg += fmt.Sprintf(" (its %d agent(s) keep running there)", len(items))
	}
	fmt.Fprintln(o.IO.Out, msg)
	return nil
}

// execRun runs this owt with the argv read as JSON from stdin — one of
// hosts.Verbs, so nothing else can be asked for — and ends with its code.
// stdin stays open while the verb runs (hosts.Host.Exec): its end means
// the asking owt is gone (killed, its ssh gone), and the verb, in its own
// process group, is ended with it, so no owt wait is left behind here.
func execRun(ios *cmdutil.IOStreams) error {
	in := bufio.NewReader(ios.In)
	var argv []string
	if err := json.NewDecoder(io.LimitReader(in, 1<<20)).Decode(&argv); err != nil || len(argv) == 0 {
		return cmdutil.Usagef("host exec: stdin does not start with a JSON list of words")
	}
	if !hosts.Verbs[argv[0]] {
		return cmdutil.Usagef("host exec: %q is not a command owt runs for another machine", argv[0])
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, argv...)
	cmd.Stdout, cmd.Stderr = ios.Out, ios.ErrOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, in) // until the asking side is gone
		select {
		case <-exited:
		default:
			endGroup(cmd.Process.Pid, exited)
		}
	}()
	err = cmd.Wait()
	close(exited)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return cmdutil.ExitWith(ee.ExitCode())
	}
	return err
}

// endGroup ends the process group led by pid: SIGTERM, then SIGKILL
// if it has not exited (exited closed) within a few seconds.
func endGroup(pid int, exited <-chan struct{}) {
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(3 * time.Second):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// evidenceRun prints the evidence of the agent named on stdin, in the
// repository of the current directory (hosts.ReadEvidence).
func evidenceRun(ios *cmdutil.IOStreams) error {
	b, err := io.ReadAll(io.LimitReader(ios.In, 1<<16))
	if err != nil {
		return err
	}
	var spec hosts.EvidenceSpec
	if err := json.Unmarshal(b, &spec); err != nil || spec.Name == "" {
		return cmdutil.Usagef("host evidence: stdin is not {\"name\": NAME}")
	}
	ev, err := hosts.ReadEvidence(".", spec)
	if err != nil {
		return err
	}
	return cmdutil.PrintJSON(ios.Out, ev)
}

// checksRun runs the checks on stdin in the worktree of the agent they
// name (hosts.RunChecks), each within the run engine's limit.
func checksRun(ios *cmdutil.IOStreams) error {
	b, err := io.ReadAll(io.LimitReader(ios.In, 1<<20))
	if err != nil {
		return err
	}
	var spec hosts.ChecksSpec
	if err := json.Unmarshal(b, &spec); err != nil || spec.Name == "" || spec.Tree == "" {
		return cmdutil.Usagef("host checks: stdin is not {\"name\": NAME, \"tree\": TREE, \"commands\": [[…]]}")
	}
	res, err := hosts.RunChecks(".", spec, hosts.CheckTimeout)
	if err != nil {
		return err
	}
	return cmdutil.PrintJSON(ios.Out, res)
}

// fetchRun brings a remote agent's branch into this repository.
func fetchRun(f *cmdutil.Factory, ref string) error {
	w, err := f.OpenWorkspace()
	if err != nil {
		return err
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	name, hostName, named := strings.Cut(ref, "@")
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	var h *hosts.Host
	if named {
		if h, err = hosts.Open(cfg, hostName); err != nil {
			return cmdutil.UsageError{Msg: fmt.Sprintf("%s: %v", ref, err)}
		}
	} else {
		serving, err := hosts.Serving(cfg, w.Repo.Root)
		if err != nil {
			return err
		}
		var having []*hosts.Host
		for _, s := range serving {
			clone, _ := s.Clone(w.Repo.Root)
			items, err := s.Agents(ctx, clone)
			if err != nil {
				continue
			}
			for _, it := range items {
				if it.Name == name {
					having = append(having, s)
				}
			}
		}
		switch len(having) {
		case 0:
			return cmdutil.CodeError{Code: cmdutil.ExitUnknown, Msg: fmt.Sprintf("no agent %s on the hosts serving this repository (say NAME@HOST)", name)}
		case 1:
			h = having[0]
		default:
			return cmdutil.Usagef("%s is an agent on several hosts: say NAME@HOST", name)
		}
	}
	branch, commit, err := h.FetchBranch(ctx, w.Repo, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IO.Out, "%s@%s: branch %s is here at %.12s (merge it with git, or review it with git log %s)\n", name, h.Name, branch, commit, branch)
	return nil
}
