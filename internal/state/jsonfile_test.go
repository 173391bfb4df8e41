package state

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

type counter struct{ N int }

func counterFile(path string) JSONFile[counter] {
	return JSONFile[counter]{Path: path, What: "counter", Load: func() (*counter, error) {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return &counter{}, nil
		}
		if err != nil {
			return nil, err
		}
		var c counter
		return &c, json.Unmarshal(data, &c)
	}}
}

// Updates from many goroutines at once (each its own lock handle, as
// separate processes have) lose none of each other's changes.
func TestJSONFileUpdatesNeverLoseAChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "c.json")
	var wg sync.WaitGroup
	for i := 0; i < 30; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			require.NoError(t, counterFile(path).Update(func(c *counter) (bool, error) { c.N++; return true, nil }))
		}()
	}
	wg.Wait()
	c, err := counterFile(path).Load()
	require.NoError(t, err)
	require.Equal(t, 30, c.N)
}

// An unchanged or failed update writes nothing; a corrupt file goes to
// Corrupt, whose answer the change goes on with.
func TestJSONFileWritesOnlyAChangeAndHandsCorruptionToItsStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	f := counterFile(path)
	require.NoError(t, f.Update(func(*counter) (bool, error) { return false, nil }))
	require.NoFileExists(t, path)
	boom := errors.New("boom")
	require.ErrorIs(t, f.Update(func(c *counter) (bool, error) { c.N = 9; return true, boom }), boom)
	require.NoFileExists(t, path)

	require.NoError(t, os.WriteFile(path, []byte("{not json"), 0o600))
	require.Error(t, f.Update(func(c *counter) (bool, error) { c.N++; return true, nil }), "no Corrupt: the error stands")
	f.Corrupt = func(error) (*counter, error) { return &counter{N: 41}, nil }
	require.NoError(t, f.Update(func(c *counter) (bool, error) { c.N++; return true, nil }))
	c, err := f.Load()
	require.NoError(t, err)
	require.Equal(t, 42, c.N)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}
