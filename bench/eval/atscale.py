"""
bench/eval/atscale.py -- the at-scale tables of bench/eval/run: for each
language, length bucket and width (64, 128, 256 bits), the largest radius k
that keeps the expected precision of a search within k at 0.5 and at 0.9 in
a table of 10^4 .. 10^8 documents, and the recall at that k.

Reads, from the directory given (written by bench/eval/eval.sql):
  labelled.csv   the distance of every labelled pair at every width
  unrelated.csv  the histogram of the distances of all pairs of real
                 documents of a language and bucket, at 64, 128 and 256
                 bits together, with a flag for related pairs
  docs.csv       how many documents of each language and bucket that is

The model (printed with the tables):
  A table of N documents, 1 % of them near-duplicates: 0.01 N documents
  are each an edited copy of one other document of the table (edits as the
  labelled positives: 1 token, 2 %, 5 % and 10 % of the tokens, in equal
  parts), so there are 0.01 N near-duplicate pairs; all other pairs,
  about N^2 / 2, are unrelated documents of the same language and length
  bucket.  A search within k reports
      true pairs  = recall(k) * 0.01 N
      false pairs = P(d <= k | unrelated) * N (N - 1) / 2
  and its expected precision is true / (true + false).
  recall(k): the share of labelled positives within k.
  P(d <= k | unrelated): counted over all unrelated pairs of up to 2,500
  real documents of the language and bucket where at least MIN_COUNT pairs
  are within k; below that, extrapolated: each unrelated pair's bits
  differ independently with probability theta / pi (Charikar), theta
  estimated from its distance at 256 bits (p = d256 / 256), so its
  distance at width W is Binomial(W, p), and P is the mean of the
  binomial tails over all pairs.  The estimate of p is itself noisy,
  which widens the modelled distribution: the tail is overstated, not
  understated (a conservative k); the tables show model against count
  where both exist.

Usage: atscale.py DIR
"""
import collections
import csv
import math
import os
import sys

DIR = sys.argv[1]
SIZES = [10**4, 10**5, 10**6, 10**7, 10**8]
DUP_SHARE = 0.01
MIN_COUNT = 10
WIDTHS = [(64, "to_simhash", "d64"), (128, "to_simhash128", "d128"), (256, "to_simhash256", "d256")]
WIDEST = 256
LANGS = ["en", "zh", "ja"]
LANG_NAME = {"en": "English", "zh": "Chinese", "ja": "Japanese"}
BUCKETS = ["short", "medium", "long"]
TARGETS = [0.5, 0.9]


def read(name):
    with open(os.path.join(DIR, name), encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


# ------------------------------------------------------------ inputs

docs = {(r["lang"], r["bucket"]): int(r["docs"]) for r in read("docs.csv")}
hist = collections.defaultdict(collections.Counter)    # (lang, bucket, col) -> d -> pairs
unrel = collections.Counter()
related = collections.Counter()
for r in read("unrelated.csv"):
    key = (r["lang"], r["bucket"])
    n = int(r["n"])
    if r["related"] == "t":
        related[key] += n
        continue
    unrel[key] += n
    for _, _, col in WIDTHS:
        hist[key + (col,)][int(r[col])] += n

pos = collections.defaultdict(list)      # (lang, bucket, fn) -> distances of positives
for r in read("labelled.csv"):
    if r["dup"] == "t":
        pos[(r["lang"], r["bucket"], r["fn"])].append(int(r["d"]))


# ------------------------------------------------------------- model

_cdf_cache = {}


def binom_cdf(w, p):
    """[P(X <= k) for k = 0..w], X ~ Binomial(w, p)"""
    key = (w, p)
    if key in _cdf_cache:
        return _cdf_cache[key]
    if p <= 0.0:
        cdf = [1.0] * (w + 1)
    elif p >= 1.0:
        cdf = [0.0] * w + [1.0]
    else:
        lp, lq = math.log(p), math.log1p(-p)
        lw = math.lgamma(w + 1)
        pmf = [math.exp(lw - math.lgamma(j + 1) - math.lgamma(w - j + 1) + j * lp + (w - j) * lq)
               for j in range(w + 1)]
        cdf, s = [], 0.0
        for x in pmf:
            s += x
            cdf.append(min(s, 1.0))
    _cdf_cache[key] = cdf
    return cdf


def unrelated_tail(key, w, col):
    """(P(d <= k | unrelated) for k = 0..w, counted pairs within k, modelled P)"""
    total = unrel[key]
    h = hist[key + (col,)]
    counted, c = [], 0
    for k in range(w + 1):
        c += h.get(k, 0)
        counted.append(c)
    model = [0.0] * (w + 1)
    for d, n in hist[key + ("d256",)].items():
        cdf = binom_cdf(w, d / WIDEST)
        for k in range(w + 1):
            model[k] += n * cdf[k]
    model = [m / total for m in model]
    p = [counted[k] / total if counted[k] >= MIN_COUNT else model[k] for k in range(w + 1)]
    return p, counted, model


def recall_curve(key, fn, w):
    ds = pos.get(key + (fn,), [])
    if not ds:
        return None
    cnt = collections.Counter(ds)
    r, c = [], 0
    for k in range(w + 1):
        c += cnt.get(k, 0)
        r.append(c / len(ds))
    return r


def precision(r, p, n):
    tp = r * DUP_SHARE * n
    fp = p * n * (n - 1) / 2
    return 1.0 if tp + fp == 0 else tp / (tp + fp)


def largest_k(r, p, n, target, w):
    """the largest k <= w/2 whose expected precision is >= target, or None"""
    best = None
    for k in range(w // 2 + 1):
        if precision(r[k], p[k], n) >= target:
            best = k
    return best


# ----------------------------------------------------------- compute

rows = {}       # (lang, bucket, w) -> dict
for lang in LANGS:
    for b in BUCKETS:
        key = (lang, b)
        if unrel[key] == 0:
            continue
        for w, fn, col in WIDTHS:
            r = recall_curve(key, fn, w)
            if r is None:
                continue
            p, counted, model = unrelated_tail(key, w, col)
            rows[(lang, b, w)] = dict(fn=fn, r=r, p=p, counted=counted, model=model,
                                      k={(t, n): largest_k(r, p, n, t, w) for t in TARGETS for n in SIZES})


def fmt_n(n):
    return "10^%d" % round(math.log10(n))


def fmt_sci(x):
    if x == 0:
        return "0"
    e = math.floor(math.log10(x))
    return "%.1f·10^%d" % (x / 10**e, e)


def cell(row, t, n):
    k = row["k"][(t, n)]
    return "–" if k is None else "%d (%.2f)" % (k, row["r"][k])


out = []
say = out.append
say("")
say("### At scale: width and k for a table of N documents")
say("")
say("Model: a table of N documents of one language and length bucket, 1 % of them near-duplicates "
    "(0.01·N documents are each an edited copy of another document of the table: 1 token, 2 %, 5 % or "
    "10 % of the tokens edited, in equal parts, as the labelled positives), so 0.01·N near-duplicate pairs "
    "against N(N−1)/2 pairs in all. A search within k finds recall(k)·0.01·N true pairs and "
    "P(d ≤ k | unrelated)·N(N−1)/2 false ones; expected precision = true / (true + false). "
    "recall(k): the labelled positives within k. P(d ≤ k | unrelated): counted over every pair of up to "
    "2,500 real documents of the language and bucket (pairs whose word sets overlap by half or more, "
    "Jaccard ≥ 0.5, are the corpus's own near-duplicates and left out) wherever at least MIN_COUNT pairs are "
    "within k; below that, extrapolated per pair: each unrelated pair's bits differ independently with "
    "probability θ/π (Charikar), θ/π estimated from its distance at 256 bits (d256/256), so at width W "
    "its distance is Binomial(W, d256/256), and P is the mean binomial tail over all pairs. The noise "
    "in the estimate of θ widens the modelled distribution, so the extrapolated tail is overstated "
    "rather than understated (k on the safe side); the check table below compares model and count "
    "where both exist.".replace("MIN_COUNT", str(MIN_COUNT)))
say("")
say("Pairs of real documents counted:")
say("")
say("| language | bucket | documents | pairs | related (left out) | median distance 64 / 128 / 256 | smallest distance 64 / 128 / 256 |")
say("|---|---|---|---|---|---|---|")
for lang in LANGS:
    for b in BUCKETS:
        key = (lang, b)
        if unrel[key] == 0:
            continue
        med, low = [], []
        for w, _, col in WIDTHS:
            h = hist[key + (col,)]
            c, half = 0, unrel[key] / 2
            m = None
            for d in sorted(h):
                c += h[d]
                if m is None and c >= half:
                    m = d
            med.append(str(m))
            low.append(str(min(h)))
        say("| %s | %s | %d | %d | %d | %s | %s |" % (lang, b, docs.get(key, 0), unrel[key], related[key],
                                                     " / ".join(med), " / ".join(low)))

for t in TARGETS:
    say("")
    say("**Largest k with expected precision ≥ %.1f, and the recall there** (\"k (recall)\"; – : "
        "no k reaches it), by table size N:" % t)
    say("")
    say("| language | bucket | width | " + " | ".join("N = " + fmt_n(n) for n in SIZES) + " |")
    say("|---|---|---|" + "---|" * len(SIZES))
    for lang in LANGS:
        for b in BUCKETS:
            for w, fn, _ in WIDTHS:
                row = rows.get((lang, b, w))
                if row:
                    say("| %s | %s | %d (`%s`) | %s |" % (lang, b, w, fn,
                                                        " | ".join(cell(row, t, n) for n in SIZES)))

for t in TARGETS:
    say("")
    say("**Per language, every length bucket at once, precision ≥ %.1f** (the smallest of the three "
        "buckets' k, so precision ≥ %.1f in each; recall at that k, lowest–highest over the buckets):" % (t, t))
    say("")
    say("| width | language | " + " | ".join("N = " + fmt_n(n) for n in SIZES) + " |")
    say("|---|---|" + "---|" * len(SIZES))
    for w, fn, _ in WIDTHS:
        for lang in LANGS:
            cells = []
            for n in SIZES:
                bs = [rows[(lang, b, w)] for b in BUCKETS if (lang, b, w) in rows]
                ks = [r["k"][(t, n)] for r in bs]
                if not bs or any(k is None for k in ks):
                    cells.append("–")
                    continue
                k = min(ks)
                rs = [r["r"][k] for r in bs]
                cells.append("%d (%.2f–%.2f)" % (k, min(rs), max(rs)))
            say("| %d | %s | %s |" % (w, LANG_NAME[lang], " | ".join(cells)))

say("")
say("**Expected precision at fixed k, 64 bits (`to_simhash`)**, the k of the earlier advice "
    "(English 6–9, Chinese and Japanese 9–12):")
say("")
say("| language | bucket | k | recall | " + " | ".join("N = " + fmt_n(n) for n in SIZES) + " |")
say("|---|---|---|---|" + "---|" * len(SIZES))
for lang in LANGS:
    for b in BUCKETS:
        row = rows.get((lang, b, 64))
        if not row:
            continue
        for k in ([3, 6, 9] if lang == "en" else [3, 9, 12]):
            say("| %s | %s | %d | %.2f | %s |" % (lang, b, k, row["r"][k], " | ".join(
                "%.3g" % precision(row["r"][k], row["p"][k], n) for n in SIZES)))

say("")
say("**Check of the extrapolation**: P(d ≤ k | unrelated) counted and modelled, at the largest k with "
    "at most 100 pairs counted within it, and at the smallest k with at least 10,000 (– : no such k):")
say("")
say("| language | bucket | width | k | counted | model | k | counted | model |")
say("|---|---|---|---|---|---|---|---|---|")
for lang in LANGS:
    for b in BUCKETS:
        for w, fn, _ in WIDTHS:
            row = rows.get((lang, b, w))
            if not row:
                continue
            tot = unrel[(lang, b)]
            c = row["counted"]
            lo = max([k for k in range(w + 1) if c[k] <= 100], default=None)
            hi = min([k for k in range(w + 1) if c[k] >= 10000], default=None)
            parts = []
            for k in (lo, hi):
                if k is None:
                    parts += ["–", "–", "–"]
                else:
                    parts += [str(k), "%s (%d)" % (fmt_sci(c[k] / tot), c[k]), fmt_sci(row["model"][k])]
            say("| %s | %s | %d | %s |" % (lang, b, w, " | ".join(parts)))

print("\n".join(out))
