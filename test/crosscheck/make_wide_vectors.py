"""
make_wide_vectors.py -- writes wide_vectors.json: the fingerprints of a few
fixed texts by every text function at 64, 128 and 256 bits, computed by the
reference (simhash_ref.py).  The file is committed: crosscheck.py checks the
server and the reference against it, test/clients/python the client.
Rerun only when a text is added; a changed value is a changed contract.

    /usr/bin/python3 test/crosscheck/make_wide_vectors.py
"""
import json
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import simhash_ref as ref  # noqa: E402

TEXTS = [
    "",
    "The quick brown fox jumps over the lazy dog.",
    "Hello, World! hello world HELLO",
    "\uFF28\uFF45\uFF4C\uFF4C\uFF4F \uFF37\uFF4F\uFF52\uFF4C\uFF44 \uFB01ne Stra\u00DFe",
    "\u65E5\u672C\u8A9E\u306E\u30C6\u30AD\u30B9\u30C8\u3067\u3059\u3002",
    "\uD55C\uAD6D\uC5B4 \uD14D\uC2A4\uD2B8 near-duplicate detection",
]
# (kind, n): n None is the function's default, 3
CALLS = [("text", None), ("ngram", None), ("ngram", 5), ("shingle", None), ("shingle", 2)]
NAMES = {"text": "to_simhash", "ngram": "simhash_ngram", "shingle": "simhash_shingle"}


def name(kind, width):
    base = NAMES[kind]
    return base if width == 64 else base.replace("simhash", "simhash%d" % width, 1)


def main():
    out = []
    for text in TEXTS:
        for kind, n in CALLS:
            for width in ref.WIDTHS:
                v = ref.fp_of_text(kind, text, 3 if n is None else n, width)
                out.append({"fn": name(kind, width), "text": text, "n": n,
                            "hex": ref.hexfp(v, width)})
    with open(os.path.join(HERE, "wide_vectors.json"), "w", encoding="ascii") as fh:
        fh.write("[\n" + ",\n".join(json.dumps(e, ensure_ascii=True) for e in out) + "\n]\n")


if __name__ == "__main__":
    main()
