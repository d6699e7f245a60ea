#!/usr/bin/env python3
"""Parity table of what pip's own requirements-file reader yields.

Usage:  python3 gen_pip_parity.py CASES_DIR [-o parity.json]

For every CASES_DIR/*.txt (sorted by name) this runs pip's reader the way
`pip install -r FILE` does, i.e. exactly the loop of
pip._internal.req.req_file.parse_requirements(filename, session=PipSession(),
finder=None, options=None, constraint=False), but through its lower-level
pieces (RequirementsFileParser + get_line_parser(None) + handle_line) so that
option lines (which parse_requirements consumes silently when finder=None) can
be recorded as well.  The public parse_requirements is run as well and its
result compared (field `cross_check`), so the lower-level route is proven to
be the same as the public one.

Conditions, the same for every case:
  * every case runs in a fresh interpreter (this script re-runs itself with
    --one NAME), as every `pip install -r` does: pip keeps some state between
    lines in module-level objects (the --use-feature default list);
  * the process works in CASES_DIR and passes pip the bare file name, as
    `cd CASES_DIR && pip install -r NAME.txt` would: relative -r/-c targets
    are joined to the including file's directory (pip's rule) and local paths
    on requirement lines are resolved against the working directory (pip's
    rule, which is why the cwd matters);
  * os.environ is emptied and filled with the case's sidecar NAME.env
    (KEY=VALUE lines, taken literally, no quoting; blank lines and lines
    starting with '#' are skipped), then restored;
  * pip reads and decodes the file itself (auto_decode: BOM, PEP 263 coding
    line in the first two lines, else the locale encoding, which is recorded
    in the output and is UTF-8 here);
  * the socket module is guarded (socket.socket, create_connection,
    getaddrinfo, gethostbyname raise): any network attempt is recorded in
    `network.attempts` and in the case, and fails the case instead of
    reaching the network.
Absolute paths under CASES_DIR in the output are written as {CASES} (and
its parent directory as {CASES}/..), so the table does not depend on where
the cases live.

Per requirement pip yields (ParsedRequirement): file and line (from
comes_from "-r FILE (line N)"), requirement, is_editable, constraint, options
(per-requirement options) plus `line_opts`: every non-default option optparse
parsed on that logical line, including those pip then ignores.  Then what
install_req_from_parsed_requirement makes of it (`install_req`, or
`install_error` when it raises: `pip install -r` would stop there).  Editable
lines get it too (install_req_from_editable), marked by is_editable.
Option lines (every logical line that is not a requirement, -r/-c included)
go to `options` with their non-default opts.  The reader's own exception, if
any, is `error` with the file, logical line number and logical line text pip
was handling.  `first_error` is what `pip install -r` would stop on first
(reader error or the first install_req error, in stream order).
"""

import argparse
import copy
import subprocess
from concurrent.futures import ThreadPoolExecutor
import hashlib
import io
import json
import locale
import logging
import os
import re
import socket
import sys
import warnings

import pip
from pip._internal.network.session import PipSession
from pip._internal.req import req_file
from pip._internal.req.req_file import (
    RequirementsFileParser,
    build_parser,
    get_line_parser,
    handle_line,
    parse_requirements,
)
from pip._internal.req.constructors import install_req_from_parsed_requirement
from pip._internal.index.package_finder import PackageFinder  # noqa: F401  (import side effects before the guard)
from pip._internal.models.format_control import FormatControl
from pip._vendor.packaging.utils import canonicalize_name

# --------------------------------------------------------------------------
# network guard (installed after all imports; urllib3/requests look the
# socket functions up on the module at call time)

NETWORK_ATTEMPTS = []


class NetworkBlocked(OSError):
    pass


_orig_socket = socket.socket


class _GuardSocket(_orig_socket):
    def __init__(self, *args, **kwargs):  # no fd is ever created
        NETWORK_ATTEMPTS.append("socket.socket%r" % (args,))
        raise NetworkBlocked("network access blocked by gen_pip_parity (socket.socket)")


def _blocked(name):
    def f(*args, **kwargs):
        NETWORK_ATTEMPTS.append("socket.%s%r" % (name, args[:2]))
        raise NetworkBlocked("network access blocked by gen_pip_parity (socket.%s)" % name)

    return f


def install_network_guard():
    socket.socket = _GuardSocket
    socket.SocketType = _GuardSocket
    for name in ("create_connection", "getaddrinfo", "gethostbyname", "gethostbyname_ex"):
        setattr(socket, name, _blocked(name))


def guard_self_test():
    """The guard must stop both a raw socket and a connection attempt."""
    results = {}
    for label, fn in (
        ("socket.socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
        ("socket.create_connection", lambda: socket.create_connection(("127.0.0.1", 9))),
        ("socket.getaddrinfo", lambda: socket.getaddrinfo("example.com", 443)),
    ):
        try:
            fn()
            results[label] = "NOT BLOCKED"
        except NetworkBlocked:
            results[label] = "blocked"
    del NETWORK_ATTEMPTS[:]
    return results


# --------------------------------------------------------------------------
# bookkeeping around pip's reader (wrappers that only observe)

TRACK = {"pending": None, "file": None, "line": None, "text": None}
_orig_get_file_content = req_file.get_file_content
_orig_preprocess = req_file.preprocess


def _tracking_get_file_content(url, session):
    TRACK["pending"] = url
    return _orig_get_file_content(url, session)


def _tracking_preprocess(content):
    fname = TRACK["pending"]
    for lineno, line in _orig_preprocess(content):
        TRACK.update(file=fname, line=lineno, text=line)
        yield lineno, line


req_file.get_file_content = _tracking_get_file_content
req_file.preprocess = _tracking_preprocess


class RecordingParser(RequirementsFileParser):
    """Records every ParsedLine, including the -r/-c lines that
    _parse_and_recurse consumes."""

    def __init__(self, session, line_parser, sink):
        super().__init__(session, line_parser)
        self._sink = sink

    def _parse_file(self, filename, constraint):
        for parsed_line in super()._parse_file(filename, constraint):
            # opts serialised now: a later line can still change a list in it
            # (the shared --use-feature default)
            self._sink.append((parsed_line, nondefault_opts(parsed_line.opts)))
            yield parsed_line


class _ListHandler(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append("%s: %s" % (record.levelname, record.getMessage()))


LOG = _ListHandler()
_pip_logger = logging.getLogger("pip")
_pip_logger.addHandler(LOG)
_pip_logger.setLevel(logging.WARNING)
_pip_logger.propagate = False


def take_log():
    msgs = LOG.messages[:]
    del LOG.messages[:]
    return msgs


# --------------------------------------------------------------------------
# serialisation

def jsonable(v):
    if isinstance(v, FormatControl):
        return {"no_binary": sorted(v.no_binary), "only_binary": sorted(v.only_binary)}
    if isinstance(v, (set, frozenset)):
        return sorted(jsonable(x) for x in v)
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): jsonable(v[k]) for k in sorted(v, key=str)}
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return repr(v)


def _pristine_defaults():
    d = build_parser().get_default_values()
    d.index_url = None  # what get_line_parser(None) does
    return copy.deepcopy(d.__dict__)


# Taken before any line is parsed: the default list of --use-feature
# (features_enabled) is one list shared by every parser pip builds, and each
# --use-feature appends to it, so it is not a stable reference later.
_DEFAULTS = _pristine_defaults()


def nondefault_opts(opts):
    out = {}
    for k in sorted(opts.__dict__):
        v = opts.__dict__[k]
        if k in _DEFAULTS and _DEFAULTS[k] == v:
            continue
        out[k] = jsonable(v)
    return out


def err_record(exc):
    return {"type": type(exc).__name__, "message": str(exc)}


COMES_FROM_RE = re.compile(r"^(-[rc]) (.*) \(line (\d+)\)$", re.S)


def ireq_record(ireq):
    req = ireq.req
    link = ireq.link
    return {
        "name": req.name if req is not None else None,
        "normalized": canonicalize_name(req.name) if req is not None else None,
        "req": str(req) if req is not None else None,
        "specifier": str(req.specifier) if req is not None else None,
        "url": link.url if link is not None else None,
        "link_is_wheel": link.is_wheel if link is not None else None,
        "link_is_vcs": link.is_vcs if link is not None else None,
        "markers": str(ireq.markers) if ireq.markers is not None else None,
        "extras": sorted(ireq.extras),
        "editable": ireq.editable,
        "hashes": jsonable(ireq.hash_options),
        "global_options": jsonable(ireq.global_options),
        "config_settings": jsonable(ireq.config_settings),
    }


def read_env(path):
    env = {}
    if not os.path.exists(path):
        return env
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")
    for raw in text.split("\n"):
        line = raw[:-1] if raw.endswith("\r") else raw
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = line.partition("=")
        if not sep:
            raise SystemExit("%s: not KEY=VALUE: %r" % (path, line))
        env[key] = value
    return env


# --------------------------------------------------------------------------

def run_reader(name, session):
    """The parse_requirements loop, step by step."""
    parsed_lines = []
    yielded = []
    error = None
    TRACK.update(pending=None, file=None, line=None, text=None)
    parser = RecordingParser(session, get_line_parser(None), parsed_lines)
    real_stderr, sys.stderr = sys.stderr, io.StringIO()  # optparse prints its usage there
    try:
        for parsed_line in parser.parse(name, False):
            parsed_req = handle_line(parsed_line, options=None, finder=None, session=session)
            if parsed_req is not None:
                yielded.append((parsed_req, parsed_lines[-1][1], take_log()))
    except BaseException as exc:  # noqa: B902 - RecursionError etc. too
        if isinstance(exc, KeyboardInterrupt):
            raise
        error = err_record(exc)
        # file/line: the last logical line pip handled (for a failed -r/-c
        # that is the include line); reading: the file pip was reading or
        # opening when it failed.
        error.update(file=TRACK["file"], line=TRACK["line"], line_text=TRACK["text"],
                     reading=TRACK["pending"])
    finally:
        sys.stderr = real_stderr
    return parsed_lines, yielded, error


def run_public(name, session):
    """pip's public parse_requirements, for the cross check."""
    out = []
    real_stderr, sys.stderr = sys.stderr, io.StringIO()
    try:
        for r in parse_requirements(name, session=session, finder=None, options=None, constraint=False):
            out.append([r.requirement, r.is_editable, r.comes_from, r.constraint,
                        jsonable(r.options), r.line_source])
        return out, None
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        return out, [type(exc).__name__, str(exc)]
    finally:
        sys.stderr = real_stderr


def run_case(cases_dir, name, session):
    base = name[:-len(".txt")]
    env = read_env(os.path.join(cases_dir, base + ".env"))
    with open(os.path.join(cases_dir, name), "rb") as f:
        data = f.read()

    saved_env = dict(os.environ)
    attempts_before = len(NETWORK_ATTEMPTS)
    os.environ.clear()
    os.environ.update(env)
    try:
        take_log()
        with warnings.catch_warnings(record=True) as pywarn:
            warnings.simplefilter("always")
            parsed_lines, yielded, error = run_reader(name, session)
            reader_log = take_log()

            requirements = []
            first_error = None
            for parsed_req, line_opts, log_during in yielded:
                m = COMES_FROM_RE.match(parsed_req.comes_from)
                rec = {
                    "file": m.group(2) if m else None,
                    "line": int(m.group(3)) if m else None,
                    "comes_from": parsed_req.comes_from,
                    "requirement": parsed_req.requirement,
                    "is_editable": parsed_req.is_editable,
                    "constraint": parsed_req.constraint,
                    "options": jsonable(parsed_req.options),
                    "line_opts": line_opts,
                    "line_source": parsed_req.line_source,
                    "install_req": None,
                    "install_error": None,
                    "warnings": log_during,
                }
                try:
                    with warnings.catch_warnings(record=True) as req_pywarn:
                        warnings.simplefilter("always")
                        try:
                            ireq = install_req_from_parsed_requirement(parsed_req)
                        finally:
                            rec["warnings"] = rec["warnings"] + [
                                "%s: %s" % (w.category.__name__, w.message) for w in req_pywarn]
                    rec["install_req"] = ireq_record(ireq)
                except Exception as exc:
                    rec["install_error"] = err_record(exc)
                    if first_error is None:
                        first_error = dict(stage="install_req", file=rec["file"], line=rec["line"],
                                           **err_record(exc))
                rec["warnings"] = rec["warnings"] + take_log()
                requirements.append(rec)
            if first_error is None and error is not None:
                first_error = dict(stage="read", **error)

            options = [
                {"file": pl.filename, "line": pl.lineno, "constraint": pl.constraint,
                 "opts": opts}
                for pl, opts in parsed_lines if not pl.is_requirement
            ]
            options_omitted = False
            if error and error["type"] == "RecursionError" and len(options) > 3:
                # one -r line per nesting level; how many depends on the stack
                options, options_omitted = options[:3], True

            public, public_err = run_public(name, session)
            take_log()
        mine = [[r["requirement"], r["is_editable"], r["comes_from"], r["constraint"],
                 r["options"], r["line_source"]] for r in requirements]
        mine_err = [error["type"], error["message"]] if error else None
        if mine_err and public_err and mine_err[0] == public_err[0] == "RecursionError":
            # the depth reached, so the exact message, differs with the observing wrappers
            mine_err, public_err = mine_err[:1], public_err[:1]
        cross = "same" if (mine, mine_err) == (public, public_err) else {
            "parse_requirements": {"requirements": public, "error": public_err}}
    finally:
        os.environ.clear()
        os.environ.update(saved_env)

    return {
        "bytes_sha256": hashlib.sha256(data).hexdigest(),
        "env": env,
        "requirements": requirements,
        "options": options,
        "options_omitted": options_omitted,
        "error": error,
        "first_error": first_error,
        "warnings": reader_log + ["%s: %s" % (w.category.__name__, w.message) for w in pywarn],
        "network_attempts": NETWORK_ATTEMPTS[attempts_before:],
        "cross_check": cross,
    }


def child(cases_dir, name):
    """One case in this (fresh) process: pip keeps state between lines in
    module-level objects (see _DEFAULTS), so every case gets its own
    interpreter, as every `pip install -r` does."""
    session = PipSession()  # created before the env is emptied and the guard is up
    install_network_guard()
    self_test = guard_self_test()
    os.chdir(cases_dir)
    sys.argv[0] = "pip"  # optparse names the program in its errors: "pip: error: ..."
    sys.setrecursionlimit(1000)
    result = run_case(cases_dir, name, session)
    json.dump({
        "meta": {
            "pip_version": pip.__version__,
            "pip_location": os.path.dirname(pip.__file__),
            "python_version": sys.version.split()[0],
            "locale_encoding": locale.getpreferredencoding(False),
            "guard": self_test,
        },
        "case": result,
    }, sys.stdout)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases_dir")
    ap.add_argument("-o", "--output", help="write here instead of stdout")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--one", metavar="NAME", help=argparse.SUPPRESS)  # child mode
    args = ap.parse_args()

    cases_dir = os.path.abspath(args.cases_dir)
    if args.one:
        return child(cases_dir, args.one)

    output = os.path.abspath(args.output) if args.output else None
    names = sorted(n for n in os.listdir(cases_dir)
                   if n.endswith(".txt") and os.path.isfile(os.path.join(cases_dir, n)))

    def run(name):
        proc = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--one", name, cases_dir],
            capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit("case %s: child failed (%d):\n%s" % (name, proc.returncode, proc.stderr))
        return json.loads(proc.stdout)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = dict(zip(names, pool.map(run, names)))

    metas = {json.dumps(r["meta"], sort_keys=True) for r in results.values()}
    if len(metas) != 1:
        raise SystemExit("children disagree about their environment: %s" % metas)
    meta = json.loads(metas.pop())
    cases = {name: results[name]["case"] for name in names}
    attempts = {name: c["network_attempts"] for name, c in cases.items() if c["network_attempts"]}

    out = {
        "pip_version": meta["pip_version"],
        "pip_location": meta["pip_location"],
        "python_version": meta["python_version"],
        "locale_encoding": meta["locale_encoding"],
        "conditions": {
            "cwd": "{CASES}",
            "invocation": "cd {CASES} && pip install -r NAME.txt, one fresh interpreter per case "
                          "(reader and install_req_from_parsed_requirement only; nothing is resolved or fetched)",
            "env": "emptied, then the case's NAME.env",
            "paths": "absolute paths under the cases directory are written {CASES}, its parent {CASES}/..",
        },
        "network": {"guard": meta["guard"], "attempts": attempts},
        "case_count": len(cases),
        "cases": cases,
    }
    text = json.dumps(out, indent=1, ensure_ascii=True) + "\n"
    parent = os.path.dirname(cases_dir)
    for p, rep in ((cases_dir, "{CASES}"), (os.path.realpath(cases_dir), "{CASES}"),
                   (parent, "{CASES}/.."), (os.path.realpath(parent), "{CASES}/..")):
        text = text.replace(json.dumps(p)[1:-1], rep)
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if attempts or any(v != "blocked" for v in meta["guard"].values()):
        print("network guard: attempts=%r self_test=%r" % (attempts, meta["guard"]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
