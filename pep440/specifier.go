package pep440

import (
	"fmt"
	"regexp"
	"strings"
)

// Specifier is one clause such as ">=0.3.13" or "==0.3.*".
type Specifier struct {
	Op       string
	Raw      string // the version text as written
	Version  Version
	Wildcard bool // ==V.* or !=V.*
}

var clauseRe = regexp.MustCompile(`^(===|~=|==|!=|<=|>=|<|>)(\S+)$`)

// ParseSpecifier reads one clause, checking what PEP 440 allows each
// operator: wildcards only with == and !=, local labels only with ==, != and
// ===, at least two release segments with ~=.
func ParseSpecifier(s string) (Specifier, error) {
	// Python's white space around the clause and after the operator.
	t := trimPySpace(s)
	if op := opRe.FindString(t); op != "" {
		t = op + trimPySpace(t[len(op):])
	}
	m := clauseRe.FindStringSubmatch(t)
	if m == nil || strings.IndexFunc(m[2], isPySpace) >= 0 {
		return Specifier{}, fmt.Errorf("invalid specifier %q", s)
	}
	sp := Specifier{Op: m[1], Raw: m[2]}
	if sp.Op == "===" {
		// Arbitrary equality compares strings; it need not be a version.
		if v, err := Parse(sp.Raw); err == nil {
			sp.Version = v
		}
		return sp, nil
	}
	text := sp.Raw
	if strings.HasSuffix(text, ".*") {
		if sp.Op != "==" && sp.Op != "!=" {
			return Specifier{}, fmt.Errorf("invalid specifier %q: a .* wildcard goes only with == and !=", s)
		}
		sp.Wildcard = true
		text = strings.TrimSuffix(text, ".*")
	}
	v, err := Parse(text)
	if err != nil {
		return Specifier{}, fmt.Errorf("invalid specifier %q: %w", s, err)
	}
	if sp.Wildcard && (v.PreL != "" || v.Post >= 0 || v.Dev >= 0) {
		return Specifier{}, fmt.Errorf("invalid specifier %q: a .* wildcard follows release segments only", s)
	}
	if len(v.Local) > 0 && sp.Op != "==" && sp.Op != "!=" {
		return Specifier{}, fmt.Errorf("invalid specifier %q: a local version label goes only with ==, != and ===", s)
	}
	if sp.Wildcard && len(v.Local) > 0 {
		return Specifier{}, fmt.Errorf("invalid specifier %q: a wildcard cannot have a local label", s)
	}
	if sp.Op == "~=" && len(v.Release) < 2 {
		return Specifier{}, fmt.Errorf("invalid specifier %q: ~= needs at least two release segments", s)
	}
	sp.Version = v
	return sp, nil
}

var opRe = regexp.MustCompile(`^(===|~=|==|!=|<=|>=|<|>)`)

func (s Specifier) String() string { return s.Op + s.Raw }

// Contains reports whether v satisfies the clause, pre-releases aside.
func (s Specifier) Contains(v Version) bool {
	switch s.Op {
	case "===":
		// The candidate as written: "1.01" is not ===1.1.
		raw := v.Raw
		if raw == "" {
			raw = v.String()
		}
		return strings.EqualFold(s.Raw, raw)
	case "==":
		return s.equal(v)
	case "!=":
		return !s.equal(v)
	case "~=":
		prefix := s.Version.Release[:len(s.Version.Release)-1]
		return Compare(v.Public(), s.Version) >= 0 && prefixMatch(v, Version{Epoch: s.Version.Epoch, Release: prefix, Post: -1, Dev: -1})
	case "<=":
		return Compare(v.Public(), s.Version) <= 0
	case ">=":
		return Compare(v.Public(), s.Version) >= 0
	case "<":
		if Compare(v.Public(), s.Version) >= 0 {
			return false
		}
		// <V excludes pre-releases of V itself unless V is one: 1.0a1
		// for <1.0, 1.0.post1.dev0 for <1.0.post1 (but not 1.0a1 for
		// <1.0.post1, which is a pre-release of 1.0: packaging 22+).
		if !s.Version.IsPrerelease() && v.IsPrerelease() && Compare(v.final(), s.Version) == 0 {
			return false
		}
		return true
	case ">":
		if Compare(v.Public(), s.Version) <= 0 {
			return false
		}
		// >V excludes post-releases of V unless V is one (1.0.post0 for
		// >1.0, but not for >1.0.dev1: packaging 22+), and V's local
		// versions.
		if !s.Version.IsPostrelease() && v.IsPostrelease() && Compare(v.unposted(), s.Version) == 0 {
			return false
		}
		if len(v.Local) > 0 && Compare(v.Public(), s.Version) == 0 {
			return false
		}
		return true
	}
	return false
}

func (s Specifier) equal(v Version) bool {
	if s.Wildcard {
		return prefixMatch(v, s.Version)
	}
	if len(s.Version.Local) == 0 {
		v = v.Public() // a candidate's local label is ignored
	}
	return Compare(v, s.Version) == 0
}

// prefixMatch is ==P.*: the candidate's public version, its release padded
// with zeros, starts with P's segments (P may carry pre/post/dev parts,
// which must then match too).
func prefixMatch(v, p Version) bool {
	if v.Epoch != p.Epoch {
		return false
	}
	rel := v.Release
	for len(rel) < len(p.Release) {
		rel = append(rel[:len(rel):len(rel)], 0)
	}
	for i, r := range p.Release {
		if rel[i] != r {
			return false
		}
	}
	if p.PreL == "" && p.Post < 0 && p.Dev < 0 {
		return true
	}
	if len(v.Release) > len(p.Release) && cmpRelease(v.Release[len(p.Release):], nil) != 0 {
		return false
	}
	q := v.Public()
	q.Release = p.Release
	if p.Dev < 0 {
		q.Dev = -1
		if p.Post < 0 {
			q.Post = -1
		}
	}
	return q.PreL == p.PreL && q.PreN == p.PreN && q.Post == p.Post && q.Dev == p.Dev
}

// Set is a comma-separated specifier set; empty admits every version.
type Set struct {
	Specs []Specifier
	// Prereleases: nil follows pip's default (pre-releases are admitted only
	// when a clause names one); true or false forces it.
	Prereleases *bool
}

// ParseSet reads "a, b, c" (empty is allowed: anything goes).
func ParseSet(s string) (Set, error) {
	var set Set
	if strings.TrimSpace(s) == "" {
		return set, nil
	}
	for _, part := range strings.Split(s, ",") {
		sp, err := ParseSpecifier(part)
		if err != nil {
			return Set{}, err
		}
		set.Specs = append(set.Specs, sp)
	}
	return set, nil
}

func (s Set) String() string {
	parts := make([]string, len(s.Specs))
	for i, sp := range s.Specs {
		parts[i] = sp.String()
	}
	return strings.Join(parts, ",")
}

// PrereleaseRule says which clauses, naming a pre-release, let a set admit
// pre-releases. pip 23 (its vendored packaging 21.3) and packaging 22+
// (vendored by pip 24.1 and later) differ on < and >.
type PrereleaseRule int

const (
	// Packaging22 is packaging 22+ and pip 24.1+: every clause but !=
	// (==, ===, ~=, >=, <=, >, <). The default: a pin is reported when
	// either pip would install a version below the minimum.
	Packaging22 PrereleaseRule = iota
	// Pip23 is pip 23 (packaging 21.3): ==, ===, ~=, >=, <= only.
	Pip23
)

// AllowsPrereleases is the default rule (Packaging22).
func (s Set) AllowsPrereleases() bool { return s.AllowsPrereleasesBy(Packaging22) }

// AllowsPrereleasesBy reports whether the set admits pre-releases: forced
// by Prereleases, else when one of its clauses names a pre-release
// (>=1.0rc1, ==2.0b1, ~=1.0a1, ===1.0a1, and by Packaging22 >1.0a1, <2.0b1).
func (s Set) AllowsPrereleasesBy(rule PrereleaseRule) bool {
	if s.Prereleases != nil {
		return *s.Prereleases
	}
	for _, sp := range s.Specs {
		switch {
		case sp.Op == "!=":
		case sp.Op == "===" && sp.Version.Release == nil: // ===foobar names no version
		case rule == Pip23 && (sp.Op == "<" || sp.Op == ">"):
		case sp.Version.IsPrerelease():
			return true
		}
	}
	return false
}

// ContainsBy is Contains under a pre-release rule.
func (s Set) ContainsBy(v Version, rule PrereleaseRule) bool {
	if v.IsPrerelease() && !s.AllowsPrereleasesBy(rule) {
		return false
	}
	for _, sp := range s.Specs {
		if !sp.Contains(v) {
			return false
		}
	}
	return true
}

// Contains reports whether v satisfies every clause, with the set's
// pre-release handling.
func (s Set) Contains(v Version) bool { return s.ContainsBy(v, Packaging22) }

// AdmitsBelow reports whether some version lower than min satisfies the set,
// and returns one. The search is exact over the boundaries that matter: a set
// of clauses is a union of intervals and points whose ends are the clauses'
// versions, so probing each boundary, just above it, and just below it (and
// the bottom of the version space) finds a member of every non-empty region.
func (s Set) AdmitsBelow(min Version) (Version, bool) {
	bounds := []Version{min, MustParse("0")}
	for _, sp := range s.Specs {
		if sp.Op == "===" {
			if sp.Version.Release != nil {
				bounds = append(bounds, sp.Version)
			}
			continue
		}
		bounds = append(bounds, sp.Version)
		if sp.Op == "~=" {
			bounds = append(bounds, Version{Epoch: sp.Version.Epoch, Release: sp.Version.Release[:len(sp.Version.Release)-1], Post: -1, Dev: -1})
		}
	}
	var cands []Version
	for _, b := range bounds {
		cands = append(cands, neighbours(b)...)
	}
	// Of the witnesses, report the one a reader grasps best: a final
	// release before a pre-release, then the shortest.
	var best Version
	found := false
	for _, c := range cands {
		if Compare(c, min) < 0 && s.Contains(c) && (!found || simpler(c, best)) {
			best, found = c, true
		}
	}
	return best, found
}

func simpler(a, b Version) bool {
	if a.IsPrerelease() != b.IsPrerelease() {
		return !a.IsPrerelease()
	}
	if la, lb := len(a.String()), len(b.String()); la != lb {
		return la < lb
	}
	return Compare(a, b) > 0
}

// neighbours are versions at, just above and just below b.
func neighbours(b Version) []Version {
	base := b.Public()
	rel := append([]int(nil), base.Release...)
	mk := func(release []int, preL string, preN, post, dev int) Version {
		return Version{Epoch: base.Epoch, Release: release, PreL: preL, PreN: preN, Post: post, Dev: dev}
	}
	out := []Version{
		b,
		base,
		mk(rel, "", 0, -1, 0),    // b.dev0, below b
		mk(rel, "a", 0, -1, 0),   // b.a0.dev0
		mk(rel, "rc", 0, -1, -1), // brc0
		mk(rel, "", 0, 0, -1),    // b.post0, above b
		mk(rel, "", 0, 0, 0),     // b.post0.dev0
		mk(append(append([]int(nil), rel...), 0, 1), "", 0, -1, -1), // b.0.1: just above, final
		mk(append(append([]int(nil), rel...), 1), "", 0, -1, -1),    // b.1
	}
	if base.PreL != "" || base.Post >= 0 || base.Dev >= 0 {
		out = append(out, mk(rel, "", 0, -1, -1)) // the final of a pre/post/dev boundary
	}
	// Just below b among finals: decrement the last non-zero segment and go
	// high below it (1.2.0 -> 1.1.999999).
	for i := len(rel) - 1; i >= 0; i-- {
		if rel[i] > 0 {
			lower := append([]int(nil), rel[:i+1]...)
			lower[i]--
			lower = append(lower, 999999)
			out = append(out, mk(lower, "", 0, -1, -1))
			break
		}
	}
	return out
}

// containsString is Contains for a candidate that is no PEP 440 version
// ("foobar"): only === clauses can admit it, comparing strings without
// regard to case.
func (s Set) containsString(v string) bool {
	if len(s.Specs) == 0 {
		return true // no clause to refuse it
	}
	for _, sp := range s.Specs {
		if sp.Op != "===" || !strings.EqualFold(sp.Raw, v) {
			return false
		}
	}
	return true
}
