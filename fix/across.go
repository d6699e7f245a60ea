package fix

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Name is something a fix removes from one file that another file can
// still name: a Dockerfile stage (`docker build --target`, a bake target's
// `target =`), a bake target or group (`docker buildx bake NAME`, another
// bake file's group), a bake variable or function (another bake file
// loaded with it), a script's variable (a child process, a sourced file,
// a bake variable read from the environment).
type Name struct {
	Kind string // "stage", "target", "group", "bake variable", "bake function", "variable"
	Name string
}

func (n Name) String() string { return n.Kind + " " + n.Name }

// hclKind is the block type of a bake file's own name, "" for others.
func (n Name) hclKind() string {
	switch n.Kind {
	case "target", "group":
		return n.Kind
	case "bake variable", "bake function":
		return strings.TrimPrefix(n.Kind, "bake ")
	}
	return ""
}

// A name stands as a word where the bytes around it cannot belong to it:
// a variable is letters, digits and '_' ("$MC.tar.gz", "$MC-rocm" name
// MC); a bake target or group may hold '-' but not '.' (`--set
// NAME.platform=`, `target.NAME.tags`); a stage may hold both (buildkit:
// [a-z][a-z0-9-_.]*) and is compared without regard to case.
func wordClass(kind string) func(byte) bool {
	alnum := func(c byte) bool {
		return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	switch kind {
	case "stage":
		return func(c byte) bool { return alnum(c) || c == '-' || c == '.' }
	case "target", "group":
		return func(c byte) bool { return alnum(c) || c == '-' }
	}
	return alnum
}

// Change is one file's planned change in a fix run.
type Change struct {
	Path     string
	Old, New []byte
	Gone     []Name // what the change removes that other files could name
	Refused  string // why Resolve refused it, "" while it stands
}

// Resolve refuses each change that removes a name another file still
// names, as that file will be once the changes that stand are made: a
// stage a script still builds with --target, a target a declined bake
// file still groups, a variable a bake file still reads from the
// environment. Refusing one change brings back what it removed, which
// can refuse others; Resolve repeats until none is refused (refusals only
// grow). files are the files to look into besides the changed ones (the
// whole tree's build files, whatever the run's paths and excludes, and
// the files bake merges); read gives the text of one, fs.ErrNotExist when
// there is none. A file that cannot be read or parsed within bounds names
// anything: every change with names to check is refused. Each file is
// read once per text it has (its old one only when its change is
// refused), so the work is linear in the tree and the names.
func Resolve(ctx context.Context, changes []*Change, files []string, read func(string) ([]byte, error)) error {
	u := newUniverse(changes)
	if len(u.needles) == 0 {
		return nil
	}
	byPath := map[string]*Change{}
	for _, c := range changes {
		byPath[c.Path] = c
	}
	all := append([]string(nil), files...)
	for _, c := range changes {
		all = append(all, c.Path)
	}
	sort.Strings(all)
	all = compactStrings(all)
	// who names what, as the files are now.
	named := map[string]mentions{}
	index := map[Name][]string{}
	refuse := func(c *Change, why string) { c.Refused = why }
	for _, p := range all {
		if err := ctx.Err(); err != nil {
			return err
		}
		var text []byte
		if c, ok := byPath[p]; ok {
			text = c.New
		} else {
			t, err := read(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				for _, c := range changes {
					if len(c.Gone) > 0 && c.Refused == "" {
						refuse(c, fmt.Sprintf("%s could not be read (%v), so what it names is unknown; fix it by hand", p, err))
					}
				}
				return nil
			}
			text = t
		}
		m, err := u.namesIn(p, text)
		if err != nil {
			for _, c := range changes {
				if len(c.Gone) > 0 && c.Refused == "" && c.Path != p {
					refuse(c, fmt.Sprintf("%s %v, so what it names is unknown; fix it by hand", p, err))
				}
			}
			return nil
		}
		named[p] = m
		for n := range m {
			index[n] = append(index[n], p)
		}
	}
	check := func(c *Change) bool {
		for _, n := range c.Gone {
			for _, p := range index[n] {
				if p != c.Path {
					refuse(c, fmt.Sprintf("%s would still name the %s (line %d) once fixed; fix them together by hand", p, n, named[p][n]))
					return true
				}
			}
		}
		return false
	}
	work := append([]*Change(nil), changes...)
	for len(work) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := work[0]
		work = work[1:]
		if c.Refused != "" || len(c.Gone) == 0 || !check(c) {
			continue
		}
		// Its file keeps its old text: what that names counts now.
		m, err := u.namesIn(c.Path, c.Old)
		if err != nil {
			m = nil
		}
		for n := range m {
			if _, had := named[c.Path][n]; !had {
				index[n] = append(index[n], c.Path)
			}
		}
		named[c.Path] = m
		for _, d := range changes {
			if d.Refused != "" || d == c {
				continue
			}
			for _, n := range d.Gone {
				if _, ok := m[n]; ok {
					work = append(work, d)
					break
				}
			}
		}
	}
	return nil
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// BakeLoads are the files `docker buildx bake` merges by default beside
// its HCL files (Docker's lookup order): a name a fix removes from a bake
// file must not be used there either.
var BakeLoads = []string{"docker-bake.json", "docker-bake.override.json", "compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml"}

// BakeLoad reports whether a path is one of BakeLoads by its base name.
func BakeLoad(p string) bool {
	base := path.Base(p)
	for _, b := range BakeLoads {
		if base == b {
			return true
		}
	}
	return false
}
