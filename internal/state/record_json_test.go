package state

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/untrusted"
)

// hostileStrings are strings encoding/json writes in every way it has:
// plain, HTML-escaped, control characters, U+2028, bad UTF-8, quotes.
var hostileStrings = []string{"", "plain-name", "feat/x y", "<b>&amp;</b>", "é ☃ 🦀", "tab\there\nnewline\r",
	"\x00\x01\x1f\x7f", "\u2028\u2029", "bad \xff\xfe utf8", `quote " and \ backslash`, "$(rm -rf ~)"}

// fill sets every field reachable from v to a random value, nil and
// empty included; it fails the test on a kind it does not know, so a new
// field of a new kind is noticed here.
func fill(t *testing.T, r *rand.Rand, v reflect.Value, depth int) {
	t.Helper()
	switch v.Type() {
	case reflect.TypeFor[time.Time]():
		if r.IntN(4) > 0 {
			v.Set(reflect.ValueOf(time.Unix(r.Int64N(4e9), r.Int64N(1e9)).In(time.FixedZone("", 3600*(r.IntN(5)-2)))))
		}
		return
	case reflect.TypeFor[untrusted.Untrusted]():
		v.Set(reflect.ValueOf(untrusted.From(hostileStrings[r.IntN(len(hostileStrings))])))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(hostileStrings[r.IntN(len(hostileStrings))])
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt([]int64{0, 1, -1, 42, 1 << 31, -1 << 40}[r.IntN(6)] >> (64 - v.Type().Bits()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(r.IntN(1000)))
	case reflect.Float64, reflect.Float32:
		v.SetFloat([]float64{0, 1.5, -3e-9, 1e21}[r.IntN(4)])
	case reflect.Pointer:
		if depth < 4 && r.IntN(3) > 0 {
			p := reflect.New(v.Type().Elem())
			fill(t, r, p.Elem(), depth+1)
			v.Set(p)
		}
	case reflect.Slice:
		if depth < 4 && r.IntN(3) > 0 {
			n := r.IntN(3)
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := 0; i < n; i++ {
				fill(t, r, s.Index(i), depth+1)
			}
			v.Set(s)
		}
	case reflect.Map:
		if depth < 4 && r.IntN(3) > 0 {
			m := reflect.MakeMap(v.Type())
			for i := r.IntN(3); i > 0; i-- {
				k := reflect.New(v.Type().Key()).Elem()
				fill(t, r, k, depth+1)
				e := reflect.New(v.Type().Elem()).Elem()
				fill(t, r, e, depth+1)
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(t, r, v.Field(i), depth)
			}
		}
	case reflect.Interface:
		// left nil: no field of owt's state holds one
	default:
		t.Fatalf("fill: a field of kind %s (%s): teach fill and the record codec's test about it", v.Kind(), v.Type())
	}
}

func randomRecord(t *testing.T, seed uint64) *Record {
	r := rand.New(rand.NewPCG(seed, 7))
	rec := &Record{}
	fill(t, r, reflect.ValueOf(rec).Elem(), 0)
	return rec
}

// TestAStateFileOlderOwtWroteStillReads: a state file as owt wrote it
// before encoding/json was its only codec (records with every field set,
// one record last changed alone, in place) reads whole, migrates to a
// record file each with nothing lost (the records, encoded as a version 1
// file again, are that file byte for byte), and its backup is it.
func TestAStateFileOlderOwtWroteStillReads(t *testing.T) {
	tempState(t)
	golden, err := os.ReadFile("testdata/state-written-by-owt-before-encoding-json.json")
	require.NoError(t, err)
	const repo = "/home/u/src/app <&>"
	s := ForRepo(repo)
	require.NoError(t, os.MkdirAll(filepath.Dir(s.Path), 0o700))
	require.NoError(t, os.WriteFile(s.Path, golden, 0o600))

	f, err := s.Load()
	require.NoError(t, err)
	require.Len(t, f.Records, 2)
	require.Equal(t, "spliced by the old codec <b>\u2028", f.Records["b-worker"].Task)
	f.Version = 1
	again, err := json.MarshalIndent(f, "", "  ")
	require.NoError(t, err)
	// Bad UTF-8 in a field was written as \ufffd, read back as U+FFFD
	// itself, which encoding/json writes as it is: the one difference.
	require.Equal(t, strings.ReplaceAll(string(golden), `\ufffd`, "\ufffd"), string(again)+"\n", "migrated with nothing lost")
	backup, err := os.ReadFile(s.Path + backupSuffix)
	require.NoError(t, err)
	require.Equal(t, string(golden), string(backup))
	for name, r := range f.Records {
		data, err := os.ReadFile(s.recordPath(name))
		require.NoError(t, err)
		enc, err := encodeRecord(r)
		require.NoError(t, err)
		require.Equal(t, string(enc), string(data), "the record of %s in its own file", name)
	}
}

// TestEveryRecordFieldSurvivesAWriteAndARead: records with every field
// set (and every field in turn left empty) read back as they were
// written, in place or whole.
func TestEveryRecordFieldSurvivesAWriteAndARead(t *testing.T) {
	tempState(t)
	s := ForRepo("/r/app")
	for seed := uint64(0); seed < 200; seed++ {
		rec := randomRecord(t, seed)
		rec.Name, rec.Repo = "a", s.Repo
		// As JSON can hold it (bad UTF-8 reads back as U+FFFD).
		rec = roundTrip(t, rec)
		require.NoError(t, s.Update(func(f *File) error { f.Records = map[string]*Record{"a": rec}; return nil }))
		require.NoError(t, s.UpdateRecordUnsynced("a", func(r *Record) error { r.Port++; return nil }))
		f, err := s.Load()
		require.NoError(t, err)
		rec.Port++
		require.Equal(t, rec, f.Records["a"], "seed %d", seed)
	}
}

func roundTrip(t *testing.T, rec *Record) *Record {
	t.Helper()
	b, err := json.Marshal(rec)
	require.NoError(t, err)
	out := &Record{}
	require.NoError(t, json.Unmarshal(b, out))
	return out
}
