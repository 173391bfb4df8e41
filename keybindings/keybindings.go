// Package keybindings holds owt's default key table — owt.conf, readable
// and sourceable on its own, built into the binary — and turns it, with the
// user's @owt-* options, into the tmux commands `owt tmux init` runs.
package keybindings

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/owt-tmux/owt/internal/tmux"
)

//go:embed owt.conf
var conf string

// Conf is the text of owt.conf.
func Conf() string { return conf }

// Key is one row of the table: an action, the option that overrides its
// key, the default key, and what it runs (owt's arguments).
type Key struct {
	Action  string   `json:"action"`
	Option  string   `json:"option"`
	Default string   `json:"default"`
	Runs    []string `json:"runs"` // after the owt executable: ["popup", "switch"]
}

// Table returns the keys of owt.conf's "#:" lines, in file order.
func Table() []Key {
	keys, err := parseTable(conf)
	if err != nil {
		panic(err) // owt.conf is built in; its test keeps it well formed
	}
	return keys
}

func parseTable(text string) ([]Key, error) {
	var keys []Key
	for i, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, "#:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 4 || f[3] != "owt" || !strings.HasPrefix(f[1], "@owt-") {
			return nil, fmt.Errorf("owt.conf line %d: want \"#: action @owt-option KEY owt ARGS…\", got %q", i+1, line)
		}
		keys = append(keys, Key{Action: f[0], Option: f[1], Default: f[2], Runs: f[4:]})
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("owt.conf has no \"#:\" key lines")
	}
	return keys, nil
}

// Options owt tmux init reads besides the per-key ones.
const (
	OptTable  = "@owt-key-table"
	OptWidth  = "@owt-popup-width"
	OptHeight = "@owt-popup-height"
	// OptBound records what the last init bound, so a changed or "none"
	// key loses its old binding and running init again changes nothing.
	OptBound = "@owt-bound-keys"
)

// Defaults of the options that are not keys.
const (
	DefaultTable = "root"
	DefaultSize  = "80%"
)

// The smallest popup the screens are drawn for. A client where the
// configured size would come out smaller (80% of a phone's 50 columns is
// 40), or where a size in columns or lines would not fit at all (tmux
// refuses to open such a popup), gets a popup of the whole client.
const (
	MinPopupWidth  = 60
	MinPopupHeight = 20
)

// OptionNames lists every option Settings reads.
func OptionNames() []string {
	names := []string{OptTable, OptWidth, OptHeight}
	for _, k := range Table() {
		names = append(names, k.Option)
	}
	return names
}

// Settings are the options, validated.
type Settings struct {
	Table         string            // "root" or "prefix"
	Width, Height string            // popup size
	Keys          map[string]string // action → key; "" = unbound ("none")
}

var sizeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[1-9][0-9]{0,3}%?$`) })

// ParseSettings validates option values (name → value, "" = unset). Each
// problem names its option and what it accepts.
func ParseSettings(opts map[string]string) (Settings, error) {
	s := Settings{Table: DefaultTable, Width: DefaultSize, Height: DefaultSize, Keys: map[string]string{}}
	var problems []string
	if v := strings.TrimSpace(opts[OptTable]); v != "" {
		if v != "root" && v != "prefix" {
			problems = append(problems, fmt.Sprintf("%s is %q: use root or prefix", OptTable, v))
		} else {
			s.Table = v
		}
	}
	for _, o := range []struct {
		name string
		dst  *string
	}{{OptWidth, &s.Width}, {OptHeight, &s.Height}} {
		v := strings.TrimSpace(opts[o.name])
		if v == "" {
			continue
		}
		if !sizeRe().MatchString(v) {
			problems = append(problems, fmt.Sprintf("%s is %q: use a size like 80%% or 120", o.name, v))
			continue
		}
		*o.dst = v
	}
	for _, k := range Table() {
		v := strings.TrimSpace(opts[k.Option])
		switch {
		case v == "":
			s.Keys[k.Action] = k.Default
		case strings.EqualFold(v, "none"):
			s.Keys[k.Action] = ""
		case strings.ContainsAny(v, " \t\n"):
			problems = append(problems, fmt.Sprintf("%s is %q: use one tmux key name like M-s, or none", k.Option, v))
		default:
			s.Keys[k.Action] = v
		}
	}
	if len(problems) > 0 {
		return s, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return s, nil
}

// Binding is one key owt binds.
type Binding struct {
	Action  string   `json:"action"`
	Option  string   `json:"option"`
	Table   string   `json:"table"`
	Key     string   `json:"key"`
	Command []string `json:"command"` // the tmux command the key runs
}

// Bindings are the keys to bind for s: each runs owtPath with the table's
// arguments in a popup started in the pane's directory (popups false: in a
// new window, for tmux older than 3.2). Keys set to none are left out.
// The popup has the configured size, or the whole client where that size
// would be smaller than the screens are drawn for or larger than the
// client (Narrow): tmux decides as the key is pressed, from the client's
// own size, so a phone's small terminal and a desktop's large one attached
// to the same server each get a popup that fits, and no process is run to
// choose.
func Bindings(s Settings, owtPath string, popups bool) []Binding {
	var out []Binding
	for _, k := range Table() {
		key := s.Keys[k.Action]
		if key == "" {
			continue
		}
		p := tmux.Popup{
			Width: s.Width, Height: s.Height, Dir: "#{pane_current_path}",
			Argv: append([]string{owtPath}, k.Runs...),
		}
		cmd := tmux.PopupCommand(p, popups)
		if popups {
			whole := p
			whole.Width, whole.Height = "100%", "100%"
			cmd = []string{"if-shell", "-F", Narrow(s.Width, s.Height),
				tmux.CommandLine(tmux.PopupCommand(whole, true)), tmux.CommandLine(cmd)}
		}
		out = append(out, Binding{
			Action: k.Action, Option: k.Option, Table: s.Table, Key: key,
			Command: cmd,
		})
	}
	return out
}

// Narrow is the tmux format, true (1) on a client where a popup of width
// by height (validated sizes: columns or a percentage) would be narrower
// than MinPopupWidth or lower than MinPopupHeight, or would not fit in the
// client. It uses only the client's size and tmux's arithmetic (3.2+).
func Narrow(width, height string) string {
	return "#{?" + tooSmall(width, "client_width", MinPopupWidth) + ",1," + tooSmall(height, "client_height", MinPopupHeight) + "}"
}

// tooSmall is the format, true when size measured against the client's
// dimension (a format variable) is below min, or beyond the client.
func tooSmall(size, dim string, min int) string {
	if pct, ok := strings.CutSuffix(size, "%"); ok {
		// pct% of the client is below min: dim*pct < min*100.
		return fmt.Sprintf("#{e|<:#{e|*:#{%s},%s},%d}", dim, pct, min*100)
	}
	return fmt.Sprintf("#{e|<:#{%s},%s}", dim, size)
}

// Bound is a key in a table.
type Bound struct{ Table, Key string }

// EncodeBound records bindings for OptBound: "table:key" words.
func EncodeBound(bs []Binding) string {
	words := make([]string, len(bs))
	for i, b := range bs {
		words[i] = b.Table + ":" + b.Key
	}
	return strings.Join(words, " ")
}

// DecodeBound reads OptBound.
func DecodeBound(v string) []Bound {
	var out []Bound
	for _, w := range strings.Fields(v) {
		if table, key, ok := strings.Cut(w, ":"); ok && table != "" && key != "" {
			out = append(out, Bound{Table: table, Key: key})
		}
	}
	return out
}

// Commands are the tmux commands that move from the keys bound last time
// (prev) to bs: unbind what is no longer wanted, bind the rest, and record
// what is bound. Running them twice leaves the same bindings.
func Commands(prev []Bound, bs []Binding) [][]string {
	want := map[Bound]bool{}
	for _, b := range bs {
		want[Bound{b.Table, b.Key}] = true
	}
	var cmds [][]string
	for _, p := range prev {
		if !want[p] {
			cmds = append(cmds, tmux.UnbindCommand(p.Table, p.Key))
		}
	}
	for _, b := range bs {
		cmds = append(cmds, tmux.BindCommand(b.Table, b.Key, b.Command))
	}
	return append(cmds, []string{"set-option", "-gq", OptBound, EncodeBound(bs)})
}
