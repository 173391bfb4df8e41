package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/owt-tmux/owt/internal/atomicfile"
)

// Host is one machine agents may run on, reached with the user's own ssh
// ([hosts.NAME] in the user's config file).
type Host struct {
	// Address is [user@]host[:port]; host may be an alias of ~/.ssh/config.
	Address string `toml:"address"`
	// Labels describe the machine (gpu, bigmem) for placing run tasks.
	Labels []string `toml:"labels,omitempty"`
	// MaxAgents bounds the agents owt starts there; 0 is no bound.
	MaxAgents int `toml:"max_agents,omitzero"`
	// Repos maps a local repository root to its clone on the host.
	Repos map[string]string `toml:"repos,omitempty"`
	// Search are directories on the host where clones are looked for.
	Search []string `toml:"search,omitempty"`
}

// hostName is what a host may be called: it is typed on command lines,
// shown in columns and joined to agent names (NAME@HOST).
var hostName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`) })

// ValidHostName says why name cannot name a host, or nil.
func ValidHostName(name string) error {
	if !hostName().MatchString(name) {
		return fmt.Errorf("host name %q: use letters, digits, '.', '_' and '-' (not first), at most 63", name)
	}
	if name == "local" {
		return fmt.Errorf("host name %q is taken: it means this machine", name)
	}
	return nil
}

// ValidateHosts checks each [hosts.NAME]. The address is checked for
// what no address has; ssh is the judge of the rest.
func ValidateHosts(cfg Config) Problems {
	var ps Problems
	names := make([]string, 0, len(cfg.Hosts))
	for n := range cfg.Hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		h := cfg.Hosts[n]
		key := "hosts." + n
		if err := ValidHostName(n); err != nil {
			ps = append(ps, Problem{Key: key, Msg: err.Error()})
		}
		switch {
		case strings.TrimSpace(h.Address) == "":
			ps = append(ps, Problem{Key: key + ".address", Msg: "is required: [user@]host[:port]"})
		case strings.HasPrefix(h.Address, "-") || strings.IndexFunc(h.Address, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
			ps = append(ps, Problem{Key: key + ".address", Msg: fmt.Sprintf("%q is not [user@]host[:port]", h.Address)})
		}
		if h.MaxAgents < 0 {
			ps = append(ps, Problem{Key: key + ".max_agents", Msg: "must be 0 (no limit) or more"})
		}
		for _, l := range h.Labels {
			if !hostName().MatchString(l) {
				ps = append(ps, Problem{Key: key + ".labels", Msg: fmt.Sprintf("label %q: use letters, digits, '.', '_' and '-'", l)})
			}
		}
		locals := make([]string, 0, len(h.Repos))
		for l := range h.Repos {
			locals = append(locals, l)
		}
		sort.Strings(locals)
		for _, l := range locals {
			if !path.IsAbs(l) {
				ps = append(ps, Problem{Key: key + ".repos", Msg: fmt.Sprintf("local path %q must be absolute", l)})
			}
			if r := h.Repos[l]; !RemotePath(r) {
				ps = append(ps, Problem{Key: key + ".repos", Msg: fmt.Sprintf("remote path %q (for %s) must be absolute or start with ~/", r, l)})
			}
		}
		for _, d := range h.Search {
			if !RemotePath(d) {
				ps = append(ps, Problem{Key: key + ".search", Msg: fmt.Sprintf("%q must be absolute or start with ~/", d)})
			}
		}
	}
	return ps
}

// RemotePath says whether p can name a directory on a host: absolute, or
// under the remote home (~/…), with no control characters.
func RemotePath(p string) bool {
	if strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return false
	}
	return path.IsAbs(p) || p == "~" || strings.HasPrefix(p, "~/")
}

// AddHost appends [hosts.NAME] to the user's config file, leaving every
// other line of it as the user wrote it, and checks the result loads.
func AddHost(name string, h Host) error {
	if err := ValidHostName(name); err != nil {
		return err
	}
	file := UserFile()
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", file, err)
	}
	var cur map[string]any
	if _, err := toml.Decode(string(old), &cur); err != nil {
		return fmt.Errorf("%s does not parse (%v): fix it first", file, err)
	}
	if hs, ok := cur["hosts"].(map[string]any); ok {
		if _, taken := hs[name]; taken {
			return fmt.Errorf("host %q is already in %s", name, file)
		}
	}
	var block bytes.Buffer
	enc := toml.NewEncoder(&block)
	enc.Indent = ""
	if err := enc.Encode(map[string]map[string]Host{"hosts": {name: h}}); err != nil {
		return err
	}
	text := string(old)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if text != "" {
		text += "\n"
	}
	// The encoder writes an empty [hosts] table first; [hosts.NAME] alone
	// is the same TOML and leaves room for another host's table.
	text += strings.TrimLeft(strings.Replace(block.String(), "[hosts]\n", "", 1), "\n")
	return writeChecked(file, text)
}

// RemoveHost takes [hosts.NAME] (and its subtables) out of the user's
// config file, leaving every other line as it was.
func RemoveHost(name string) error {
	file := UserFile()
	old, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("read %s: %w", file, err)
	}
	var out []string
	skipping, found := false, false
	for _, line := range strings.SplitAfter(string(old), "\n") {
		if hdr, ok := tableHeader(line); ok {
			skipping = hdr == "hosts."+name || strings.HasPrefix(hdr, "hosts."+name+".")
			found = found || skipping
		}
		if !skipping {
			out = append(out, line)
		}
	}
	if !found {
		return fmt.Errorf("no [hosts.%s] table in %s (a host written inline in [hosts] is yours to remove)", name, file)
	}
	return writeChecked(file, strings.Join(out, ""))
}

// tableHeader reads a "[a.b]" line (not an array of tables) as "a.b".
func tableHeader(line string) (string, bool) {
	t := strings.TrimSpace(line)
	if i := strings.Index(t, "#"); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	if !strings.HasPrefix(t, "[") || strings.HasPrefix(t, "[[") || !strings.HasSuffix(t, "]") {
		return "", false
	}
	parts := strings.Split(t[1:len(t)-1], ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, "."), true
}

// writeChecked replaces the user's config file with text, if text
// still loads: owt never leaves a config it broke.
func writeChecked(file, text string) error {
	var cfg map[string]any
	if _, err := toml.Decode(text, &cfg); err != nil {
		return fmt.Errorf("the new %s would not parse (%v): nothing was changed", file, err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(file, []byte(text))
}
