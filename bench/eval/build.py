"""
bench/eval/build.py -- builds the labelled near-duplicate set of bench/eval/run
from real text on this machine, and writes it as CSV for the database.

Documents (each as found, UTF-8):
  en  Debian package descriptions (Translation-en of the lists directory
      given, else /var/lib/dpkg/status), /usr/share/doc/*/copyright files,
      man pages (roff source with the markup removed).
  ja  Debian's Japanese package descriptions (Translation-ja).
  zh  Debian's Chinese package descriptions (Translation-zh_CN, zh_TW).
Without the Translation files (offline), Chinese and Japanese come from the
translated message catalogues under /usr/share/locale (zh_CN, zh_TW, ja).
A CJK document of the long bucket, where single descriptions or catalogues
are too short, is the concatenation of consecutive descriptions (in file
order, so mostly of related packages) up to 4 KB or more.

Length buckets by UTF-8 bytes of the original: short < 500, medium
500..4095, long >= 4096 (long documents are cut at 32 KB).

Pairs, for each sampled document D:
  positive  D and an edited copy of D with e token edits, e = 1 and 2%, 5%
            and 10% of its tokens (at least 1): each edit replaces a token
            by one from another document, deletes one, inserts one, or
            changes a number.  Tokens are words (runs of letters and
            digits) in English and single CJK characters in Chinese and
            Japanese.
  negative  D and a different document of the same language and bucket
            whose token sets overlap less than half (Jaccard < 0.5; two
            such pairs), and D and a copy with 35% of its tokens edited.

Also corpus.csv: up to CORPUS_PER_BUCKET (default 2,500) distinct documents
of each language and bucket (id, language, bucket, hex-encoded UTF-8), for
counting the distances of all pairs of real documents (bench/eval/eval.sql).

Translation files are read through apt-helper cat-file, so compressed lists
(.lz4, .gz, .xz, as apt keeps them with GzipIndexes) work as plain ones.

Output: pairs.csv (pair id, language, bucket, kind: "1 edit", "2%", "5%",
"10%", "35%" or "unrelated", number of token edits, label,
hex-encoded UTF-8 of both texts) and a summary on stdout.

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

OUT = sys.argv[1]
LISTS = sys.argv[2] if len(sys.argv) > 2 else ""
PER_BUCKET = int(sys.argv[3]) if len(sys.argv) > 3 else 150
SEED = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[4] else 20261124
CORPUS_PER_BUCKET = int(sys.argv[5]) if len(sys.argv) > 5 else 2500
rng = random.Random(SEED)
LONG_CAP = 32 * 1024

CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
TOKEN_EN = re.compile(r"[^\W_]+")
TOKEN_CJK = re.compile("[" + CJK + "]")


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


def english():
    docs = translation("en")
    src = "Translation-en" if docs else "/var/lib/dpkg/status"
    if not docs:
        docs = [d for _, d in deb822_descriptions("/var/lib/dpkg/status", "Description")]
    n_desc = len(docs)
    n_copy = 0
    for path in sorted(glob.glob("/usr/share/doc/*/copyright")):
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                docs.append(fh.read())
                n_copy += 1
        except OSError:
            pass
    n_man = 0
    for path in sorted(glob.glob("/usr/share/man/man[1-8]/*.gz")):
        try:
            with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
                t = roff_to_text(fh.read())
        except (OSError, EOFError):
            continue
        if t:
            docs.append(t)
            n_man += 1
    print("en: %d descriptions (%s), %d copyright files, %d man pages" % (n_desc, src, n_copy, n_man))
    return docs


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


# --------------------------------------------------------------- edits

def tokens(text, lang):
    rx = TOKEN_EN if lang == "en" else TOKEN_CJK
    return [(m.start(), m.end()) for m in rx.finditer(text)]


def token_set(text, lang):
    return {text[a:b].lower() for a, b in tokens(text, lang)}


def edit(text, lang, nedits, vocab):
    """text with nedits token edits at distinct random tokens"""
    spans = tokens(text, lang)
    if not spans:
        return text
    chosen = sorted(rng.sample(range(len(spans)), min(nedits, len(spans))), reverse=True)
    for i in chosen:
        a, b = spans[i]
        tok = text[a:b]
        r = rng.random()
        sep = " " if lang == "en" else ""
        if tok.isdigit() or r < 0.1:
            new = str(rng.randint(0, 99999))
        elif r < 0.55:
            new = rng.choice(vocab)
        elif r < 0.8:
            new = ""
        else:
            new = tok + sep + rng.choice(vocab)
        text = text[:a] + new + text[b:]
    return text


def main():
    os.makedirs(OUT, exist_ok=True)
    corpora = {"en": english(), "ja": cjk("ja", ["ja"]), "zh": cjk("zh", ["zh%5fCN", "zh%5fTW"])}
    rows = []
    corpus_pools = {}
    pid = 0
    print("lang bucket   docs available  sampled  pairs(+/-)")
    for lang, docs in corpora.items():
        vocab = []
        for d in rng.sample(docs, min(len(docs), 2000)):
            vocab += [d[a:b] for a, b in tokens(d, lang)]
        if not vocab:
            continue
        by_bucket = {"short": [], "medium": [], "long": []}
        for d in docs:
            d = cut(d)
            if len(tokens(d, lang)) >= 3:
                by_bucket[bucket(d)].append(d)
        for b, pool in by_bucket.items():
            pool = list(dict.fromkeys(pool))      # distinct texts
            corpus_pools.setdefault(lang, {})[b] = pool
            if len(pool) < 10:
                print("%-4s %-8s %6d   too few, skipped" % (lang, b, len(pool)))
                continue
            sample = rng.sample(pool, min(PER_BUCKET, len(pool)))
            npos = nneg = 0
            for d in sample:
                ntok = len(tokens(d, lang))
                sets = token_set(d, lang)
                for label, kind, e in [(1, "1 edit", 1),
                                       (1, "2%", max(1, round(0.02 * ntok))),
                                       (1, "5%", max(1, round(0.05 * ntok))),
                                       (1, "10%", max(1, round(0.10 * ntok))),
                                       (0, "35%", max(2, round(0.35 * ntok)))]:
                    pid += 1
                    rows.append((pid, lang, b, kind, e, label, d, edit(d, lang, e, vocab)))
                    npos += label
                    nneg += 1 - label
                found = 0
                for _ in range(50):
                    o = rng.choice(pool)
                    if o is d:
                        continue
                    s2 = token_set(o, lang)
                    if len(sets & s2) >= 0.5 * len(sets | s2):
                        continue
                    pid += 1
                    rows.append((pid, lang, b, "unrelated", 0, 0, d, o))
                    nneg += 1
                    found += 1
                    if found == 2:
                        break
            print("%-4s %-8s %6d %8d %7d/%d" % (lang, b, len(pool), len(sample), npos, nneg))
    # up to CORPUS_PER_BUCKET distinct documents of each language and
    # bucket, for counting the distances of all pairs of real documents
    with open(os.path.join(OUT, "corpus.csv"), "w", encoding="ascii") as fh:
        did = 0
        for lang, pools in corpus_pools.items():
            for b, pool in pools.items():
                for d in rng.sample(pool, min(CORPUS_PER_BUCKET, len(pool))):
                    did += 1
                    fh.write("%d,%s,%s,%s\n" % (did, lang, b, d.encode("utf-8").hex()))
    with open(os.path.join(OUT, "pairs.csv"), "w", encoding="ascii") as fh:
        for pid, lang, b, kind, e, label, t1, t2 in rows:
            fh.write("%d,%s,%s,%s,%d,%d,%s,%s\n" % (pid, lang, b, kind, e, label,
                                                   t1.encode("utf-8").hex(), t2.encode("utf-8").hex()))
    print("%d pairs" % len(rows))


if __name__ == "__main__":
    main()
