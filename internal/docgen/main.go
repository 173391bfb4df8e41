// Command docgen writes owt's generated references from the code they
// describe, so they cannot drift from it: docs/reference/cli.md from the
// command tree (owt's, and owt-mcp's owt memory), docs/reference/config.md
// from the config schema, docs/reference/tmux-options.md from the key
// table and the plugin's options, and the man page docs/man/owt.1 from
// all three. make docs runs it; its test fails when a committed page
// differs from what it writes. It is not part of owt.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

func main() {
	root := flag.String("root", ".", "the repository's root, where docs/ is written")
	flag.Parse()
	if err := write(*root); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
}

// pages are the generated files, by their path from the repository's root.
func pages() map[string]string {
	ref := collect()
	return map[string]string{
		"docs/reference/cli.md":          cliPage(ref),
		"docs/reference/config.md":       configPage(ref),
		"docs/reference/tmux-options.md": tmuxPage(ref),
		"docs/man/owt.1":                 manPage(ref),
	}
}

// write writes every page under root, saying each one it changed.
func write(root string) error {
	ps := pages()
	paths := make([]string, 0, len(ps))
	for p := range ps {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		full := filepath.Join(root, filepath.FromSlash(p))
		if old, err := os.ReadFile(full); err == nil && string(old) == ps[p] {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		if err := os.WriteFile(full, []byte(ps[p]), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		fmt.Println("wrote", p)
	}
	return nil
}
