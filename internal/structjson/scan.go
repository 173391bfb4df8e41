package structjson

// The scanner: encoding/json's calls a function per byte, and json.Valid
// over a state file of 50 records took a quarter of a millisecond of
// every hook. These loops accept exactly what json.Valid accepts
// (FuzzValid holds them to it), including its nesting limit, and, like
// it, do not check that strings are UTF-8.

// maxJSONDepth is encoding/json's limit on nested objects and arrays.
const maxJSONDepth = 10000

// Valid is json.Valid(data).
func Valid(data []byte) bool {
	i := skipValue(data, skipSpace(data, 0), 0)
	return i >= 0 && skipSpace(data, i) == len(data)
}

// skipSpace is the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue is the end of the JSON value that starts at data[i], inside
// depth objects and arrays; -1 when there is none.
func skipValue(data []byte, i, depth int) int {
	if i >= len(data) {
		return -1
	}
	switch c := data[i]; c {
	case '"':
		return skipString(data, i)
	case '{', '[':
		if depth >= maxJSONDepth {
			return -1
		}
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == closing {
			return i + 1
		}
		for {
			if c == '{' {
				if i >= len(data) || data[i] != '"' {
					return -1
				}
				if i = skipString(data, i); i < 0 {
					return -1
				}
				if i = skipSpace(data, i); i >= len(data) || data[i] != ':' {
					return -1
				}
				i = skipSpace(data, i+1)
			}
			if i = skipValue(data, i, depth+1); i < 0 {
				return -1
			}
			if i = skipSpace(data, i); i >= len(data) {
				return -1
			}
			switch data[i] {
			case closing:
				return i + 1
			case ',':
				i = skipSpace(data, i+1)
			default:
				return -1
			}
		}
	case 't':
		return skipLiteral(data, i, "true")
	case 'f':
		return skipLiteral(data, i, "false")
	case 'n':
		return skipLiteral(data, i, "null")
	}
	return skipNumber(data, i)
}

func skipLiteral(data []byte, i int, lit string) int {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// skipString is the end of the JSON string whose quote is data[i].
func skipString(data []byte, i int) int {
	for i++; i < len(data); {
		switch c := data[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(data) {
				return -1
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(data)-i < 6 {
					return -1
				}
				for _, h := range data[i+2 : i+6] {
					if !isHex(h) {
						return -1
					}
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		default:
			i++
		}
	}
	return -1
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skipNumber is the end of the JSON number at data[i]: -?(0|[1-9]\d*)
// (\.\d+)?([eE][+-]?\d+)?
func skipNumber(data []byte, i int) int {
	if i < len(data) && data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		i = skipDigits(data, i)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		if i = skipDigits(data, i+1); i < 0 {
			return -1
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i = skipDigits(data, i); i < 0 {
			return -1
		}
	}
	return i
}

// skipDigits is the end of the one or more digits at data[i]; -1 when
// there are none.
func skipDigits(data []byte, i int) int {
	start := i
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}
