#!/usr/bin/env python3
"""Slim gen_packaging_vectors.py's output to what pep440's conformance test
reads: pep440/testdata/packaging-vectors.json.

    python3 gen_packaging_vectors.py ../../../shared/conformance/packaging > /tmp/v.json
    python3 slim_packaging_vectors.py /tmp/v.json > ../../pep440/testdata/packaging-vectors.json

Kept: distinct valid and invalid versions, normalised forms, the ordering
of every pair the tests assert, Specifier/SpecifierSet.contains on string
versions (not the "installed" or setter variants, which test packaging's
API rather than PEP 440), valid and invalid specifiers, and pre-release
detection. One row per line, keys sorted, so that a regeneration diffs.
"""
import json
import sys

d = json.load(open(sys.argv[1]))
rows = {
    "source": d["source"],
    "valid_versions": sorted(set(r["input"] for r in d["valid_versions"])),
    "invalid_versions": sorted(set(r["input"] for r in d["invalid_versions"])),
    "normalized": [[r["input"], r["normalized"]] for r in d["normalized"]],
    "ordering": d["ordering"],
    "specifier_contains": [
        {k: r[k] for k in ("spec", "version", "spec_prereleases", "contains_prereleases", "expected", "kind", "test")}
        for r in d["specifier_contains"]
        if r["version_type"] == "str" and r.get("installed") is None and not r.get("via_setter")
    ],
    "valid_specifiers": sorted(set((r["kind"], r["input"]) for r in d["valid_specifiers"])),
    "invalid_specifiers": sorted(set((r["kind"], r["input"]) for r in d["invalid_specifiers"])),
    "specifier_prereleases": [
        {k: r[k] for k in ("spec", "spec_prereleases", "expected", "kind")} for r in d["specifier_prereleases"]
    ],
}
out = sys.stdout
out.write("{\n")
keys = sorted(rows)
for i, k in enumerate(keys):
    v = rows[k]
    out.write(json.dumps(k) + ": ")
    if isinstance(v, list):
        out.write("[\n")
        for j, r in enumerate(v):
            out.write("  " + json.dumps(r, sort_keys=True, ensure_ascii=True) + ("," if j + 1 < len(v) else "") + "\n")
        out.write("]")
    else:
        out.write(json.dumps(v, sort_keys=True, ensure_ascii=True))
    out.write(",\n" if i + 1 < len(keys) else "\n")
out.write("}\n")
