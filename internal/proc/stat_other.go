//go:build !darwin

package proc

// ReadStat reads the process pid's Stat (/proc/PID/stat).
func ReadStat(pid int) (Stat, error) { return readProcStat(pid) }

// Processes is every process's Stat; one that ends while the list is read
// is left out.
func Processes() []Stat { return procProcesses() }
