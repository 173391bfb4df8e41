package state

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// The record codec: one record to and from its JSON, on the hook's path,
// without encoding/json's first use of Record. encoding/json, the first
// time it meets a type in a process, builds its fields and the encoders
// of every type they reach (the PR, the reactions, the swarm role…):
// about 0.3 ms for Record, paid again by every hook, a new process each.
//
// The codec walks Record's own fields, read once with reflect from the
// same json tags, and hands encoding/json only the values it meets that
// are not a string, bool or integer (times, the hook ring, a limit), so
// only their types are built. It follows encoding/json's rules for what
// it handles, and declines the rest (a key it does not know, a key met
// twice, an escaped key, a Record shape it does not follow): the caller
// then uses encoding/json. TestRecordCodecIsEncodingJSON holds it to
// encoding/json on records with every field set.

// recordField is one field of Record as encoding/json sees it.
type recordField struct {
	index     int
	key       string // the JSON name
	kind      fieldKind
	omitEmpty bool
	omitZero  bool
	zeroer    bool // omitzero asks the value's IsZero method
	// marshals: the value's MarshalJSON (a time's); unmarshals: its
	// pointer's UnmarshalJSON.
	marshals, unmarshals bool
}

type fieldKind int

const (
	kindOther fieldKind = iota // left to encoding/json
	kindString
	kindBool
	kindInt
)

type recordCodec struct {
	fields []recordField
	byKey  map[string]int // index in fields
}

var (
	marshalerType       = reflect.TypeFor[json.Marshaler]()
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	isZeroerType        = reflect.TypeFor[interface{ IsZero() bool }]()
)

// theRecordCodec is Record's codec, nil when Record has a shape the codec
// does not follow (encoding/json does everything then).
var theRecordCodec = sync.OnceValue(func() *recordCodec { return newRecordCodec(reflect.TypeFor[Record]()) })

func newRecordCodec(t reflect.Type) *recordCodec {
	c := &recordCodec{byKey: map[string]int{}}
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
		f := recordField{index: i, key: name}
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

// kindOf is how the codec handles a field of type t itself: a string,
// bool or integer type with JSON or text methods of its own is
// encoding/json's. marshals and unmarshals say that t (a struct: a time,
// an untrusted text) has MarshalJSON, and *t UnmarshalJSON, which the
// codec calls itself, as encoding/json would.
func kindOf(t reflect.Type) (kind fieldKind, marshals, unmarshals bool) {
	switch t.Kind() {
	case reflect.String:
		kind = kindString
	case reflect.Bool:
		kind = kindBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		kind = kindInt
	case reflect.Struct:
		return kindOther, t.Implements(marshalerType), reflect.PointerTo(t).Implements(unmarshalerType)
	default:
		return kindOther, false, false
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
		if c := name[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
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

// decodeRecordJSON decodes the JSON object raw into rec, a zero Record,
// as json.Unmarshal would. ok is false when the codec declines raw (rec
// may be half filled then): the caller decodes with encoding/json.
func decodeRecordJSON(raw []byte, rec *Record) (ok bool, err error) {
	c := theRecordCodec()
	if c == nil {
		return false, nil
	}
	v := reflect.ValueOf(rec).Elem()
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false, nil
	}
	var seen [64]bool
	if len(c.fields) > len(seen) {
		return false, nil
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return skipSpace(raw, i+1) == len(raw), nil
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return false, nil
		}
		keyEnd := skipString(raw, i)
		if keyEnd < 0 {
			return false, nil
		}
		key := raw[i+1 : keyEnd-1]
		n, known := c.byKey[string(key)]
		if !known || seen[n] || !plainString(key) {
			return false, nil // unknown, twice, or escaped: encoding/json's rules
		}
		seen[n] = true
		if i = skipSpace(raw, keyEnd); i >= len(raw) || raw[i] != ':' {
			return false, nil
		}
		start := skipSpace(raw, i+1)
		end := skipValue(raw, start, 1)
		if end < 0 {
			return false, nil
		}
		if err := c.fields[n].decode(v.Field(c.fields[n].index), raw[start:end]); err != nil {
			return true, err
		}
		if i = skipSpace(raw, end); i >= len(raw) {
			return false, nil
		}
		switch raw[i] {
		case '}':
			return skipSpace(raw, i+1) == len(raw), nil
		case ',':
			i = skipSpace(raw, i+1)
		default:
			return false, nil
		}
	}
}

// decode sets the field fv from its JSON value.
func (f recordField) decode(fv reflect.Value, val []byte) error {
	switch f.kind {
	case kindString:
		if len(val) >= 2 && val[0] == '"' && plainString(val[1:len(val)-1]) {
			fv.SetString(string(val[1 : len(val)-1]))
			return nil
		}
	case kindBool:
		switch string(val) {
		case "true":
			fv.SetBool(true)
			return nil
		case "false":
			fv.SetBool(false)
			return nil
		}
	case kindInt:
		if n, err := strconv.ParseInt(string(val), 10, fv.Type().Bits()); err == nil {
			fv.SetInt(n)
			return nil
		}
	}
	if f.unmarshals {
		// What encoding/json does with it, val being one valid value.
		return fv.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(val)
	}
	return json.Unmarshal(val, fv.Addr().Interface())
}

// encodeRecordJSON is json.MarshalIndent(rec, prefix, indent).
func encodeRecordJSON(rec *Record, prefix, indent string) ([]byte, bool) {
	c := theRecordCodec()
	if c == nil {
		return nil, false
	}
	v := reflect.ValueOf(rec).Elem()
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
func (f recordField) encode(out []byte, fv reflect.Value, prefix, indent string) ([]byte, error) {
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

func (f recordField) isZero(fv reflect.Value) bool {
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
