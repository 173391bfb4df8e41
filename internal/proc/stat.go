package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Stat is a process as /proc/PID/stat tells it on Linux (on macOS, the
// kernel's process table: stat_darwin.go).
type Stat struct {
	PID, PPID, PGRP, Session int
	State                    string // "R", "S", "Z" …
}

// readProcStat reads /proc/PID/stat.
func readProcStat(pid int) (Stat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, err
	}
	return parseStat(pid, string(data))
}

// parseStat reads "pid (comm) state ppid pgrp session …": comm may hold
// spaces and parentheses, so the fields start after the last ')'.
func parseStat(pid int, s string) (Stat, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return Stat{}, fmt.Errorf("/proc/%d/stat: no command field", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 4 {
		return Stat{}, fmt.Errorf("/proc/%d/stat: too short", pid)
	}
	st := Stat{PID: pid, State: f[0]}
	for j, p := range []*int{&st.PPID, &st.PGRP, &st.Session} {
		n, err := strconv.Atoi(f[j+1])
		if err != nil {
			return Stat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		*p = n
	}
	return st, nil
}

// procProcesses is every process's Stat from /proc; one that ends while
// the list is read is left out.
func procProcesses() []Stat {
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	out := make([]Stat, 0, len(paths))
	for _, p := range paths {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil {
			continue
		}
		if st, err := readProcStat(pid); err == nil {
			out = append(out, st)
		}
	}
	return out
}

// Descendants are pid's children, their children, and so on.
func Descendants(pid int) []int {
	children := map[int][]int{}
	for _, st := range Processes() {
		children[st.PPID] = append(children[st.PPID], st.PID)
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			out = append(out, c)
			walk(c)
		}
	}
	walk(pid)
	return out
}
