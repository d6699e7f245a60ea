package discover

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/loader"
)

// maxIncludes bounds the files pipelines' references add, as GitLab
// bounds includes (150 per pipeline).
const maxIncludes = 150

// maxGlobs bounds the glob patterns matched in all (each walks the tree).
const maxGlobs = 150

// pipelineRefs are the local files the pipelines among found have their
// CI system read or run (loader.PipelineRefs: GitLab includes and child
// pipelines, GitHub local actions and reusable workflows, uploaded
// Buildkite pipelines), and those these name in turn: pipelines though
// their names do not say so. Each is read through the root; a glob is
// matched below it; what does not exist is the CI system's error, not
// one of buildgate's; a link is kept for the loader to refuse (BG001)
// when it leads out of the root.
func pipelineRefs(root string, found []File, opts Options) []File {
	seen := map[string]bool{}
	var queue []string
	for _, f := range found {
		seen[f.Path] = true
		if f.Kind == loader.KindPipeline {
			queue = append(queue, f.Path)
		}
	}
	if len(queue) == 0 {
		return nil
	}
	fsys, err := safefile.DirFS(root, root, loader.DefaultMaxFileSize)
	if err != nil {
		return nil
	}
	defer func() { _ = fsys.Close() }()
	var out []File
	globs := 0
	for len(queue) > 0 && len(out) < maxIncludes {
		p := queue[0]
		queue = queue[1:]
		src, err := fsys.ReadFile(p)
		if err != nil {
			continue
		}
		refs := loader.PipelineRefs(src)
		if len(refs) > maxIncludes {
			refs = refs[:maxIncludes] // GitLab's own limit per pipeline
		}
		for _, pat := range refs {
			matches := []string{pat}
			if doublestar.ValidatePattern(pat) && strings.ContainsAny(pat, "*?[{") {
				// Each glob walks the tree: bounded in number, not
				// only in what they match.
				if globs++; globs > maxGlobs {
					continue
				}
				matches, _ = doublestar.Glob(fsys, pat, doublestar.WithFilesOnly(), doublestar.WithFailOnIOErrors())
			}
			for _, m := range matches {
				m = path.Clean(m)
				if seen[m] || len(out) >= maxIncludes || m == "." || m == ".." || len(m) > 2 && m[:3] == "../" {
					continue
				}
				if opts.Excluded != nil && opts.Excluded(m) {
					continue
				}
				if !fs.ValidPath(m) {
					continue
				}
				if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(m))); err != nil {
					continue
				}
				seen[m] = true
				out = append(out, File{Path: m, Kind: loader.KindPipeline})
				queue = append(queue, m)
			}
		}
	}
	return out
}
