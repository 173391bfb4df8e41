package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/memory/facts"
)

// memoryFigures times owt memory search on a memory of 10,000 facts
// (written straight into repo's database, as 10,000 adds would).
func memoryFigures(w *world, bin, repo string) {
	const nFacts = 10000
	words := strings.Fields("api cache cookie session token importer batch rows schema migration deploy friday lint race " +
		"stripe mock port server client render payment checkout cart order invoice email queue worker retry backoff timeout " +
		"config env secret vault docker compose kubernetes helm chart build make test flaky fixture snapshot golden")
	r := rand.New(rand.NewPCG(1, 2))
	path, err := w.memoryPath(bin, repo)
	if err != nil {
		fmt.Printf("owt memory: %v; no figure\n", err)
		return
	}
	db, err := facts.OpenPath(path)
	if err != nil {
		fmt.Printf("owt memory: %v; no figure\n", err)
		return
	}
	now := time.Now()
	for i := 0; i < nFacts; i++ {
		n := 8 + r.IntN(12)
		var b strings.Builder
		for j := 0; j < n; j++ {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "fact%d", i)
		if _, err := db.Add(b.String(), facts.Kind(facts.Kinds[i%len(facts.Kinds)]), i%500 == 0, facts.Source{From: "user"}, now); err != nil {
			fmt.Printf("owt memory: %v; no figure\n", err)
			return
		}
	}
	_ = db.Close()
	// Time only a search of the memory owt itself uses: it must hold the
	// facts just written (and the seed), counted by owt.
	var listed []json.RawMessage
	if out, err := w.cmd(repo, bin, "memory", "list", "--json").Output(); err != nil || json.Unmarshal(out, &listed) != nil {
		fmt.Printf("owt memory: owt memory list --json failed (%v); no figure\n", err)
		return
	}
	if len(listed) != nFacts+1 {
		fmt.Printf("owt memory: the database owt uses holds %d facts, not %d: the bench wrote %s; no figure\n", len(listed), nFacts+1, path)
		return
	}
	var times []time.Duration
	for i := 0; i < *runs; i++ {
		q := words[r.IntN(len(words))] + " " + words[r.IntN(len(words))]
		times = append(times, w.time(repo, bin, "memory", "search", "--json", q))
	}
	fmt.Printf("%-44s p50 %7s   (budget ≤ 20 ms; max %s; the whole command, two-word queries, on the database owt uses)\n",
		fmt.Sprintf("owt memory search, %d facts", nFacts), ms(p50(times)), ms(maxOf(times)))
}

// memoryPath is the database owt uses for repo, by owt's own rule, in
// the bench's data dir: keyed by the repository's main checkout as owt
// finds it (git's top level, symlinks resolved — a temp dir under a
// symlinked /tmp is another path), and made by owt with a seed fact.
func (w *world) memoryPath(bin, repo string) (string, error) {
	w.must(repo, bin, "memory", "add", "bench seed fact") // makes it
	root, err := git.TopLevel(repo)
	if err != nil {
		return "", err
	}
	path := memory.PathFor(root)
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("owt's database for %s is not where the bench looks: %w", root, err)
	}
	return path, nil
}
