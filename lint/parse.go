package lint

import (
	"errors"
	"fmt"
	"github.com/buildgate/buildgate/lint/process"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/buildgate/buildgate/discover"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/loader"
)

// DefaultMaxFileSize is the size past which a file is not read (a BG001
// finding instead).
const DefaultMaxFileSize = loader.DefaultMaxFileSize

// PathError is a path given to a run that cannot be linted.
type PathError = discover.PathError

// ReadError is a file that could not be read.
type ReadError = loader.ReadError

// SetDebug makes a loader panic print its stack to w (--debug).
func SetDebug(w io.Writer) { loader.Debug = w }

// ErrUnknownKind is a kind name buildgate parse does not know.
var ErrUnknownKind = errors.New("unknown kind")

// ParseOptions say how buildgate parse reads its files.
type ParseOptions struct {
	// Kind, when set, is the kind of every file: dockerfile, hcl,
	// requirements, shell or pipeline.
	Kind        string
	MaxFileSize int64
}

// Parse returns the documents of each file (and the requirements files
// each includes) as the JSON array policies see, and why each file that
// could not be parsed was not; err is for the run itself (an unknown
// kind).
func Parse(args []string, o ParseOptions) ([]byte, []string, error) {
	var forced loader.Kind
	if o.Kind != "" {
		k, ok := loader.ParseKind(o.Kind)
		if !ok {
			return nil, nil, fmt.Errorf("%w %q", ErrUnknownKind, o.Kind)
		}
		forced = k
	}
	docs := []loader.Document{}
	var failed []string
	for _, arg := range args {
		d, err := parseOne(arg, forced, o.MaxFileSize)
		if err != nil {
			failed = append(failed, err.Error())
			continue
		}
		docs = append(docs, d...)
	}
	out, err := loader.FormatJSON(docs)
	return out, failed, err
}

func parseOne(arg string, forced loader.Kind, maxSize int64) ([]loader.Document, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read: %v", arg, ErrorText(err))
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory (parse takes files)", arg)
	}
	root := RepoRoot(filepath.Dir(abs))
	if root == "" {
		// Outside a repository the working directory is the root when it
		// holds the file, so that paths read as the user wrote them.
		root = filepath.Dir(abs)
		if wd, err := os.Getwd(); err == nil {
			if r, err := filepath.Rel(wd, abs); err == nil && !strings.HasPrefix(r, "..") {
				root = wd
			}
		}
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	rel = filepath.ToSlash(rel)
	kind := forced
	if kind == "" {
		k, ok := loader.DetectName(rel)
		if !ok && loader.NeedsContent(rel) {
			kk, found, err := discover.Detect(root, rel)
			if err != nil {
				return nil, fmt.Errorf("%s: cannot read: %v", arg, safefile.Describe(err))
			}
			k, ok = kk, found
		}
		if !ok {
			return nil, fmt.Errorf("%s: cannot tell the file's kind from its name or shebang; pass --kind", arg)
		}
		kind = k
	}
	l, err := loader.NewLoader(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", arg, ErrorText(err))
	}
	defer func() { _ = l.Close() }()
	l.MaxFileSize = maxSize
	docs, err := l.Load(rel, kind)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read: %v", arg, ErrorText(err))
	}
	return docs, nil
}

// RepoRoot is the nearest directory at or above dir holding .git, or "".
func RepoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// ErrorText drops the operation and path that os errors repeat.
func ErrorText(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var re *loader.ReadError
	if errors.As(err, &re) {
		return ErrorText(re.Err)
	}
	return err.Error()
}

// CleanPath reports whether p is a path a report may carry: a clean,
// slash-separated path inside the root (process.CleanPath), for the CLI's
// paths of its own (`lint - --stdin-filename`).
func CleanPath(p string) bool { return process.CleanPath(p) }
