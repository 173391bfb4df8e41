// Package structjson reads and writes a struct as encoding/json does,
// without encoding/json's first use of the struct's type. Every hook is
// a new process, and encoding/json, the first time it meets a type,
// builds the fields and encoders of every type it reaches (a state
// record's PR, reactions, swarm role…): about 0.3 ms for a record, and
// the event's JSON besides, paid again by every hook.
//
// The codec walks the struct's fields, read once per type with reflect
// from the same json tags. Strings, bools, integers, structs, pointers
// and slices it reads and writes itself, and a value's own MarshalJSON
// and UnmarshalJSON it calls itself (a time's, a raw message's); anything
// else (a map, a float, []byte, a type with text methods) it hands to
// encoding/json, which then builds only that value's type. So a hook
// reads its event and the agent's record, and writes the record, without
// encoding/json's machinery. It follows encoding/json's rules for what
// it handles and declines the rest (a key met twice, an escaped key, a
// key only a case-insensitive match would take, a value encoding/json
// would refuse, a struct shape such as an embedded field or ",string"):
// the caller then uses encoding/json. Its tests hold it to encoding/json
// on values with every field set to hostile text, and fuzz it.
//
// Imports nothing of owt's.
package structjson

import (
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// field is one field of a struct as encoding/json sees it.
type field struct {
	index     int
	key       string // the JSON name
	omitEmpty bool
	omitZero  bool
	zeroer    bool // omitzero asks the value's IsZero method
}

// typeInfo is how the codec handles a value of a type.
type typeInfo struct {
	kind valueKind
	// marshals: the value's MarshalJSON (a time's); unmarshals: its
	// pointer's UnmarshalJSON (a time's, a raw message's), which the
	// codec calls itself, as encoding/json would.
	marshals, unmarshals bool
	// noDecode: Decode declines a value of this type.
	noDecode bool
}

type valueKind int

const (
	kindOther valueKind = iota // left to encoding/json
	kindString
	kindBool
	kindInt
	kindStruct  // an object, field by field
	kindPointer // null, or what it points to
	kindSlice   // null, or an array
	kindMap     // null, or an object keyed by plain strings
)

// infos holds each type's typeInfo.
var infos sync.Map // reflect.Type → typeInfo

func infoOf(t reflect.Type) typeInfo {
	if ti, ok := infos.Load(t); ok {
		return ti.(typeInfo)
	}
	ti := newInfo(t)
	infos.Store(t, ti)
	return ti
}

// newInfo: a type with JSON or text methods of its own is encoding/json's
// (but for the MarshalJSON and UnmarshalJSON the codec calls itself).
func newInfo(t reflect.Type) typeInfo {
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && (t.NumMethod() > 0 || reflect.PointerTo(t).NumMethod() > 0) {
		pt := reflect.PointerTo(t)
		for _, m := range []reflect.Type{marshalerType, unmarshalerType, textMarshalerType, textUnmarshalerType} {
			if t.Implements(m) || pt.Implements(m) {
				if t.Name() == "" {
					// Methods promoted onto an unnamed struct: encoding/json
					// writes with them but never reads with them (it takes
					// the address of named types only), which decoding
					// through encoding/json on the field's address would.
					return typeInfo{noDecode: true}
				}
				return typeInfo{kind: kindOther, marshals: t.Implements(marshalerType), unmarshals: pt.Implements(unmarshalerType)}
			}
		}
	}
	switch t.Kind() {
	case reflect.String:
		return typeInfo{kind: kindString}
	case reflect.Bool:
		return typeInfo{kind: kindBool}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return typeInfo{kind: kindInt}
	case reflect.Struct:
		if codecOf(t) != nil {
			return typeInfo{kind: kindStruct}
		}
	case reflect.Pointer:
		if t.Implements(marshalerType) || t.Implements(textMarshalerType) {
			return typeInfo{} // a pointer type with methods: encoding/json's
		}
		return typeInfo{kind: kindPointer}
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 { // []byte is base64
			return typeInfo{kind: kindSlice}
		}
	case reflect.Map:
		// Keys of a string type with no methods of its own: encoding/json
		// writes them as they are (a text marshaler key it writes by its
		// method).
		if k := t.Key(); k.Kind() == reflect.String && k.NumMethod() == 0 && reflect.PointerTo(k).NumMethod() == 0 {
			return typeInfo{kind: kindMap}
		}
	}
	return typeInfo{}
}

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
	if pv.Kind() != reflect.Pointer || pv.IsNil() || infoOf(pv.Elem().Type()).kind != kindStruct {
		return false // not a struct, or one with JSON methods of its own
	}
	return decodeObject(pv.Elem(), raw, 0)
}

// decodeObject decodes the JSON object raw (white space around it) into
// the struct v, at depth objects and arrays in.
func decodeObject(v reflect.Value, raw []byte, depth int) bool {
	c := codecOf(v.Type())
	if c == nil || depth >= maxJSONDepth {
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
		end := skipValue(raw, start, depth+1)
		if end < 0 {
			return false
		}
		if known {
			seen[n] = true
			if !decodeValue(v.Field(c.fields[n].index), raw[start:end], depth+1) {
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

// decodeValue sets v, addressable and zero, from its JSON value val (one
// valid value, at depth objects and arrays in); false on an error.
func decodeValue(v reflect.Value, val []byte, depth int) bool {
	ti := infoOf(v.Type())
	if ti.noDecode {
		return false
	}
	if ti.unmarshals {
		// What encoding/json does with it, null included.
		return v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(val) == nil
	}
	null := string(val) == "null"
	switch ti.kind {
	case kindString:
		if len(val) >= 2 && val[0] == '"' && plainString(val[1:len(val)-1]) {
			v.SetString(string(val[1 : len(val)-1]))
			return true
		}
	case kindBool:
		switch string(val) {
		case "true":
			v.SetBool(true)
			return true
		case "false":
			v.SetBool(false)
			return true
		}
	case kindInt:
		if n, err := strconv.ParseInt(string(val), 10, v.Type().Bits()); err == nil {
			v.SetInt(n)
			return true
		}
	case kindStruct:
		return null || decodeObject(v, val, depth)
	case kindPointer:
		if null {
			v.SetZero()
			return true
		}
		p := reflect.New(v.Type().Elem())
		if !decodeValue(p.Elem(), val, depth) {
			return false
		}
		v.Set(p)
		return true
	case kindSlice:
		if null {
			v.SetZero()
			return true
		}
		return decodeArray(v, val, depth)
	case kindMap:
		if null {
			v.SetZero()
			return true
		}
		if decodeMap(v, val, depth) {
			return true
		}
		// An escaped key, or a value the codec declines: encoding/json's.
	}
	return json.Unmarshal(val, v.Addr().Interface()) == nil
}

// decodeMap sets the nil map v from the JSON object val, as encoding/json
// does: an empty object is an empty map, and of a key met twice the last
// value stays. It declines, leaving v nil, keys with escapes (encoding/json
// unescapes them first) and values the codec declines.
func decodeMap(v reflect.Value, val []byte, depth int) bool {
	if len(val) == 0 || val[0] != '{' || depth >= maxJSONDepth {
		return false
	}
	m := reflect.MakeMap(v.Type())
	kt, et := v.Type().Key(), v.Type().Elem()
	i := skipSpace(val, 1)
	if i < len(val) && val[i] == '}' {
		v.Set(m)
		return true
	}
	for {
		if i >= len(val) || val[i] != '"' {
			return false
		}
		keyEnd := skipString(val, i)
		if keyEnd < 0 || !plainString(val[i+1:keyEnd-1]) {
			return false
		}
		key := reflect.ValueOf(string(val[i+1 : keyEnd-1])).Convert(kt)
		if i = skipSpace(val, keyEnd); i >= len(val) || val[i] != ':' {
			return false
		}
		start := skipSpace(val, i+1)
		end := skipValue(val, start, depth+1)
		if end < 0 {
			return false
		}
		e := reflect.New(et).Elem()
		if !decodeValue(e, val[start:end], depth+1) {
			return false
		}
		m.SetMapIndex(key, e)
		if i = skipSpace(val, end); i >= len(val) {
			return false
		}
		switch val[i] {
		case '}':
			v.Set(m)
			return true
		case ',':
			i = skipSpace(val, i+1)
		default:
			return false
		}
	}
}

// decodeArray sets the slice v from the JSON array val: an empty array
// is an empty slice, not nil, as encoding/json makes it.
func decodeArray(v reflect.Value, val []byte, depth int) bool {
	if len(val) == 0 || val[0] != '[' || depth >= maxJSONDepth {
		return false
	}
	s := reflect.MakeSlice(v.Type(), 0, 0)
	i := skipSpace(val, 1)
	if i < len(val) && val[i] == ']' {
		v.Set(s)
		return true
	}
	for {
		end := skipValue(val, i, depth+1)
		if end < 0 {
			return false
		}
		e := reflect.New(v.Type().Elem()).Elem()
		if !decodeValue(e, val[i:end], depth+1) {
			return false
		}
		s = reflect.Append(s, e)
		if i = skipSpace(val, end); i >= len(val) {
			return false
		}
		switch val[i] {
		case ']':
			v.Set(s)
			return true
		case ',':
			i = skipSpace(val, i+1)
		default:
			return false
		}
	}
}

// EncodeIndent is json.MarshalIndent(ptr, prefix, indent) for ptr, a
// pointer to a struct; false when the codec declines it.
func EncodeIndent(ptr any, prefix, indent string) ([]byte, bool) {
	pv := reflect.ValueOf(ptr)
	if pv.Kind() != reflect.Pointer || pv.IsNil() || infoOf(pv.Elem().Type()).kind != kindStruct {
		return nil, false // not a struct, or one with JSON methods of its own
	}
	out, err := encodeObject(make([]byte, 0, 1024), pv.Elem(), prefix, indent, 0)
	return out, err == nil
}

// encodeObject appends the struct v as an object whose lines inside
// begin with prefix and indent, and whose closing line with prefix.
func encodeObject(out []byte, v reflect.Value, prefix, indent string, depth int) ([]byte, error) {
	c := codecOf(v.Type())
	inner := prefix + indent
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
		if out, err = encodeValue(out, fv, inner, indent, depth+1); err != nil {
			return nil, err
		}
	}
	if first {
		return append(out, '}'), nil
	}
	out = append(out, '\n')
	out = append(out, prefix...)
	return append(out, '}'), nil
}

// maxEncodeDepth bounds the values EncodeIndent follows into one
// another: a pointer cycle would recurse without end (encoding/json
// detects it, and reports it, past a thousand).
const maxEncodeDepth = 1000

var errTooDeep = errors.New("structjson: nested too deep")

// encodeValue appends the addressable value v's JSON, indented as at
// prefix, depth values in.
func encodeValue(out []byte, v reflect.Value, prefix, indent string, depth int) ([]byte, error) {
	if depth > maxEncodeDepth {
		return nil, errTooDeep // a cycle, likely: encoding/json says which
	}
	ti := infoOf(v.Type())
	if ti.marshals {
		// encoding/json would compact and HTML-escape what MarshalJSON
		// says: nothing to do to a string of plain characters (a time).
		b, err := v.Interface().(json.Marshaler).MarshalJSON()
		if err == nil && len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && plainString(b[1:len(b)-1]) {
			return append(out, b...), nil
		}
	}
	switch ti.kind {
	case kindString:
		if s := v.String(); plainString(s) {
			out = append(out, '"')
			out = append(out, s...)
			return append(out, '"'), nil
		}
	case kindBool:
		return strconv.AppendBool(out, v.Bool()), nil
	case kindInt:
		return strconv.AppendInt(out, v.Int(), 10), nil
	case kindStruct:
		return encodeObject(out, v, prefix, indent, depth)
	case kindPointer:
		if v.IsNil() {
			return append(out, "null"...), nil
		}
		return encodeValue(out, v.Elem(), prefix, indent, depth+1)
	case kindSlice:
		switch {
		case v.IsNil():
			return append(out, "null"...), nil
		case v.Len() == 0:
			return append(out, "[]"...), nil
		}
		inner := prefix + indent
		out = append(out, '[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, '\n')
			out = append(out, inner...)
			var err error
			if out, err = encodeValue(out, v.Index(i), inner, indent, depth+1); err != nil {
				return nil, err
			}
		}
		out = append(out, '\n')
		out = append(out, prefix...)
		return append(out, ']'), nil
	case kindMap:
		if out, ok := encodeMap(out, v, prefix, indent, depth); ok {
			return out, nil
		}
	}
	b, err := json.MarshalIndent(v.Addr().Interface(), prefix, indent)
	return append(out, b...), err
}

// encodeMap appends the map v as encoding/json writes it: null when nil,
// else its entries sorted by key. false, with nothing appended, when a
// key is not a plain string (encoding/json escapes it) or a value fails:
// the caller leaves the map to encoding/json.
func encodeMap(out []byte, v reflect.Value, prefix, indent string, depth int) ([]byte, bool) {
	switch {
	case v.IsNil():
		return append(out, "null"...), true
	case v.Len() == 0:
		return append(out, "{}"...), true
	}
	keys := v.MapKeys()
	for _, k := range keys {
		if !plainString(k.String()) {
			return out, false
		}
	}
	slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	inner := prefix + indent
	start := len(out)
	out = append(out, '{')
	for i, k := range keys {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, '\n')
		out = append(out, inner...)
		out = append(out, '"')
		out = append(out, k.String()...)
		out = append(out, `": `...)
		// A map's values are not addressable: encode a copy.
		e := reflect.New(v.Type().Elem()).Elem()
		e.Set(v.MapIndex(k))
		var err error
		if out, err = encodeValue(out, e, inner, indent, depth+1); err != nil {
			return out[:start], false
		}
	}
	out = append(out, '\n')
	out = append(out, prefix...)
	return append(out, '}'), true
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

// Quote is json.Marshal(s): s as a JSON string, escaped as encoding/json
// escapes it.
func Quote(s string) ([]byte, error) {
	if plainString(s) {
		return append(append(append(make([]byte, 0, len(s)+2), '"'), s...), '"'), nil
	}
	return json.Marshal(s)
}
