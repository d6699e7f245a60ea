package marker

import "testing"

func TestEval(t *testing.T) {
	env := Linux([]string{"x86_64"}, []string{"3.12"})[0]
	for _, c := range []struct {
		m    string
		want Result
	}{
		{`sys_platform == "win32"`, False},
		{`sys_platform == "linux"`, True},
		{`python_version < "3"`, False},
		{`python_version >= "3.8"`, True},
		{`"3.8" <= python_version`, True},
		{`os_name == "nt"`, False},
		{`os.name == "posix"`, True},
		{`extra == "x"`, False},
		{`extra != "x"`, True},
		{`platform_machine == "aarch64"`, False},
		{`platform_machine in "x86_64 AMD64"`, True},
		{`platform_machine not in "x86_64 AMD64"`, False},
		{`platform_system == "Linux" and (python_version < "3" or os_name == "nt")`, False},
		{`platform_system == "Windows" or python_full_version >= "3.12.0"`, True},
		{`platform_release >= "5"`, Unknown},
		{`platform_release >= "5" and os_name == "nt"`, False},
		{`platform_release >= "5" or os_name == "posix"`, True},
		{`python_full_version < "3.0"`, False},
		{`implementation_name == "cpython"`, True},
	} {
		got, err := Eval(c.m, env)
		if err != nil || got != c.want {
			t.Errorf("Eval(%q) = %v, %v; want %v", c.m, got, err, c.want)
		}
	}
	for _, bad := range []string{`"a" == "b"`, `python_version`, `os_name = "x"`, `(os_name == "x"`, `python_version >= "3" extra`} {
		if _, err := Eval(bad, env); err == nil {
			t.Errorf("Eval(%q) accepted", bad)
		}
	}
}

func TestAnyMayHold(t *testing.T) {
	envs := Linux([]string{"x86_64", "aarch64"}, nil)
	for m, want := range map[string]bool{
		`sys_platform == "win32"`:       false,
		`platform_machine == "aarch64"`: true,
		`platform_machine == "s390x"`:   false,
		`python_version < "3"`:          false,
		`python_version >= "3.13"`:      true,
		`platform_system == "Darwin"`:   false,
		`platform_version >= "1"`:       true,
		`python_full_version < "3.0.0"`: false,
	} {
		if got := AnyMayHold(m, envs); got != want {
			t.Errorf("AnyMayHold(%q) = %v", m, got)
		}
	}
}

func FuzzEval(f *testing.F) {
	for _, s := range []string{`sys_platform == "win32"`, `(python_version < "3" or extra == "a") and os_name != 'nt'`, `platform_machine not in "x"`} {
		f.Add(s)
	}
	env := Linux([]string{"x86_64"}, []string{"3.12"})[0]
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = Eval(s, env)
	})
}
