"""
bench/eval/build.py -- the documents and labelled pairs of bench/eval/run,
from real text on this machine, written as CSV for the database.

Languages and sources (UTF-8 as found; a bucket takes its documents from
the first source and from the next only to reach MIN_DOCS):
  en   Debian package descriptions (Translation-en of the lists directory
       given, else /var/lib/dpkg/status).
  ja   Translation-ja descriptions, then the translated message catalogues
       under /usr/share/locale/ja (each message a text).
  zh   Translation-zh_CN and zh_TW, then the zh_CN and zh_TW catalogues.
  tpl  template-generated English: man pages (roff markup removed) and
       /usr/share/doc/*/copyright files, reported on their own.
A CJK text needs 8 CJK characters, any document 3 tokens.

Length buckets by UTF-8 bytes: short < 500, medium 500..4095, long >= 4096
(cut at 32 KB).  How each bucket is filled (en, ja, zh):
  short   single texts under 500 bytes.
  medium  single texts of 500..4095 bytes; then consecutive short texts
          (in file order) joined until a length drawn from 500..2000.
  long    single texts of 4 KB or more; then consecutive texts joined
          until 4 KB or more; then, if still short of MIN_DOCS, the same
          from the texts in a shuffled order (one more pass).
tpl documents are never joined (joining would hide the templates).

Edits are measured in feature space, so that an edit share means the same
in every language.  The features are those of to_simhash: words, and CJK
character bigrams, after NFKC_Casefold (approximated here; the database
measures the exact simhash_jaccard).  An edited copy applies random token
edits (a token: a word, or one CJK character) in a fixed random order,
each replacing the token by one from another document, deleting it,
inserting one after it, or changing a number; the number of edits is the
one whose copy's feature Jaccard distance 1 - J to the original is nearest
the target (bisection).

Pairs, for each of PER_BUCKET sampled documents D:
  positive  D and copies of D edited to 1 token, and 5 %, 10 % and 20 % of
            the features changed (1 - J = 0.05, 0.10, 0.20).
  negative  D and a copy with 50 % changed (J = 0.5), and D and two other
            documents of the bucket whose feature sets overlap less than
            half (J < 0.5).

Output: corpus.csv (id, language, bucket, source, hex UTF-8): up to
CORPUS_PER_BUCKET documents of each language and bucket, for the distances,
cosines and Jaccard of all their pairs; pairs.csv (pair id, language,
bucket, kind, target 1 - J, label, hex UTF-8 of both texts); a summary on
stdout.

Usage: build.py OUTDIR [LISTS_DIR] [DOCS_PER_BUCKET] [SEED] [CORPUS_PER_BUCKET]
(an empty SEED is the default one)
"""
import glob
import gzip
import gettext
import io
import os
import random
import re
import struct
import subprocess
import sys
import unicodedata

OUT = sys.argv[1]
LISTS = sys.argv[2] if len(sys.argv) > 2 else ""
PER_BUCKET = int(sys.argv[3]) if len(sys.argv) > 3 else 200
SEED = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] else 20261124
CORPUS_PER_BUCKET = int(sys.argv[5]) if len(sys.argv) > 5 else 1000
MIN_DOCS = 1000
MAN_PAGES = 8000          # man pages read for tpl (a random sample: reading all is slow)
rng = random.Random(SEED)
LONG_CAP = 32 * 1024

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
TOKEN_EN = re.compile(r"[^\W_]+")
TOKEN_CJK = re.compile("[" + CJK + "]")
# a token: one CJK character, or a run of other letters and digits
TOKEN = re.compile("[" + CJK + "]|(?:(?![" + CJK + "])[^\\W_])+")
# the approximate features: CJK runs (bigrams) and other word runs
FEATURE_RUNS = re.compile("([" + CJK + "]+)|((?:(?![" + CJK + "])[^\\W_])+)")
LEVELS = [(1, "1 edit", None), (1, "5%", 0.05), (1, "10%", 0.10), (1, "20%", 0.20), (0, "50%", 0.50)]


def bucket(text):
    n = len(text.encode("utf-8"))
    return "short" if n < 500 else ("medium" if n < 4096 else "long")


def cut(text):
    b = text.encode("utf-8")
    if len(b) <= LONG_CAP:
        return text
    return b[:LONG_CAP].decode("utf-8", "ignore")


# ------------------------------------------------------------- sources

def open_list(path):
    """a text stream of an apt list file, compressed or not"""
    if re.search(r"\.(lz4|gz|xz|bz2|zst)$", path):
        try:
            data = subprocess.run(["/usr/lib/apt/apt-helper", "cat-file", path],
                                  capture_output=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            return None
        return io.StringIO(data.decode("utf-8", "replace"))
    try:
        return open(path, encoding="utf-8", errors="replace")
    except OSError:
        return None


def deb822_descriptions(path, field):
    """(package, description) of a Packages/status/Translation file"""
    out = []
    fh = open_list(path)
    if fh is None:
        return out
    with fh:
        pkg, desc, in_desc = None, [], False
        for line in fh:
            line = line.rstrip("\n")
            if line == "":
                if pkg and desc:
                    out.append((pkg, "\n".join(desc)))
                pkg, desc, in_desc = None, [], False
                continue
            if line.startswith(" ") and in_desc:
                body = line[1:]
                desc.append("" if body == "." else body)
                continue
            in_desc = False
            if line.startswith("Package:"):
                pkg = line.split(":", 1)[1].strip()
            elif line.startswith(field + ":"):
                desc = [line.split(":", 1)[1].strip()]
                in_desc = True
        if pkg and desc:
            out.append((pkg, "\n".join(desc)))
    return out


def translation(lang):
    if not LISTS:
        return []
    docs = []
    for path in sorted(glob.glob(os.path.join(LISTS, "*_i18n_Translation-" + lang + "*"))):
        if path.endswith(".diff_Index") or os.path.isdir(path):
            continue
        field = "Description-" + lang.replace("%5f", "_")
        docs += [d for _, d in deb822_descriptions(path, field)]
    return docs


def roff_to_text(src):
    out = []
    for line in src.splitlines():
        if line.startswith(".") or line.startswith("'"):
            m = re.match(r"^\.(?:SH|SS|B|I|BR|IR|RB|BI|IB|TP|IP)\s+(.*)$", line)
            if m:
                out.append(m.group(1).replace('"', ""))
            continue
        line = re.sub(r"\\f[BIRP1-4]|\\f\(..|\\s[-+]?\d|\\\(..|\\[-&e|^]", "", line)
        out.append(line.replace("\\", ""))
    return re.sub(r"[ \t]+", " ", "\n".join(out)).strip()


def mo_messages(lang):
    msgs = []
    for path in sorted(glob.glob("/usr/share/locale/%s/LC_MESSAGES/*.mo" % lang)):
        try:
            with open(path, "rb") as fh:
                cat = gettext.GNUTranslations(fh)
        except (OSError, struct.error, UnicodeDecodeError, Exception):
            continue
        for k, v in cat._catalog.items():
            if isinstance(v, str) and TOKEN_CJK.search(v):
                msgs.append(v)
    return msgs


def cjk(lang, transl):
    docs = []
    for t in transl:
        docs += translation(t)
    src = "Translation-" + "+".join(transl)
    if not docs:
        for loc in {"ja": ["ja"], "zh": ["zh_CN", "zh_TW"]}[lang]:
            docs += mo_messages(loc)
        src = "/usr/share/locale message catalogues"
    docs = [d for d in docs if len(TOKEN_CJK.findall(d)) >= 8]
    # long documents: consecutive entries joined until >= 4 KB
    joined, cur = [], []
    for d in docs:
        cur.append(d)
        if len("\n\n".join(cur).encode("utf-8")) >= 4096:
            joined.append("\n\n".join(cur))
            cur = []
    print("%s: %d texts (%s), %d long documents joined from consecutive texts"
          % (lang, len(docs), src, len(joined)))
    return [d for d in docs if bucket(d) != "long"] + joined


def english():
    docs = translation("en")
    if docs:
        return docs, "Translation-en"
    return [d for _, d in deb822_descriptions("/var/lib/dpkg/status", "Description")], "/var/lib/dpkg/status"


def template_docs():
    """man pages and copyright files: (text, source)"""
    out = []
    for path in sorted(glob.glob("/usr/share/doc/*/copyright")):
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                out.append((fh.read(), "copyright"))
        except OSError:
            pass
    paths = sorted(glob.glob("/usr/share/man/man[1-8]/*.gz"))
    for path in sorted(rng.sample(paths, min(MAN_PAGES, len(paths)))):
        try:
            with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
                t = roff_to_text(fh.read())
        except (OSError, EOFError):
            continue
        if t:
            out.append((t, "man"))
    return out


def cjk_texts(lang):
    """(descriptions, catalogue messages) of ja or zh, each with 8 CJK characters"""
    transl = {"ja": ["ja"], "zh": ["zh%5fCN", "zh%5fTW"]}[lang]
    locs = {"ja": ["ja"], "zh": ["zh_CN", "zh_TW"]}[lang]
    desc = [d for t in transl for d in translation(t)]
    msgs = [m for loc in locs for m in mo_messages(loc)]
    keep = lambda ts: [t for t in ts if len(TOKEN_CJK.findall(t)) >= 8]
    return keep(desc), keep(msgs)


def joined(texts, lo, hi=None):
    """consecutive texts joined until a length drawn from lo..hi (or lo) bytes"""
    out, cur, size = [], [], 0
    goal = lo if hi is None else rng.randint(lo, hi)
    for t in texts:
        cur.append(t)
        size += len(t.encode("utf-8")) + 2
        if size >= goal:
            out.append("\n\n".join(cur))
            cur, size = [], 0
            goal = lo if hi is None else rng.randint(lo, hi)
    return out


def fill(b, sources):
    """the documents of bucket b from the (name, texts) sources, in order,
    each source used only while fewer than MIN_DOCS; (docs, how)"""
    docs, seen, how = [], set(), []

    def add(new, what):
        got = 0
        for d in (cut(x) for x in new):
            if len(docs) >= MIN_DOCS and what != first:
                break
            if d not in seen and bucket(d) == b and len(TOKEN.findall(d)) >= 3:
                seen.add(d)
                docs.append(d)
                got += 1
        if got:
            how.append("%d %s" % (got, what))

    first = sources[0][0] + " texts"       # single texts of the first source: all of them
    for name, texts in sources:
        if len(docs) >= MIN_DOCS:
            break
        add(texts, name + " texts")
        if b == "medium" and len(docs) < MIN_DOCS:
            add(joined([t for t in texts if bucket(t) == "short"], 500, 2000),
                name + " joined from consecutive short texts")
        if b == "long" and len(docs) < MIN_DOCS:
            add(joined(texts, 4096), name + " joined from consecutive texts")
    if b == "long" and len(docs) < MIN_DOCS:
        every = [t for _, texts in sources for t in texts]
        rng.shuffle(every)
        add(joined(every, 4096), "joined from shuffled texts")
    return docs, how


# --------------------------------------------------------------- edits

def features(text):
    """about the distinct features of to_simhash(text)"""
    t = unicodedata.normalize("NFKC", text).casefold()
    out = set()
    for m in FEATURE_RUNS.finditer(t):
        run = m.group(1)
        if run is None:
            out.add(m.group(2))
        elif len(run) == 1:
            out.add(run)
        else:
            out.update(run[i:i + 2] for i in range(len(run) - 1))
    return out


def jaccard(a, b):
    return len(a & b) / len(a | b) if a or b else 1.0


class Editor:
    """edited copies of one text: token edits in a fixed random order"""

    def __init__(self, text, vocab):
        self.text = text
        self.base = features(text)
        spans = [(m.start(), m.end()) for m in TOKEN.finditer(text)]
        order = list(range(len(spans)))
        rng.shuffle(order)
        self.edits = []              # (start, end, replacement), in random order
        for i in order:
            a, b = spans[i]
            tok = text[a:b]
            sep = "" if TOKEN_CJK.fullmatch(tok) else " "
            r = rng.random()
            if tok.isdigit() or r < 0.1:
                new = str(rng.randint(0, 99999))
            elif r < 0.55:
                new = rng.choice(vocab)
            elif r < 0.8:
                new = ""
            else:
                new = tok + sep + rng.choice(vocab)
            self.edits.append((a, b, new))

    def copy(self, m):
        out, last = [], 0
        for a, b, new in sorted(self.edits[:m]):
            out += [self.text[last:a], new]
            last = b
        out.append(self.text[last:])
        return "".join(out)

    def near(self, target):
        """the copy whose 1 - J is nearest target, by bisection on the edits"""
        lo, hi = 1, len(self.edits)
        best = (2.0, self.text)
        while lo <= hi:
            m = (lo + hi) // 2
            c = self.copy(m)
            dist = 1.0 - jaccard(self.base, features(c))
            if abs(dist - target) < best[0]:
                best = (abs(dist - target), c)
            if abs(dist - target) < 0.003:
                break
            if dist < target:
                lo = m + 1
            else:
                hi = m - 1
        return best[1]


def main():
    os.makedirs(OUT, exist_ok=True)
    en, en_src = english()
    print("en: %d descriptions (%s)" % (len(en), en_src))
    sources = {"en": [("description", en)]}
    for lang in ("ja", "zh"):
        desc, msgs = cjk_texts(lang)
        print("%s: %d descriptions (Translation files), %d catalogue messages (/usr/share/locale)"
              % (lang, len(desc), len(msgs)))
        sources[lang] = [("description", desc), ("catalogue", msgs)]
    tpl = template_docs()
    print("tpl: %d copyright files, %d man pages (of a random %d)"
          % (sum(s == "copyright" for _, s in tpl), sum(s == "man" for _, s in tpl), MAN_PAGES))
    rows, corpus = [], []
    pid = 0
    print("lang bucket   docs  built from; labelled documents, pairs (+/-)")
    for lang in ("en", "ja", "zh", "tpl"):
        vocab = []
        texts = [t for _, ts in sources[lang] for t in ts] if lang != "tpl" else [t for t, _ in tpl]
        for d in rng.sample(texts, min(len(texts), 2000)):
            vocab += TOKEN.findall(d)
        for b in ("short", "medium", "long"):
            if lang == "tpl":
                pool, srcs = [], {}
                for t, s in tpl:
                    t = cut(t)
                    if bucket(t) == b and len(TOKEN.findall(t)) >= 3:
                        pool.append(t)
                        srcs[t] = s
                pool = list(dict.fromkeys(pool))
                how = ["%d %s" % (sum(srcs[t] == s for t in pool), s) for s in ("copyright", "man")]
            else:
                pool, how = fill(b, sources[lang])
            if len(pool) < 10:
                print("%-4s %-7s %6d  too few, skipped" % (lang, b, len(pool)))
                continue
            for d in rng.sample(pool, min(CORPUS_PER_BUCKET, len(pool))):
                corpus.append((lang, b, d))
            sample = rng.sample(pool, min(PER_BUCKET, len(pool)))
            npos = nneg = 0
            for d in sample:
                ed = Editor(d, vocab)
                for label, kind, target in LEVELS:
                    c = ed.copy(1) if target is None else ed.near(target)
                    pid += 1
                    rows.append((pid, lang, b, kind, target or 0.0, label, d, c))
                    npos += label
                    nneg += 1 - label
                found = 0
                for _ in range(50):
                    o = rng.choice(pool)
                    if o is d or jaccard(ed.base, features(o)) >= 0.5:
                        continue
                    pid += 1
                    rows.append((pid, lang, b, "unrelated", 1.0, 0, d, o))
                    nneg += 1
                    found += 1
                    if found == 2:
                        break
            print("%-4s %-7s %6d  %s; labelled %d, pairs %d/%d" % (lang, b, len(pool), ", ".join(how),
                                                        len(sample), npos, nneg))
            sys.stdout.flush()
    with open(os.path.join(OUT, "corpus.csv"), "w", encoding="ascii") as fh:
        for did, (lang, b, d) in enumerate(corpus, 1):
            fh.write("%d,%s,%s,%s\n" % (did, lang, b, d.encode("utf-8").hex()))
    with open(os.path.join(OUT, "pairs.csv"), "w", encoding="ascii") as fh:
        for pid, lang, b, kind, target, label, t1, t2 in rows:
            fh.write("%d,%s,%s,%s,%.2f,%d,%s,%s\n" % (pid, lang, b, kind, target, label,
                                                     t1.encode("utf-8").hex(), t2.encode("utf-8").hex()))
    print("%d documents in corpus.csv, %d pairs" % (len(corpus), len(rows)))


if __name__ == "__main__":
    main()
