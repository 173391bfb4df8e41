// Package structjson reads and writes a struct as encoding/json does,
// without encoding/json's first use of the struct's type. Every hook is
// a new process, and encoding/json, the first time it meets a type,
// builds the fields and encoders of every type it reaches (a state
// record's PR, reactions, swarm role…): about 0.3 ms for a record, and
// the event's JSON besides, paid again by every hook.
//
// The codec walks the struct's own fields, read once with reflect from
// the same json tags. Strings, bools and integers it reads and writes
// itself, as a field's own MarshalJSON and UnmarshalJSON (a time's, a raw
// message's); any other value (the hook ring, a limit) it hands to
// encoding/json, which then builds only that value's type. It follows
// encoding/json's rules for what it handles and declines the rest (a key
// met twice, an escaped key, a key only a case-insensitive match would
// take, a field error, a struct shape such as an embedded field or
// ",string"): the caller then uses encoding/json. Its tests hold it to
// encoding/json on values with every field set to hostile text.
//
// Imports nothing of owt's.
package structjson

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// field is one field of a struct as encoding/json sees it.
type field struct {
	index     int
	key       string // the JSON name
	kind      fieldKind
	omitEmpty bool
	omitZero  bool
	zeroer    bool // omitzero asks the value's IsZero method
	// marshals: the value's MarshalJSON (a time's); unmarshals: its
	// pointer's UnmarshalJSON (a time's, a raw message's).
	marshals, unmarshals bool
}

type fieldKind int

const (
	kindOther fieldKind = iota // left to encoding/json
	kindString
	kindBool
	kindInt
)

type codec struct {
	fields []field
	byKey  map[string]int // index in fields
}

var (
	marshalerType       = reflect.TypeFor[json.Marshaler]()
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	isZeroerType        = reflect.TypeFor[interface{ IsZero() bool }]()
)

// codecs holds each struct type's codec, nil for one the codec does not
// follow.
var codecs sync.Map // reflect.Type → *codec

func codecOf(t reflect.Type) *codec {
	if c, ok := codecs.Load(t); ok {
		return c.(*codec)
	}
	c := newCodec(t)
	codecs.Store(t, c)
	return c
}

func newCodec(t reflect.Type) *codec {
	if t.Kind() != reflect.Struct || t.NumField() > maxFields {
		return nil
	}
	c := &codec{byKey: map[string]int{}}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous {
			return nil // embedded fields: encoding/json's promotion rules
		}
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = sf.Name
		}
		if !plainKey(name) {
			return nil
		}
		f := field{index: i, key: name}
		for _, opt := range strings.Split(opts, ",") {
			switch opt {
			case "omitempty":
				f.omitEmpty = true
			case "omitzero":
				f.omitZero = true
			case "":
			default:
				return nil // ",string" and the like
			}
		}
		ft := sf.Type
		if f.omitZero {
			switch {
			case ft.Kind() == reflect.Interface || ft.Kind() == reflect.Pointer:
				if ft.Implements(isZeroerType) {
					return nil
				}
			case ft.Implements(isZeroerType):
				f.zeroer = true
			case reflect.PointerTo(ft).Implements(isZeroerType):
				return nil
			}
		}
		f.kind, f.marshals, f.unmarshals = kindOf(ft)
		if _, dup := c.byKey[name]; dup {
			return nil
		}
		c.byKey[name] = len(c.fields)
		c.fields = append(c.fields, f)
	}
	return c
}

// maxFields bounds the fields a codec follows (Decode marks the keys it
// met in an array of this size).
const maxFields = 128

// kindOf is how the codec handles a field of type t itself: a string,
// bool or integer type with JSON or text methods of its own is
// encoding/json's. marshals and unmarshals say that t has MarshalJSON,
// and *t UnmarshalJSON, which the codec calls itself, as encoding/json
// would.
func kindOf(t reflect.Type) (kind fieldKind, marshals, unmarshals bool) {
	switch t.Kind() {
	case reflect.String:
		kind = kindString
	case reflect.Bool:
		kind = kindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		kind = kindInt
	case reflect.Pointer, reflect.Interface:
		return kindOther, false, false
	default:
		return kindOther, t.Implements(marshalerType), reflect.PointerTo(t).Implements(unmarshalerType)
	}
	if t.NumMethod() == 0 && reflect.PointerTo(t).NumMethod() == 0 {
		return kind, false, false
	}
	pt := reflect.PointerTo(t)
	for _, m := range []reflect.Type{marshalerType, unmarshalerType, textMarshalerType, textUnmarshalerType} {
		if t.Implements(m) || pt.Implements(m) {
			return kindOther, false, false
		}
	}
	return kind, false, false
}

// plainKey reports whether name is written as it is, quoted, by
// encoding/json (with HTML escaping) and read back by an exact match.
func plainKey(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return name != ""
}

// plainString reports whether s, between quotes, is how encoding/json
// writes s and reads it back: printable ASCII with nothing to escape.
func plainString[T string | []byte](s T) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// Decode decodes the JSON object raw into ptr, a pointer to a zero
// struct, as json.Unmarshal would. false: the codec declined raw or
// json.Unmarshal would have failed; ptr may be half filled then, and the
// caller decodes into a fresh zero value with encoding/json (which also
// gives the error to report).
func Decode(raw []byte, ptr any) bool {
	pv := reflect.ValueOf(ptr)
	if pv.Kind() != reflect.Pointer || pv.IsNil() {
		return false
	}
	v := pv.Elem()
	c := codecOf(v.Type())
	if c == nil {
		return false
	}
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	var seen [maxFields]bool
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return skipSpace(raw, i+1) == len(raw)
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return false
		}
		keyEnd := skipString(raw, i)
		if keyEnd < 0 {
			return false
		}
		key := raw[i+1 : keyEnd-1]
		if !plainString(key) {
			return false // escaped: encoding/json unescapes it first
		}
		n, known := c.byKey[string(key)]
		if known && seen[n] || !known && c.foldsTo(key) {
			return false // met twice, or a case-insensitive match
		}
		if i = skipSpace(raw, keyEnd); i >= len(raw) || raw[i] != ':' {
			return false
		}
		start := skipSpace(raw, i+1)
		end := skipValue(raw, start, 1)
		if end < 0 {
			return false
		}
		if known {
			seen[n] = true
			if !c.fields[n].decode(v.Field(c.fields[n].index), raw[start:end]) {
				return false
			}
		}
		if i = skipSpace(raw, end); i >= len(raw) {
			return false
		}
		switch raw[i] {
		case '}':
			return skipSpace(raw, i+1) == len(raw)
		case ',':
			i = skipSpace(raw, i+1)
		default:
			return false
		}
	}
}

// foldsTo reports whether key, no field's exact name, is one's but for
// case, as encoding/json's case-insensitive match (bytes.EqualFold) says.
func (c *codec) foldsTo(key []byte) bool {
	for _, f := range c.fields {
		if strings.EqualFold(f.key, string(key)) {
			return true
		}
	}
	return false
}

// decode sets the field fv from its JSON value; false on an error.
func (f field) decode(fv reflect.Value, val []byte) bool {
	switch f.kind {
	case kindString:
		if len(val) >= 2 && val[0] == '"' && plainString(val[1:len(val)-1]) {
			fv.SetString(string(val[1 : len(val)-1]))
			return true
		}
	case kindBool:
		switch string(val) {
		case "true":
			fv.SetBool(true)
			return true
		case "false":
			fv.SetBool(false)
			return true
		}
	case kindInt:
		if n, err := strconv.ParseInt(string(val), 10, fv.Type().Bits()); err == nil {
			fv.SetInt(n)
			return true
		}
	}
	if f.unmarshals {
		// What encoding/json does with it, val being one valid value.
		return fv.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(val) == nil
	}
	return json.Unmarshal(val, fv.Addr().Interface()) == nil
}

// EncodeIndent is json.MarshalIndent(ptr, prefix, indent) for ptr, a
// pointer to a struct; false when the codec declines it.
func EncodeIndent(ptr any, prefix, indent string) ([]byte, bool) {
	pv := reflect.ValueOf(ptr)
	if pv.Kind() != reflect.Pointer || pv.IsNil() {
		return nil, false
	}
	v := pv.Elem()
	c := codecOf(v.Type())
	if c == nil {
		return nil, false
	}
	inner := prefix + indent
	out := make([]byte, 0, 1024)
	out = append(out, '{')
	first := true
	for _, f := range c.fields {
		fv := v.Field(f.index)
		if f.omitEmpty && isEmptyValue(fv) || f.omitZero && f.isZero(fv) {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		first = false
		out = append(out, '\n')
		out = append(out, inner...)
		out = append(out, '"')
		out = append(out, f.key...)
		out = append(out, `": `...)
		var err error
		if out, err = f.encode(out, fv, inner, indent); err != nil {
			return nil, false
		}
	}
	if first {
		return append(out, '}'), true
	}
	out = append(out, '\n')
	out = append(out, prefix...)
	return append(out, '}'), true
}

// encode appends the field fv's JSON, indented as at prefix.
func (f field) encode(out []byte, fv reflect.Value, prefix, indent string) ([]byte, error) {
	switch f.kind {
	case kindString:
		if s := fv.String(); plainString(s) {
			out = append(out, '"')
			out = append(out, s...)
			return append(out, '"'), nil
		}
	case kindBool:
		return strconv.AppendBool(out, fv.Bool()), nil
	case kindInt:
		return strconv.AppendInt(out, fv.Int(), 10), nil
	}
	if f.marshals {
		// encoding/json would compact and HTML-escape what MarshalJSON
		// says: nothing to do to a string of plain characters (a time).
		b, err := fv.Interface().(json.Marshaler).MarshalJSON()
		if err == nil && len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && plainString(b[1:len(b)-1]) {
			return append(out, b...), nil
		}
	}
	b, err := json.MarshalIndent(fv.Addr().Interface(), prefix, indent)
	return append(out, b...), err
}

func (f field) isZero(fv reflect.Value) bool {
	if f.zeroer {
		return fv.Interface().(interface{ IsZero() bool }).IsZero()
	}
	return fv.IsZero()
}

// isEmptyValue is encoding/json's test for omitempty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
