"""
bench/minhash/reference.py -- doc/minhash.md's algorithm in Python, checked
against the extension's to_minhash on the feature sets of real texts.

Input (stdin or the file given): one text a line, tab-separated: the text's
to_minhash output (256 hexadecimal digits) and its distinct features from
simhash_features, each as hex-encoded UTF-8, separated by commas (empty for
a text without features).  Prints how many signatures the reference
reproduces, and the first few that differ; exits 1 if any differs.

Usage: reference.py [FILE]    (needs the xxhash module, Debian python3-xxhash)
"""
import sys

import xxhash

MASK = (1 << 64) - 1
SEED = 0x4D696E4861736831          # "MinHash1"
MAX_TRIES = 1 << 16


def mix64(z):
    """SplitMix64's output function"""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def signature(features, bins=256, bits=4):
    """the bin values of a set of features (bytes): bins a power of 2"""
    shift = 64 - (bins.bit_length() - 1)
    if not features:
        return [0] * bins
    minh = [None] * bins
    for f in features:
        h = xxhash.xxh3_64_intdigest(f, seed=SEED)
        j = h >> shift
        if minh[j] is None or h < minh[j]:
            minh[j] = h
    v = [None if m is None else mix64(m) >> (64 - bits) for m in minh]
    for j in range(bins):
        if minh[j] is not None:
            continue
        c = -1
        for attempt in range(1, MAX_TRIES + 1):
            t = mix64((j << 32) | attempt) >> shift
            if minh[t] is not None:
                c = t
                break
        attempt = 1
        while c < 0:
            if minh[(j + attempt) % bins] is not None:
                c = (j + attempt) % bins
            attempt += 1
        v[j] = v[c]
    return v


def text_form(v):
    return "".join("%x" % x for x in v)


def main():
    fh = open(sys.argv[1], encoding="ascii") if len(sys.argv) > 1 else sys.stdin
    n = bad = 0
    for line in fh:
        sig, _, feats = line.rstrip("\n").partition("\t")
        features = [bytes.fromhex(x) for x in feats.split(",")] if feats else []
        mine = text_form(signature(features))
        n += 1
        if mine != sig:
            bad += 1
            if bad <= 3:
                print("differs (%d features):\n  to_minhash %s\n  reference  %s" % (len(features), sig, mine))
    print("reference check: %d of %d signatures equal to doc/minhash.md's algorithm" % (n - bad, n))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
