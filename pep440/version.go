// Package pep440 implements Python's version scheme (PEP 440): parsing with
// normalisation, ordering, and version specifiers with pip's pre-release
// handling. It is written here because the Go packages available get `~=`
// with pre-releases, local-label normalisation and the default exclusion of
// pre-releases wrong.
package pep440

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Version is a parsed PEP 440 version.
type Version struct {
	Epoch   int
	Release []int
	// Pre is the pre-release phase ("a", "b", "rc") and number; PreL is ""
	// when there is none.
	PreL string
	PreN int
	// Post and Dev are -1 when absent.
	Post  int
	Dev   int
	Local []string // lower case, split on . _ -
	// Raw is the text parsed, white space trimmed: === compares it (a
	// candidate "1.01" is not ===1.1, though they are equal versions).
	Raw string
}

// The canonical regular expression of PEP 440's appendix B.
var versionRe = regexp.MustCompile(`^\s*v?` +
	`(?:(?P<epoch>[0-9]+)!)?` +
	`(?P<release>[0-9]+(?:\.[0-9]+)*)` +
	`(?P<pre>[-_\.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_\.]?(?P<pre_n>[0-9]+)?)?` +
	`(?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[-_\.]?(?P<post_l>post|rev|r)[-_\.]?(?P<post_n2>[0-9]+)?))?` +
	`(?P<dev>[-_\.]?(?P<dev_l>dev)[-_\.]?(?P<dev_n>[0-9]+)?)?` +
	`(?:\+(?P<local>[a-z0-9]+(?:[-_\.][a-z0-9]+)*))?\s*$`)

var localSep = regexp.MustCompile(`[-_.]`)

// Parse reads a version, accepting every spelling PEP 440 normalises
// (case, "alpha" for "a", "-1" for ".post1", a leading "v", ...).
func Parse(s string) (Version, error) {
	raw := trimPySpace(s)
	// Only ASCII spells a version, as packaging 26's parser has it: Go's
	// (and Python's) case folding would read "1.0+İ" as "1.0+i".
	for i := 0; i < len(raw); i++ {
		if raw[i] >= 0x80 {
			return Version{}, fmt.Errorf("invalid version %q: only ASCII letters and digits spell a version", s)
		}
	}
	m := versionRe.FindStringSubmatch(strings.ToLower(raw))
	if m == nil {
		return Version{}, fmt.Errorf("invalid version %q", s)
	}
	g := func(name string) string { return m[versionRe.SubexpIndex(name)] }
	v := Version{Post: -1, Dev: -1, Raw: raw}
	var err error
	num := func(s string) int {
		if s == "" {
			return 0
		}
		n, e := strconv.Atoi(s)
		if e != nil {
			err = fmt.Errorf("invalid version %q: number too large", s)
		}
		return n
	}
	v.Epoch = num(g("epoch"))
	for _, p := range strings.Split(g("release"), ".") {
		v.Release = append(v.Release, num(p))
	}
	if l := g("pre_l"); l != "" {
		switch l {
		case "alpha", "a":
			v.PreL = "a"
		case "beta", "b":
			v.PreL = "b"
		default:
			v.PreL = "rc"
		}
		v.PreN = num(g("pre_n"))
	}
	if g("post") != "" {
		v.Post = num(g("post_n1") + g("post_n2"))
	}
	if g("dev") != "" {
		v.Dev = num(g("dev_n"))
	}
	if l := g("local"); l != "" {
		v.Local = localSep.Split(l, -1)
	}
	return v, err
}

// MustParse is Parse for versions known to be valid.
func MustParse(s string) Version {
	v, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}

// String is the normalised form.
func (v Version) String() string {
	var b strings.Builder
	if v.Epoch != 0 {
		fmt.Fprintf(&b, "%d!", v.Epoch)
	}
	b.WriteString(v.releaseString())
	if v.PreL != "" {
		fmt.Fprintf(&b, "%s%d", v.PreL, v.PreN)
	}
	if v.Post >= 0 {
		fmt.Fprintf(&b, ".post%d", v.Post)
	}
	if v.Dev >= 0 {
		fmt.Fprintf(&b, ".dev%d", v.Dev)
	}
	if len(v.Local) > 0 {
		// Numeric parts are numbers: 1.0+007 is 1.0+7.
		parts := make([]string, len(v.Local))
		for i, p := range v.Local {
			if n, ok := numeric(p); ok {
				p = n.String()
			}
			parts[i] = p
		}
		b.WriteString("+" + strings.Join(parts, "."))
	}
	return b.String()
}

// trimPySpace strips what Python's \s matches around a version (packaging
// anchors its pattern with ^\s* and \s*$): Unicode white space, and the
// information separators U+001C-U+001F, which Python counts as space.
func trimPySpace(s string) string { return strings.TrimFunc(s, isPySpace) }

func isPySpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }

func (v Version) releaseString() string {
	parts := make([]string, len(v.Release))
	for i, r := range v.Release {
		parts[i] = strconv.Itoa(r)
	}
	return strings.Join(parts, ".")
}

// IsPrerelease is true for pre-releases and developmental releases.
func (v Version) IsPrerelease() bool { return v.PreL != "" || v.Dev >= 0 }

// IsPostrelease is true for post-releases.
func (v Version) IsPostrelease() bool { return v.Post >= 0 }

// Public is the version without its local label.
func (v Version) Public() Version {
	v.Local = nil
	v.Raw = ""
	return v
}

// Base is epoch and release only.
func (v Version) Base() Version {
	return Version{Epoch: v.Epoch, Release: v.Release, Post: -1, Dev: -1}
}

// final is the release a pre-release leads to: the release segments for
// an alpha, beta or candidate (1.0a1, 2.0a1.post1: 1.0, 2.0), else the
// version without its development part (1.0.post1.dev0: 1.0.post1).
func (v Version) final() Version {
	if v.PreL != "" {
		return Version{Epoch: v.Epoch, Release: v.Release, Post: -1, Dev: -1}
	}
	return Version{Epoch: v.Epoch, Release: v.Release, Post: v.Post, Dev: -1}
}

// unposted is what a post-release follows: the version without its post
// and development parts (1.0.post1, 2.0.post1.dev1: 1.0, 2.0; 1.0a2.post0:
// 1.0a2).
func (v Version) unposted() Version {
	return Version{Epoch: v.Epoch, Release: v.Release, PreL: v.PreL, PreN: v.PreN, Post: -1, Dev: -1}
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpRelease(a, b []int) int {
	n := max(len(a), len(b))
	for i := 0; i < n; i++ {
		var x, y int
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if c := cmpInt(x, y); c != 0 {
			return c
		}
	}
	return 0
}

// preKey orders the pre-release part: a dev release of a final (1.0.dev0)
// sorts before any pre-release of it, a final after all of them.
func preKey(v Version) (int, int) {
	switch {
	case v.PreL == "" && v.Post < 0 && v.Dev >= 0:
		return -1, 0
	case v.PreL == "":
		return 4, 0
	case v.PreL == "a":
		return 1, v.PreN
	case v.PreL == "b":
		return 2, v.PreN
	}
	return 3, v.PreN
}

// Compare orders versions as PEP 440 does: -1, 0 or +1.
func Compare(a, b Version) int {
	if c := cmpInt(a.Epoch, b.Epoch); c != 0 {
		return c
	}
	if c := cmpRelease(a.Release, b.Release); c != 0 {
		return c
	}
	ap, an := preKey(a)
	bp, bn := preKey(b)
	if c := cmpInt(ap, bp); c != 0 {
		return c
	}
	if c := cmpInt(an, bn); c != 0 {
		return c
	}
	if c := cmpInt(a.Post, b.Post); c != 0 { // absent (-1) sorts first
		return c
	}
	// No dev part sorts after any dev part.
	ad, bd := a.Dev, b.Dev
	if ad < 0 {
		ad = int(^uint(0) >> 1)
	}
	if bd < 0 {
		bd = int(^uint(0) >> 1)
	}
	if c := cmpInt(ad, bd); c != 0 {
		return c
	}
	return cmpLocal(a.Local, b.Local)
}

// cmpLocal: no label sorts first; numeric segments compare as numbers and
// sort after alphanumeric ones; a longer label wins a tie.
func cmpLocal(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		an, aNum := numeric(a[i])
		bn, bNum := numeric(b[i])
		switch {
		case aNum && bNum:
			if c := an.Cmp(bn); c != 0 {
				return c
			}
		case aNum:
			return 1
		case bNum:
			return -1
		default:
			if c := strings.Compare(a[i], b[i]); c != 0 {
				return c
			}
		}
	}
	return cmpInt(len(a), len(b))
}

func numeric(s string) (*big.Int, bool) {
	n, ok := new(big.Int).SetString(s, 10)
	return n, ok
}
