#!/usr/bin/env python3
"""pushgateway-compare.py — compare series in Prometheus text/JSON forms.

Used by pushgateway.sh. Series are (name, sorted labels) -> float.

  metrics EXPECTED.prom GATEWAY.txt LABEL=VALUE...   the gateway's /metrics
  api     EXPECTED.prom API.json    LABEL=VALUE...   the gateway's /api/v1/metrics
  same    A.txt B.txt LABEL=VA LABEL=VB              two instances, same series

The LABEL=VALUE pairs are added to every expected series (the grouping key
the gateway adds); the gateway's series are restricted to those carrying
them and to benchwatch_* names.  Exit 0 when equal, 1 with a diff otherwise.
"""
import json
import math
import re
import sys

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)$')


def parse_labels(text):
    labels, i = {}, 1
    while i < len(text) - 1:
        m = re.match(r'\s*,?\s*([a-zA-Z_][a-zA-Z0-9_]*)="', text[i:])
        if not m:
            break
        name, i, value = m.group(1), i + m.end(), []
        while text[i] != '"':
            if text[i] == '\\':
                value.append({'n': '\n', '\\': '\\', '"': '"'}[text[i + 1]])
                i += 2
            else:
                value.append(text[i])
                i += 1
        labels[name] = ''.join(value)
        i += 1
    return labels


def parse_text(path):
    series = {}
    for line in open(path, encoding='utf-8'):
        line = line.rstrip('\n')
        if not line or line.startswith('#'):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise SystemExit('cannot parse: %r' % line)
        labels = parse_labels(m.group(2)) if m.group(2) else {}
        series[(m.group(1), tuple(sorted(labels.items())))] = float(m.group(3))
    return series


def parse_api(path):
    series = {}
    for group in json.load(open(path, encoding='utf-8'))['data']:
        for name, fam in group.items():
            if not isinstance(fam, dict) or 'metrics' not in fam:
                continue
            for m in fam['metrics']:
                labels = dict(m.get('labels', {}))
                key = lambda n, extra={}: (n, tuple(sorted({**labels, **extra}.items())))
                if fam['type'] == 'SUMMARY':
                    for q, v in m['quantiles'].items():
                        series[key(name, {'quantile': q})] = float(v)
                    series[key(name + '_sum')] = float(m['sum'])
                    series[key(name + '_count')] = float(m['count'])
                else:
                    series[key(name)] = float(m['value'])
    return series


def select(series, extra):
    """benchwatch_* series carrying every label of extra."""
    return {k: v for k, v in series.items()
            if k[0].startswith('benchwatch_') and set(extra.items()) <= set(k[1])}


def with_labels(series, extra):
    return {(n, tuple(sorted({**dict(l), **extra}.items()))): v
            for (n, l), v in series.items()}


def normalise_quantiles(series):
    """quantile="1" vs "1.0" etc.: compare quantile values as numbers."""
    out = {}
    for (n, l), v in series.items():
        l = tuple((k, repr(float(x)) if k == 'quantile' else x) for k, x in l)
        out[(n, l)] = v
    return out


def same(a, b):
    eq = lambda x, y: x == y or (math.isnan(x) and math.isnan(y))
    missing = sorted(set(a) - set(b))
    extra = sorted(set(b) - set(a))
    wrong = sorted(k for k in set(a) & set(b) if not eq(a[k], b[k]))
    for k in missing:
        print('missing:', k, a[k])
    for k in extra:
        print('unexpected:', k, b[k])
    for k in wrong:
        print('value differs:', k, 'want', a[k], 'got', b[k])
    if not a:
        print('nothing to compare')
    return a and not (missing or extra or wrong)


def kv(args):
    return dict(a.split('=', 1) for a in args)


def main(argv):
    mode = argv[1]
    if mode in ('metrics', 'api'):
        extra = kv(argv[4:])
        want = with_labels(parse_text(argv[2]), extra)
        got = parse_text(argv[3]) if mode == 'metrics' else parse_api(argv[3])
        ok = same(normalise_quantiles(want), normalise_quantiles(select(got, extra)))
    else:
        (la, va), (lb, vb) = [a.split('=', 1) for a in argv[4:6]]
        a = {k: v for k, v in select(parse_text(argv[2]), {la: va}).items()}
        b = with_labels(select(parse_text(argv[3]), {lb: vb}), {lb: va})
        ok = same(a, b)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
