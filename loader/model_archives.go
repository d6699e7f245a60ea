package loader

import (
	"path"
	"strings"
)

// Where fetched source goes next (the build model's fetches): a download
// unpacked by tar or unzip (piped, or saved to a file first), and a
// directory copied or moved elsewhere (cp -r, mv, rsync), each as the
// shell runs them in order.

// unpacked gives a download the directory tar or unzip unpacks it into:
// the command it is piped to, or a later one that unpacks the file it was
// saved to (curl -o F, wget -O F). An archive of a repository has a top
// directory of its own (Mooncake-main/, kvcache-ai-Mooncake-1a2b3c/):
// the download's Into ends in NAME-* unless tar strips it.
func unpacked(s *Script) {
	for i := range s.Commands {
		c := &s.Commands[i]
		if c.Fetch == nil || c.Fetch.Kind != "download" || c.Fetch.Into != nil {
			continue
		}
		saved := savedFile(*c)
		// The unpacking comes soon after (a bound: a file of 80,000
		// downloads must not look at every command after each).
		for j := i + 1; j < len(s.Commands) && j <= i+maxUnpackAhead; j++ {
			t := s.Commands[j]
			n := path.Base(t.Name)
			if n != "tar" && n != "bsdtar" && n != "unzip" {
				continue
			}
			piped := c.Pipeline != nil && t.Pipeline != nil && t.Pipeline.ID == c.Pipeline.ID && t.Pipeline.Pos == c.Pipeline.Pos
			if !piped && (saved == nil || !unpacks(t, *saved)) {
				continue
			}
			if d := tarDir(t); d != nil {
				c.Fetch.Into = d
				if !strips(t) {
					c.Fetch.Into = strp(path.Join(*d, archiveTop(c.Fetch.Repository, wordValue(c.Fetch.URL))))
				}
			}
			break
		}
	}
}

// maxUnpackAhead is how many commands after a download its unpacking is
// looked for.
const maxUnpackAhead = 256

// savedFile is the file a download writes (curl -o F / --output F, wget -O
// F), resolved against its directory.
func savedFile(c ShellCommand) *string {
	wget := path.Base(c.Name) == "wget"
	remoteName := wget
	for k := 1; k < len(c.Words); k++ {
		v, _ := val(c.Words[k])
		switch {
		case (v == "-o" || v == "--output" || v == "-O" && wget || v == "--output-document" || shortCluster(v, wget)) && k+1 < len(c.Words):
			if f, ok := pathOf(c.Words[k+1]); ok && f != "-" {
				return under(c.Dir, f)
			}
			return nil
		case v == "-O" || v == "--remote-name" || strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.Contains(v, "O") && !wget:
			remoteName = true // curl -O, -LO: the URL's last part
		}
	}
	if !remoteName || c.Fetch == nil {
		return nil
	}
	u, ok := val(c.Fetch.URL)
	if !ok {
		return nil
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	return under(c.Dir, path.Base(u))
}

// shortCluster reports a cluster of short options whose last names the
// output file (wget -qO F, curl -sLo F).
func shortCluster(v string, wget bool) bool {
	if len(v) < 3 || v[0] != '-' || v[1] == '-' {
		return false
	}
	last := v[len(v)-1]
	return wget && last == 'O' || !wget && last == 'o'
}

// unpacks reports whether tar or unzip reads the archive file f.
func unpacks(t ShellCommand, f string) bool {
	for _, w := range t.Words[1:] {
		if v, ok := pathOf(w); ok {
			if d := under(t.Dir, v); d != nil && *d == f {
				return true
			}
		}
	}
	return false
}

// strips reports whether tar drops the archive's top directory.
func strips(t ShellCommand) bool {
	for _, w := range t.Words[1:] {
		if v, _ := val(w); strings.HasPrefix(v, "--strip-components") || strings.HasPrefix(v, "--strip") {
			return true
		}
	}
	return false
}

// archiveTop is the pattern of an archive's top directory: GitHub's API
// tarballs are OWNER-NAME-SHA, its other archives NAME-REF.
func archiveTop(id, u string) string {
	parts := strings.Split(id, "/")
	name := parts[len(parts)-1]
	if strings.Contains(strings.ToLower(u), "api.github.com") && len(parts) >= 3 {
		return parts[1] + "-" + name + "-*"
	}
	return name + "-*"
}

// tarDir is the directory tar or unzip unpacks into: -C/--directory/-d,
// else its working directory.
func tarDir(c ShellCommand) *string {
	for k := 1; k < len(c.Words); k++ {
		v, ok := val(c.Words[k])
		if !ok {
			continue
		}
		switch {
		case (v == "-C" || v == "--directory" || v == "-d") && k+1 < len(c.Words):
			d, ok := pathOf(c.Words[k+1])
			if !ok {
				return nil
			}
			return under(c.Dir, d)
		case strings.HasPrefix(v, "--directory="):
			return under(c.Dir, strings.TrimPrefix(v, "--directory="))
		}
	}
	return c.Dir
}

// copied gives a copy or a move of a directory its Fetch of kind "copy":
// cp -r/-R/-a SRC DST, mv SRC DST, rsync -a SRC DST (DST/SRC's name when
// DST ends in /, as for an existing directory the shell cannot know of).
func copied(s *Script) {
	for i := range s.Commands {
		c := &s.Commands[i]
		if c.Fetch != nil {
			continue
		}
		n := path.Base(c.Name)
		if n != "cp" && n != "mv" && n != "rsync" {
			continue
		}
		var pos []Word
		recursive := n == "mv"
		for _, w := range c.Words[1:] {
			v, ok := val(w)
			if ok && strings.HasPrefix(v, "-") {
				recursive = recursive || strings.ContainsAny(strings.TrimLeft(v, "-"), "rRa") || v == "--recursive" || v == "--archive"
				continue
			}
			pos = append(pos, w)
		}
		if !recursive || len(pos) != 2 {
			continue
		}
		src, ok1 := pathOf(pos[0])
		dst, ok2 := pathOf(pos[1])
		if !ok1 || !ok2 {
			continue
		}
		from := under(c.Dir, strings.TrimSuffix(src, "/"))
		if strings.HasSuffix(dst, "/") {
			dst += path.Base(src)
		}
		into := under(c.Dir, dst)
		if from == nil || into == nil {
			continue
		}
		c.Fetch = &Fetch{Kind: "copy", URL: pos[0], From: from, Into: into, Pos: pos[0].Pos}
	}
}
