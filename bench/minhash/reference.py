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
import os
import sys

import xxhash

# the Python client's implementation (clients/python/simhash_pg)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
from simhash_pg.fingerprint import _bin_values, _mix64 as mix64  # noqa: E402

SEED = 0x4D696E4861736831          # "MinHash1"


def signature(features, bins=256, bits=4):
    """the bin values of a set of features (bytes): bins a power of 2"""
    return signature_of_hashes([xxhash.xxh3_64_intdigest(f, seed=SEED) for f in features],
                               bins, bits)


def signature_of_hashes(hashes, bins=256, bits=4, probe=None):
    """the bin values of a set of features given by their hashes: the
    client's (clients/python/simhash_pg/fingerprint.py) densified
    one-permutation MinHash, the algorithm of doc/minhash.md; all 0 for no
    features.  probe(j, attempt): the bin densification attempt of empty
    bin j looks at (default: its mix64 sequence)"""
    shift = 64 - (bins.bit_length() - 1)
    if probe is None:
        def probe(j, attempt):
            return mix64((j << 32) | attempt) >> shift
    return _bin_values(hashes, bins, bits, probe) or [0] * bins


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
