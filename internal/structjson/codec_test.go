package structjson

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// event is shaped as an agent's hook event is read: strings, a key with
// a dash, a raw message, a time; tools send keys it does not name.
type event struct {
	SessionID string          `json:"session_id"`
	Cwd       string          `json:"cwd"`
	ThreadID  string          `json:"thread-id"`
	Count     int             `json:"count,omitempty"`
	On        bool            `json:"on,omitempty"`
	Input     json.RawMessage `json:"tool_input"`
	At        time.Time       `json:"at,omitzero"`
	Nested    *struct {
		A string `json:"a"`
	} `json:"nested,omitempty"`
	Env     map[string]string  `json:"env,omitempty"`
	Counts  map[kind]int       `json:"counts"`
	Memory  map[string]*memory `json:"memory,omitempty"`
	Tagged  map[textKey]string `json:"tagged,omitempty"`
	skipped string             // unexported: not JSON's
}

// kind is a named string type: a map key encoding/json writes as it is.
type kind string

// memory is shaped as a reaction's memory: a map value behind a pointer.
type memory struct {
	Seen     string `json:"seen"`
	Attempts int    `json:"attempts"`
}

// textKey has a text method: encoding/json writes such a key by it.
type textKey string

func (k textKey) MarshalText() ([]byte, error) { return []byte("k-" + k), nil }

// TestDecodeIsEncodingJSON: whatever the codec reads, it reads as
// json.Unmarshal does; what it declines, encoding/json reads.
func TestDecodeIsEncodingJSON(t *testing.T) {
	for _, raw := range []string{
		`{"session_id":"s1","cwd":"/w/a","hook_event_name":"Stop","permission_mode":"default","tool_input":{"command":"ls <x>","n":[1,2.5e3,null]}}`,
		`{"session_id":"s1","thread-id":"t-1","tool_input":null,"count":3,"on":true}`,
		`{"session_id":"s1","tool_input":"text","at":"2026-11-28T10:00:00.5+01:00"}`,
		`{"SESSION_ID":"s1"}`, // case-insensitive: encoding/json takes it
		`{"ſession_id":"s1"}`, // and by Unicode folding (long s)
		`{"session_id":"a","session_id":"b"}`,
		`{"session_id":"caf\u00e9","cwd":"é \u2028 <b>"}`,
		`{"session_id":5}`, `{"count":"5"}`, `{"count":1.5}`, `{"on":"yes"}`, `{"at":"yesterday"}`,
		`{"nested":{"a":"x"},"nested":{"b":1}}`,
		`{"unknown":{"deep":[{"x":1}]},"cwd":"/w"}`,
		`{"env":{"A":"1","b":"<x>"},"counts":{"x":1,"y":-2},"memory":{"conflict":{"seen":"abc","attempts":2},"ci":null}}`,
		`{"env":{},"counts":null,"memory":{}}`,
		`{"env":{"a":"1","a":"2"}}`, `{"env":{"\u0041":"1"}}`, `{"env":{"é":"1"}}`, `{"env":{"a":1}}`,
		`{"counts":{"x":null}}`, `{"counts":{"x":1.5}}`, `{"memory":{"m":{"seen":"a","SEEN":"b"}}}`,
		`{"tagged":{"a":"b"}}`, `{"env":["a"]}`, `{"env":{"a":"1",}}`,
		`  {"cwd" : "/w" , "count" : -0 }  `,
		`{}`, `[]`, `null`, `{"cwd":"/w"} trailing`, `{"cwd":"/w",}`, `{"cwd"}`, "",
	} {
		var viaJSON, viaCodec event
		jsonErr := json.Unmarshal([]byte(raw), &viaJSON)
		if !Decode([]byte(raw), &viaCodec) {
			continue
		}
		if jsonErr != nil {
			t.Errorf("%s: the codec read it, encoding/json failed: %v", raw, jsonErr)
		}
		if !reflect.DeepEqual(viaCodec, viaJSON) {
			t.Errorf("%s: the codec read\n%+v\nencoding/json\n%+v", raw, viaCodec, viaJSON)
		}
	}
	// The usual event is read by the codec, not declined.
	var ev event
	if !Decode([]byte(`{"session_id":"s1","cwd":"/w/a","hook_event_name":"Stop","tool_input":{"x":1}}`), &ev) || ev.Cwd != "/w/a" || string(ev.Input) != `{"x":1}` {
		t.Fatalf("declined or misread the usual event: %+v", ev)
	}
}

func TestEncodeIndentIsMarshalIndent(t *testing.T) {
	at := time.Date(2026, 11, 28, 10, 0, 0, 5, time.FixedZone("", 3600))
	for _, ev := range []event{{}, {SessionID: "s", Cwd: "<&>", ThreadID: "é", Count: -4, On: true, Input: json.RawMessage(`{"a": [1, 2]}`), At: at},
		{Input: json.RawMessage(`"x"`)},
		{Env: map[string]string{"b": "2", "a": "<1>", "A": "é"}, Counts: map[kind]int{"z": 1, "y": 0},
			Memory: map[string]*memory{"conflict": {Seen: "x", Attempts: 3}, "ci": nil, "": {}}},
		{Env: map[string]string{}, Counts: map[kind]int{}, Memory: map[string]*memory{}},
		{Env: map[string]string{"<b>": "x", "é": "y", "q\"": "z"}, Tagged: map[textKey]string{"a": "b"}}} {
		want, err := json.MarshalIndent(&ev, "  ", "\t")
		if err != nil {
			t.Fatal(err)
		}
		got, ok := EncodeIndent(&ev, "  ", "\t")
		if !ok || string(got) != string(want) {
			t.Errorf("EncodeIndent (ok %v):\n%s\nMarshalIndent:\n%s", ok, got, want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"session_id":"s1","cwd":"/w/a","tool_input":{"command":"ls"},"count":2}`))
	f.Add([]byte(`{"thread-id":"x","at":"2026-11-28T10:00:00Z","nested":{"a":"b"}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var viaJSON, viaCodec event
		jsonErr := json.Unmarshal(raw, &viaJSON)
		if !Decode(raw, &viaCodec) {
			return
		}
		if jsonErr != nil {
			t.Fatalf("%q: the codec read it, encoding/json failed: %v", raw, jsonErr)
		}
		if !reflect.DeepEqual(viaCodec, viaJSON) {
			t.Fatalf("%q: the codec read\n%+v\nencoding/json\n%+v", raw, viaCodec, viaJSON)
		}
	})
}

func TestQuoteIsMarshal(t *testing.T) {
	for _, s := range []string{"", "plain/name-1", "<&>", "é", "a\"b\\c", "\x00\x7f", "bad \xff", "\u2028"} {
		want, _ := json.Marshal(s)
		if got, err := Quote(s); err != nil || string(got) != string(want) {
			t.Errorf("Quote(%q) = %s, %v; json.Marshal: %s", s, got, err, want)
		}
	}
}

type custom struct {
	A string `json:"a"`
}

func (c *custom) UnmarshalJSON([]byte) error  { c.A = "custom"; return nil }
func (c custom) MarshalJSON() ([]byte, error) { return []byte(`"custom"`), nil }

type node struct {
	Next *node `json:"next"`
}

// TestDeclinesWhatEncodingJSONDoesOtherwise: a struct with JSON methods
// of its own, methods promoted onto an unnamed struct, a pointer cycle:
// the codec declines (found by a fresh-eyes review).
func TestDeclinesWhatEncodingJSONDoesOtherwise(t *testing.T) {
	var c custom
	if Decode([]byte(`{"a":"x"}`), &c) {
		t.Errorf("decoded a type with its own UnmarshalJSON: %+v", c)
	}
	if _, ok := EncodeIndent(&custom{A: "x"}, "", " "); ok {
		t.Error("encoded a type with its own MarshalJSON")
	}
	var promoted struct {
		F struct{ time.Time } `json:"f"`
	}
	if Decode([]byte(`{"f":"2020-01-01T00:00:00Z"}`), &promoted) {
		t.Error("read a time into an unnamed struct, which encoding/json refuses")
	}
	n := &node{}
	n.Next = n
	if _, ok := EncodeIndent(n, "", " "); ok {
		t.Error("encoded a pointer cycle")
	}
}
