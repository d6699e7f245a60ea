#!/usr/bin/env python3
"""Writes the case files into ./cases (byte-exact; the file names say what
each case tests).  Re-running wipes and rewrites ./cases.

  NAME.txt   a requirements file (also an include target when another case
             names it)
  NAME.env   KEY=VALUE lines: the whole environment pip sees for NAME.txt
  dist/, localpkg/, sub/   support files for local-path and nested-include
             cases (not cases themselves)
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")

H1 = "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"  # sha256("x")
H2 = "cd372fb85148700fa88095e3492d3f9f5beb43e555e5ff26d95f5a6adc36f8e6"  # sha256("y")
WHL = "https://example.com/packages/foo_bar-1.2.3-py3-none-any.whl"
SDIST = "https://example.com/packages/foo-1.0.tar.gz"

C = {}   # name -> bytes
ENV = {}  # name (without .txt) -> text
SUPPORT = {}  # relative path -> bytes


def case(name, text, env=None):
    assert name.endswith(".txt") and name not in C, name
    C[name] = text.encode("utf-8") if isinstance(text, str) else text
    if env is not None:
        ENV[name[:-4]] = env


# ---------------------------------------------------------------- continuation
case("cont_after_trailing_comment.txt",
     "torch  # ROCm build \\\nmooncake-transfer-engine-rocm>=0.3.13\nnumpy\n")
case("cont_after_trailing_comment_rocm_file.txt",
     "# Dependencies for AMD GPUs\n"
     "datasets\n"
     "timm>=1.0.17  # vision models \\\n"
     "mooncake-transfer-engine-rocm >= 0.3.13\n"
     "amd-quark>=0.9\n")
case("cont_comment_only_line.txt", "# a comment ending in a backslash \\\nrequests\n")
case("cont_indented_comment_line.txt", "   # indented comment \\\nrequests\n")
case("cont_at_eof_no_newline.txt", "numpy\nrequests>=2.0 \\")
case("cont_at_eof_with_newline.txt", "numpy\nrequests>=2.0 \\\n")
case("cont_splits_name_in_middle.txt", "requ\\\nests>=2.0\nnum\\\npy\\\n==1.26\n")
case("cont_backslash_mid_line.txt", "foo\\bar==1.0\n")
case("cont_space_after_backslash.txt", "requests \\ \n>=2.0\n")
case("cont_into_comment_line.txt", "requests \\\n# a comment line\nnumpy\n")
case("cont_into_blank_line.txt", "requests \\\n\nnumpy\n")
case("cont_double_backslash.txt", "requests\\\\\n>=2.0\n")
case("cont_leading_backslash_stripped.txt", "\\requests \\\n>=2.0\n")
case("cont_line_numbers.txt",
     "alpha\n"
     "beta \\\n"
     "  >=1.0 \\\n"
     "  ,<2.0\n"
     "gamma\n"
     "delta \\\n"
     "\n"
     "epsilon\n")
case("cont_crlf.txt", "requests \\\r\n>=2.0\r\nnumpy\r\n")
case("cont_lone_cr.txt", "requests \\\r>=2.0\rnumpy\r")
case("cont_hash_continuation_lines.txt",
     "pkg==1.0 \\\n"
     f"    --hash=sha256:{H1} \\\n"
     f"    --hash=sha256:{H2}\n"
     "other==2.0\n")

# ---------------------------------------------------------------- line breaks
case("nl_lone_cr.txt", "requests\rnumpy\rsix\r")
case("nl_crlf.txt", "requests\r\nnumpy\r\n\r\nsix\r\n")
case("nl_form_feed.txt", "requests\x0cnumpy\n")
case("nl_vertical_tab.txt", "requests\x0bnumpy\n")
case("nl_file_separator_x1c.txt", "requests\x1cnumpy\n")
case("nl_group_separator_x1d.txt", "requests\x1dnumpy\n")
case("nl_record_separator_x1e.txt", "requests\x1enumpy\n")
case("nl_unit_separator_x1f_not_a_break.txt", "requests\x1fnumpy\n")
case("nl_next_line_u0085.txt", "requests\u0085numpy\n")
case("nl_line_separator_u2028.txt", "requests\u2028numpy\n")
case("nl_paragraph_separator_u2029.txt", "requests\u2029numpy\n")
case("nl_mixed_breaks_line_numbers.txt",
     "a1\rb2\r\nc3\x0cd4\u2028e5\nf6\x1eg7\n")
case("nl_no_trailing_newline.txt", "requests\nnumpy==1.26")
case("nl_only_blank_lines.txt", "\n\n   \n\t\n")
case("nl_empty_file.txt", "")
case("enc_utf8_bom.txt", b"\xef\xbb\xbfrequests\nnumpy\n")
case("enc_coding_latin1.txt",
     b"# -*- coding: latin-1 -*-\nrequests  # caf\xe9\nnumpy\n")
case("enc_invalid_utf8.txt", b"requests\nnum\xffpy\n")
case("enc_utf16_bom.txt", "requests\nnumpy\n".encode("utf-16"))
case("enc_utf32le_bom.txt", b"\xff\xfe\x00\x00" + "requests\nnumpy\n".encode("utf-32-le"))

# ---------------------------------------------------------------- comments
case("comment_after_tab.txt", "requests\t# a comment\nnumpy==1.26\t#pinned\n")
case("comment_after_vertical_tab.txt", "requests\x0b# a comment\n")
case("comment_after_nbsp_u00a0.txt", "requests\u00a0# a comment\nnumpy\n")
case("comment_after_ideographic_space_u3000.txt", "requests\u3000# a comment\nnumpy\n")
case("comment_after_unit_separator_x1f.txt", "requests\x1f# a comment\nnumpy\n")
case("comment_no_space_before_hash.txt", "requests#not-a-comment\nnumpy==1.26#pinned\n")
case("comment_url_egg_fragment.txt",
     f"{SDIST}#egg=foo\n"
     f"{SDIST}#egg=foo # real comment\n")
case("comment_after_options.txt",
     "--index-url https://example.com/simple # internal index\n"
     "--pre # allow pre-releases\n"
     f"pkg==1.0 --hash=sha256:{H1} # pinned\n")
case("comment_leading_whitespace.txt", "   # indented comment\n  requests  \n\t# tab comment\n")
case("comment_only_file.txt", "# only\n# comments\n#\n")
case("comment_after_marker.txt",
     "pkg; python_version >= \"3.8\"  # py38+\n")
case("comment_hash_inside_quoted_option.txt",
     "--find-links \"./wheels #1\"\n")

# ---------------------------------------------------------------- include targets
case("base.txt", "base-pkg==1.0\n")
case("base file.txt", "spaced-pkg==2.0\n")
case("constraints_target.txt", "requests==2.31.0\nurllib3<2\n")
SUPPORT["sub/inner.txt"] = b"inner-pkg==3.0\n-r ../base.txt\n-r inner_sibling.txt\n"
SUPPORT["sub/inner_sibling.txt"] = b"inner-sibling==4.0\n"

# ---------------------------------------------------------------- options
case("opt_hash_space.txt", f"pkg==1.0 --hash=sha256:{H1}\n")
case("opt_hash_tab.txt", f"pkg==1.0\t--hash=sha256:{H1}\n")
case("opt_hash_separate_value.txt", f"pkg==1.0 --hash sha256:{H1} --hash=sha256:{H2}\n")
case("opt_hash_bad_algorithm.txt", f"pkg==1.0 --hash=md5:{H1[:32]}\n")
case("opt_hash_without_requirement.txt", f"--hash=sha256:{H1}\nrequests\n")
case("opt_requirement_quoted_space.txt", "-r \"base file.txt\"\nlocal-pkg\n")
case("opt_requirement_unquoted_space.txt", "-r base file.txt\n")
case("opt_requirement_short_equals.txt", "-r=base.txt\n")
case("opt_requirement_short_attached.txt", "-rbase.txt\n")
case("opt_requirement_long.txt", "--requirement base.txt\n")
case("opt_requirement_long_equals.txt", "--requirement=base.txt\n")
case("opt_requirement_abbrev.txt", "--req base.txt\n")
case("opt_requirement_missing.txt", "first==1.0\n-r does-not-exist.txt\nlast==1.0\n")
case("opt_requirement_nested_dir.txt", "-r sub/inner.txt\nouter==1.0\n")
case("opt_requirement_twice_on_line.txt", "-r base.txt -r constraints_target.txt\n")
case("opt_requirement_file_url_relative.txt", "-r file:base.txt\n")
case("opt_requirement_self_cycle.txt", "-r opt_requirement_self_cycle.txt\nafter-cycle==1.0\n")
case("opt_constraint.txt", "-c constraints_target.txt\nrequests\n")
case("opt_constraint_long.txt", "--constraint constraints_target.txt\n")
case("opt_editable_dot.txt", "-e .\n")
case("opt_editable_local_dir_extras.txt", "-e ./localpkg[dev,test]\n")
case("opt_editable_git_egg.txt", "-e git+https://github.com/example/x.git@v1.0#egg=x\n")
case("opt_editable_git_no_egg.txt", "-e git+https://github.com/example/x.git\n")
case("opt_editable_long_equals.txt", "--editable=git+https://github.com/example/y.git#egg=y\n")
case("opt_editable_with_hash.txt", f"-e git+https://github.com/example/x.git#egg=x --hash=sha256:{H1}\n")
case("opt_editable_two_on_line.txt",
     "-e git+https://github.com/example/a.git#egg=a -e git+https://github.com/example/b.git#egg=b\n")
case("opt_editable_after_requirement.txt", "requests -e git+https://github.com/example/x.git#egg=x\n")
case("opt_pre.txt", "--pre\nrequests\n")
case("opt_index_url_short.txt", "-i https://example.com/simple\nrequests\n")
case("opt_index_url_abbrev_index_equals.txt", "--index=https://example.com/simple\nrequests\n")
case("opt_index_url_long_equals.txt", "--index-url=https://example.com/simple\n")
case("opt_extra_index_url.txt",
     "--extra-index-url https://example.com/extra\n--extra-index-url=https://example.org/extra2\n")
case("opt_find_links.txt", "--find-links https://example.com/links\n-f ./wheels\n-f./wheels2\n")
case("opt_no_index.txt", "--no-index\n--find-links ./wheels\nrequests\n")
case("opt_no_binary_all.txt", "--no-binary :all:\nrequests\n")
case("opt_no_binary_list.txt", "--no-binary numpy,scipy\n--no-binary=:none:\n")
case("opt_only_binary.txt", "--only-binary=:all:\n--only-binary numpy\n")
case("opt_prefer_binary.txt", "--prefer-binary\n")
case("opt_trusted_host.txt", "--trusted-host example.com\n--trusted-host=example.org:8080\n")
case("opt_use_feature_valid.txt", "--use-feature=truststore\n")
case("opt_use_feature_invalid.txt", "--use-feature=no-such-feature\n")
case("opt_require_hashes.txt", "--require-hashes\n")
case("opt_unknown_option.txt", "requests\n--frobnicate\nnumpy\n")
case("opt_unknown_option_on_requirement_line.txt", "requests --frobnicate\n")
case("opt_ambiguous_abbrev.txt", "--no-b :all:\n--no- :all:\n")
case("opt_global_option.txt", "pkg==1.0 --global-option=--no-user-cfg --global-option \"--verbose\"\n")
case("opt_config_settings.txt", "pkg==1.0 --config-settings=editable_mode=compat\n")
case("opt_in_middle_of_requirement.txt", "requests --pre >=2.0\n")
case("opt_requirement_line_with_file_option.txt", "requests -i https://example.com/simple --pre\n")
case("opt_several_on_one_line.txt",
     "--pre --prefer-binary -i https://example.com/simple --trusted-host example.com\n")
case("opt_shlex_unbalanced_quote.txt", "-r \"base.txt\n")
case("opt_missing_value.txt", "-r\n")
case("opt_dash_token_in_marker.txt",
     "pkg; platform_release == '5.4 -generic'\n")
case("opt_single_dash_word_in_requirement.txt", "pkg >= 1.0 -beta\n")

# ---------------------------------------------------------------- direct URLs / paths
case("url_wheel_https.txt", f"{WHL}\n")
case("url_wheel_sha256_fragment.txt", f"{WHL}#sha256={H1}\n")
case("url_wheel_with_hash_option.txt", f"{WHL} --hash=sha256:{H1}\n")
case("url_sdist_targz_unnamed.txt", f"{SDIST}\n")
case("url_sdist_egg_fragment.txt", f"{SDIST}#egg=foo\n")
case("url_pep508_name_at.txt", f"foo @ {SDIST}\n")
case("url_pep508_name_at_marker.txt", f"foo @ {SDIST} ; python_version >= \"3.8\"\n")
case("url_marker_semicolon_space.txt", f"{WHL}; python_version >= \"3.8\"\n")
case("url_marker_semicolon_no_space.txt", f"{WHL};python_version>=\"3.8\"\n")
case("url_marker_space_semicolon_space.txt", f"{WHL} ; python_version >= \"3.8\"\n")
case("url_file_scheme_absolute.txt", "file:///opt/wheels/foo_bar-1.2.3-py3-none-any.whl\n")
case("url_file_scheme_relative.txt", "file:dist/x-1.0-py3-none-any.whl\n")
case("url_file_scheme_parent.txt", "file:../outside/y-2.0-py3-none-any.whl\n")
case("url_local_wheel_path.txt", "./dist/x-1.0-py3-none-any.whl\n")
case("url_local_wheel_path_no_dot.txt", "dist/x-1.0-py3-none-any.whl\n")
case("url_local_wheel_missing.txt", "./dist/missing-2.0-py3-none-any.whl\n")
case("url_local_sdist_missing_bare.txt", "missing-3.0.tar.gz\n")
case("url_local_dot.txt", ".\n")
case("url_local_dir_pkg.txt", "./localpkg\n")
case("url_local_dir_pkg_extras.txt", "./localpkg[dev,test]\n")
case("url_local_dir_pkg_marker.txt", "./localpkg ; python_version >= \"3.8\"\n")
case("url_vcs_non_editable_egg.txt", "git+https://github.com/example/x.git@v1.0#egg=x\n")
case("url_vcs_pep508.txt", "x @ git+https://github.com/example/x.git@v1.0\n")
case("url_wheel_invalid_filename.txt", "https://example.com/packages/notawheel.whl\n")
case("url_uppercase_scheme.txt", "HTTPS://example.com/packages/foo_bar-1.2.3-py3-none-any.whl\n")
case("url_name_at_with_space_less_marker.txt", f"foo @ {SDIST};python_version>=\"3.8\"\n")

# ---------------------------------------------------------------- environment variables
case("env_set_name_and_version.txt", "${PKG_NAME}>=${MIN_VERSION}\n",
     env="PKG_NAME=requests\nMIN_VERSION=2.31\n")
case("env_unset.txt", "requests>=${UNSET_VERSION}\n", env="")
case("env_lowercase_not_expanded.txt", "requests>=${min_version}\n", env="min_version=2.0\n")
case("env_mixedcase_not_expanded.txt", "requests>=${Min_Version}\n", env="Min_Version=2.0\n")
case("env_dollar_without_braces.txt", "requests>=$MIN_VERSION\n", env="MIN_VERSION=2.0\n")
case("env_in_url.txt",
     "--index-url https://${INDEX_USER}:${INDEX_TOKEN}@example.com/simple\n"
     "foo @ https://${INDEX_HOST}/packages/foo-1.0.tar.gz\n"
     "https://${INDEX_HOST}/packages/foo_bar-1.2.3-py3-none-any.whl\n",
     env="INDEX_USER=me\nINDEX_TOKEN=s3cr3t\nINDEX_HOST=example.com\n")
case("env_empty_value_not_expanded.txt", "requests>=${EMPTY}\n", env="EMPTY=\n")
case("env_value_with_comment_text.txt", "${SPEC}\n", env="SPEC=requests # not a comment\n")
case("env_value_with_option.txt", "${SPEC}\n", env=f"SPEC=requests --hash=sha256:{H1}\n")
case("env_in_include_path.txt", "-r ${BASE_FILE}\n", env="BASE_FILE=base.txt\n")
case("env_across_continuation.txt", "${PKG_NAME} \\\n>=${MIN_VERSION}\n",
     env="PKG_NAME=requests\nMIN_VERSION=2.31\n")
case("env_digits_underscore_name.txt", "${MY_PKG_1}==${_V2}\n", env="MY_PKG_1=numpy\n_V2=1.26.4\n")
case("env_value_references_other_var.txt", "${FIRST}${SECOND}\n",
     env="FIRST=req${SECOND}\nSECOND=uests\n")
case("env_in_comment_ignored.txt", "requests # ${NOT_USED}\n", env="NOT_USED=numpy\n")
case("env_ignores_process_env.txt", "requests>=${HOME}\n", env="")

# ---------------------------------------------------------------- PEP 508
case("pep508_extras.txt", "requests[security,socks]>=2.0\n")
case("pep508_extras_with_spaces.txt", "requests [ security , socks ] >= 2.0\n")
case("pep508_marker_semicolon_no_space.txt", "pkg>=1.0;python_version<'3.12'\n")
case("pep508_marker_spaces.txt",
     "pkg >= 1.0 ; sys_platform == 'linux' and python_version >= '3.8'\n")
case("pep508_ws_around_operators.txt", "pkg >= 1.0 , < 2.0\nother== 1.0\nthird ==1.0\n")
case("pep508_arbitrary_equality.txt", "pkg===1.0+local.7\nweird===foobar\n")
case("pep508_compatible_release.txt", "pkg~=1.4.2\n")
case("pep508_wildcards.txt", "pkg==1.4.*\nother!=1.5.*\n")
case("pep508_invalid_double_operator.txt", "pkg>=>1\n")
case("pep508_invalid_trailing_word.txt", "pkg>= 1.0 abc\n")
case("pep508_legacy_version_word.txt", "pkg>=abc\n")
case("pep508_single_equals.txt", "pkg=1.0\n")
case("pep508_names_dots_underscores.txt",
     "zope.interface>=5\ntyping_extensions\nFoo.Bar_baz-qux==1.0\n")
case("pep508_parenthesized_specifier.txt", "pkg (>=1.0,<2.0)\n")
case("pep508_extras_after_version.txt", "pkg>=1.0[extra]\n")
case("pep508_local_version.txt", "torch==2.1.0+rocm5.6\n")
case("pep508_specifier_order_normalized.txt", "pkg<2.0,>=1.0,!=1.5\n")
case("pep508_name_with_inner_space.txt", "foo bar\n")
case("pep508_marker_only_after_semicolon_empty.txt", "pkg>=1.0;\n")
case("pep508_invalid_marker.txt", "pkg>=1.0; not_a_marker == '1'\n")
case("pep508_requirement_then_hash_continuations.txt",
     "mooncake-transfer-engine-rocm==0.3.13 \\\n"
     f"    --hash=sha256:{H1} \\\n"
     f"    --hash=sha256:{H2}\n")

# ---------------------------------------------------------------- more line-shape quirks
case("cont_trailing_comment_backslash_at_eof.txt", "numpy\ntorch  # ROCm build \\")
case("comment_inside_marker_string.txt", "pkg; platform_machine == 'x #86'\n")
case("opt_use_feature_leaks_to_later_lines.txt",
     "requests\n--use-feature=truststore\nnumpy\n")
case("opt_option_before_requirement.txt", "--pre requests>=2.0\nnumpy\n")
case("opt_hash_before_requirement.txt", f"--hash=sha256:{H1} pkg==1.0\n")
case("opt_editable_attached_dot.txt", "-e.\n")
case("nl_tab_between_requirements.txt", "requests\tnumpy\n")
case("pep508_two_requirements_one_line.txt", "requests numpy\n")

case("cont_no_space_into_comment_line.txt", "requests\\\n# a comment line\nnumpy\n")
case("cont_url_fragment_on_next_line.txt", f"{SDIST}\\\n#egg=foo\n")

# support files
SUPPORT["localpkg/pyproject.toml"] = b"[project]\nname = \"localpkg\"\nversion = \"0.1\"\n"
SUPPORT["dist/x-1.0-py3-none-any.whl"] = b""


def main():
    if os.path.isdir(CASES):
        shutil.rmtree(CASES)
    os.makedirs(CASES)
    for name, data in C.items():
        with open(os.path.join(CASES, name), "wb") as f:
            f.write(data)
    for base, text in ENV.items():
        with open(os.path.join(CASES, base + ".env"), "w", encoding="utf-8") as f:
            f.write(text)
    for rel, data in SUPPORT.items():
        p = os.path.join(CASES, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
    print(len(C), "cases,", len(ENV), "env sidecars,", len(SUPPORT), "support files")


if __name__ == "__main__":
    main()
