package react

import (
	"fmt"
	"strings"
)

// messageMax bounds the failure text of a CI or review message, as a
// check's output tail is bounded (land.Tail): about 8 KiB; the rest is
// behind the pull request's URL.
const messageMax = 8 << 10

// boundEntries joins entries (each a line or a block ending in "\n") up
// to max bytes. What does not fit is left out — the entry that crosses
// the bound cut at a rune — and a last line says how much and where all
// of it is (url).
func boundEntries(entries []string, max int, url string) string {
	var b strings.Builder
	for i, e := range entries {
		if b.Len()+len(e) <= max {
			b.WriteString(e)
			continue
		}
		if room := max - b.Len(); room > 0 {
			b.WriteString(strings.ToValidUTF8(e[:room], "") + "…\n")
		}
		fmt.Fprintf(&b, "(cut at %d KiB", max>>10)
		if left := len(entries) - i - 1; left > 0 {
			fmt.Fprintf(&b, ", %d more not shown", left)
		}
		fmt.Fprintf(&b, "; all of it: %s)\n", url)
		return b.String()
	}
	return b.String()
}
