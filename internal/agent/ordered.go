package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// orderedObject is a JSON object that keeps its keys in file order and
// its values as raw JSON, so rewriting a user's settings file changes only
// what owt means to change.
type orderedObject struct {
	keys   []string
	values map[string]json.RawMessage
}

// UnmarshalJSON reads an object; anything else is an error.
func (o *orderedObject) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("not an object")
	}
	o.keys, o.values = nil, map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("unexpected %v", tok)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if _, dup := o.values[key]; !dup {
			o.keys = append(o.keys, key)
		}
		o.values[key] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return err
	}
	if dec.More() {
		return errors.New("data after the object")
	}
	return nil
}

// MarshalJSON writes the object with its keys in order.
func (o *orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := marshalNoEscape(k)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(o.values[k])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Keys returns the keys in order.
func (o *orderedObject) Keys() []string { return append([]string(nil), o.keys...) }

// Get returns the raw value of key.
func (o *orderedObject) Get(key string) (json.RawMessage, bool) {
	v, ok := o.values[key]
	return v, ok
}

// SetValue sets key to v encoded as JSON, appending a new key at the end.
func (o *orderedObject) SetValue(key string, v any) error {
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if m, isObj := v.(*orderedObject); isObj {
			raw, err = m.MarshalJSON()
		} else {
			raw, err = marshalNoEscape(v)
		}
		if err != nil {
			return err
		}
	}
	if o.values == nil {
		o.values = map[string]json.RawMessage{}
	}
	if _, ok := o.values[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.values[key] = raw
	return nil
}

// Delete removes key.
func (o *orderedObject) Delete(key string) {
	if _, ok := o.values[key]; !ok {
		return
	}
	delete(o.values, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}
