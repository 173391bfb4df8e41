// Package ssh is the only code in owt that runs ssh: the user's own
// OpenSSH client, so ~/.ssh/config (aliases, ProxyJump, keys, agents) is
// honoured as the user set it up.
//
// Its rules:
//   - Every call takes a context; a call never outlives it.
//   - ssh never asks anything (BatchMode=yes): a refused key is an error
//     naming ssh-add and the key, not a prompt nobody sees.
//   - One connection per host, shared by every call (ControlMaster=auto,
//     ControlPersist), its socket in a private directory with a short
//     name (a unix socket path has ~108 bytes).
//   - Keepalives (ServerAliveInterval/CountMax) find a half-open
//     connection within about 30 seconds.
//   - ssh joins its command words into one line for the remote shell, so
//     no user text ever goes on it: a remote command is a fixed program
//     with arguments owt chose, each passed through Quote; user text
//     (tasks, messages, names) goes on the command's stdin.
package ssh

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/owt-tmux/owt/internal/proc"
)

// Address is where a host is: [user@]host[:port]. Host may be an alias
// of the user's ~/.ssh/config.
type Address struct {
	User string
	Host string
	Port int // 0: ssh's own choice (22, or the config's Port)
}

// ParseAddress reads [user@]host[:port] ([::1]:22 for an IPv6 address
// with a port). It refuses what ssh would read as an option or what
// could not be a host name: a leading '-', spaces, control characters.
func ParseAddress(s string) (Address, error) {
	var a Address
	if s == "" {
		return a, errors.New("empty address: give [user@]host[:port]")
	}
	rest := s
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		a.User, rest = rest[:at], rest[at+1:]
		if a.User == "" {
			return a, fmt.Errorf("address %q: empty user before @", s)
		}
	}
	host, port := rest, ""
	switch {
	case strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, "]"):
		host = rest[1 : len(rest)-1]
	case strings.HasPrefix(rest, "["):
		h, p, err := net.SplitHostPort(rest)
		if err != nil {
			return a, fmt.Errorf("address %q: %v", s, err)
		}
		host, port = h, p
	case strings.Count(rest, ":") == 1:
		host, port, _ = strings.Cut(rest, ":")
	}
	a.Host = host
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return a, fmt.Errorf("address %q: port %q is not a number from 1 to 65535", s, port)
		}
		a.Port = n
	}
	if a.Host == "" {
		return a, fmt.Errorf("address %q: no host", s)
	}
	for _, part := range []struct{ what, v string }{{"user", a.User}, {"host", a.Host}} {
		if strings.HasPrefix(part.v, "-") {
			return a, fmt.Errorf("address %q: a %s cannot start with '-'", s, part.what)
		}
		for _, r := range part.v {
			if unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(`'"$;&|<>()\`+"`", r) {
				return a, fmt.Errorf("address %q: the %s has a character no %s name has (%q)", s, part.what, part.what, r)
			}
		}
	}
	return a, nil
}

// String is the address as the user writes it.
func (a Address) String() string {
	s := a.Host
	if strings.Contains(s, ":") {
		s = "[" + s + "]"
	}
	if a.User != "" {
		s = a.User + "@" + s
	}
	if a.Port != 0 {
		s += ":" + strconv.Itoa(a.Port)
	}
	return s
}

// Client runs commands on one host over the shared connection.
type Client struct {
	Addr Address
	// ConfigFile, when set, is passed as ssh -F: the ssh config to read
	// instead of ~/.ssh/config (ssh reads ~ from the passwd entry, not
	// $HOME, so a sandbox sets this through OWT_SSH_CONFIG).
	ConfigFile string
	// ControlDir holds the shared connections' sockets; ControlDir()
	// when empty.
	ControlDir string
	// ConnectTimeout bounds the TCP connect and handshake (10s when 0).
	ConnectTimeout time.Duration
	// Persist is how long an idle shared connection stays open (10m
	// when 0).
	Persist time.Duration
}

// ConfigEnv names a variable holding an ssh config file for every ssh
// owt runs (ssh -F), for a user or test whose config is not ~/.ssh/config.
const ConfigEnv = "OWT_SSH_CONFIG"

// New is a client for addr with the defaults (and $OWT_SSH_CONFIG).
func New(addr Address) *Client {
	return &Client{Addr: addr, ConfigFile: os.Getenv(ConfigEnv)}
}

// Keepalives: a server silent for interval×count seconds is gone, so a
// half-open connection ends within ~30s.
const (
	aliveInterval = 10
	aliveCount    = 3
)

// ControlDir is where owt keeps its shared connections' sockets:
// $XDG_RUNTIME_DIR/owt/ssh when that path is short enough for a socket,
// else a private directory of the user's under the system temp dir.
func ControlDir() string {
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		d := filepath.Join(rt, "owt", "ssh")
		if fits(d) {
			return d
		}
	}
	return filepath.Join("/tmp", "owt-ssh-"+strconv.Itoa(os.Getuid()))
}

// socketNameLen is the socket's file name: 16 hex digits. ssh binds a
// temporary name (the path plus '.' and 16 random characters) first.
const socketNameLen = 16

// fits says whether a socket in dir fits a unix socket path (104 bytes on
// macOS, 108 on Linux; the smaller, with the NUL).
func fits(dir string) bool {
	return len(dir)+1+socketNameLen+1+16 < 104
}

// controlPath is this host's socket (SocketName in the control dir).
// '%' is doubled: ssh expands %-tokens.
func (c *Client) controlPath() (string, error) {
	dir := c.ControlDir
	if dir == "" {
		dir = ControlDir()
	}
	if err := privateDir(dir); err != nil {
		return "", err
	}
	p := filepath.Join(dir, c.SocketName())
	return strings.ReplaceAll(p, "%", "%%"), nil
}

// SocketName is the file name of the host's shared connection socket: a
// hash of everything that makes a different connection (address, config
// file), so two hosts never share one and the path stays short.
func (c *Client) SocketName() string {
	h := sha256.Sum256([]byte(c.Addr.String() + "\x00" + c.ConfigFile))
	return hex.EncodeToString(h[:])[:socketNameLen]
}

// privateDir makes dir (mode 0700) and refuses one that another user
// owns or others can write: a socket there would be someone else's.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("ssh control socket dir: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("ssh control socket dir: %w", err)
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ownedByMe(fi) {
		return fmt.Errorf("ssh control socket dir %s is not a private directory of yours (mode 0700): remove it and try again", dir)
	}
	return nil
}

// Options are the ssh options of every call, before the destination.
func (c *Client) Options() ([]string, error) {
	cp, err := c.controlPath()
	if err != nil {
		return nil, err
	}
	timeout := c.ConnectTimeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	persist := c.Persist
	if persist <= 0 {
		persist = 10 * time.Minute
	}
	var o []string
	if c.ConfigFile != "" {
		o = append(o, "-F", c.ConfigFile)
	}
	o = append(o,
		"-o", "BatchMode=yes",
		"-o", "ConnectTimeout="+strconv.Itoa(int(timeout.Round(time.Second)/time.Second)),
		"-o", "ServerAliveInterval="+strconv.Itoa(aliveInterval),
		"-o", "ServerAliveCountMax="+strconv.Itoa(aliveCount),
		"-o", "ControlMaster=auto",
		"-o", "ControlPath="+cp,
		"-o", "ControlPersist="+strconv.Itoa(int(persist/time.Second)),
	)
	if c.Addr.Port != 0 {
		o = append(o, "-p", strconv.Itoa(c.Addr.Port))
	}
	if c.Addr.User != "" {
		o = append(o, "-l", c.Addr.User)
	}
	return o, nil
}

// Remote is one command to run on the host: a fixed program and the
// arguments owt chose, never user text (that goes on Stdin).
type Remote struct {
	// Dir, when set, is the directory to run in (a "~/" prefix is the
	// remote home).
	Dir string
	// Argv is the program and its arguments, each quoted on the line.
	Argv []string
	// Stdin, Stdout, Stderr are the command's streams; Stdout and
	// Stderr are collected into the result when nil. A Stdin that may
	// never end must be an *os.File (a pipe): exec's Wait waits for a
	// copy from any other reader to end, even after ssh has.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// localBin is the directory owt host add installs owt into; it comes
// first on the remote PATH, since a non-interactive ssh session's PATH
// is the system default.
const localBin = `PATH="$HOME/.local/bin:$PATH"`

// line is r as the remote shell's command line.
func (r Remote) line() string {
	var b strings.Builder
	if r.Dir != "" {
		b.WriteString("cd " + QuotePath(r.Dir) + " && ")
	}
	b.WriteString(localBin + " exec " + Line(r.Argv...))
	return b.String()
}

// Args is the whole argv of ssh for r (ssh itself first).
func (c *Client) Args(r Remote) ([]string, error) {
	opts, err := c.Options()
	if err != nil {
		return nil, err
	}
	args := append([]string{"ssh"}, opts...)
	return append(args, "-T", "--", c.Addr.Host, r.line()), nil
}

// InteractiveArgs is the argv of ssh for r with a terminal (-t): for
// a program the user works in, like tmux attach, run in the user's own
// terminal or a tmux window, never by owt's background work.
func (c *Client) InteractiveArgs(r Remote) ([]string, error) {
	args, err := c.Args(r)
	if err != nil {
		return nil, err
	}
	for i, a := range args {
		if a == "-T" {
			args[i] = "-t"
			break
		}
	}
	return args, nil
}

// Output runs r and returns its standard output. A failure is an
// *ExitError (the remote command failed), or wraps ErrAuth or
// ErrUnreachable (ssh could not get there).
func (c *Client) Output(ctx context.Context, r Remote) ([]byte, error) {
	var out bytes.Buffer
	if r.Stdout == nil {
		r.Stdout = &out
	}
	err := c.Run(ctx, r)
	return out.Bytes(), err
}

// Run runs r on the host over the shared connection.
func (c *Client) Run(ctx context.Context, r Remote) error {
	if len(r.Argv) == 0 {
		return errors.New("ssh: no remote command")
	}
	args, err := c.Args(r)
	if err != nil {
		return err
	}
	cmd := proc.Command(ctx, args[0], args[1:]...)
	cmd.Stdin = r.Stdin
	if cmd.Stdin == nil {
		cmd.Stdin = strings.NewReader("")
	}
	cmd.Stdout = r.Stdout
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if r.Stderr != nil {
		cmd.Stderr = io.MultiWriter(r.Stderr, &stderr)
	}
	err = proc.Run(ctx, cmd)
	if err == nil {
		return nil
	}
	return c.explain(ctx, r.Argv[0], err, stderr.String())
}

// ErrAuth is a host that refused every key ssh offered.
var ErrAuth = errors.New("ssh authentication failed")

// ErrUnreachable is a host ssh could not reach or keep: no route, refused,
// timed out, the connection dropped, an unknown or changed host key.
var ErrUnreachable = errors.New("host unreachable")

// ExitError is a remote command that ran and failed.
type ExitError struct {
	Host    string
	Program string
	Code    int
	Stderr  string
}

func (e *ExitError) Error() string {
	msg := fmt.Sprintf("%s on %s: exit status %d", e.Program, e.Host, e.Code)
	if s := lastLine(e.Stderr); s != "" {
		msg += ": " + s
	}
	return msg
}

// explain turns a failed ssh into the error a user can act on. ssh exits
// 255 for its own failures; any other status is the remote command's.
func (c *Client) explain(ctx context.Context, program string, err error, stderr string) error {
	if ctx.Err() != nil {
		return fmt.Errorf("ssh %s: %w", c.Addr, err)
	}
	code := -1
	var ee interface{ ExitCode() int }
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	stderr = strings.TrimSpace(stderr)
	if code != 255 && code != -1 {
		return &ExitError{Host: c.Addr.String(), Program: program, Code: code, Stderr: stderr}
	}
	last := lastLine(stderr)
	switch {
	case strings.Contains(stderr, "Permission denied") || strings.Contains(stderr, "Too many authentication failures"):
		return fmt.Errorf("ssh %s: %w: %s — owt runs ssh without prompts (BatchMode): add your key to the agent (ssh-add ~/.ssh/id_ed25519), or name it with IdentityFile for this host in ~/.ssh/config, and check 'ssh %s true' works without a password", c.Addr, ErrAuth, last, c.Addr)
	case strings.Contains(stderr, "Host key verification failed") || strings.Contains(stderr, "REMOTE HOST IDENTIFICATION HAS CHANGED"):
		return fmt.Errorf("ssh %s: %w: the host key is unknown or changed — connect once with 'ssh %s' to check and accept it", c.Addr, ErrUnreachable, c.Addr)
	case code == 255 || code == -1:
		if last == "" {
			last = "ssh ended with no message (the connection dropped?)"
		}
		return fmt.Errorf("ssh %s: %w: %s", c.Addr, ErrUnreachable, last)
	}
	return fmt.Errorf("ssh %s: %v: %s", c.Addr, err, last)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}

// Close ends the host's shared connection, if one is open (ssh -O exit).
func (c *Client) Close(ctx context.Context) error {
	opts, err := c.Options()
	if err != nil {
		return err
	}
	args := append(opts, "-O", "exit", "--", c.Addr.Host)
	cmd := proc.Command(ctx, "ssh", args...)
	cmd.Stdin = strings.NewReader("")
	return proc.Run(ctx, cmd)
}

// GitCommand is the value of GIT_SSH_COMMAND that makes git's own ssh
// (git push to this host) use the same options and shared connection.
// git runs it through the local shell, so every word is quoted.
func (c *Client) GitCommand() (string, error) {
	opts, err := c.Options()
	if err != nil {
		return "", err
	}
	// git adds -p and the user from the URL (GitURL); leave them to it.
	var keep []string
	for i := 0; i < len(opts); i++ {
		if opts[i] == "-p" || opts[i] == "-l" {
			i++
			continue
		}
		keep = append(keep, opts[i])
	}
	return Line(append([]string{"ssh"}, keep...)...), nil
}

// GitURL is the URL git pushes to for a repository at path on the host.
func (c *Client) GitURL(path string) string {
	host := c.Addr.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if c.Addr.User != "" {
		host = c.Addr.User + "@" + host
	}
	if c.Addr.Port != 0 {
		host += ":" + strconv.Itoa(c.Addr.Port)
	}
	if strings.HasPrefix(path, "~") {
		return "ssh://" + host + "/" + path
	}
	return "ssh://" + host + path
}
