package main

import (
	"os"
	"path"

	"github.com/buildgate/buildgate/finding"
	"github.com/buildgate/buildgate/fix"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/loader"
)

// planRemoval plans the removal of the source build from one file, for its
// kind (false when its kind has no planner). bakes are the repository's
// bake files, which bake loads together.
func planRemoval(path string, src []byte, fds []finding.Finding, bakes map[string][]byte) (fix.Plan, bool) {
	kind, _ := loader.DetectName(path)
	switch kind {
	case loader.KindDockerfile:
		return fix.Dockerfile(path, src, fds), true
	case loader.KindHCL:
		return fix.HCL(path, src, fds, bakes), true
	case loader.KindShell:
		return fix.Shell(path, src, fds), true
	}
	return fix.Plan{}, false
}

// withRemovalFixes returns the findings with, on each source-build finding
// that buildgate fix would remove, the edit that removes it (SARIF fixes
// and reviewdog suggestions carry it; issue 17): the run of lines (or the
// words) buildgate fix removes around the finding, with the comments that
// head it and a blank line it would leave. Findings that one removal
// answers (a stage and the steps in it) carry the same edit.
func withRemovalFixes(root string, paths []string, fds, suppressed []finding.Finding) []finding.Finding {
	byPath := map[string][]int{}
	for i, fd := range fds {
		if fd.Fix == nil && fd.Path != "" && fix.SourceBuildRule(fd.Name) {
			byPath[fd.Path] = append(byPath[fd.Path], i)
		}
	}
	if len(byPath) == 0 {
		return fds
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return fds
	}
	defer func() { _ = r.Close() }()
	out := append([]finding.Finding(nil), fds...)
	bakes := bakeFiles(r, paths)
	for path, idx := range byPath {
		src, err := safefile.In(r, path, loader.DefaultMaxFileSize)
		if err != nil {
			continue
		}
		group := make([]finding.Finding, len(idx))
		for k, i := range idx {
			group[k] = fds[i]
		}
		plan, ok := planRemoval(path, src, group, bakes)
		if !ok || len(plan.Edits) == 0 {
			continue
		}
		// What buildgate fix refuses (a removal over a suppressed
		// finding), no report offers either.
		var sup []finding.Finding
		for _, f := range suppressed {
			if f.Path == path {
				sup = append(sup, f)
			}
		}
		if coversSuppressed(src, plan.Edits, sup) != "" {
			continue
		}
		fixed := map[finding.Pos]bool{}
		for _, f := range plan.Fixed {
			fixed[f.Pos] = true
		}
		for _, i := range idx {
			if !fixed[fds[i].Pos] {
				continue
			}
			off, _, err := fix.Offsets(src, fds[i].Pos)
			if err != nil {
				continue
			}
			if e, ok := fix.Covering(plan.Edits, off); ok {
				fd := out[i]
				fd.Fix = &finding.Fix{Description: "remove this part of the source build (buildgate fix)", Replacement: e.Text, Pos: fix.PosOf(src, e.Start, e.End)}
				out[i] = fd
			}
		}
	}
	return out
}

// bakeLoads are the files `docker buildx bake` merges by default beside
// its HCL files (Docker's lookup order): a name a fix removes from a bake
// file must not be used there either.
var bakeLoads = []string{"docker-bake.json", "docker-bake.override.json", "compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml"}

// bakeFiles reads the bake files among paths and the files bake merges
// with them, in the root and in each bake file's directory (through the
// root, size bounded; one that cannot be read is left out).
func bakeFiles(r *os.Root, paths []string) map[string][]byte {
	out := map[string][]byte{}
	dirs := map[string]bool{".": true}
	for _, p := range paths {
		if k, _ := loader.DetectName(p); k != loader.KindHCL {
			continue
		}
		if b, err := safefile.In(r, p, loader.DefaultMaxFileSize); err == nil {
			out[p] = b
		}
		dirs[path.Dir(p)] = true
	}
	for d := range dirs {
		for _, name := range bakeLoads {
			p := path.Join(d, name)
			if b, err := safefile.In(r, p, loader.DefaultMaxFileSize); err == nil {
				out[p] = b
			}
		}
	}
	return out
}
