package state

import (
	"errors"
	"strings"
)

// Key names one agent among every repository's: the root of its
// repository's main checkout and its name. Records of all repositories
// are kept and looked up by it (a map key, a lock's name), never by the
// name alone, which another repository may use too.
type Key struct {
	Repo string
	Name string
}

// Key is the key of r.
func (r *Record) Key() Key { return Key{Repo: r.Repo, Name: r.Name} }

// String is the key as owt has always spelled it in lock names, hashes
// and cache files: the repository, a NUL, the name (neither can hold a
// NUL, so no two keys read the same).
func (k Key) String() string { return k.Repo + "\x00" + k.Name }

// MarshalText spells k as String does, so a map by Key is the same JSON
// object as the map by that string it replaces.
func (k Key) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads what MarshalText wrote.
func (k *Key) UnmarshalText(b []byte) error {
	repo, name, ok := strings.Cut(string(b), "\x00")
	if !ok {
		return errors.New("agent key without a NUL between repository and name")
	}
	*k = Key{Repo: repo, Name: name}
	return nil
}
