package discover

import (
	"io/fs"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/buildgate/buildgate/internal/safefile"
	"github.com/buildgate/buildgate/loader"
)

// maxIncludes bounds the files GitLab CI includes add, as GitLab does
// (150 includes per pipeline).
const maxIncludes = 150

// gitlabIncludes are the local files the GitLab CI files among found
// include, and those these include in turn: pipelines though their names
// do not say so. Each is read through the root; a glob is matched below
// it; what does not exist is GitLab's error, not one of buildgate's.
func gitlabIncludes(root string, found []File, opts Options) []File {
	seen := map[string]bool{}
	var queue []string
	for _, f := range found {
		seen[f.Path] = true
		if b := path.Base(f.Path); b == ".gitlab-ci.yml" || b == ".gitlab-ci.yaml" {
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
	defer fsys.Close()
	var out []File
	for len(queue) > 0 && len(out) < maxIncludes {
		p := queue[0]
		queue = queue[1:]
		src, err := fsys.ReadFile(p)
		if err != nil {
			continue
		}
		for _, pat := range loader.GitLabIncludes(src) {
			matches := []string{pat}
			if doublestar.ValidatePattern(pat) && strings.ContainsAny(pat, "*?[{") {
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
				if _, err := fs.Stat(fsys, m); err != nil {
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
