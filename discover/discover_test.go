package discover

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"docker/Dockerfile.rocm":     "FROM a\n",
		"docker/ci.hcl":              "x = 1\n",
		"requirements/rocm.txt":      "numpy\n",
		"requirements/sub/extra.txt": "numpy\n",
		"scripts/build.sh":           "echo\n",
		"scripts/run":                "#!/usr/bin/env bash\necho\n",
		"scripts/notes":              "plain text\n",
		"README.md":                  "# x\n",
		"node_modules/x/Dockerfile":  "FROM a\n",
		".git/hooks/pre-commit.sh":   "echo\n",
		"third_party/lib/Dockerfile": "FROM a\n",
		"app.Dockerfile":             "FROM a\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := Find(dir, []string{dir}, Options{Excluded: func(rel string) bool { return strings.HasPrefix(rel, "third_party") }})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path+"="+string(f.Kind))
	}
	want := "app.Dockerfile=dockerfile docker/Dockerfile.rocm=dockerfile docker/ci.hcl=hcl requirements/rocm.txt=requirements " +
		"requirements/sub/extra.txt=requirements scripts/build.sh=shell scripts/run=shell"
	if strings.Join(got, " ") != want {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	// An excluded file stays out even when named.
	files, err = Find(dir, []string{filepath.Join(dir, "third_party/lib/Dockerfile")}, Options{Excluded: func(string) bool { return true }})
	if err != nil || len(files) != 0 {
		t.Errorf("excluded explicit file: %v %v", files, err)
	}
	files, err = Find(dir, []string{filepath.Join(dir, "third_party/lib/Dockerfile")}, Options{})
	if err != nil || len(files) != 1 {
		t.Errorf("explicit file: %v %v", files, err)
	}
	for _, bad := range []string{filepath.Join(dir, "README.md"), filepath.Join(dir, "nope"), filepath.Dir(dir)} {
		if _, err := Find(dir, []string{bad}, Options{}); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
