"""
bench/minhash/designs.py -- the same signature at other splits of 128 bytes
into k bins of b bits (1 x 1024, 2 x 512, 4 x 256 (the minhash type),
8 x 128, 16 x 64), on the feature sets of real pairs: what the standard
error formula leaves out (fewer features than bins).

The algorithm is doc/minhash.md's (reference.py) with the bin the top
log2(k) bits of the feature's hash, the value the top b bits of the mix of
the bin's smallest hash, and the densification sequence of bin j
mix64((j << 32) | attempt) >> (64 - log2(k)); at 4 x 256 it is to_minhash,
which is checked on the first pairs.  The estimate is
(m/k - C) / (1 - C), C = 2^-b, clamped to [0, 1].

Input (stdin or the file given): one pair a line, tab-separated: language,
bucket, exact J (simhash_jaccard), the features of each side as
hex-encoded UTF-8 separated by commas.  Prints a markdown table: RMSE of
(estimate - exact) per design, by the size of the union of the two
feature sets, with the formula's standard error beside it.

Usage: designs.py [FILE]    (needs the xxhash module, Debian python3-xxhash)
"""
import math
import os
import sys

import xxhash

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: E402

DESIGNS = [(1, 1024), (2, 512), (4, 256), (8, 128), (16, 64)]   # (b, k)
CLASSES = [(1, 31), (32, 63), (64, 127), (128, 255), (256, 1023), (1024, 1 << 60)]
SEQ = {}          # k -> per bin, its densification sequence so far


def seq_at(k, j, attempt, shift):
    if k not in SEQ:
        SEQ[k] = [[] for _ in range(k)]
    s = SEQ[k][j]
    while len(s) < attempt:
        s.append(reference.mix64((j << 32) | (len(s) + 1)) >> shift)
    return s[attempt - 1]


def signature(hashes, k, b):
    """reference.signature from the features' hashes, sequences cached"""
    shift = 64 - (k.bit_length() - 1)
    return reference.signature_of_hashes(hashes, k, b,
                                         lambda j, attempt: seq_at(k, j, attempt, shift))


def estimate(va, vb, b):
    k = len(va)
    c = 2.0 ** -b
    m = sum(1 for x, y in zip(va, vb) if x == y)
    return min(1.0, max(0.0, (m / k - c) / (1 - c)))


def se(j, k, b):
    c = 2.0 ** -b
    p = c + (1 - c) * j
    return math.sqrt(p * (1 - p) / k) / (1 - c)


def main():
    fh = open(sys.argv[1], encoding="ascii") if len(sys.argv) > 1 else sys.stdin
    sq = {}        # (class, design) -> [n, sum of squared errors, sum of se^2]
    checked = 0
    for line in fh:
        lang, bucket, exact, fa, fb = line.rstrip("\n").split("\t")
        exact = float(exact)
        sets = []
        for fs in (fa, fb):
            feats = [bytes.fromhex(x) for x in fs.split(",")] if fs else []
            sets.append((feats, [xxhash.xxh3_64_intdigest(f, seed=reference.SEED) for f in feats]))
        nu = len(set(sets[0][0]) | set(sets[1][0]))
        cls = next(c for c in CLASSES if c[0] <= nu <= c[1])
        for b, k in DESIGNS:
            va, vb = signature(sets[0][1], k, b), signature(sets[1][1], k, b)
            if (b, k) == (4, 256) and checked < 20:
                assert va == reference.signature(sets[0][0]), "fast signature differs from reference"
                checked += 1
            e = estimate(va, vb, b) - exact
            for key in ((cls, (b, k)), ("all", (b, k))):
                acc = sq.setdefault(key, [0, 0.0, 0.0])
                acc[0] += 1
                acc[1] += e * e
                acc[2] += se(exact, k, b) ** 2
    head = "| features in A ∪ B | pairs | " + " | ".join("%d x %d" % (b, k) for b, k in DESIGNS) + " |"
    print(head)
    print("|---|---:|" + "---:|" * len(DESIGNS))
    for cls in CLASSES + ["all"]:
        if (cls, DESIGNS[0]) not in sq:
            continue
        name = "all" if cls == "all" else ("%d or more" % cls[0] if cls[1] > 1 << 40 else "%d-%d" % cls)
        cells = []
        for d in DESIGNS:
            n, s2, se2 = sq[(cls, d)]
            cells.append("%.4f (%.4f)" % (math.sqrt(s2 / n), math.sqrt(se2 / n)))
        print("| %s | %d | %s |" % (name, sq[(cls, DESIGNS[0])][0], " | ".join(cells)))


if __name__ == "__main__":
    main()
