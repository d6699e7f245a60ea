package repoid

import "testing"

func TestOf(t *testing.T) {
	const mc = "github.com/kvcache-ai/mooncake"
	for _, c := range []struct{ in, want string }{
		{"https://github.com/kvcache-ai/Mooncake.git", mc},
		{"https://github.com/kvcache-ai/Mooncake", mc},
		{"https://github.com/kvcache-ai/Mooncake/", mc},
		{"https://github.com:443/kvcache-ai/Mooncake.git", mc},
		{"http://GitHub.com/KVCache-AI/mooncake.GIT", mc},
		{"https://www.github.com/kvcache-ai/Mooncake", mc},
		{"https://user:token@github.com/kvcache-ai/Mooncake.git", mc},
		{"git@github.com:kvcache-ai/Mooncake.git", mc},
		{"github.com:kvcache-ai/Mooncake", mc},
		{"ssh://git@github.com/kvcache-ai/Mooncake", mc},
		{"ssh://git@github.com:22/kvcache-ai/Mooncake.git", mc},
		{"git://github.com/kvcache-ai/Mooncake.git", mc},
		{"ssh://git@ssh.github.com:443/kvcache-ai/Mooncake.git", mc},
		{"https://github.com//kvcache-ai/./Mooncake", mc},
		{"https://github.com/other/../kvcache-ai/Mooncake", mc},
		{"https://github.com/kvcache-ai/%4Dooncake.git", mc},
		{"git+https://github.com/kvcache-ai/Mooncake.git@v0.3.5#egg=mooncake", mc},
		{"git+ssh://git@github.com/kvcache-ai/Mooncake@main", mc},
		{"https://github.com/kvcache-ai/Mooncake.git#v0.3.5:docker", mc},
		{"https://github.com/kvcache-ai/Mooncake/archive/refs/tags/v0.3.5.tar.gz", mc},
		{"https://github.com/kvcache-ai/Mooncake/tree/main/mooncake-wheel", mc},
		{"https://api.github.com/repos/kvcache-ai/Mooncake/tarball/v0.3.5", mc},
		{"https://codeload.github.com/kvcache-ai/Mooncake/tar.gz/refs/heads/main", mc},
		{"https://raw.githubusercontent.com/kvcache-ai/Mooncake/main/dependencies.sh", mc},
		{"https://gitlab.com/group/sub/Project.git", "gitlab.com/group/sub/project"},
		{"https://gitlab.com/group/sub/project/-/archive/main/project-main.tar.gz", "gitlab.com/group/sub/project"},
		{"https://git.example.org/Team/Repo.git", "git.example.org/Team/Repo"},
		{"https://git.example.org:8443/Team/Repo", "git.example.org/Team/Repo"},
	} {
		got, ok := Of(c.in)
		if !ok || got != c.want {
			t.Errorf("Of(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
	for _, in := range []string{"", "Mooncake", "./Mooncake", "/opt/Mooncake", "C:/x/y", "file:///opt/x", "https://github.com/", "$REPO", "https://github.com/${OWNER}/x", "mooncake-transfer-engine-rocm>=0.3.13", "a:b", "https://[::1]/x/y"} {
		if got, ok := Of(in); ok {
			t.Errorf("Of(%q) = %q; want none", in, got)
		}
	}
}

func TestSame(t *testing.T) {
	if !Same("github.com/kvcache-ai/Mooncake", "git@github.com:KVCACHE-AI/mooncake.git") {
		t.Error("the configured form and an scp URL are the same repository")
	}
	if Same("github.com/kvcache-ai/Mooncake", "github.com/kvcache-ai/Mooncake-docs") {
		t.Error("another repository")
	}
	if Name("github.com/someone/mooncake") != "mooncake" {
		t.Error("Name")
	}
}

func FuzzOf(f *testing.F) {
	for _, s := range []string{"https://github.com:443/a/b.git", "git@h.x:a/b", "git+https://h.x/a@r#e", "https://api.github.com/repos/a/b/tarball/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := Of(s)
		if !ok {
			return
		}
		again, ok2 := Of("https://" + id)
		if !ok2 || again != id {
			t.Fatalf("Of(%q) = %q, but its identity reads as %q (%v)", s, id, again, ok2)
		}
	})
}
