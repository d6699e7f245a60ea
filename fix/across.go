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
	// Edits make New of Old (a refusal cites Old's lines: the file the
	// user has).
	Edits   []Edit
	Gone    []Name // what the change removes that other files could name
	Refused string // why Resolve refused it, "" while it stands
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
	r := &resolver{u: u, changes: changes, named: map[string]mentions{}, index: map[Name][]string{}}
	known, err := r.readAll(ctx, files, read)
	if err != nil || !known {
		return err
	}
	return r.settle(ctx)
}

// resolver is Resolve's state: who names what, as the files are with the
// changes that stand.
type resolver struct {
	u       *universe
	changes []*Change
	named   map[string]mentions // by path: the names it names, each with its first line
	index   map[Name][]string   // by name: the paths that name it
}

// readAll reads every file once, a changed one as its change leaves it,
// and records what each names. It reports false where a file cannot be
// told (it could not be read, or not within bounds): every change with
// names to check is then refused, and there is nothing more to decide.
func (r *resolver) readAll(ctx context.Context, files []string, read func(string) ([]byte, error)) (bool, error) {
	byPath := map[string]*Change{}
	for _, c := range r.changes {
		byPath[c.Path] = c
	}
	all := append([]string(nil), files...)
	for _, c := range r.changes {
		all = append(all, c.Path)
	}
	sort.Strings(all)
	all = compactStrings(all)
	for _, p := range all {
		if err := ctx.Err(); err != nil {
			return false, err
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
				// No change is p's own: it was read from the tree.
				r.refuseUnknown(p, fmt.Sprintf("%s could not be read (%v), so what it names is unknown; fix it by hand", p, err))
				return false, nil
			}
			text = t
		}
		m, err := r.u.namesIn(p, text)
		if err != nil {
			r.refuseUnknown(p, fmt.Sprintf("%s %v, so what it names is unknown; fix it by hand", p, err))
			return false, nil
		}
		r.named[p] = m
		for n := range m {
			r.index[n] = append(r.index[n], p)
		}
	}
	return true, nil
}

// refuseUnknown refuses every change with names to check but p's own:
// what p names cannot be told, so it may name any of them.
func (r *resolver) refuseUnknown(p, why string) {
	for _, c := range r.changes {
		if len(c.Gone) > 0 && c.Refused == "" && c.Path != p {
			c.Refused = why
		}
	}
}

// settle refuses the changes whose names another file still names, and
// looks again at the changes a refusal can refuse in turn, until none is.
func (r *resolver) settle(ctx context.Context) error {
	work := append([]*Change(nil), r.changes...)
	for len(work) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := work[0]
		work = work[1:]
		if c.Refused != "" || len(c.Gone) == 0 || !r.check(c) {
			continue
		}
		work = append(work, r.keepOld(c)...)
	}
	return nil
}

// check refuses a change one of whose names another file names, and
// reports whether it did.
func (r *resolver) check(c *Change) bool {
	for _, n := range c.Gone {
		for _, p := range r.index[n] {
			if p != c.Path {
				line := r.named[p][n]
				if o := r.standing(p); o != nil && o.Edits != nil {
					line = OldLine(o.Old, o.Edits, line) // the file as the user has it
				}
				c.Refused = fmt.Sprintf("%s would still name the %s (line %d) once fixed; fix them together by hand", p, n, line)
				return true
			}
		}
	}
	return false
}

// standing is p's change while it stands (its new text is what was
// read), nil otherwise.
func (r *resolver) standing(p string) *Change {
	for _, c := range r.changes {
		if c.Path == p && c.Refused == "" {
			return c
		}
	}
	return nil
}

// keepOld records that a refused change's file keeps its old text (what
// that names counts now) and returns the changes that stand which remove
// a name it names: they are to be looked at again.
func (r *resolver) keepOld(c *Change) []*Change {
	m, err := r.u.namesIn(c.Path, c.Old)
	if err != nil {
		m = nil
	}
	for n := range m {
		if _, had := r.named[c.Path][n]; !had {
			r.index[n] = append(r.index[n], c.Path)
		}
	}
	r.named[c.Path] = m
	var again []*Change
	for _, d := range r.changes {
		if d.Refused != "" || d == c {
			continue
		}
		for _, n := range d.Gone {
			if _, ok := m[n]; ok {
				again = append(again, d)
				break
			}
		}
	}
	return again
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
