// Command launcher runs a command and writes its peak resident set size, in
// bytes, to a file: `launcher OUT COMMAND [ARG...]`. The command's output
// and exit status pass through.
//
// A Go program cannot read a child's peak RSS itself: os/exec starts
// children with vfork (CLONE_VM), and when the child execs, Linux records
// the high-water mark of the memory it shared, the parent's, as the
// child's own (ru_maxrss), so ProcessState.SysUsage().Maxrss is at least
// the parent's peak. A benchmark process that has just generated a 1 GB
// bundle reported that, not the upgrade's. This launcher holds a few
// megabytes, far below anything it measures (peakrss.TestRunIsTheChilds).
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: launcher OUT COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "launcher:", err)
		os.Exit(2)
	}
	// ru_maxrss is in kilobytes on Linux.
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024
	if werr := os.WriteFile(os.Args[1], []byte(strconv.FormatInt(peak, 10)+"\n"), 0o644); werr != nil {
		fmt.Fprintln(os.Stderr, "launcher:", werr)
		os.Exit(2)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
