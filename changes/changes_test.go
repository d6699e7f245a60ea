package changes

import "testing"

func TestParse(t *testing.T) {
	diff := `diff --git a/docker/Dockerfile b/docker/Dockerfile
index 1..2 100644
--- a/docker/Dockerfile
+++ b/docker/Dockerfile
@@ -2,0 +3,2 @@ FROM a
+ARG X
+ARG Y
@@ -8,0 +11 @@ RUN x
+RUN b
diff --git a/ci/run.sh b/ci/run.sh
--- a/ci/run.sh
+++ b/ci/run.sh
@@ -20,3 +22,0 @@
-gone
-gone too
-and gone
diff --git a/new.sh b/new.sh
new file mode 100644
--- /dev/null
+++ b/new.sh
@@ -0,0 +1,3 @@
+a
+b
+c
diff --git a/old.sh b/old.sh
deleted file mode 100644
--- a/old.sh
+++ /dev/null
@@ -1 +0,0 @@
-a
diff --git "a/with space\"q.sh" "b/with space\"q.sh"
--- "a/with space\"q.sh"
+++ "b/with space\"q.sh"
@@ -1 +1 @@
-a
+b
`
	s := &Set{files: map[string]*lines{}}
	if err := s.parse([]byte(diff)); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path     string
		from, to int
		want     bool
	}{
		{"docker/Dockerfile", 3, 3, true},
		{"docker/Dockerfile", 4, 4, true},
		// A file the change touches counts whole: an added line may
		// change what the kept ones mean (a variable, an ARG).
		{"docker/Dockerfile", 5, 10, true},
		{"docker/Dockerfile", 10, 12, true},
		{"docker/Dockerfile", 22, 22, true},
		// Lines removed change what the kept ones mean: the whole file
		// counts (issue 26's fifth review).
		{"ci/run.sh", 1, 1, true},
		{"new.sh", 100, 100, true},
		{"old.sh", 1, 1, false},
		{`with space"q.sh`, 1, 1, true},
		{"other", 1, 1, false},
	} {
		if got := s.Touches(tt.path, tt.from, tt.to); got != tt.want {
			t.Errorf("Touches(%s, %d, %d) = %v", tt.path, tt.from, tt.to, got)
		}
	}
	if s.Files() != 4 {
		t.Errorf("%d files", s.Files())
	}
	if err := s.parse([]byte("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +x @@\n")); err == nil {
		t.Error("a bad hunk header is an error")
	}
}

// An added line whose text looks like a file header stays a line of its
// file (with -U0 "++ b/decoy" shows as "+++ b/decoy").
func TestParseDecoyHeader(t *testing.T) {
	diff := "diff --git a/f.go b/f.go\n--- a/f.go\n+++ b/f.go\n@@ -1,0 +2,3 @@\n+x\n+++ b/decoy\n+y\n@@ -5 +8 @@\n-a\n+b\n"
	s := &Set{files: map[string]*lines{}}
	if err := s.parse([]byte(diff)); err != nil {
		t.Fatal(err)
	}
	if !s.Touches("f.go", 8, 8) || !s.Touches("f.go", 3, 3) || s.Touches("decoy", 8, 8) {
		t.Errorf("files = %+v", s.files)
	}
}

// A file a changed line of another newly runs counts as changed whole.
func TestMarkWhole(t *testing.T) {
	s := &Set{files: map[string]*lines{}}
	s.MarkWhole("tools/x.txt")
	if !s.Touches("tools/x.txt", 7, 7) || !s.HasFile("tools/x.txt") {
		t.Error("a file marked whole: not every line counts")
	}
	var none *Set
	none.MarkWhole("x") // no change set: nothing to mark
}

// git ends a name holding a space with a tab; a submodule whose commit
// moved counts every file below it.
func TestNamesAndSubmodules(t *testing.T) {
	diff := "diff --git a/na me.sh b/na me.sh\n--- a/na me.sh\t\n+++ b/na me.sh\t\n@@ -1 +1 @@\n-a\n+b\n" +
		"diff --git a/sub b/sub\nindex 1..2 160000\n--- a/sub\n+++ b/sub\n@@ -1 +1 @@\n-Subproject commit 1\n+Subproject commit 2\n"
	s, err := FromDiff([]byte(diff))
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasFile("na me.sh") || !s.Touches("sub/ci/x.sh", 3, 3) || s.HasFile("subway/x.sh") {
		t.Errorf("files: %+v", s.files)
	}
}
