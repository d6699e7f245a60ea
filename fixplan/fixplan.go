// Package fixplan plans what buildgate fix does to a tree from a run's
// findings: each file's own edits (pin lines, specifiers) and the removal
// of a source build its findings call for (fix.Dockerfile, fix.HCL, ...),
// refused across files when another file would still name what a removal
// takes away (fix.Resolve). The runner's "fixes" step plans once: buildgate
// fix writes the plan, and the reports offer the removals it makes as
// each finding's fix, so every caller and format gets the same edits.
package fixplan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/buildgate/buildgate/discover"
	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/fix"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/loader"
)

// File is what a fix run does to one file: the text it gets, the
// removal's plan (which findings it answers, which it declines and why),
// or why none of it is made.
type File struct {
	Path     string
	Old, New []byte
	Plan     fix.Plan
	Refused  string // why the file is left as it is, "" when it is fixed
	Skipped  bool   // not read or not a regular file: nothing written
	// Fixables are the file's findings the plan acts on.
	Fixables []finding.Finding
	// Stamp is what the file was when Old was read (fix checks it again
	// before it replaces the file).
	Stamp safefile.Stamp
}

// Fixable reports whether fix may act on a finding: it carries a fix (lint
// kept only fixes inside the build files it loaded), or it is a finding of
// a built-in source-build rule, which a removal may answer (a user rule
// that takes a built-in rule's name does not get buildgate's removals).
// Suppressed findings are not among the findings at all, so they are
// never fixed.
func Fixable(fd finding.Finding, builtin map[string]bool) bool {
	return fd.Path != "" && (fd.Fix != nil || builtin[fd.Rule] && fix.SourceBuildRule(fd.Name))
}

// Builtin are the ids of the built-in pack's rules.
func Builtin(rules []finding.Rule) map[string]bool {
	out := map[string]bool{}
	for _, r := range rules {
		if r.Pack == "" {
			out[r.ID] = true
		}
	}
	return out
}

// maxFileSize bounds the files a plan reads: lint's default.
const maxFileSize = loader.DefaultMaxFileSize

// Plan plans the fix of every file with fixable findings, as buildgate
// fix makes it and reports offer it: each file's own edits first, then,
// across files, a removal that another file (as it will be) still names
// is refused (fix.Resolve), looking through the whole tree under root
// whatever the run's paths and excludes (searchFiles). suppressed are the
// run's suppressed findings: an edit that would take one away refuses its
// file's fix.
func Plan(ctx context.Context, root string, fds, suppressed []finding.Finding, opt fix.Options) ([]*File, error) {
	byPath, sup := byFile(fds), byFile(suppressed)
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer func() { _ = r.Close() }()
	return plan(ctx, root, r, byPath, sup, opt)
}

func byFile(fds []finding.Finding) map[string][]finding.Finding {
	out := map[string][]finding.Finding{}
	for _, fd := range fds {
		out[fd.Path] = append(out[fd.Path], fd)
	}
	return out
}

// where is a finding's place, path:line:col.
func where(f finding.Finding) string {
	if f.Pos.Line == 0 {
		return f.Path
	}
	return fmt.Sprintf("%s:%d:%d", f.Path, f.Pos.Line, f.Pos.Column)
}

func plan(ctx context.Context, root string, r *os.Root, byPath, suppressed map[string][]finding.Finding, opt fix.Options) ([]*File, error) {
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []*File
	var changes []*fix.Change
	byChange := map[*fix.Change]*File{}
	for _, p := range paths {
		ff := &File{Path: p, Fixables: byPath[p]}
		out = append(out, ff)
		if safefile.ReachesGit(root, p) {
			// lint keeps no fix there; this holds whatever the findings say.
			ff.Refused, ff.Skipped = "it is inside .git (git's own files): never read nor written", true
			continue
		}
		if st, err := r.Lstat(filepath.FromSlash(p)); err == nil && !st.Mode().IsRegular() {
			ff.Refused, ff.Skipped = "not a regular file (a link is never written through; fix its target)", true
			continue
		} else if err == nil && st.Mode().Perm()&0o200 == 0 && opt.Writing {
			// A read-only file says: do not change me (generated,
			// vendored, locked by its owner).
			ff.Refused = fmt.Sprintf("it is read-only (mode %04o); make it writable to fix it", st.Mode().Perm())
			continue
		}
		old, stamp, err := safefile.InStamped(r, p, maxFileSize)
		ff.Stamp = stamp
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			ff.Refused, ff.Skipped = safefile.Describe(err), true
			continue
		}
		ff.Old = old
		edits, bad := fileEdits(ff, opt)
		if bad == "" {
			bad = coversSuppressed(old, edits, suppressed[p])
		}
		if bad != "" {
			ff.Refused = bad
			continue
		}
		updated, err := fix.ApplyWithin(old, edits, maxFileSize)
		if err != nil {
			ff.Refused = err.Error()
			continue
		}
		ff.New = updated
		c := &fix.Change{Path: p, Old: old, New: updated, Edits: edits, Gone: ff.Plan.Gone}
		changes = append(changes, c)
		byChange[c] = ff
	}
	gone := false
	for _, c := range changes {
		gone = gone || len(c.Gone) > 0
	}
	if gone {
		files, err := searchFiles(root, opt.Kinds)
		if err != nil {
			return nil, err
		}
		err = fix.Resolve(ctx, changes, files, func(p string) ([]byte, error) {
			b, err := safefile.In(r, p, maxFileSize)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				if !strictlySearched(p) {
					return nil, fs.ErrNotExist
				}
				return nil, errors.New(safefile.Describe(err))
			}
			return b, err
		})
		if err != nil {
			return nil, err
		}
	}
	for _, c := range changes {
		if c.Refused != "" {
			byChange[c].Refused = c.Refused
		}
	}
	return out, nil
}

// searchFiles are the files a removal must not leave naming what it
// removed: every build file discovery finds under root, with no exclude
// and whatever paths the run was given (a script the configuration
// excludes still runs), and every YAML and JSON file anywhere in the tree
// (compose files, whatever their name, bake JSON, CI pipelines). A link
// to a file inside the root is searched as its target, which a fix of the
// same run may change.
func searchFiles(root string, kinds map[string]loader.Kind) ([]string, error) {
	found, err := discover.Find(root, []string{root}, discover.Options{})
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range found {
		out = append(out, f.Path)
		seen[f.Path] = true
	}
	// The files the run typed (`kinds:`, a file named on the command
	// line) are build files whatever their names.
	typed := make([]string, 0, len(kinds))
	for p := range kinds {
		if !seen[p] {
			typed = append(typed, p)
		}
	}
	sort.Strings(typed)
	out = append(out, typed...)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, walkErr error) error {
		switch {
		case walkErr != nil && d != nil && d.IsDir():
			// An unreadable directory may hold a compose file: named as
			// one, it cannot be read and every removal is refused.
			if rel, err := filepath.Rel(root, p); err == nil {
				out = append(out, filepath.ToSlash(filepath.Join(rel, fix.BakeLoads[0])))
			}
			return fs.SkipDir
		case walkErr != nil:
			return walkErr
		}
		if d.IsDir() && p != root && discover.Skipped(d.Name()) {
			return fs.SkipDir
		}
		if !d.IsDir() && (fix.BakeLoad(d.Name()) || configText(d.Name())) {
			if rel, err := filepath.Rel(root, p); err == nil {
				out = append(out, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	realRoot, rerr := filepath.EvalSymlinks(root)
	if rerr != nil {
		return out, errors.Join(err, rerr)
	}
	kept := out[:0]
	for _, p := range out {
		if p = linkedInRoot(root, realRoot, p); !safefile.ReachesGit(root, p) {
			kept = append(kept, p)
		}
	}
	return kept, err
}

// configText reports whether a file name is YAML or JSON: compose files
// under any name, bake JSON, CI pipelines may name a stage or a target.
func configText(name string) bool {
	for _, ext := range []string{".yml", ".yaml", ".json"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// strictlySearched reports whether a file that cannot be read refuses
// every removal: a build file or one bake or compose loads by name. Other
// YAML and JSON files too large to read are passed over (a data file of
// a repository must not block every fix; docs/fix.md).
func strictlySearched(p string) bool {
	base := path.Base(p)
	return !configText(base) || fix.BakeLoad(base) || strings.Contains(base, "compose") || strings.HasPrefix(base, "docker-bake")
}

// linkedInRoot is the path a link inside the root leads to, when it is a
// file inside the root; the path itself otherwise (a link out of the root
// cannot be read, which refuses the removals it could stop).
func linkedInRoot(root, realRoot, rel string) string {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	st, err := os.Lstat(abs)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return rel
	}
	target, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return rel
	}
	r, err := filepath.Rel(realRoot, target)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return rel
	}
	return filepath.ToSlash(r)
}

// fileEdits are the edits of one file: the findings' own fixes, and the
// removal its source-build findings call for where the file's kind has a
// planner (whose plan is kept in ff.Plan). A fix that does not fit the
// file makes the whole file's fix fail, with the reason.
func fileEdits(ff *File, opt fix.Options) ([]fix.Edit, string) {
	var edits []fix.Edit
	var owners []finding.Finding // the finding of each of edits
	var removals []finding.Finding
	var unsafe []fix.Declined
	for _, fd := range ff.Fixables {
		if fd.Fix == nil {
			removals = append(removals, fd)
			continue
		}
		if fd.Fix.Unsafe && !opt.Unsafe {
			unsafe = append(unsafe, fix.Declined{Finding: fd, Reason: "unsafe fix: " + fd.Fix.Description + " changes more than this finding (" + unsafeWhy(fd) + "); `buildgate fix --unsafe-fixes` applies it", Unsafe: true})
			continue
		}
		e, err := fix.For(ff.Old, fd.Fix.Pos, fd.Fix.Replacement)
		if err != nil {
			return nil, fmt.Sprintf("the fix of %s %s does not fit the file: %v", fd.Rule, where(fd), err)
		}
		edits = append(edits, e)
		owners = append(owners, fd)
	}
	if len(removals) == 0 || opt.OwnOnly {
		for _, fd := range removals {
			unsafe = append(unsafe, fix.Declined{Finding: fd, Reason: "found after the removal of the source build; run buildgate fix again to look at it"})
		}
		ff.Plan.Declined = append(ff.Plan.Declined, unsafe...)
		return edits, ""
	}
	opt.OwnEdits = edits
	plan, ok := planRemoval(ff.Path, ff.Old, removals, opt)
	if !ok {
		for _, fd := range removals {
			plan.Declined = append(plan.Declined, fix.Declined{Finding: fd, Reason: "no removal for this kind of file"})
		}
	}
	plan.Declined = append(plan.Declined, unsafe...)
	// A finding's own edit inside what the removal takes out (the pin
	// BG201 adds to the install command of a RUN that goes with the
	// source build's switch): applying both would lose the pin, and the
	// image would install no wheel at all, with nothing left to say so.
	for i, e := range edits {
		if r, ok := fix.Covering(plan.Edits, e.Start); ok && e.Start > r.Start && e.End <= r.End {
			return nil, fmt.Sprintf("the fix of %s %s is inside what the source build's removal takes out (line %d); the image would install nothing; fix the file by hand", owners[i].Rule, where(owners[i]), fix.PosOf(ff.Old, r.Start, r.End).Line)
		}
	}
	kind, _ := opt.KindOf(ff.Path)
	if line := removesInstall(ff.Path, ff.Old, kind, plan.Edits, opt.Packages); line > 0 {
		return nil, fmt.Sprintf("the removal would take away an install of the published wheel (line %d); fix the file by hand", line)
	}
	ff.Plan = plan
	return append(edits, plan.Edits...), ""
}

// removesInstall is the first line a removal deletes that installs one
// of the packages from its index (the pin a fix added to a RUN that a
// later run finds gated on the source build's switch), 0 when none
// does. Installs are what the loader reads of the file's commands (a pip
// or uv requirement named as the package, not a local wheel or a URL),
// not the package's name in any text: a clone's directory
// (`cd bitsandbytes`) installs nothing (issue 32).
func removesInstall(path string, src []byte, kind loader.Kind, edits []fix.Edit, pkgs []string) int {
	want := map[string]bool{}
	for _, p := range pkgs {
		if p != "" {
			want[loader.NormalizeName(p)] = true
		}
	}
	if len(want) == 0 {
		return 0
	}
	for _, s := range scriptsOf(loader.Parse(kind, path, src)) {
		for _, c := range s.Commands {
			if c.Pip == nil || c.Pip.Op == "uninstall" || c.Pip.Op == "download" || c.Pip.Op == "compile" {
				continue
			}
			for _, r := range c.Pip.Requirements {
				if !want[loader.NormalizeName(r.Name)] || r.URL != nil || r.LocalPath != nil {
					continue
				}
				off, _, err := fix.Offsets(src, r.Pos)
				if err != nil {
					continue
				}
				if e, ok := fix.Covering(edits, off); ok && e.Text == "" {
					return fix.PosOf(src, off, off).Line
				}
			}
		}
	}
	return 0
}

// scriptsOf are the shell scripts of a document: a script's own, a
// Dockerfile's RUNs', a pipeline's.
func scriptsOf(doc loader.Document) []*loader.Script {
	var out []*loader.Script
	switch d := doc.(type) {
	case *loader.ShellDocument:
		out = append(out, &d.Script)
	case *loader.DockerfileDocument:
		ins := append([]loader.Instruction(nil), d.Preamble...)
		for _, st := range d.Stages {
			ins = append(ins, st.Instructions...)
		}
		for _, in := range ins {
			if in.Shell != nil {
				out = append(out, in.Shell)
			}
		}
	case *loader.PipelineDocument:
		for i := range d.Scripts {
			out = append(out, &d.Scripts[i].Script)
		}
	}
	return out
}

// unsafeWhy says what an unsafe fix changes beyond its finding, as its
// rule says it.
func unsafeWhy(fd finding.Finding) string {
	if fd.Fix.UnsafeReason != "" {
		return fd.Fix.UnsafeReason
	}
	return "its rule marks it unsafe"
}

// planRemoval plans the removal of the source build from one file, for its
// kind (false when its kind has no planner).
func planRemoval(path string, src []byte, fds []finding.Finding, opt fix.Options) (fix.Plan, bool) {
	kind, _ := opt.KindOf(path)
	switch kind {
	case loader.KindDockerfile:
		return fix.Dockerfile(path, src, fds, opt), true
	case loader.KindHCL:
		return fix.HCL(path, src, fds), true
	case loader.KindShell:
		return fix.Shell(path, src, fds, opt), true
	case loader.KindPipeline:
		return fix.Pipeline(path, src, fds), true
	}
	return fix.Plan{}, false
}

// coversSuppressed says why a file's edits are refused when one removes
// the place of a suppressed finding, "" when none does.
func coversSuppressed(src []byte, edits []fix.Edit, sup []finding.Finding) string {
	for _, fd := range sup {
		off, _, err := fix.Offsets(src, fd.Pos)
		if err != nil {
			continue
		}
		for _, e := range edits {
			if off >= e.Start && off < e.End {
				return fmt.Sprintf("the fix would remove %s, whose %s finding is suppressed; fix the file by hand or lift the suppression", where(fd), fd.Rule)
			}
		}
	}
	return ""
}

// Offer returns the shown findings with the fixes buildgate fix would
// make, and no other (docs/fix.md: a report never offers a fix fix
// refuses). On each source-build finding that fix would remove, the edit
// that removes it (SARIF fixes, reviewdog suggestions and JSON carry it;
// issue 17): the run of lines (or the words) buildgate fix removes around
// the finding, with the comments that head it and a blank line it would
// leave. Findings that one removal answers (a stage and the steps in it)
// carry the same edit. A finding's own fix (a pin rule's, a policy's)
// stays only when fix would apply it: fix leaves a whole file unchanged
// when one of its fixes does not fit it, overlaps another, makes it too
// large or would remove a suppressed finding, and then every finding of
// that file loses its fix, its message saying why (a fix gone without a
// word would look like a rule that offers none).
//
// all are every finding of the run (before the baseline and changed-lines
// filters: fix plans from them all), shown those the report holds. When
// the plan cannot be made (the tree cannot be searched in time), no
// fix is offered.
func Offer(ctx context.Context, root string, rules []finding.Rule, all, shown, suppressed []finding.Finding) []finding.Finding {
	out, _ := OfferCounted(ctx, root, rules, all, shown, suppressed, nil)
	return out
}

// OfferCounted is Offer, and also counts the shown findings whose fix only
// `buildgate fix --unsafe-fixes` makes (lint's "N more with
// --unsafe-fixes").
//
// kinds are the kinds the run gave its files (fix.Options.Kinds).
func OfferCounted(ctx context.Context, root string, rules []finding.Rule, all, shown, suppressed []finding.Finding, kinds map[string]loader.Kind) ([]finding.Finding, int) {
	builtin := Builtin(rules)
	var fixables []finding.Finding
	for _, fd := range all {
		if Fixable(fd, builtin) {
			fixables = append(fixables, fd)
		}
	}
	if len(fixables) == 0 {
		return shown, 0
	}
	refused := map[string]string{}
	unsafe := map[at]bool{}
	offered := map[at]finding.Fix{}
	planned, err := Plan(ctx, root, fixables, suppressed, fix.Options{Kinds: kinds})
	if err != nil {
		for _, fd := range fixables {
			refused[fd.Path] = "the fixes could not be planned: " + err.Error()
		}
	}
	for _, ff := range planned {
		if ff.Refused != "" {
			refused[ff.Path] = ff.Refused
			continue
		}
		removals(ff, offered)
		for _, d := range ff.Plan.Declined {
			if d.Unsafe {
				unsafe[at{d.Finding.Path, d.Finding.Pos}] = true
			}
		}
	}
	out := append([]finding.Finding(nil), shown...)
	hidden := 0
	for i, fd := range out {
		if unsafe[at{fd.Path, fd.Pos}] {
			hidden++
		}
		if fd.Fix == nil {
			if x, ok := offered[at{fd.Path, fd.Pos}]; ok {
				out[i].Fix = &x
			}
			continue
		}
		if why, ok := refused[fd.Path]; ok && fd.Path != "" {
			out[i].Fix = nil
			out[i].Message += " (no fix offered: buildgate fix leaves this file unchanged: " + why + ")"
		}
	}
	return out, hidden
}

// at is a finding's place.
type at struct {
	path string
	pos  finding.Pos
}

// removals records, for each finding a file's removal answers, the edit
// that removes it.
func removals(ff *File, offered map[at]finding.Fix) {
	if len(ff.Plan.Edits) == 0 {
		return
	}
	for _, f := range ff.Plan.Fixed {
		off, _, err := fix.Offsets(ff.Old, f.Pos)
		if err != nil {
			continue
		}
		if e, ok := fix.Covering(ff.Plan.Edits, off); ok {
			offered[at{ff.Path, f.Pos}] = finding.Fix{Description: "remove this part of the source build (buildgate fix)", Replacement: e.Text, Pos: fix.PosOf(ff.Old, e.Start, e.End)}
		}
	}
}
