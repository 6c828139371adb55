#!/usr/bin/python3
"""run.py — runs every case of cases.tsv through the real benchwatch binary
and checks its exit status and that the error says what is wrong.

Kinds of case:
  args    benchwatch -c <empty config> INPUT...   (INPUT split like a shell)
  config  INPUT is a configuration file: benchwatch -c FILE check-config
  dropin  INPUT is conf.d/50-case.conf beside an empty main file
  sh      INPUT is a shell command; $BENCHWATCH is the binary, $BW the
          binary with an empty configuration, $AS_NOBODY runs a command as
          nobody (empty when not root), @T@ a private directory per case.
Exit: 0 all pass, 1 any fails (each failure printed with the output).
Usage: run.py [CASES.tsv] (BENCHWATCH and BENCHWATCH_PLUGIN_DIR from make
check)."""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def unescape(s):
    """\\n \\t \\\\ \\xHH into bytes (the table is UTF-8 text)."""
    out = bytearray()
    i = 0
    b = s.encode()
    while i < len(b):
        c = b[i:i + 1]
        if c == b"\\" and i + 1 < len(b):
            n = b[i + 1:i + 2]
            if n == b"n":
                out += b"\n"; i += 2; continue
            if n == b"t":
                out += b"\t"; i += 2; continue
            if n == b"\\":
                out += b"\\"; i += 2; continue
            if n == b"x":
                out.append(int(b[i + 2:i + 4], 16)); i += 4; continue
        out += c
        i += 1
    return bytes(out)


def load(path):
    cases = []
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != 4:
                sys.exit("%s:%d: want 4 tab-separated fields, got %d" % (path, no, len(parts)))
            kind, inp, code, want = parts
            if kind not in ("args", "config", "dropin", "sh"):
                sys.exit("%s:%d: unknown kind %r" % (path, no, kind))
            cases.append((no, kind, inp, int(code), want))
    return cases


def run_case(bw, kind, inp, tdir):
    empty = os.path.join(tdir, "empty.conf")
    open(empty, "w").close()
    sub = lambda s: s.replace("@T@", tdir)
    env = dict(os.environ)
    env["BW"] = "%s -c %s" % (bw, empty)
    env["AS_NOBODY"] = ("setpriv --reuid=65534 --regid=65534 --clear-groups"
                        if os.geteuid() == 0 else "")
    if kind == "args":
        argv = [bw.encode(), b"-c", empty.encode()]
        lex = shlex.shlex(sub(inp), posix=True)
        lex.whitespace_split = True
        lex.escape = ""  # backslashes are the table's escapes, not the shell's
        argv += [unescape(w) for w in lex]
    elif kind in ("config", "dropin"):
        main = os.path.join(tdir, "benchwatch.conf")
        text = unescape(sub(inp))
        if kind == "dropin":
            os.mkdir(os.path.join(tdir, "conf.d"))
            with open(os.path.join(tdir, "conf.d", "50-case.conf"), "wb") as f:
                f.write(text)
            text = b""
        with open(main, "wb") as f:
            f.write(text)
        argv = [bw.encode(), b"-c", main.encode(), b"check-config"]
    else:
        argv = [b"/bin/sh", b"-c", unescape(sub(inp))]
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, env=env, cwd=tdir, timeout=60)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        return "timeout", e.stdout or b""


def main():
    bw = os.environ.get("BENCHWATCH")
    if not bw:
        sys.exit("run through make check (BENCHWATCH is not set)")
    table = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "cases.tsv")
    cases = load(table)
    failed = 0
    top = tempfile.mkdtemp(prefix="bwbad.")
    os.chmod(top, 0o755)  # $AS_NOBODY must reach its files
    try:
        for no, kind, inp, code, want in cases:
            tdir = os.path.join(top, "c%d" % no)
            os.mkdir(tdir)
            os.chmod(tdir, 0o755)
            got, out = run_case(bw, kind, inp, tdir)
            needle = unescape(want.replace("@T@", tdir))
            ok = got == code and needle in out
            if "MODIFIED" in out.decode(errors="replace") or \
               "CREATED" in out.decode(errors="replace"):
                ok = False
            if not ok:
                failed += 1
                print("FAIL line %d: %s %s" % (no, kind, inp))
                print("  want exit %s and %r" % (code, needle))
                print("  got  exit %s:" % got)
                for l in out.decode(errors="replace").splitlines()[:8]:
                    print("    " + l)
            shutil.rmtree(tdir, ignore_errors=True)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    print("%d bad inputs, %d failed" % (len(cases), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
