"""
bench/minhash/pairs.py -- the pairs of bench/minhash/run: real documents and
edited copies of them whose exact Jaccard similarity spreads over 0.25..1,
plus unrelated pairs, written as CSV for the database.

Documents, read with bench/eval/build.py's readers (UTF-8, as found):
  en  Debian package descriptions (Translation-en of the lists directory
      given, else /var/lib/dpkg/status) and /usr/share/doc/*/copyright.
  ja  Debian's Japanese package descriptions (Translation-ja).
  zh  Debian's Chinese package descriptions (Translation-zh_CN, zh_TW).
Without Translation files, Chinese and Japanese come from the translated
message catalogues under /usr/share/locale, as in bench/eval.  Chinese and
Japanese documents of the long bucket are consecutive descriptions joined
up to 4 KB or more (build.py).  Buckets by UTF-8 bytes: short < 500,
medium 500..4095, long >= 4096 (cut at 32 KB), as bench/eval.

Edits are made in feature space.  The features of to_simhash are words and
CJK character bigrams after NFKC_Casefold; the edit unit is a distinct word
(en: a case-folded run of letters and digits) or a distinct CJK character
(ja, zh), and editing one replaces every occurrence of it in the text by a
word or character drawn from other documents of the language (7 in 10) or
deletes every occurrence (3 in 10).  The units are edited in a random
order; for each edited copy a target similarity is drawn uniformly from
0.25..1 and the number of units edited is the one whose copy's similarity,
computed here by an approximation of the tokenizer, comes nearest the
target (bisection).  The exact similarity the tables use is the
extension's simhash_jaccard, computed in the database.

Pairs, for each sampled document D of a language and bucket: EDITS edited
copies (kind "edit"), and D with a random other document of the same
language and bucket (kind "unrelated").

Output: pairs.csv (pair id, language, bucket, kind, target, hex-encoded
UTF-8 of both texts) and a summary on stdout.

Usage: pairs.py OUTDIR LISTS_DIR DOCS_PER_BUCKET SEED [EDITS]
(LISTS_DIR may be empty: the system's texts only)
"""
import glob
import os
import random
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = sys.argv[1]
LISTS = sys.argv[2]
PER_BUCKET = int(sys.argv[3])
SEED = int(sys.argv[4])
EDITS = int(sys.argv[5]) if len(sys.argv) > 5 else 4

# build.py reads its arguments when imported: give it OUT and LISTS
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "eval"))
sys.argv = [os.path.join(os.path.dirname(HERE), "eval", "build.py"), OUT, LISTS]
import build  # noqa: E402

rng = random.Random(SEED)
CJK = build.CJK
UNIT_EN = re.compile(r"[^\W_]+")
UNIT_CJK = re.compile("[" + CJK + "]")
# the approximate features and their Jaccard similarity: the same as the
# labelled set's
features = build.features
jaccard = build.jaccard


def english():
    docs = build.translation("en")
    src = "Translation-en" if docs else "/var/lib/dpkg/status"
    if not docs:
        docs = [d for _, d in build.deb822_descriptions("/var/lib/dpkg/status", "Description")]
    n_desc = len(docs)
    n_copy = 0
    for path in sorted(glob.glob("/usr/share/doc/*/copyright")):
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                docs.append(fh.read())
                n_copy += 1
        except OSError:
            pass
    print("en: %d descriptions (%s), %d copyright files" % (n_desc, src, n_copy))
    return docs


class Editor:
    """edited copies of one document: units edited in a fixed random order"""

    def __init__(self, text, lang, vocab):
        self.text = text
        self.rx = UNIT_EN if lang == "en" else UNIT_CJK
        self.spans = [(m.start(), m.end()) for m in self.rx.finditer(text)]
        units = list(dict.fromkeys(text[a:b].casefold() for a, b in self.spans))
        rng.shuffle(units)
        self.rank = {u: i for i, u in enumerate(units)}
        self.nunits = len(units)
        # each unit's fate when edited: a replacement, or "" (deleted)
        self.fate = {}
        for u in units:
            if rng.random() < 0.7:
                self.fate[u] = rng.choice(vocab)
            else:
                self.fate[u] = ""
        self.base = features(text)

    def copy(self, m):
        """the text with its first m units (in the random order) edited"""
        out, last = [], 0
        for a, b in self.spans:
            u = self.text[a:b].casefold()
            if self.rank[u] < m:
                out.append(self.text[last:a])
                out.append(self.fate[u])
                last = b
        out.append(self.text[last:])
        return "".join(out)

    def near(self, target):
        """(m, copy) whose similarity to the original is nearest target"""
        lo, hi = 0, self.nunits
        best = (2.0, 0, self.text)
        while lo <= hi:
            m = (lo + hi) // 2
            c = self.copy(m)
            j = jaccard(self.base, features(c))
            if abs(j - target) < best[0]:
                best = (abs(j - target), m, c)
            if j > target:
                lo = m + 1
            else:
                hi = m - 1
        return best[1], best[2]


def main():
    os.makedirs(OUT, exist_ok=True)
    corpora = {"en": english(), "ja": build.cjk("ja", ["ja"]),
               "zh": build.cjk("zh", ["zh%5fCN", "zh%5fTW"])}
    rows = []
    pid = 0
    print("lang bucket   docs available  sampled  pairs (edited + unrelated)")
    for lang, docs in corpora.items():
        rx = UNIT_EN if lang == "en" else UNIT_CJK
        vocab = []
        for d in rng.sample(docs, min(len(docs), 2000)):
            vocab += rx.findall(d)
        if not vocab:
            continue
        by_bucket = {"short": [], "medium": [], "long": []}
        for d in docs:
            d = build.cut(d)
            if len(rx.findall(d)) >= 3:
                by_bucket[build.bucket(d)].append(d)
        for b, pool in by_bucket.items():
            pool = list(dict.fromkeys(pool))      # distinct texts
            if len(pool) < 10:
                print("%-4s %-8s %6d   too few, skipped" % (lang, b, len(pool)))
                continue
            sample = rng.sample(pool, min(PER_BUCKET, len(pool)))
            n0 = len(rows)
            for d in sample:
                ed = Editor(d, lang, vocab)
                for _ in range(EDITS):
                    target = rng.uniform(0.25, 1.0)
                    _, c = ed.near(target)
                    pid += 1
                    rows.append((pid, lang, b, "edit", target, d, c))
                o = d
                while o is d:
                    o = rng.choice(pool)
                pid += 1
                rows.append((pid, lang, b, "unrelated", 0.0, d, o))
            print("%-4s %-8s %6d %8d %7d" % (lang, b, len(pool), len(sample), len(rows) - n0))
    with open(os.path.join(OUT, "pairs.csv"), "w", encoding="ascii") as fh:
        for pid, lang, b, kind, target, t1, t2 in rows:
            fh.write("%d,%s,%s,%s,%.4f,%s,%s\n" % (pid, lang, b, kind, target,
                                                   t1.encode("utf-8").hex(), t2.encode("utf-8").hex()))
    print("%d pairs" % len(rows))


if __name__ == "__main__":
    main()
