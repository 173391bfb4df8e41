package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// maxDeletedLives bounds the deleted lives kept per repository.
const maxDeletedLives = 500

// deletedLives are, per repository, the lives (Record.Life) of agents
// owt deleted, newest last. A life id is random and only owt's records
// hold it, so a session carrying one of them (@owt-life) is one owt made
// for an agent it deleted: owt doctor --fix may end it.
type deletedLives struct {
	Repos map[string][]string `json:"repos"`
}

func deletedLivesPath() string { return filepath.Join(Dir(), "lives", "deleted.json") }

func readDeletedLives(path string) (*deletedLives, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &deletedLives{Repos: map[string][]string{}}, nil
	}
	if err != nil {
		return nil, err
	}
	var d deletedLives
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, ErrCorrupt)
	}
	if d.Repos == nil {
		d.Repos = map[string][]string{}
	}
	return &d, nil
}

// NoteDeletedLives remembers the lives of agents of repo that were just
// deleted.
func NoteDeletedLives(repo string, lives []string) error {
	lives = slices.DeleteFunc(slices.Clone(lives), func(l string) bool { return l == "" })
	if len(lives) == 0 {
		return nil
	}
	path := deletedLivesPath()
	doc := JSONFile[deletedLives]{
		Path: path, What: "deleted agents",
		Load: func() (*deletedLives, error) { return readDeletedLives(path) },
		Corrupt: func(err error) (*deletedLives, error) {
			if !errors.Is(err, ErrCorrupt) {
				return nil, err
			}
			return &deletedLives{Repos: map[string][]string{}}, nil // only a memory of what went: start afresh
		},
	}
	return doc.Update(func(d *deletedLives) (bool, error) {
		l := append(d.Repos[repo], lives...)
		if len(l) > maxDeletedLives {
			l = l[len(l)-maxDeletedLives:]
		}
		d.Repos[repo] = l
		return true, nil
	})
}

// DeletedLife reports whether owt deleted the agent of repo whose life
// was life.
func DeletedLife(repo, life string) bool {
	if life == "" {
		return false
	}
	d, err := readDeletedLives(deletedLivesPath())
	return err == nil && slices.Contains(d.Repos[repo], life)
}
