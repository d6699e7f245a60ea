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
