//go:build !unix

package safefile

import "io/fs"

// fileID is unused here: the platform's FileInfo carries no identity, so
// files are compared with os.SameFile.
type fileID struct{}

func identity(fs.FileInfo) (fileID, bool) { return fileID{}, false }

// multiLinked: the link count is not known here, so any file may have
// other names.
func multiLinked(fs.FileInfo) bool { return true }

// linkCount is not known here.
func linkCount(fs.FileInfo) (uint64, bool) { return 0, false }
