package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// Key is one key of the config files as a reference shows it: its
// dotted name (NAME standing for a table's own name, as in
// tools.NAME.command), its TOML type, its built-in value and what it
// does. A table ([worktree], [tools.NAME]) is a Key too, of type table.
type Key struct {
	Name    string
	Type    string
	Default string // the built-in value in TOML; "" when there is none to say
	Doc     string
	Table   bool
}

// Schema is every table and key of Config, in Config's order, each with
// its description from keyDocs (docs.go). A key missing from keyDocs has
// an empty Doc: the config tests and the generated reference's test fail
// on it.
func Schema() []Key {
	var out []Key
	def := reflect.ValueOf(Defaults())
	walkSchema(reflect.TypeOf(Config{}), def, "", &out)
	return out
}

// walkSchema adds the keys of struct t, whose built-in value is def (not
// valid under a table of names), below prefix.
func walkSchema(t reflect.Type, def reflect.Value, prefix string, out *[]Key) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			continue
		}
		full := prefix + name
		var fdef reflect.Value
		if def.IsValid() {
			fdef = def.Field(i)
		}
		ft := f.Type
		switch {
		case ft.Kind() == reflect.Struct && ft != reflect.TypeOf(Duration{}):
			*out = append(*out, Key{Name: full, Type: "table", Doc: keyDocs[full], Table: true})
			walkSchema(ft, fdef, full+".", out)
		case ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct:
			*out = append(*out, Key{Name: full + ".NAME", Type: "table", Doc: keyDocs[full+".NAME"], Table: true})
			walkSchema(ft.Elem(), commonEntry(fdef), full+".NAME.", out)
		default:
			*out = append(*out, Key{Name: full, Type: typeName(ft), Default: defaultText(fdef), Doc: keyDocs[full]})
		}
	}
}

// commonEntry is the built-in entry every name of a table of names shares
// (every reaction's), or nothing when they differ or there are none.
func commonEntry(m reflect.Value) reflect.Value {
	if !m.IsValid() || m.Len() == 0 {
		return reflect.Value{}
	}
	var first reflect.Value
	for _, k := range m.MapKeys() {
		v := m.MapIndex(k)
		if !first.IsValid() {
			first = v
		} else if !reflect.DeepEqual(first.Interface(), v.Interface()) {
			return reflect.Value{}
		}
	}
	return first
}

// typeName says t as a config file writes it.
func typeName(t reflect.Type) string {
	switch {
	case t == reflect.TypeOf(Duration{}):
		return "duration"
	case t.Kind() == reflect.Pointer:
		return typeName(t.Elem())
	case t.Kind() == reflect.String:
		return "string"
	case t.Kind() == reflect.Bool:
		return "bool"
	case t.Kind() == reflect.Int:
		return "integer"
	case t.Kind() == reflect.Float64:
		return "number"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Slice:
		return "array of arrays of strings"
	case t.Kind() == reflect.Slice:
		return "array of " + typeName(t.Elem()) + "s"
	case t.Kind() == reflect.Map:
		return "table of " + typeName(t.Elem()) + "s"
	}
	return t.String()
}

// defaultText is v in TOML ("5s" for a duration, [] for an empty list),
// or "" when v is not valid (a key under a table of names) or an unset
// pointer.
func defaultText(v reflect.Value) string {
	if !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
		return ""
	}
	if d, ok := v.Interface().(Duration); ok {
		return fmt.Sprintf("%q", shortDuration(d.Duration))
	}
	if v.Kind() == reflect.Slice && v.Len() == 0 {
		return "[]"
	}
	var b strings.Builder
	if err := toml.NewEncoder(&b).Encode(map[string]any{"v": v.Interface()}); err != nil {
		return fmt.Sprint(v.Interface())
	}
	return strings.TrimSpace(strings.TrimPrefix(b.String(), "v = "))
}

// shortDuration writes d as a person would: "15m", "6h", "1m30s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Undocumented names the keys of Schema without a description, and the
// descriptions in keyDocs that name no key, sorted.
func Undocumented() (missing, stray []string) {
	known := map[string]bool{}
	for _, k := range Schema() {
		known[k.Name] = true
		if strings.TrimSpace(k.Doc) == "" {
			missing = append(missing, k.Name)
		}
	}
	for name := range keyDocs {
		if !known[name] {
			stray = append(stray, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(stray)
	return missing, stray
}
