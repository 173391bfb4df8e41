package ssh

import (
	"os"
	"syscall"
)

// ownedByMe says whether fi belongs to the user owt runs as.
func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
