package state

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/structjson"
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

// TestRecordCodecIsEncodingJSON: package structjson writes, byte
// for byte, what encoding/json writes, and reads back what it reads, on
// records with every field set (and every field in turn left empty).
func TestRecordCodecIsEncodingJSON(t *testing.T) {
	if _, ok := structjson.EncodeIndent(&Record{}, "", "  "); !ok {
		t.Fatal("the codec declines Record: every hook pays encoding/json's first use of it again")
	}
	for seed := uint64(0); seed < 400; seed++ {
		rec := randomRecord(t, seed)
		want, err := json.MarshalIndent(rec, "    ", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got, ok := structjson.EncodeIndent(rec, "    ", "  ")
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("seed %d: encode (ok %v):\n%s\nencoding/json:\n%s", seed, ok, got, want)
		}
		for _, raw := range [][]byte{want, mustMarshal(t, rec)} {
			var viaJSON, viaCodec Record
			if err := json.Unmarshal(raw, &viaJSON); err != nil {
				t.Fatal(err)
			}
			if !structjson.Decode(raw, &viaCodec) {
				t.Fatalf("seed %d: the codec declined what encoding/json wrote:\n%s", seed, raw)
			}
			if !reflect.DeepEqual(viaCodec, viaJSON) {
				t.Fatalf("seed %d: decoded\n%+v\nencoding/json decoded\n%+v", seed, viaCodec, viaJSON)
			}
		}
	}
	var empty Record
	want, _ := json.MarshalIndent(&empty, "", "\t")
	if got, ok := structjson.EncodeIndent(&empty, "", "\t"); !ok || !bytes.Equal(got, want) {
		t.Fatalf("empty record: %s, want %s", got, want)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRecordCodecOnJSONOwtDoesNotWrite: a record edited by hand, or
// written by another owt, reads as encoding/json reads it: the codec
// either agrees or declines, never differs.
func TestRecordCodecOnJSONOwtDoesNotWrite(t *testing.T) {
	for _, raw := range []string{
		`{"name":"a","NAME":"b"}`, // a key in another case
		`{"name":"a","name":"b"}`, // twice
		`{"name":"a","future_field":{"x":[1,2]}}`,
		`{"na\u006de":"a"}`,
		`{"name":null,"port":null,"plan":null,"hook_events":null}`,
		`{"name":"a","port":"80"}`,
		`{"name":"a","port":1.5}`,
		`{"name":"a","port":1e2}`,
		`{"name":"a","port":99999999999999999999}`,
		`{"name":"a","plan":"yes"}`,
		`{"name":"a","status_since":"not a time"}`,
		`{"name":"a","exit_code":-3,"limit":{"reset":"2026-01-02T03:04:05Z"}}`,
		`{"name":"\ud800 lone","task":"caf\u00e9 <x>"}`,
		` { "name" : "a" , "port" : 3 } `,
		`{}`, `[]`, `null`, `"name"`, `{"name":"a"} x`, `{"name":"a",}`, `{"name" "a"}`, `{`,
		`{"name":"a","turn_error":"boom","reactions":{"ci":{"attempts":2}}}`,
	} {
		var viaJSON, viaCodec Record
		jsonErr := json.Unmarshal([]byte(raw), &viaJSON)
		if !structjson.Decode([]byte(raw), &viaCodec) {
			continue
		}
		if jsonErr != nil {
			t.Errorf("%s: the codec read it, encoding/json failed: %v", raw, jsonErr)
		}
		if !reflect.DeepEqual(viaCodec, viaJSON) {
			t.Errorf("%s: codec read %+v, encoding/json %+v", raw, viaCodec, viaJSON)
		}
	}
}

func FuzzRecordCodec(f *testing.F) {
	for seed := uint64(0); seed < 8; seed++ {
		b, _ := json.MarshalIndent(randomRecord(&testing.T{}, seed), "    ", "  ")
		f.Add(b)
	}
	f.Add([]byte(`{"name":"a","port":-0,"exit_code":0}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var viaJSON, viaCodec Record
		jsonErr := json.Unmarshal(raw, &viaJSON)
		if !structjson.Decode(raw, &viaCodec) {
			return
		}
		if jsonErr != nil {
			t.Fatalf("%q: the codec read it, encoding/json failed: %v", raw, jsonErr)
		}
		if !reflect.DeepEqual(viaCodec, viaJSON) {
			t.Fatalf("%q: codec read %+v, encoding/json %+v", raw, viaCodec, viaJSON)
		}
	})
}
