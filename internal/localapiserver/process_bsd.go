//go:build unix && !linux

package localapiserver

import "syscall"

// Outside Linux there is no Pdeathsig: children stopped by Delete or a
// cancelled Create, but not when bundlectl itself is killed.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
