package fix

import (
	"testing"

	"github.com/buildgate/buildgate/finding"
)

// Issue 32: what real migrations of other projects taught the Dockerfile
// planner. Each case names the upstream shape it is modelled on.
func TestDockerfileOtherProjects(t *testing.T) {
	cases := []struct {
		name   string
		src    string
		fs     []finding.Finding
		unsafe bool
		want   string // "" : unchanged
	}{
		{
			// axolotl's docker/Dockerfile-base: wheels of two builds in
			// one relative directory, installed by one command.
			name: "COPYs into a shared directory and their words in one install",
			src:  "FROM b AS fa-builder\nRUN make\nFROM b AS ds\nRUN make\nFROM b\nCOPY --from=ds /d/deepspeed-*.whl wheels\nCOPY --from=fa-builder /f/flash_attn-*.whl wheels\nCOPY --from=fa-builder /f/rotary_emb-*.whl wheels\nRUN pip3 install wheels/deepspeed-*.whl wheels/flash_attn-*.whl wheels/rotary_emb-*.whl\n",
			fs:   []finding.Finding{at(ruleStage, 1, 11), at(ruleStage, 7, 6), at(ruleStage, 8, 6)},
			want: "FROM b AS ds\nRUN make\nFROM b\nCOPY --from=ds /d/deepspeed-*.whl wheels\nRUN pip3 install wheels/deepspeed-*.whl\n",
		},
		{
			// The same with every wheel the stage's: the install goes.
			name: "an install of only the copied wheels goes with the COPY",
			src:  "FROM b AS fa-builder\nRUN make\nFROM b\nCOPY --from=fa-builder /f/flash_attn-*.whl /wheels/\nRUN pip install /wheels/flash_attn-*.whl\nRUN echo done\n",
			fs:   []finding.Finding{at(ruleStage, 1, 11), at(ruleStage, 4, 6)},
			want: "FROM b\nRUN echo done\n",
		},
		{
			// A glob that may name other wheels of the directory: the
			// COPY stays (declined), its wheel word with it.
			name: "a glob over the shared directory keeps the COPY",
			src:  "FROM b AS fa-builder\nRUN make\nFROM b AS ds\nRUN make\nFROM b\nCOPY --from=ds /d/deepspeed-*.whl /wheels/\nCOPY --from=fa-builder /f/flash_attn-*.whl /wheels/\nRUN pip install /wheels/*.whl\n",
			fs:   []finding.Finding{at(ruleStage, 1, 11), at(ruleStage, 7, 6)},
		},
		{
			// bitsandbytes in axolotl: a tree copied out of the stage
			// and installed from inside it.
			name: "a RUN that works inside the copied tree goes with it",
			src:  "FROM b AS bnb-builder\nRUN make\nFROM b\nRUN mkdir -p /w\nCOPY --from=bnb-builder /src/bnb /w/bnb\nRUN cd /w/bnb && python3 setup.py install\nRUN echo done\n",
			fs:   []finding.Finding{at(ruleStage, 1, 11), at(ruleStage, 5, 6)},
			want: "FROM b\nRUN mkdir -p /w\nRUN echo done\n",
		},
		{
			// text-generation-inference: a build output copied into
			// site-packages, a later ENV names a path below it.
			name: "a later path below a directory's copied contents is unsafe",
			src:  "FROM b AS marlin-kernels-builder\nRUN python setup.py build\nFROM b\nCOPY --from=marlin-kernels-builder /src/build/lib /site\nENV LD_PRELOAD=/site/nvidia/lib.so\n",
			fs:   []finding.Finding{at(ruleStage, 1, 11), at(ruleStage, 4, 6)},
		},
		{
			name:   "the same with --unsafe-fixes",
			src:    "FROM b AS marlin-kernels-builder\nRUN python setup.py build\nFROM b\nCOPY --from=marlin-kernels-builder /src/build/lib /site\nENV LD_PRELOAD=/site/nvidia/lib.so\n",
			fs:     []finding.Finding{at(ruleStage, 1, 11), at(ruleStage, 4, 6)},
			unsafe: true,
			want:   "FROM b\nENV LD_PRELOAD=/site/nvidia/lib.so\n",
		},
		{
			// timescaledb-docker-ha: an if on the build argument around
			// the clone, cd and make install, in a stage that stays.
			name: "a RUN that is only the source build, set -ex aside",
			src:  "FROM b\nARG PGV\nRUN set -ex; \\\n    if [ -n \"${PGV}\" ]; then \\\n        git clone https://x/pgvector /b/pgv; \\\n        cd /b/pgv; \\\n        for pg in 15 16; do \\\n            make install; \\\n        done; \\\n    fi\nRUN echo \"A=1\" > /cfg; \\\n    echo \"V=${PGV}\" >> /cfg; \\\n    echo \"D=$(date)\" >> /cfg\nRUN echo kept\n",
			fs:   []finding.Finding{at(ruleArg, 2, 5), at(ruleArg, 4, 14), at(ruleStep, 5, 9), at(ruleStep, 8, 13), at(ruleArg, 12, 16)},
			want: "FROM b\nRUN echo \"A=1\" > /cfg; \\\n    echo \"D=$(date)\" >> /cfg\nRUN echo kept\n",
		},
		{
			// A line of a RUN that records the build argument (not its
			// first or last line) goes alone.
			name: "a record line inside a RUN",
			src:  "FROM b\nARG PGV\nRUN git clone https://x/pgvector /b && make -C /b install\nRUN echo \"A=1\" > /cfg; \\\n    echo \"V=${PGV}\" >> /cfg; \\\n    echo \"B=2\" >> /cfg\n",
			fs:   []finding.Finding{at(ruleArg, 2, 5), at(ruleStep, 3, 5), at(ruleStep, 3, 41), at(ruleArg, 5, 16)},
			want: "FROM b\nRUN echo \"A=1\" > /cfg; \\\n    echo \"B=2\" >> /cfg\n",
		},
		{
			// The line a RUN ends with: taking it out would run the
			// previous line's continuation into the next instruction.
			name: "a record on the RUN's last line stays (the file is declined)",
			src:  "FROM b\nARG PGV\nRUN echo \"A=1\" > /cfg; \\\n    echo \"V=${PGV}\" >> /cfg\n",
			fs:   []finding.Finding{at(ruleArg, 2, 5), at(ruleArg, 4, 16)},
		},
		{
			// podman's Dockerfile.fedora: the && chain that is the whole
			// RUN, shell state and all.
			name: "a RUN whose chain is the build, set -x and export included",
			src:  "FROM f\nENV CNI_COMMIT abc\nRUN set -x \\\n    && export GOPATH=\"$(mktemp -d)\" \\\n    && git clone https://x/plugins \"$GOPATH/p\" \\\n    && cd \"$GOPATH/p\" \\\n    && git checkout -q \"$CNI_COMMIT\" \\\n    && ./build_linux.sh \\\n    && cp bin/* /usr/libexec/cni \\\n    && rm -rf \"$GOPATH\"\nRUN echo kept\n",
			fs:   []finding.Finding{at(ruleArg, 2, 5), at(ruleStep, 5, 8), at(ruleStep, 7, 8), at(ruleArg, 7, 25), at(ruleStep, 8, 8), at(ruleStep, 9, 8)},
			want: "FROM f\nRUN echo kept\n",
		},
		{
			// A chain that also does other work stays.
			name: "a chain with other work in it stays",
			src:  "FROM f\nRUN git clone https://x/plugins /p && cd /p && ./build_linux.sh && apt-get install -y jq\n",
			fs:   []finding.Finding{at(ruleStep, 2, 5), at(ruleStep, 2, 49)},
		},
		{
			// OpenLLM: a file with a requirement pip refuses elsewhere is
			// still fixed, around it.
			name: "a RUN's unreadable requirement does not stop the fix",
			src:  "FROM b AS vllm-builder\nRUN make\nFROM b\nCOPY --from=vllm-builder /v /opt/v\nRUN pip install \"torch>=2.0.1+cu118\"\n",
			fs:   []finding.Finding{at(ruleStage, 1, 11), at(ruleStage, 4, 6)},
			want: "FROM b\nRUN pip install \"torch>=2.0.1+cu118\"\n",
		},
		// The red team's (issue 32 review) cases.
		{
			name: "a wheel word alone on the RUN's last line takes the backslash before it",
			src:  "FROM p AS fa-builder\nRUN make\nFROM p\nCOPY --from=fa-builder /dist/flash_attn-*.whl /wheels/\nRUN pip install einops \\\n      /wheels/flash_attn-*.whl\nUSER app\n",
			fs:   []finding.Finding{at(ruleStage, 1, 9), at(ruleStage, 4, 6)},
			want: "FROM p\nRUN pip install einops\nUSER app\n",
		},
		{
			name: "a wheel word alone on a middle line takes its line",
			src:  "FROM p AS fa-builder\nRUN make\nFROM p\nCOPY --from=fa-builder /dist/flash_attn-*.whl /wheels/\nRUN pip install einops \\\n      /wheels/flash_attn-*.whl \\\n      requests\nUSER app\n",
			fs:   []finding.Finding{at(ruleStage, 1, 9), at(ruleStage, 4, 6)},
			want: "FROM p\nRUN pip install einops \\\n      requests\nUSER app\n",
		},
		{
			name: "a RUN that cds into the copied tree and does other work stays",
			src:  "FROM p AS fa-builder\nRUN make\nFROM p\nCOPY --from=fa-builder /src/fa /workspace/fa\nRUN cd /workspace/fa && python setup.py install && pip install requests && useradd app\nUSER app\n",
			fs:   []finding.Finding{at(ruleStage, 1, 9), at(ruleStage, 4, 6)},
		},
		{
			name: "a directory two stages copy into is no tree of one",
			src:  "FROM p AS fa-builder\nRUN make\nFROM p AS ds\nRUN make\nFROM p\nCOPY --from=ds /dist/ /opt/wheels/\nCOPY --from=fa-builder /dist/ /opt/wheels/\nRUN cd /opt/wheels && pip install *.whl\n",
			fs:   []finding.Finding{at(ruleStage, 1, 9), at(ruleStage, 7, 6)},
		},
		{
			name: "a relative destination read by its absolute path under WORKDIR",
			src:  "FROM p AS fa-builder\nRUN make\nFROM p\nWORKDIR /workspace\nCOPY --from=fa-builder /dist/flash_attn-*.whl wheels/\nRUN pip install numpy /workspace/wheels/flash_attn-*.whl\n",
			fs:   []finding.Finding{at(ruleStage, 1, 9), at(ruleStage, 5, 6)},
			want: "FROM p\nWORKDIR /workspace\nRUN pip install numpy\n",
		},
		{
			name: "an if on the build argument that also makes another directory is unsafe",
			src:  "FROM b\nARG PGV=v0.7.0\nRUN if [ -n \"${PGV}\" ]; then \\\n        git clone https://x/pgvector /b/pgv && make -C /b/pgv install; \\\n        mkdir -p /var/lib/postgresql/extensions; \\\n    fi\nRUN touch /var/lib/postgresql/extensions/ready\n",
			fs:   []finding.Finding{at(ruleArg, 2, 5), at(ruleArg, 3, 14), at(ruleStep, 4, 9), at(ruleStep, 4, 51)},
		},
		{
			name: "a chain that makes another directory stays",
			src:  "FROM f\nRUN set -x \\\n    && git clone https://x/plugins /p \\\n    && cd /p && ./build_linux.sh \\\n    && mkdir -p /usr/libexec/cni /var/lib/app \\\n    && cp bin/* /usr/libexec/cni\nRUN ls /var/lib/app\n",
			fs:   []finding.Finding{at(ruleStep, 3, 8), at(ruleStep, 4, 17), at(ruleStep, 6, 8)},
		},
		{
			name: "a record of the argument with another variable stays",
			src:  "FROM b\nARG PGV\nRUN git clone https://x/pgvector /b && make -C /b install\nRUN echo \"A=1\" > /cfg; \\\n    echo \"V=${PGV} PG=${PG_VERSION}\" >> /cfg; \\\n    echo \"B=2\" >> /cfg\n",
			fs:   []finding.Finding{at(ruleArg, 2, 5), at(ruleStep, 3, 5), at(ruleStep, 3, 41), at(ruleArg, 5, 16)},
		},
		// The red team's second round.
		{
			name: "a kept COPY of what a removed step wrote keeps the steps",
			src:  "FROM p AS build\nRUN git clone https://x/flash-attention /src/fa && cd /src/fa && python setup.py bdist_wheel -d /dist\nFROM p\nCOPY --from=build /dist/ /wheels/\nRUN pip install einops\n",
			fs:   []finding.Finding{at(ruleStep, 2, 5), at(ruleStep, 2, 67)},
		},
		{
			name: "a one-line gated RUN that also adds a user stays",
			src:  "FROM p\nARG BUILD_FA=1\nRUN if [ \"$BUILD_FA\" = \"1\" ]; then git clone https://x/flash-attention /fa && cd /fa && python setup.py install && useradd app; fi\nUSER app\n",
			fs:   []finding.Finding{at(ruleArg, 2, 5), at(ruleStep, 3, 37), at(ruleStep, 3, 89)},
		},
		{
			name: "a RUN in the copied tree that also writes /etc/passwd stays",
			src:  "FROM p AS fa-builder\nRUN make\nFROM p\nCOPY --from=fa-builder /src/fa /workspace/fa\nRUN cd /workspace/fa && python setup.py install && echo \"app:x:1000:1000::/home/app:/bin/sh\" >> /etc/passwd\nUSER app\n",
			fs:   []finding.Finding{at(ruleStage, 1, 9), at(ruleStage, 4, 6)},
		},
		{
			name: "a record that alone writes its file stays",
			src:  "FROM b\nARG FAV\nRUN git clone https://x/flash-attention /b && make -C /b install\nRUN echo \"A=1\" > /info; \\\n    echo \"FAV=${FAV}\" >> /etc/fa-version; \\\n    chmod 444 /etc/fa-version\n",
			fs:   []finding.Finding{at(ruleArg, 2, 5), at(ruleStep, 3, 5), at(ruleStep, 3, 48), at(ruleArg, 5, 16)},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := Dockerfile("Dockerfile", []byte(c.src), c.fs, Options{Unsafe: c.unsafe})
			got, err := Apply([]byte(c.src), p.Edits)
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			if want == "" {
				want = c.src
			}
			if string(got) != want {
				t.Errorf("got:\n%s\nwant:\n%s\ndeclined: %+v", got, want, p.Declined)
			}
		})
	}
}

// Issue 32: the unsafe declines say so, and name what may use the files.
func TestDockerfileCopyUnsafeReason(t *testing.T) {
	src := "FROM b AS k-builder\nRUN make\nFROM b\nCOPY --from=k-builder /src/build/lib /site\nENV LD_PRELOAD=/site/nvidia/lib.so\n"
	p := Dockerfile("Dockerfile", []byte(src), []finding.Finding{at(ruleStage, 1, 11), at(ruleStage, 4, 6)}, Options{})
	if len(p.Edits) != 0 || len(p.Declined) != 2 {
		t.Fatalf("plan: %+v", p)
	}
	for _, d := range p.Declined {
		if !d.Unsafe || d.Reason != "unsafe fix: line 5 uses /site/nvidia/lib.so, which a COPY from the removed stage may have filled; `buildgate fix --unsafe-fixes` removes the stage and its COPYs" {
			t.Errorf("declined: %+v", d)
		}
	}
}
