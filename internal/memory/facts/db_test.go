package facts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func openTemp(t *testing.T) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.db")
	d, err := OpenPath(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	return d, path
}

var now = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func TestAddSearchForget(t *testing.T) {
	d, _ := openTemp(t)
	a, err := d.Add("The API server listens on OWT_PORT, never on 8080", Convention, false, Source{From: "user"}, now)
	require.NoError(t, err)
	_, err = d.Add("Use pnpm, not npm: the lockfile is pnpm-lock.yaml", Convention, true, Source{From: "agent", Agent: "cart"}, now)
	require.NoError(t, err)
	_, err = d.Add("Payments tests need STRIPE_KEY=test", Gotcha, false, Source{From: "done", Agent: "pay"}, now)
	require.NoError(t, err)

	hits, err := d.Search("which port does the server listen on", 10)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	require.Equal(t, a.ID, hits[0].ID, "best match first")

	hits, err = d.Search("pnpm", 10)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	require.Equal(t, "cart", hits[0].Source.Agent)
	require.True(t, hits[0].Pinned)

	list, err := d.List("")
	require.NoError(t, err)
	require.Len(t, list, 3)
	require.True(t, list[0].Pinned, "pinned first")
	gotchas, err := d.List(Gotcha)
	require.NoError(t, err)
	require.Len(t, gotchas, 1)

	ok, err := d.Forget(a.ID)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = d.Forget(a.ID)
	require.NoError(t, err)
	require.False(t, ok)
	hits, err = d.Search("port", 10)
	require.NoError(t, err)
	require.Empty(t, hits, "a forgotten fact is gone from the index too")
}

func TestSearchTakesNoQuerySyntaxFromItsInput(t *testing.T) {
	d, _ := openTemp(t)
	_, err := d.Add(`a "quoted" NEAR(x y) fact with * and : colons`, Fact, false, Source{}, now)
	require.NoError(t, err)
	for _, q := range []string{`"`, `NEAR(`, `text:*`, `a OR`, `) AND (`, `-x`, `^quoted`} {
		_, err := d.Search(q, 5)
		if err != nil {
			require.ErrorIs(t, err, ErrBadText, "query %q", q)
		}
	}
	hits, err := d.Search(`"quoted" colons:`, 5)
	require.NoError(t, err)
	require.Len(t, hits, 1)
}

func TestBadInputIsRefused(t *testing.T) {
	d, _ := openTemp(t)
	_, err := d.Add("  ", Fact, false, Source{}, now)
	require.ErrorIs(t, err, ErrBadText)
	_, err = d.Add(strings.Repeat("x", MaxText+1), Fact, false, Source{}, now)
	require.ErrorIs(t, err, ErrBadText)
	_, err = d.Add("ok", Kind("opinion"), false, Source{}, now)
	require.ErrorIs(t, err, ErrBadKind)
	_, err = ParseKind("opinion")
	require.ErrorIs(t, err, ErrBadKind)
	list, err := d.List("")
	require.NoError(t, err)
	require.Empty(t, list)
}

// 20 writers at once, each with its own connection (as 20 processes
// have), lose nothing.
func TestManyWritersAtOnceLoseNothing(t *testing.T) {
	_, path := openTemp(t)
	var wg sync.WaitGroup
	errs := make(chan error, 20*10)
	for w := 0; w < 20; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := OpenPath(path)
			if err != nil {
				errs <- err
				return
			}
			defer d.Close()
			for i := 0; i < 10; i++ {
				if _, err := d.Add(fmt.Sprintf("writer %d fact %d", w, i), Fact, false, Source{From: "agent"}, now); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	d, err := OpenPath(path)
	require.NoError(t, err)
	defer d.Close()
	list, err := d.List("")
	require.NoError(t, err)
	require.Len(t, list, 200)
}

func TestACorruptDatabaseIsSetAsideNotDeleted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	junk := []byte(strings.Repeat("this is not a database\n", 400))
	require.NoError(t, os.WriteFile(path, junk, 0o600))
	_, err := OpenPath(path)
	require.ErrorIs(t, err, ErrCorrupt)
	require.Contains(t, err.Error(), "set aside as")
	aside, _ := filepath.Glob(path + ".corrupt-*")
	require.Len(t, aside, 1)
	kept, err := os.ReadFile(aside[0])
	require.NoError(t, err)
	require.Equal(t, junk, kept, "the user's file is kept as it was")
	d, err := OpenPath(path)
	require.NoError(t, err, "a new one starts")
	require.NoError(t, d.Close())
}

// Two corruptions in the same second: each file is set aside under a
// name of its own, the first never replaced by the second.
func TestCorruptDatabasesSetAsideInOneSecondAreBothKept(t *testing.T) {
	defer func(c func() time.Time) { clock = c }(clock)
	clock = func() time.Time { return now }
	path := filepath.Join(t.TempDir(), "m.db")
	var junks [][]byte
	var names []string
	for i := 0; i < 3; i++ {
		junk := []byte(strings.Repeat(fmt.Sprintf("not a database, take %d\n", i), 400))
		junks = append(junks, junk)
		require.NoError(t, os.WriteFile(path, junk, 0o600))
		_, err := OpenPath(path)
		require.ErrorIs(t, err, ErrCorrupt)
		_, name, ok := strings.Cut(err.Error(), "set aside as ")
		require.True(t, ok, err.Error())
		names = append(names, strings.TrimSuffix(name, ", a new one starts next time"))
	}
	stamp := path + ".corrupt-20261125T120000"
	require.Equal(t, []string{stamp, stamp + "-2", stamp + "-3"}, names)
	for i, name := range names {
		kept, err := os.ReadFile(name)
		require.NoError(t, err)
		require.Equal(t, junks[i], kept, "take %d kept as it was", i)
	}
	_, err := os.Stat(path)
	require.ErrorIs(t, err, os.ErrNotExist, "moved, and the next open starts a new one")

	// A damaged database found while in use goes the same way when its
	// facts cannot be read (here: their table is gone); damage beside
	// them costs no fact (TestADamagedSearchIndexIsRebuiltAndTheFactsKept).
	d, err := OpenPath(path)
	require.NoError(t, err)
	err = d.fail("search", fmt.Errorf("database disk image is malformed"))
	require.NotErrorIs(t, err, ErrCorrupt, "the facts read whole: kept where they are")
	_, err = d.db.Exec(`DROP TABLE facts`)
	require.NoError(t, err)
	err = d.fail("search", fmt.Errorf("database disk image is malformed"))
	require.ErrorIs(t, err, ErrCorrupt)
	require.Contains(t, err.Error(), "set aside as "+stamp+"-4,")
	for i, name := range names {
		kept, _ := os.ReadFile(name)
		require.Equal(t, junks[i], kept, "take %d still there", i)
	}
}

func TestMineOnceAndMerge(t *testing.T) {
	d, _ := openTemp(t)
	added, err := d.AddOnce("commit:abc", "Switched sessions to cookies", Decision, Source{From: "commit", Ref: "abc"}, now)
	require.NoError(t, err)
	require.True(t, added)
	added, err = d.AddOnce("commit:abc", "Switched sessions to cookies", Decision, Source{From: "commit", Ref: "abc"}, now)
	require.NoError(t, err)
	require.False(t, added, "mined once")

	a, _ := d.Add("Run make test before pushing", Convention, false, Source{}, now)
	b, _ := d.Add("Run make test before you push", Convention, true, Source{}, now)
	require.NoError(t, d.Merge(a.ID, []int64{b.ID}))
	list, err := d.List(Convention)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, a.ID, list[0].ID)
	require.True(t, list[0].Pinned, "a pinned duplicate pins what it was merged into")
	hits, err := d.Search("push", 5)
	require.NoError(t, err)
	require.Len(t, hits, 1, "merged facts do not match")
}

// A damaged full-text index costs no fact: the next search rebuilds it
// from the facts and finds them, pinned ones too, and nothing is set
// aside; a change after the damage works as well.
func TestADamagedSearchIndexIsRebuiltAndTheFactsKept(t *testing.T) {
	for _, first := range []string{"search", "add", "forget"} {
		t.Run(first, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.db")
			db, err := OpenPath(path)
			require.NoError(t, err)
			pin, err := db.Add("the stripe mock listens on port 12111", Gotcha, true, Source{}, time.Now())
			require.NoError(t, err)
			other, err := db.Add("deploys happen on fridays", Fact, false, Source{}, time.Now())
			require.NoError(t, err)
			_, err = db.db.Exec(`DELETE FROM facts_fts_data WHERE id > 10`)
			require.NoError(t, err)
			require.NoError(t, db.Close())

			db, err = OpenPath(path)
			require.NoError(t, err)
			defer db.Close()
			switch first {
			case "add":
				_, err = db.Add("the api listens on port 9000", Fact, false, Source{}, time.Now())
				require.NoError(t, err)
			case "forget":
				ok, err := db.Forget(other.ID)
				require.NoError(t, err)
				require.True(t, ok)
			}
			hits, err := db.Search("stripe port", 5)
			require.NoError(t, err)
			require.Len(t, hits, 1)
			require.Equal(t, pin.ID, hits[0].ID)
			pinned, err := db.Pinned()
			require.NoError(t, err)
			require.Len(t, pinned, 1)
			aside, _ := filepath.Glob(path + ".corrupt-*")
			require.Empty(t, aside, "nothing set aside")
			hits, err = db.Search("port", 5)
			require.NoError(t, err)
			if first == "add" {
				require.Len(t, hits, 2, "the new fact is in the rebuilt index")
			}
		})
	}
}
