package safefile

import (
	"os"
	"path/filepath"
	"strings"
)

// UnderGit reports whether the slash-separated relative path rel lies in
// a .git directory or is one, in any case (on a case-insensitive file
// system ".GIT/config" is git's own config): git runs what its config and
// hooks say, so buildgate never reads a build file there nor writes one.
func UnderGit(rel string) bool {
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if strings.EqualFold(part, ".git") {
			return true
		}
	}
	return false
}

// ReachesGit reports whether rel below rootDir is under a .git directory
// as written or once the symbolic links on its way are followed (a
// committed link "hooks -> .git/hooks" makes "hooks/pre-commit" git's
// hook). A path whose directory cannot be resolved counts as reaching it:
// the caller refuses what it cannot place.
func ReachesGit(rootDir, rel string) bool {
	if UnderGit(rel) {
		return true
	}
	realRoot, err := filepath.EvalSymlinks(rootDir)
	if err != nil {
		return true
	}
	abs := filepath.Join(rootDir, filepath.FromSlash(rel))
	dir, name := filepath.Dir(abs), filepath.Base(abs)
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return !os.IsNotExist(err) || reachesGitAbove(realRoot, dir)
	}
	target := filepath.Join(realDir, name)
	if st, err := os.Lstat(target); err == nil && st.Mode()&os.ModeSymlink != 0 {
		if t, err := filepath.EvalSymlinks(target); err == nil {
			target = t
		}
	}
	r, err := filepath.Rel(realRoot, target)
	if err != nil {
		return true
	}
	return UnderGit(r)
}

// reachesGitAbove handles a directory that does not exist yet (a file a
// fix creates): the nearest existing directory above it decides.
func reachesGitAbove(realRoot, dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		real, err := filepath.EvalSymlinks(d)
		if err == nil {
			r, err := filepath.Rel(realRoot, real)
			return err != nil || UnderGit(r)
		}
		if !os.IsNotExist(err) || filepath.Dir(d) == d {
			return true
		}
	}
}
