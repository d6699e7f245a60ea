package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// ErrGitDir is a file that is one of git's own, under .git: git's config
// holds credentials (actions/checkout keeps the token there as an http
// extraheader), and a parse error would quote them into the report.
var ErrGitDir = errors.New("it is inside .git, git's own files (which may hold credentials): not read")

// ErrGitLink is a file whose name is outside .git but whose inode is one
// of git's files there: a hard link (git cannot check one out, but a
// restored cache or an earlier job step can make one) reads what the
// .git name does. It is an ErrGitDir.
var ErrGitLink error = gitError("it is a hard link to a file inside .git, git's own files (which may hold credentials): not read")

// ErrGitUnknown is a file with more than one link when .git could not be
// listed in full to tell whether one of them is git's: refused, since
// what cannot be placed cannot be shown safe. It is an ErrGitDir.
var ErrGitUnknown error = gitError("it has other hard links, and buildgate could not list .git in full to tell whether one is git's own file: not read")

// ErrHardLink is a file with other names (a hard link): one may be outside
// the repository, or inside .git, and what it holds is not the
// repository's to show. It is an ErrGitDir for the callers that refuse
// those.
var ErrHardLink error = gitError("it has other names (a hard link), which may be outside the repository or inside .git: not read")

type gitError string

func (e gitError) Error() string        { return string(e) }
func (e gitError) Is(target error) bool { return target == ErrGitDir }

// gitListMax bounds the entries listed below one .git (objects are not
// listed): a real one holds some hundreds outside objects/, and a pull
// request that plants millions must not make every hard link cost as
// much. Past it the listing is incomplete and ErrGitUnknown refuses
// files with other links.
var gitListMax = 100_000

// notGit refuses the file fi, opened below the directory dir, when it is
// one of the files of a .git in dir or above it (the repository's own,
// and one a pull request planted in a subdirectory to shadow it). Only a
// file with more than one link can be one without being named so (the
// names and symbolic links into .git are refused before it is opened), so
// a normal file costs a stat field; .git is listed the first time a file
// with links is met, once per process.
func notGit(dir string, fi fs.FileInfo) error {
	if !multiLinked(fi) {
		return nil
	}
	if n, known := linkCount(fi); known && n > 1 {
		// Other names may be anywhere on the device: a runner's ~/.netrc
		// linked as requirements/rocm.txt by a restored cache would be
		// read, and quoted in a parse error. Git never checks out a hard
		// link, so a build file with other names is not read at all.
		return ErrHardLink
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ErrGitUnknown
	}
	for d := abs; ; d = filepath.Dir(d) {
		dotGit := filepath.Join(d, ".git")
		if _, err := os.Lstat(dotGit); err == nil {
			v, _ := gitSets.LoadOrStore(dotGit, &gitSet{})
			set := v.(*gitSet)
			set.once.Do(func() { set.err = set.collect(dotGit) })
			switch {
			case set.has(fi):
				return ErrGitLink
			case set.err != nil:
				return ErrGitUnknown
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return ErrGitUnknown
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// gitSets holds the listing of each .git met (its path -> *gitSet). The
// files git keeps do not change under a run: buildgate never runs a git
// command that writes them.
var gitSets sync.Map

// gitSet is the identity of every file below one .git but its objects.
type gitSet struct {
	once  sync.Once
	err   error
	ids   map[fileID]bool
	infos []fs.FileInfo // where the platform gives no identity: compared with os.SameFile
	left  int
}

func (s *gitSet) add(fi fs.FileInfo) {
	if id, ok := identity(fi); ok {
		s.ids[id] = true
	} else {
		s.infos = append(s.infos, fi)
	}
}

func (s *gitSet) has(fi fs.FileInfo) bool {
	if id, ok := identity(fi); ok {
		return s.ids[id]
	}
	for _, g := range s.infos {
		if os.SameFile(g, fi) {
			return true
		}
	}
	return false
}

// collect lists dotGit: a directory, or a file "gitdir: DIR" (a linked
// worktree or a submodule), whose DIR is listed with the common directory
// its "commondir" names (the main repository's, holding config).
func (s *gitSet) collect(dotGit string) error {
	s.ids, s.left = map[fileID]bool{}, gitListMax
	st, err := os.Stat(dotGit)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return s.walk(dotGit)
	}
	s.add(st)
	gitDir, err := pointer(dotGit, "gitdir: ")
	if err != nil {
		return err
	}
	dirs := []string{gitDir}
	common, err := pointer(filepath.Join(gitDir, "commondir"), "")
	switch {
	case err == nil && within(common, gitDir):
		dirs = []string{common} // a worktree's directory is inside the main one
	case err == nil:
		dirs = append(dirs, common)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	for _, d := range dirs {
		// A directory that is not there holds nothing to read.
		if err := s.walk(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// within reports whether path is dir or lies below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// pointer reads a file of one line naming a directory (after prefix),
// relative to the file's own directory.
func pointer(name, prefix string) (string, error) {
	f, err := openRegular(os.OpenFile(name, os.O_RDONLY|nonBlock, 0))
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := readAll(f, GitMetaLimit)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	target, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
	if !ok || target == "" {
		return "", fmt.Errorf("%s: not a pointer to a git directory", name)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(name), target)
	}
	return target, nil
}

// walk adds every file below dir but in directories named objects (the
// repository's content, by hash: nearly all of .git, and nothing a
// checkout writes a credential into). A symbolic link is not followed
// into a directory, but the file it leads to is added: git reads a
// config that is a link through it.
func (s *gitSet) walk(dir string) error {
	stack := []string{dir}
	for len(stack) > 0 {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		subs, err := s.list(d)
		if err != nil && d != dir && errors.Is(err, fs.ErrNotExist) {
			continue // gone since its parent was listed: nothing left to read
		}
		if err != nil {
			return err
		}
		stack = append(stack, subs...)
	}
	return nil
}

// list adds the files of the directory d and returns its subdirectories,
// reading it a batch at a time so that the bound holds before a huge
// directory is read whole.
func (s *gitSet) list(d string) ([]string, error) {
	f, err := os.Open(d)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var subs []string
	for {
		es, err := f.ReadDir(512)
		for _, e := range es {
			if s.left--; s.left < 0 {
				return nil, fmt.Errorf("%s: more than %d entries", d, gitListMax)
			}
			p := filepath.Join(d, e.Name())
			switch t := e.Type(); {
			case t.IsDir():
				if e.Name() != "objects" {
					subs = append(subs, p)
				}
			case t&fs.ModeSymlink != 0:
				if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
					s.add(st)
				}
			default:
				if fi, err := e.Info(); err == nil {
					s.add(fi)
				} else if !errors.Is(err, fs.ErrNotExist) {
					return nil, err
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return subs, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
