package gitsafe

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1" // git names objects by SHA-1: this checks those names
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// A commit's name is the hash of its text, which names its tree by hash,
// and so on down to each file: what is read of a commit through these
// names, each hashed again here, is what the commit holds, whatever the
// object store says. .git is the pull request's (a restored cache, an
// earlier step): a loose object written under the base commit's name, or
// a pack rewritten, must make --config-from-rev fail, not read the pull
// request's own configuration as the base's. git does not check the
// hash when it reads an object for cat-file or ls-tree.

// Bounds of what one commit or tree object may be: real ones are some
// hundreds of bytes and some hundred kilobytes (a directory of thousands
// of files).
const (
	commitMax = 1 << 20
	treeMax   = 16 << 20
)

// AlteredError is an object whose content does not hash to its name.
type AlteredError struct{ OID, Type string }

func (e *AlteredError) Error() string {
	return fmt.Sprintf("git object %s is not the %s its name says (the repository's object store was altered): not read", e.OID, e.Type)
}

// verified holds commits and trees already read and hashed (name ->
// content): the configuration, baseline, data and policies of one commit
// share its first trees.
var verified sync.Map

// entry is one line of a tree: a mode as git canonicalizes it, a name
// and the object's hex name.
type entry struct {
	mode uint32
	name string
	oid  string
}

const (
	modeTree    = 0o040000
	modeFile    = 0o100644
	modeExec    = 0o100755
	modeSymlink = 0o120000
	modeGitlink = 0o160000
)

func (e entry) regular() bool { return e.mode == modeFile || e.mode == modeExec }

// objects reads objects of the repository at dir through one
// "git cat-file --batch", started when an object is not in verified.
// Close it when done.
type objects struct {
	ctx    context.Context
	dir    string
	run    context.Context // the git process's, with its time limit
	cancel context.CancelFunc
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr bytes.Buffer
	// broken is the error of a read that stopped half way: the stream is
	// not in step any more, and git has been stopped.
	broken error
}

func newObjects(ctx context.Context, dir string) *objects { return &objects{ctx: ctx, dir: dir} }

func (o *objects) start() error {
	filters, err := cachedFilterFlags(o.ctx, o.dir)
	if err != nil {
		return err
	}
	o.run, o.cancel = context.WithTimeout(o.ctx, Timeout)
	cmd := command(o.run, o.dir, append(filters[:len(filters):len(filters)], "cat-file", "--batch")...)
	cmd.Stderr = &o.stderr
	in, err := cmd.StdinPipe()
	if err == nil {
		var out io.ReadCloser
		if out, err = cmd.StdoutPipe(); err == nil {
			o.out = bufio.NewReader(out)
			err = cmd.Start()
		}
	}
	if err != nil {
		o.cancel()
		return err
	}
	o.cmd, o.in = cmd, in
	return nil
}

// Close ends the git process, if one is running.
func (o *objects) Close() {
	if o.cmd == nil || o.broken != nil {
		return
	}
	_ = o.in.Close() // the end of its input ends cat-file --batch
	_ = o.cmd.Wait()
	o.cancel()
}

// read returns the object oid, which must be of type typ and at most
// limit bytes (an *ErrTooLarge past it), once its content hashes to oid.
func (o *objects) read(oid, typ string, limit int64) ([]byte, error) {
	if typ != "blob" {
		if b, ok := verified.Load(oid); ok {
			return b.([]byte), nil
		}
	}
	if o.broken != nil {
		return nil, o.broken
	}
	if o.cmd == nil {
		if err := o.start(); err != nil {
			return nil, err
		}
	}
	b, err := o.fetch(oid, typ, limit)
	if err != nil {
		o.stop(err)
		return nil, o.broken
	}
	if err := check(oid, typ, b); err != nil {
		return nil, err
	}
	if typ != "blob" {
		verified.Store(oid, b)
	}
	return b, nil
}

// fetch asks for one object and reads its header and content. An error
// of reading or writing is *Error (stop gives it git's words).
func (o *objects) fetch(oid, typ string, limit int64) ([]byte, error) {
	if _, err := io.WriteString(o.in, oid+"\n"); err != nil {
		return nil, &Error{Args: []string{"cat-file"}, Err: err}
	}
	header, err := o.out.ReadString('\n')
	if err != nil {
		return nil, &Error{Args: []string{"cat-file"}, Err: err}
	}
	f := strings.Fields(header)
	switch {
	case len(f) == 2 && f[0] == oid && f[1] == "missing":
		// Not fs.ErrNotExist: a file the commit has whose object is gone
		// is not a file the commit lacks (which would let the working
		// tree's or the default configuration stand in).
		return nil, fmt.Errorf("git object %s is not in this clone", oid)
	case len(f) != 3 || f[0] != oid:
		return nil, fmt.Errorf("git cat-file answered %q for %s", strings.TrimSpace(header), oid)
	case f[1] != typ:
		return nil, fmt.Errorf("git object %s is a %s, not a %s", oid, f[1], typ)
	}
	size, err := strconv.ParseInt(f[2], 10, 64)
	switch {
	case err != nil || size < 0:
		return nil, fmt.Errorf("git cat-file answered %q for %s", strings.TrimSpace(header), oid)
	case limit > 0 && size > limit:
		return nil, &ErrTooLarge{Size: size, Limit: limit}
	}
	b := make([]byte, size+1)
	if _, err := io.ReadFull(o.out, b); err != nil {
		return nil, &Error{Args: []string{"cat-file"}, Err: err}
	}
	return b[:size], nil
}

// stop ends git after a read that failed, and keeps the error: git's own
// words when it said any, the time limit when that passed.
func (o *objects) stop(err error) {
	timedOut := errors.Is(o.run.Err(), context.DeadlineExceeded)
	o.cancel()
	_ = o.cmd.Wait()
	var ge *Error
	switch {
	case timedOut:
		err = ErrTimeout
	case errors.As(err, &ge) && strings.TrimSpace(o.stderr.String()) != "":
		ge.Stderr = o.stderr.String()
	}
	o.broken = err
}

// check hashes an object as git names it: "TYPE SIZE\0CONTENT", SHA-1 or,
// in a SHA-256 repository (64-digit names), SHA-256.
func check(oid, typ string, content []byte) error {
	var h hash.Hash
	switch len(oid) {
	case 40:
		h = sha1.New()
	case 64:
		h = sha256.New()
	default:
		return fmt.Errorf("not a git object name: %q", oid)
	}
	fmt.Fprintf(h, "%s %d\x00", typ, len(content))
	h.Write(content)
	if hex.EncodeToString(h.Sum(nil)) != oid {
		return &AlteredError{OID: oid, Type: typ}
	}
	return nil
}

// commitTree is the tree a commit's text names.
func commitTree(oid string, body []byte) (string, error) {
	line, _, _ := bytes.Cut(body, []byte{'\n'})
	tree, ok := bytes.CutPrefix(line, []byte("tree "))
	if !ok || len(tree) != len(oid) {
		return "", fmt.Errorf("git object %s is not a commit git can read", oid)
	}
	return string(tree), nil
}

// parseTree reads a tree object: entries "MODE NAME\0" followed by the
// raw name of the object (half as many bytes as its hex name).
func parseTree(oid string, body []byte) ([]entry, error) {
	raw := len(oid) / 2
	bad := fmt.Errorf("git object %s is not a tree git can read", oid)
	var out []entry
	for len(body) > 0 {
		sp := bytes.IndexByte(body, ' ')
		nul := bytes.IndexByte(body, 0)
		if sp <= 0 || nul <= sp+1 || len(body) < nul+1+raw {
			return nil, bad
		}
		mode, err := strconv.ParseUint(string(body[:sp]), 8, 32)
		if err != nil {
			return nil, bad
		}
		out = append(out, entry{mode: canonical(uint32(mode)), name: string(body[sp+1 : nul]), oid: hex.EncodeToString(body[nul+1 : nul+1+raw])})
		body = body[nul+1+raw:]
	}
	return out, nil
}

// canonical is a mode as git reads it: an old repository's 100664 is a
// plain file.
func canonical(mode uint32) uint32 {
	switch mode & 0o170000 {
	case 0o100000:
		if mode&0o100 != 0 {
			return modeExec
		}
		return modeFile
	case modeTree, modeSymlink, modeGitlink:
		return mode & 0o170000
	}
	return mode
}

// tree reads the tree oid's entries.
func (o *objects) tree(oid string) ([]entry, error) {
	b, err := o.read(oid, "tree", treeMax)
	if err != nil {
		return nil, err
	}
	return parseTree(oid, b)
}

// lookup finds the entry of the slash-separated path p (from the top of
// the repository; "" is the commit's tree) at commit.
func (o *objects) lookup(commit, p string) (entry, error) {
	body, err := o.read(commit, "commit", commitMax)
	if err != nil {
		return entry{}, err
	}
	root, err := commitTree(commit, body)
	if err != nil {
		return entry{}, err
	}
	cur := entry{mode: modeTree, oid: root}
	for _, part := range strings.Split(p, "/") {
		if part == "" || part == "." {
			continue
		}
		if cur.mode != modeTree {
			return entry{}, fs.ErrNotExist
		}
		es, err := o.tree(cur.oid)
		if err != nil {
			return entry{}, err
		}
		found := false
		for _, e := range es {
			if e.name == part {
				cur, found = e, true
				break
			}
		}
		if !found {
			return entry{}, fs.ErrNotExist
		}
	}
	return cur, nil
}
