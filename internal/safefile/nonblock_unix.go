//go:build unix

package safefile

import "syscall"

// nonBlock makes opening a FIFO return at once instead of waiting for a
// writer; the regular-file check then refuses it.
const nonBlock = syscall.O_NONBLOCK
