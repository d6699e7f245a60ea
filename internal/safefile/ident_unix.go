//go:build unix

package safefile

import (
	"io/fs"
	"syscall"
)

// fileID is what makes two names one file: its device and inode.
type fileID struct{ dev, ino uint64 }

func identity(fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, true //nolint:unconvert // Dev is int32 on some systems
}

// multiLinked reports whether the file has names besides the one it was
// opened by. Without a link count it may.
func multiLinked(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || st.Nlink > 1
}

// linkCount is the file's number of names, and whether it is known.
func linkCount(fi fs.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true //nolint:unconvert // Nlink is uint16 or uint32 on some systems
}
