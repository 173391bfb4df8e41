package proc

import (
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseStatReadsPastACommandWithSpacesAndParentheses(t *testing.T) {
	st, err := parseStat(42, "42 (a (b) c) S 7 8 9 0 -1")
	require.NoError(t, err)
	require.Equal(t, Stat{PID: 42, PPID: 7, PGRP: 8, Session: 9, State: "S"}, st)
	_, err = parseStat(42, "42 no command")
	require.Error(t, err)
}

func TestDescendantsFindsAChildsChild(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	require.Eventually(t, func() bool { return len(Descendants(os.Getpid())) >= 2 }, 5e9, 5e7)
	me, err := ReadStat(os.Getpid())
	require.NoError(t, err)
	require.Equal(t, os.Getppid(), me.PPID)
}
