#!/usr/bin/env python3
"""Check that every metric a shipped query names is one benchwatch emits.

A dashboard panel or an alert on a misspelt or renamed metric shows nothing
and fires never, silently.  So this reads what the project really emits,
from its source at test time:
  - each plugin's figures: the h->gauge / h->counter / h->latency calls in
    the sources Makefile.am builds into plugins/<x>.la (shared helpers
    included), prefixed with benchwatch_<name>_ where <name> is the
    plugin's descriptor name (a latency is a summary: also _sum, _count),
    and h->info(h, "benchwatch_..._info") info metrics named whole;
  - the core's families: result_add(..., "benchwatch_...") in daemon/*/*.c,
    or result_add(..., NAME, ...) with #define NAME "benchwatch_...", or
    result_add(..., table[i].name, ...) with the names of that table's
    { "benchwatch_...", ... } entries (benchwatch_probe_*,
    benchwatch_baseline*, benchwatch_regression*);
  - the Pushgateway's own push_time_seconds / push_failure_time_seconds;
  - the recording rules of the rules file (names with colons);
then pulls the metric names out of every PromQL expression of the Grafana
dashboard (targets and template variables) and of the rules file, and
fails on any name not in that set.  Label matchers metric="..." (the
baseline and regression families name a figure) are checked the same way.

usage: check_metric_names.py SRCDIR DASHBOARD.json RULES.yml
"""
import json
import os
import re
import sys

PUSHGATEWAY = {"push_time_seconds", "push_failure_time_seconds"}
KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on",
            "ignoring", "group_left", "group_right", "inf", "nan", "atan2"}


def makefile_vars(path):
    """Variables of Makefile.am (=, +=), continuation lines joined."""
    text = open(path, encoding="utf-8").read().replace("\\\n", " ")
    out = {}
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(\+?=)\s*(.*)$", line)
        if m:
            name, op, val = m.groups()
            out[name] = (out.get(name, "") + " " + val) if op == "+=" else val
    return out


def expand(value, variables, depth=0):
    if depth > 10:
        return value
    return re.sub(r"\$\((\w+)\)",
                  lambda m: expand(variables.get(m.group(1), ""), variables, depth + 1),
                  value)


def plugin_sources(srcdir):
    """{la name: [source .c paths]} for every plugins/<x>.la."""
    variables = makefile_vars(os.path.join(srcdir, "Makefile.am"))
    plugins = {}
    for name, val in variables.items():
        m = re.match(r"^plugins_(\w+)_la_SOURCES$", name)
        if m:
            files = [f for f in expand(val, variables).split() if f.endswith(".c")]
            plugins[m.group(1)] = [os.path.join(srcdir, f) for f in files]
    return plugins


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def emitted_names(srcdir):
    names = set(PUSHGATEWAY)
    origin = {n: "pushgateway" for n in PUSHGATEWAY}
    plugins = plugin_sources(srcdir)
    if not plugins:
        sys.exit("no plugins_*_la_SOURCES in Makefile.am: cannot tell what is emitted")
    for la, sources in sorted(plugins.items()):
        texts = [read(s) for s in sources if os.path.exists(s)]
        plugin = la
        for t in texts:
            m = re.search(r'BW_PLUGIN_DEFINE\s*=\s*\{.*?\.name\s*=\s*"([a-z][a-z0-9_]*)"', t, re.S)
            if m:
                plugin = m.group(1)
        for t in texts:
            for kind, short in re.findall(
                    r'\b\w+\s*->\s*(gauge|counter|latency)\s*\(\s*\w+\s*,\s*"([a-z0-9_]+)"', t):
                full = "benchwatch_%s_%s" % (plugin, short)
                found = [full] + ([full + "_sum", full + "_count"] if kind == "latency" else [])
                for n in found:
                    names.add(n)
                    origin[n] = "plugin " + plugin
            for full in re.findall(r'\b\w+\s*->\s*info\s*\(\s*\w+\s*,\s*"(benchwatch_[a-z0-9_]+_info)"', t):
                names.add(full)
                origin[full] = "plugin " + plugin
    daemon = os.path.join(srcdir, "daemon")
    for layer in sorted(os.listdir(daemon)):
        if not os.path.isdir(os.path.join(daemon, layer)):
            continue
        for f in sorted(os.listdir(os.path.join(daemon, layer))):
            if f.endswith(".c"):
                for n in core_families(read(os.path.join(daemon, layer, f))):
                    names.add(n)
                    origin[n] = "daemon/%s/%s" % (layer, f)
    return names, origin


def core_families(text):
    """Family names a daemon source passes to result_add(): a literal, a
    macro defined as one, or the names of a table's entries."""
    found = re.findall(r'\bresult_add\s*\(\s*\w+\s*,\s*"(benchwatch_\w+)"', text)
    for macro in re.findall(r'\bresult_add\s*\(\s*\w+\s*,\s*([A-Z][A-Z0-9_]*)\s*,', text):
        found += re.findall(r'^#define\s+%s\s+"(benchwatch_\w+)"' % macro, text, re.M)
    for table in re.findall(r'\bresult_add\s*\(\s*\w+\s*,\s*(\w+)\s*\[[^\]]*\]\s*\.\s*name\b', text):
        m = re.search(r'\b%s\s*\[\s*\]\s*=\s*\{(.*?)^\};' % table, text, re.S | re.M)
        if m:
            found += re.findall(r'\{\s*"(benchwatch_\w+)"\s*,', m.group(1))
    return found


def rules_exprs(path):
    """(recorded names, [(where, expr)]) from a Prometheus rules file,
    read line by line: `record:` names and `expr:` values, plain or block."""
    lines = read(path).splitlines()
    recorded, exprs = set(), []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^\s*(?:- )?record:\s*(\S+)", line)
        if m:
            recorded.add(m.group(1).strip("'\""))
        m = re.match(r"^(\s*)(?:- )?expr:\s*(.*)$", line)
        if m:
            indent, value = len(m.group(1)), m.group(2).strip()
            start = i + 1
            if value in ("|", ">", "|-", ">-"):
                block = []
                i += 1
                while i < len(lines) and (not lines[i].strip() or
                                          len(lines[i]) - len(lines[i].lstrip()) > indent):
                    block.append(lines[i].strip())
                    i += 1
                value = " ".join(block)
                exprs.append(("%s:%d" % (os.path.basename(path), start), value))
                continue
            if value[:1] in "'\"" and value[-1:] == value[:1]:
                value = value[1:-1]
            exprs.append(("%s:%d" % (os.path.basename(path), start), value))
        i += 1
    return recorded, exprs


def dashboard_exprs(path):
    dash = json.loads(read(path))
    exprs = []

    def walk(node, where):
        if isinstance(node, dict):
            title = node.get("title", where)
            if isinstance(node.get("expr"), str):
                exprs.append(("panel '%s'" % title, node["expr"]))
            for k, v in node.items():
                walk(v, title if isinstance(title, str) else where)
        elif isinstance(node, list):
            for v in node:
                walk(v, where)

    walk(dash.get("panels", []), "dashboard")
    for var in dash.get("templating", {}).get("list", []):
        if var.get("type") != "query":
            continue
        q = var.get("query")
        q = q.get("query", "") if isinstance(q, dict) else (q or "")
        m = re.match(r"^\s*label_values\((.*),\s*[A-Za-z_]\w*\s*\)\s*$", q, re.S)
        if m:
            q = m.group(1)
        elif re.match(r"^\s*label_values\(\s*[A-Za-z_]\w*\s*\)\s*$", q):
            continue
        exprs.append(("variable '%s'" % var.get("name"), q))
    return exprs


def names_in(expr):
    """Metric names a PromQL expression selects, and the values of its
    metric="..." matchers."""
    figures = re.findall(r'\bmetric\s*=\s*"([^"]*)"', expr)
    e = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', expr)
    e = re.sub(r"\{[^}]*\}", " ", e)
    e = re.sub(r"\[[^\]]*\]", " ", e)
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    e = re.sub(r"\$\{?\w+\}?", " ", e)
    names = []
    for m in re.finditer(r"(?<![\w.:])([A-Za-z_:][\w:]*)", e):
        word = m.group(1)
        if word.lower() in KEYWORDS or re.match(r"\s*\(", e[m.end():]):
            continue
        names.append(word)
    return names, figures


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    srcdir, dashboard, rules = argv[1:]
    emitted, origin = emitted_names(srcdir)
    recorded, rexprs = rules_exprs(rules)
    dexprs = dashboard_exprs(dashboard)
    known = emitted | recorded
    bad, used = [], {}
    for where, expr in dexprs + rexprs:
        names, figures = names_in(expr)
        if not names:
            bad.append("%s: no metric name found in %r" % (where, expr))
        for n in names:
            used.setdefault(n, where)
            if n not in known:
                bad.append("%s: metric %s is not emitted by benchwatch" % (where, n))
        for f in figures:
            if f not in emitted:
                bad.append('%s: metric="%s" names a figure nobody emits' % (where, f))
    for n in sorted(used):
        print("%-52s %s" % (n, origin.get(n, "recording rule" if n in recorded else "?")))
    print("%d expressions (%d dashboard, %d rules), %d metric names used, %d known"
          % (len(dexprs) + len(rexprs), len(dexprs), len(rexprs), len(used), len(known)))
    if len(dexprs) < 10 or len(rexprs) < 5:
        bad.append("too few expressions found: is the extraction broken?")
    for b in bad:
        print("ERROR: " + b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
