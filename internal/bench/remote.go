package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/owt-tmux/owt/internal/proc"
	"github.com/owt-tmux/owt/internal/ssh"
)

// remoteAgents is how many fake agents the remote figures start on the
// loopback host.
const remoteAgents = 20

// remoteFigures measures owt with agents on a host: a real sshd on
// 127.0.0.1 logging in as a local user made for the bench (a second
// account on this kernel standing in for a second machine, as the e2e
// tests' fixture.SSHHost does), owt host add, remoteAgents fake agents
// started there with owt new --host, then owt list --json, a remote
// status change → the local status bar, owt send to a remote agent and
// the local monitor's CPU. Everything it made — sshd and its
// connections, the user's processes, the user and its home, its temp
// dir — is undone before it returns, and on any way out of the bench.
// Without root or OpenSSH it says so and measures nothing.
func remoteFigures(w *world, bin string) {
	if os.Geteuid() != 0 {
		fmt.Println("remote figures: skipped, not root (they make a second local user for the ssh login)")
		return
	}
	for _, p := range []string{"/usr/sbin/sshd", "ssh", "ssh-keygen", "useradd", "userdel", "pkill", "runuser"} {
		if _, err := exec.LookPath(p); err != nil {
			fmt.Printf("remote figures: skipped, %s is not installed (apt-get install openssh-server openssh-client)\n", p)
			return
		}
	}
	if !w.installFakeAgent() {
		return
	}
	h, err := startBenchHost(w)
	if h != nil {
		prev := cleanup
		cleanup = func() { h.remove(); prev() }
		defer func() { h.remove(); cleanup = prev }()
	}
	if err != nil {
		fmt.Printf("remote figures: the loopback host: %v; no figures\n", err)
		return
	}

	repo := w.repo("remote")
	clone := filepath.Join(h.home, "src", "app")
	if out, err := exec.Command("git", "clone", "-q", repo, clone).CombinedOutput(); err != nil {
		fmt.Printf("remote figures: git clone: %v: %s; no figures\n", err, out)
		return
	}
	if out, err := exec.Command("chown", "-R", h.user+":", h.home).CombinedOutput(); err != nil {
		fmt.Printf("remote figures: chown: %v: %s; no figures\n", err, out)
		return
	}
	if out, err := w.cmd(repo, bin, "host", "add", "box", h.address, "--repo", repo+"=~/src/app", "--yes").CombinedOutput(); err != nil {
		fmt.Printf("remote figures: owt host add: %v: %s; no figures\n", err, out)
		return
	}
	name := func(i int) string { return fmt.Sprintf("r-%02d", i) }
	var starts []time.Duration
	for i := 0; i < remoteAgents; i++ {
		start := time.Now()
		if out, err := w.cmd(repo, bin, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", name(i), "Say hi").CombinedOutput(); err != nil {
			fmt.Printf("remote figures: owt new --host box: %v: %s; no figures\n", err, out)
			return
		}
		starts = append(starts, time.Since(start))
	}
	defer func() {
		for i := 0; i < remoteAgents; i++ {
			_ = w.cmd(repo, bin, "delete", "--force", "--yes", name(i)+"@box").Run()
		}
		_ = w.cmd(repo, bin, "host", "remove", "box", "--force").Run()
	}()
	type item struct{ Name, Host, Status string }
	for deadline := time.Now().Add(2 * time.Minute); ; {
		var items []item
		idle := 0
		if out, err := w.cmd(repo, bin, "list", "--json").Output(); err == nil && json.Unmarshal(out, &items) == nil {
			for _, it := range items {
				if it.Host == "box" && it.Status == "idle" {
					idle++
				}
			}
		}
		if idle == remoteAgents {
			break
		}
		if time.Now().After(deadline) {
			fmt.Printf("remote figures: %d of the %d remote agents idle after 2 minutes; no figures\n", idle, remoteAgents)
			return
		}
		time.Sleep(time.Second)
	}
	fmt.Printf("\n%d agents on a loopback host over ssh (sshd on 127.0.0.1, a second local user):\n", remoteAgents)
	fmt.Printf("%-44s p50 %7s   (no budget; max %s; creates the worktree and the session there over the shared connection)\n",
		"owt new --host", ms(p50(starts)), ms(maxOf(starts)))

	var lists []time.Duration
	w.time(repo, bin, "list", "--json")
	for i := 0; i < *runs; i++ {
		lists = append(lists, w.time(repo, bin, "list", "--json"))
	}
	fmt.Printf("%-44s p50 %7s   (budget ≤ 60 ms; max %s; the host's last list, reused ≤ 10 s while its stream tells of the same agents: statuses from the stream, no ssh call)\n",
		fmt.Sprintf("owt list --json, %d remote agents", remoteAgents), ms(p50(lists)), ms(maxOf(lists)))

	var fresh []time.Duration
	for i := 0; i < 5; i++ {
		fresh = append(fresh, w.time(repo, bin, "list", "--json", "--fresh"))
	}
	fmt.Printf("%-44s p50 %7s   (no budget; max %s; asks the host over the shared connection: owt list --fresh there)\n",
		fmt.Sprintf("owt list --json --fresh, %d remote agents", remoteAgents), ms(p50(fresh)), ms(maxOf(fresh)))

	// A remote agent's status change: its hook run on the host (as the
	// agent's own would be), until the local bar (@owt-status-line) names
	// it waiting, then until it no longer does.
	bar := func() string {
		out, _ := w.cmd(repo, "tmux", "show-options", "-gqv", "@owt-status-line").Output()
		return string(out)
	}
	target := name(0)
	var lat []time.Duration
	for i := 0; i < 10; i++ {
		waiting := i%2 == 0
		event := map[bool]string{true: "PermissionRequest", false: "Stop"}[waiting]
		d, err := h.hookToBar(target, clone, event, func() bool { return strings.Contains(bar(), target+"@box") == waiting })
		if err != nil {
			fmt.Printf("remote figures: status change: %v\n", err)
			break
		}
		lat = append(lat, d)
	}
	if len(lat) > 0 {
		fmt.Printf("%-44s p50 %7s   (budget ≤ 500 ms; max %s; hook started on the host → @owt-status-line here changed)\n",
			"remote status change → local status bar", ms(p50(lat)), ms(maxOf(lat)))
	}

	sent := name(1)
	var sends []time.Duration
	for i := 0; i < 10; i++ {
		if !w.waitIdle(repo, bin, sent) {
			fmt.Println("owt send to a remote agent: it never got idle; no figures")
			break
		}
		sends = append(sends, w.time(repo, bin, "send", sent, fmt.Sprintf("bench message %d", i)))
	}
	if len(sends) == 10 {
		fmt.Printf("%-44s p50 %7s   (no budget; max %s; to an idle agent on the host, until owt send returns)\n",
			"owt send, remote agent", ms(p50(sends)), ms(maxOf(sends)))
	}
	w.waitIdle(repo, bin, sent)

	pid := monitorPID(w)
	if pid == 0 {
		fmt.Println("remote figures: no monitor found; no CPU figure")
		return
	}
	time.Sleep(3 * time.Second)
	m0, t0 := cpuTicks(pid), time.Now()
	time.Sleep(30 * time.Second)
	m1, t1 := cpuTicks(pid), time.Now()
	fmt.Printf("%-44s avg %6.2f%%   (budget ≤ 2%% of one core; monitor + its tmux clients and ssh streams, over %s, agents idle there)\n",
		fmt.Sprintf("monitor CPU, %d remote agents", remoteAgents), 100*(m1-m0)/clockTicks/t1.Sub(t0).Seconds(), t1.Sub(t0).Round(time.Second))
}

// benchHost is the bench's loopback host: a user and the sshd that logs
// in as it.
type benchHost struct {
	w               *world
	user, home, dir string
	address         string
	port            int
	sshd            *exec.Cmd
	made, removed   bool
}

// startBenchHost makes the user (its key, its fake agents, a git
// identity), writes sshd's config and the client's (OWT_SSH_CONFIG, for
// owt here and for the tmux server's panes), starts sshd and waits until
// it listens. The host it returns, even with an error, is to be removed.
func startBenchHost(w *world) (*benchHost, error) {
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	h := &benchHost{w: w, user: "owtb" + hex.EncodeToString(rnd[:]), dir: filepath.Join(w.root, "ssh")}
	h.home = "/home/" + h.user
	if err := os.MkdirAll(h.dir, 0o700); err != nil {
		return nil, err
	}
	run := func(name string, args ...string) error {
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	// -p '*': no password, and not a locked account (sshd refuses those).
	if err := run("useradd", "-m", "-d", h.home, "-s", "/bin/sh", "-p", "*", h.user); err != nil {
		return nil, err
	}
	h.made = true
	for _, k := range []string{"host_key", "id"} {
		if err := run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "owt-bench-"+k, "-f", filepath.Join(h.dir, k)); err != nil {
			return h, err
		}
	}
	pub, err := os.ReadFile(filepath.Join(h.dir, "id.pub"))
	if err != nil {
		return h, err
	}
	files := map[string]string{
		".ssh/authorized_keys": string(pub),
		".ssh/environment": strings.Join([]string{
			"OWT_FAKE_IDLE_NOTIFY=0",
			"OWT_FAKE_WORK=200ms",
			"OWT_TEMPLATE=none",
			"LANG=C.UTF-8",
			"TERM=xterm-256color",
		}, "\n") + "\n",
		".gitconfig": "[user]\n\tname = Remote\n\temail = remote@example.invalid\n[init]\n\tdefaultBranch = main\n",
	}
	for rel, content := range files {
		p := filepath.Join(h.home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return h, err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return h, err
		}
	}
	// The fake agent the bench built for here, as claude there.
	agent, err := os.ReadFile(filepath.Join(w.root, "tools", "claude"))
	if err != nil {
		return h, err
	}
	bindir := filepath.Join(h.home, ".local", "bin")
	if err := os.MkdirAll(bindir, 0o755); err != nil {
		return h, err
	}
	if err := os.WriteFile(filepath.Join(bindir, "claude"), agent, 0o755); err != nil {
		return h, err
	}
	if err := run("chown", "-R", h.user+":", h.home); err != nil {
		return h, err
	}
	if err := run("chmod", "700", filepath.Join(h.home, ".ssh")); err != nil {
		return h, err
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return h, err
	}
	h.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	h.address = fmt.Sprintf("%s@127.0.0.1:%d", h.user, h.port)
	if err := os.WriteFile(filepath.Join(h.dir, "sshd_config"), []byte(strings.Join([]string{
		"Port " + strconv.Itoa(h.port),
		"ListenAddress 127.0.0.1",
		"HostKey " + filepath.Join(h.dir, "host_key"),
		"PidFile none",
		"UsePAM no",
		"StrictModes no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"PubkeyAuthentication yes",
		"AuthorizedKeysFile .ssh/authorized_keys",
		"AllowUsers " + h.user,
		"PermitUserEnvironment yes",
		"MaxSessions 50",
		"MaxStartups 50",
	}, "\n")+"\n"), 0o600); err != nil {
		return h, err
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		return h, err
	}
	hostPub, err := os.ReadFile(filepath.Join(h.dir, "host_key.pub"))
	if err != nil {
		return h, err
	}
	f := strings.Fields(string(hostPub))
	if err := os.WriteFile(filepath.Join(h.dir, "known_hosts"), []byte(fmt.Sprintf("[127.0.0.1]:%d %s %s\n", h.port, f[0], f[1])), 0o600); err != nil {
		return h, err
	}
	client := filepath.Join(h.dir, "config")
	if err := os.WriteFile(client, []byte(strings.Join([]string{
		"Host *",
		"  IdentityFile " + filepath.Join(h.dir, "id"),
		"  IdentitiesOnly yes",
		"  IdentityAgent none",
		"  UserKnownHostsFile " + filepath.Join(h.dir, "known_hosts"),
		"  GlobalKnownHostsFile /dev/null",
		"  StrictHostKeyChecking yes",
		"  LogLevel ERROR",
	}, "\n")+"\n"), 0o600); err != nil {
		return h, err
	}
	w.env = append(w.env, "OWT_SSH_CONFIG="+client)
	if out, err := w.cmd("", "tmux", "set-environment", "-g", "OWT_SSH_CONFIG", client).CombinedOutput(); err != nil {
		return h, fmt.Errorf("tmux set-environment: %w: %s", err, out)
	}
	// A monitor already running (started by earlier figures) has the
	// environment it was started with: restart it so it follows the host.
	if pid := monitorPID(w); pid != 0 {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
			time.Sleep(50 * time.Millisecond)
		}
	}

	log, err := os.OpenFile(filepath.Join(h.dir, "sshd.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return h, err
	}
	defer log.Close()
	h.sshd = exec.Command("/usr/sbin/sshd", "-D", "-e", "-f", filepath.Join(h.dir, "sshd_config"))
	h.sshd.Stdout, h.sshd.Stderr = log, log
	if err := h.sshd.Start(); err != nil {
		return h, fmt.Errorf("start sshd: %w", err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", h.port), time.Second)
		if err == nil {
			c.Close()
			return h, nil
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(filepath.Join(h.dir, "sshd.log"))
			return h, fmt.Errorf("sshd did not listen on %d: %v: %s", h.port, err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hookToBar runs owt hook claude EVENT on the host as the agent name's
// own hook would (as the host's user, its environment), and polls done
// until it holds, or 5 s: the time from the hook's start.
func (h *benchHost) hookToBar(name, clone, event string, done func() bool) (time.Duration, error) {
	c := exec.Command("runuser", "-u", h.user, "--", "env", "-i", "HOME="+h.home, "USER="+h.user,
		"PATH="+h.home+"/.local/bin:/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
		"OWT_NAME="+name, "OWT_REPO="+clone, agentIDEnv(filepath.Join(h.home, ".local", "state", "owt"), name), "owt", "hook", "claude", event)
	c.Dir = h.home
	c.Stdin = strings.NewReader(`{"hook_event_name":"` + event + `"}`)
	start := time.Now()
	if err := c.Start(); err != nil {
		return 0, fmt.Errorf("owt hook on the host: %w", err)
	}
	defer func() { _ = c.Wait() }()
	for time.Since(start) < 5*time.Second {
		if done() {
			return time.Since(start), nil
		}
	}
	return 0, fmt.Errorf("the local bar did not follow %s of %s@box within 5 s", event, name)
}

// remove undoes the host, once: sshd and every connection it serves,
// every process of the user (its tmux server, agents, monitor), the ssh
// connection masters here (they end with their connection), the user
// and its home.
func (h *benchHost) remove() {
	if h.removed || !h.made {
		return
	}
	h.removed = true
	if h.sshd != nil && h.sshd.Process != nil {
		tree := proc.Descendants(h.sshd.Process.Pid)
		_ = h.sshd.Process.Kill()
		_ = h.sshd.Wait()
		for _, c := range tree {
			_ = syscall.Kill(c, syscall.SIGKILL)
		}
	}
	// The connection masters here (ssh: SOCKET [mux], their sockets
	// under the bench's temp dir) end with their connection.
	for deadline := time.Now().Add(10 * time.Second); ; {
		masters := h.masters()
		if len(masters) == 0 {
			break
		}
		if time.Now().After(deadline) {
			for _, pid := range masters {
				fmt.Fprintf(os.Stderr, "remote figures: ssh connection master %d outlived its host: killed\n", pid)
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for i := 0; i < 50; i++ {
		if exec.Command("pkill", "-KILL", "-u", h.user).Run() != nil {
			break // none left
		}
		time.Sleep(100 * time.Millisecond)
	}
	if out, err := exec.Command("userdel", "-r", h.user).CombinedOutput(); err != nil && !strings.Contains(string(out), "mail spool") {
		fmt.Fprintf(os.Stderr, "remote figures: userdel -r %s: %v: %s\n", h.user, err, out)
	}
	_ = os.RemoveAll(h.home)
	_ = os.RemoveAll(h.dir)
}

// masters are this process's ssh connection masters to the host
// (ControlPersist: "ssh: SOCKET [mux]", the socket named by package ssh).
func (h *benchHost) masters() []int {
	addr, err := ssh.ParseAddress(h.address)
	if err != nil {
		return nil
	}
	sock := (&ssh.Client{Addr: addr, ConfigFile: filepath.Join(h.dir, "config")}).SocketName()
	var out []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, _ := os.ReadFile(p)
		cmd := strings.TrimRight(strings.ReplaceAll(string(b), "\x00", " "), " ")
		if strings.HasPrefix(cmd, "ssh: ") && strings.HasSuffix(cmd, "/"+sock+" [mux]") {
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}
