package config

import (
	"bufio"
	"errors"
	"os"
	"strings"

	"github.com/BurntSushi/toml"
)

// DefaultOrigin is the origin of a value no config file sets.
const DefaultOrigin = "default"

// Files are the config files owt reads for the repository at repoRoot
// ("" for none), in the order they apply: a later one wins.
func Files(repoRoot string) []string { return layerFiles(repoRoot) }

// Origins maps each value a config file sets (its dotted key, as
// toml.Key.String writes it) to the last file that sets it. Tables are
// not values: a key they hold that no file sets is the default's. An
// array is set whole, by one file. A file that does not parse sets
// nothing; keys a repository's file may not set (log, hosts) are left out.
func Origins(repoRoot string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range layerFiles(repoRoot) {
		var doc map[string]any
		md, err := toml.DecodeFile(f, &doc)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			continue // owt config validate says what is wrong with it
		}
		for _, k := range md.Keys() {
			if f != UserFile() && (k[0] == "log" || k[0] == "hosts") {
				continue
			}
			if md.Type(k...) != "Hash" {
				out[k.String()] = f
			}
		}
	}
	return out, nil
}

// origin is the file behind the value at key: the key itself, else the
// array holding it (an element of an array of tables), else the default.
func origin(origins map[string]string, key toml.Key) string {
	for n := len(key); n > 0; n-- {
		if f, ok := origins[key[:n].String()]; ok {
			return f
		}
	}
	return DefaultOrigin
}

// EncodeWithOrigins is Encode with, at the end of each value's line, a
// comment naming where the value came from: the file that set it, or
// "default". The text is still TOML.
func EncodeWithOrigins(cfg Config, repoRoot string) (string, error) {
	text, err := Encode(cfg)
	if err != nil {
		return "", err
	}
	origins, err := Origins(repoRoot)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	var table toml.Key
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		b.WriteString(line)
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case strings.HasPrefix(trimmed, "["): // [table] or [[array of tables]]
			if keys := lineKeys(strings.Trim(trimmed, "[]") + " = 0"); len(keys) > 0 {
				table = keys[len(keys)-1] // a.b = 0 defines a, then a.b
			}
		default:
			if keys := lineKeys(trimmed); len(keys) > 0 { // k = {x = 1} defines k, then k.x
				full := append(append(toml.Key{}, table...), keys[0]...)
				b.WriteString("  # " + origin(origins, full))
			}
		}
		b.WriteByte('\n')
	}
	return b.String(), sc.Err()
}

// lineKeys are the keys a one-line TOML "key = value" defines, in order
// (quoted and dotted keys read as TOML reads them); none when it does
// not parse alone.
func lineKeys(line string) []toml.Key {
	var v map[string]any
	md, err := toml.Decode(line, &v)
	if err != nil {
		return nil
	}
	return md.Keys()
}
