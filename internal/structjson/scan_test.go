package structjson

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidIsJSONValid(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, s := range []string{
		"", " ", "{}", "[]", `""`, "0", "-0", "01", "-", "1.", "1.5", "1e", "1e+5", "1E-05", "-1.5e3", ".5", "+1",
		"true", "tru", "truex", "null", "nul", "false ", " {\"a\" : [1 , 2, {\"b\":null}]} ",
		`{"a":1,}`, `[1,]`, `{"a"}`, `{"a":}`, `{1:2}`, `"\u12g4"`, `"\u1234"`, `"\x"`, "\"a\tb\"", "\"\xff\"",
		`"\/\b\f\n\r\t\"\\"`, "[1]x", "{}{}", `{"a":1 "b":2}`, "\ufeff{}",
		deep(10000), deep(10001), deep(3) + "]",
	} {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%.40q) = %v, json.Valid %v", s, got, want)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range []string{`{"a":[1,-2.5e3,true,null,"x\u00e9"]}`, "[", `"\`, "1e+", "{\"version\": 1}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid %v", data, got, want)
		}
	})
}
