//go:build !unix

package localapiserver

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }
func terminateGroup(pid int) error      { return errUnsupported }
func killGroup(pid int) error           { return errUnsupported }

const supported = false
