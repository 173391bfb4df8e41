package state

// ValidSessionID reports whether s can be a tool's session id as owt
// keeps and uses it: 1 to 200 of letters, digits, '.', '_', ':' and '-',
// not starting with '-'. Every tool's ids are (UUIDs, Codex's thread ids,
// OpenCode's "ses_…"); anything else in a hook's payload or a tool's files
// is not kept, never printed, never put on a command line.
func ValidSessionID(s string) bool {
	if s == "" || len(s) > 200 || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == ':' || c == '-') {
			return false
		}
	}
	return true
}
