#!/usr/bin/env python3
"""bench/index/faiss_binary.py: FAISS's binary indexes on the codes of the wide bench.

Run by bench/index/run right after bench_wide.sql, in the same cluster, on
the tables that bench_wide.sql leaves in its database: docs (the codes, as
bytea in fpb), queries, klist, truth, knn_queries, knn_truth, and the SQL
methods' results (lat, ref, knn_lat, knn_answers, build, index_size,
method).  Two FAISS indexes are built on the same codes:

  IndexBinaryFlat       an exhaustive scan (popcount over every code)
  IndexBinaryMultiHash  multi-index hashing (Norouzi et al.): nhash hash
                        tables, each on b bits of the code; a query probes
                        every bucket within nflip bits of its own substring
                        and compares the union of those buckets' codes

and timed, one query per call on one thread, like the SQL methods: the
radius searches (fp <-> q <= k) for each k of klist, over the same queries
and with the same budget rule, and 10 nearest neighbours over the seq
scan's nearest-neighbour queries.  Answers are checked against the
brute-force ones (truth, knn_truth).  The tables printed follow
bench_wide.sql's; "x seq" divides the SQL seq scan's executor p50 of this
same run by the FAISS p50.

Options: --rounds N, --budget S (as bench/index/run), --nhash N and --b N
(the multi-hash shape; default: substrings of about log2(rows) bits),
--dbname NAME (default $PGDATABASE, else simhash_bench_index).  Needs
python3 with numpy and faiss (Debian: python3-faiss) and psql; the
connection comes from the usual PG* variables.  Exit status 3: faiss or
numpy cannot be imported.
"""

import argparse
import ctypes
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import faiss
except ImportError as e:  # run prints the note and goes on, or stops
    print(f"bench/index/faiss_binary.py: cannot import {e.name}: install python3-faiss "
          "(it brings python3-numpy)", file=sys.stderr)
    sys.exit(3)


# ------------------------------------------------------------------
# Reading the bench tables through psql (no driver needed)
# ------------------------------------------------------------------
def psql_copy(query, binary=False):
    fmt = " (FORMAT binary)" if binary else ""
    out = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1",
                          "-c", f"COPY ({query}) TO STDOUT{fmt}"],
                         check=True, stdout=subprocess.PIPE).stdout
    return out


def psql_rows(query):
    """Rows of a query as lists of strings (COPY text format; \\N is None)."""
    text = psql_copy(query).decode()
    return [[None if f == "\\N" else f for f in line.split("\t")]
            for line in text.splitlines()]


def parse_array(s):
    s = s.strip("{}")
    return [int(v) for v in s.split(",")] if s else []


def load_docs():
    """(ids, codes): ids in id order, codes n x nbytes uint8 with fpb's bytes.

    A binary COPY: every tuple has the same size (two fields, an int8 and a
    bytea of one length), so numpy reads it as one structured array; the
    field counts and lengths are checked rather than assumed.  codes lives
    in a buffer one row longer than needed: IndexBinaryMultiHash reads its
    substrings 8 bytes at a time, which can run up to 7 bytes past the last
    code."""
    n, lo, hi = (int(v) for v in psql_rows(
        "SELECT count(*), min(length(fpb)), max(length(fpb)) FROM docs")[0])
    if lo != hi:
        sys.exit(f"bench/index/faiss_binary.py: fingerprints of {lo} and {hi} bytes in docs")
    nb = lo
    raw = psql_copy("SELECT id, fpb FROM docs ORDER BY id", binary=True)
    sig = b"PGCOPY\n\xff\r\n\x00"
    if not raw.startswith(sig):
        sys.exit("bench/index/faiss_binary.py: unexpected binary COPY header")
    ext = int.from_bytes(raw[15:19], "big")
    body = raw[19 + ext:len(raw) - 2]
    dt = np.dtype([("nf", ">i2"), ("l1", ">i4"), ("id", ">i8"), ("l2", ">i4"), ("fp", "u1", (nb,))])
    if len(body) != n * dt.itemsize:
        sys.exit("bench/index/faiss_binary.py: binary COPY of docs has an unexpected size")
    t = np.frombuffer(body, dtype=dt)
    if not ((t["nf"] == 2).all() and (t["l1"] == 8).all() and (t["l2"] == nb).all()):
        sys.exit("bench/index/faiss_binary.py: binary COPY of docs has unexpected fields")
    ids = t["id"].astype(np.int64)
    buf = np.zeros((n + 1, nb), dtype=np.uint8)
    buf[:n] = t["fp"]
    return ids, buf[:n]


# ------------------------------------------------------------------
# Small helpers
# ------------------------------------------------------------------
def rss_bytes():
    # freed heap first goes back to the system, so that the growth measured
    # around a build is that build's memory, not a reuse of freed blocks
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def median(v):
    return statistics.median(v) if v else None


def pct(v, p):
    """percentile_cont: linear interpolation, as the SQL tables use"""
    return float(np.percentile(v, p)) if v else None


class Num(float):
    """a number printed with a given count of decimals"""
    def __new__(cls, v, digits):
        x = super().__new__(cls, v)
        x.digits = digits
        return x


def fmt(v):
    if v is None:
        return ""
    if isinstance(v, Num):
        return f"{v:.{v.digits}f}"
    if isinstance(v, float):
        return f"{v:.3f}"
    return str(v)


def num(v, digits):
    return None if v is None else Num(v, digits)


def ratio(a, b):
    return None if a is None or not b else Num(a / b, 1)


def table(headers, rows):
    """psql's aligned format: centred headers, text left, numbers right"""
    cells = [[c if isinstance(c, str) else fmt(c) for c in r] for r in rows]
    num = [all(not isinstance(r[i], str) for r in rows) for i in range(len(headers))]
    w = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    print(" " + " | ".join(h.center(w[i]) for i, h in enumerate(headers)).rstrip())
    print("-" + "-+-".join("-" * x for x in w) + "-")
    for r in cells:
        print(" " + " | ".join(c.rjust(w[i]) if num[i] else c.ljust(w[i])
                               for i, c in enumerate(r)).rstrip())
    print()


def copy_bandwidth():
    """Bytes per second of a 256 MB memcpy (best of 5): each byte is read
    and written once, so a scan that only reads can go somewhat faster."""
    a = np.ones(256 << 20, dtype=np.uint8)
    b = np.empty_like(a)
    best = None
    for _ in range(5):
        t0 = time.perf_counter()
        np.copyto(b, a)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return a.nbytes / best


# ------------------------------------------------------------------
# Timing, as bench_wide.sql's phase(): a warm-up round takes the queries
# in turn (pos, kind alternating) until budget / (rounds + 2) s are spent
# and at least 10 ran; then rounds runs every chosen query in turn; per
# query the median of its rounds
# ------------------------------------------------------------------
def time_queries(run, order, rounds, limit):
    chosen, answers, spent = [], {}, 0.0
    for i in order:
        if spent > limit and len(chosen) >= min(10, len(order)):
            break
        t0 = time.perf_counter()
        answers[i] = run(i)
        spent += time.perf_counter() - t0
        chosen.append(i)
    times = {i: [] for i in chosen}
    for _ in range(rounds):
        for i in chosen:
            t0 = time.perf_counter_ns()
            run(i)
            times[i].append((time.perf_counter_ns() - t0) / 1e6)
    return chosen, answers, {i: statistics.median(v) for i, v in times.items()}


def main():
    ap = argparse.ArgumentParser(description="FAISS binary indexes on the wide bench's codes")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--budget", type=float, default=60)
    ap.add_argument("--nhash", type=int, default=0)
    ap.add_argument("--b", type=int, default=0)
    ap.add_argument("--dbname", default=os.environ.get("PGDATABASE") or "simhash_bench_index")
    args = ap.parse_args()
    os.environ["PGDATABASE"] = args.dbname
    # one query per call on one core, as a PostgreSQL backend runs it
    faiss.omp_set_num_threads(1)

    t0 = time.perf_counter()
    ids, codes = load_docs()
    n, nb = codes.shape
    d = nb * 8
    q = psql_rows("SELECT qid, kind, encode(qb, 'hex'), chk FROM queries ORDER BY pos, kind")
    qid = [int(r[0]) for r in q]
    qkind = [r[1] for r in q]
    qchk = [r[3] == "t" for r in q]
    qbuf = np.zeros((len(q) + 1, nb), dtype=np.uint8)   # one spare row: see load_docs
    for i, r in enumerate(q):
        qbuf[i] = np.frombuffer(bytes.fromhex(r[2]), dtype=np.uint8)
    qcodes = qbuf[:len(q)]
    row_of = {v: i for i, v in enumerate(qid)}
    klist = [int(r[0]) for r in psql_rows("SELECT k FROM klist ORDER BY k")]
    truth = {(int(r[0]), int(r[1])): parse_array(r[2]) for r in psql_rows("SELECT qid, k, ids FROM truth")}
    ref = {int(r[0]): float(r[1]) for r in psql_rows("SELECT k, seq FROM ref")}
    knn_q = [int(r[0]) for r in psql_rows("SELECT qid FROM knn_queries ORDER BY pos, kind")]
    seq_knn = {int(r[0]) for r in psql_rows(
        "SELECT a.qid FROM knn_answers a JOIN method m USING (ord) WHERE m.kind = 'seq'")}
    knn_order = [row_of[v] for v in knn_q if not seq_knn or v in seq_knn]
    knn_truth = {int(r[0]): parse_array(r[1]) for r in psql_rows("SELECT qid, dists FROM knn_truth")}
    knn_seq = {r[0]: float(r[1]) for r in psql_rows(
        "SELECT l.kind, l.p50 FROM knn_lat l JOIN method m USING (ord) WHERE m.kind = 'seq'")}
    print(f"== FAISS {faiss.__version__}: {n} codes of {d} bits and {len(q)} queries read from "
          f"the bench tables in {time.perf_counter() - t0:.1f} s")

    nhash = args.nhash
    if not nhash:
        # Substrings of about log2(rows) bits, as in Norouzi et al.'s
        # multi-index hashing (FAISS's binary hashing benchmark follows it):
        # a bucket then holds about one code
        nhash = max(1, round(d / math.log2(max(n, 2))))
    b = args.b or d // nhash
    # 1.7.3 reads substring h as the 8 bytes at bit h*b shifted right by
    # (h*b) % 8 and masked with (1 << b) - 1: b must stay below 64 and
    # b + 7 within 64 bits for every substring to be whole
    if not (1 <= b <= 57 and nhash * b <= d):
        sys.exit(f"bench/index/faiss_binary.py: nhash {nhash} x b {b} does not fit {d} bits (b <= 57)")

    order = list(range(len(q)))   # every query, as the SQL index methods
    limit = args.budget / (args.rounds + 2)
    bw = copy_bandwidth()
    stats = faiss.cvar.indexBinaryHash_stats

    radius_rows, knn_rows, build_rows, notes = [], [], [], []

    def radius_method(label, index, cands):
        for k in klist:
            if index is not None and hasattr(index, "nflip"):
                set_nflip(index, k)
            # FAISS's binary range_search keeps distances < radius: k + 1
            # gives fp <-> q <= k
            def run(i, k=k):
                return index.range_search(qcodes[i:i + 1], k + 1)
            chosen, answers, ms = time_queries(run, order, args.rounds, limit)
            # every chk query is checked, timed or not
            for i in order:
                if qchk[i] and i not in answers:
                    answers[i] = run(i)
            checked = wrong = 0
            for i, (lims, D, I) in answers.items():
                t = truth.get((qid[i], k))
                if t is None:
                    continue
                checked += 1
                if sorted(ids[I].tolist()) != t:
                    wrong += 1
            # candidates: codes compared with the query (multi-hash: the
            # union of its buckets, from FAISS's own counter)
            cand = []
            for i in chosen:
                if cands == "stats":
                    stats.reset()
                    run(i)
                    cand.append(stats.ndis)
                else:
                    cand.append(n)
            v = [ms[i] for i in chosen]
            vc = [ms[i] for i in chosen if qkind[i] == "centre"]
            vr = [ms[i] for i in chosen if qkind[i] == "random"]
            p50 = median(v)
            rows = statistics.mean(len(answers[i][2]) for i in chosen)
            radius_rows.append([label(k), k, len(chosen), p50, pct(v, 95), median(vc), median(vr),
                                round(median(cand)), Num(rows, 2), ratio(ref.get(k), p50),
                                ratio(ref.get(k), median(vc)), ratio(ref.get(k), median(vr)),
                                checked, wrong])

    def knn_method(label, index, guaranteed):
        def run(i):
            return index.search(qcodes[i:i + 1], 10)
        # the seq scan's queries, all of them (its budget chose them)
        chosen, answers, ms = time_queries(run, knn_order, args.rounds, float("inf"))
        for kind in ("centre", "random"):
            sel = [i for i in chosen if qkind[i] == kind]
            if not sel:
                continue
            v = [ms[i] for i in sel]
            checked = wrong = short = certified = 0
            for i in sel:
                D, I = answers[i]
                found = [int(x) for x, lab in zip(D[0], I[0]) if lab >= 0]
                if len(found) < 10:
                    short += 1
                # exact whatever the truth says when the 10th distance is
                # within the radius the probes cover (pigeonhole)
                elif guaranteed is None or found[9] <= guaranteed:
                    certified += 1
                t = knn_truth.get(qid[i])
                if t is None:
                    continue
                checked += 1
                if sorted(found) != t:
                    wrong += 1
            p50 = median(v)
            tenth = [float(answers[i][0][0][9]) for i in sel if answers[i][1][0][9] >= 0]
            knn_rows.append([label, kind, len(sel), p50, pct(v, 95), ratio(knn_seq.get(kind), p50),
                             num(statistics.mean(tenth) if tenth else None, 1),
                             short, certified, checked, wrong])

    def set_nflip(index, k):
        # Pigeonhole: codes within k of the query, split into nhash
        # substrings, differ in at most floor(k / nhash) bits in at least
        # one substring; probing every bucket within that many flips of
        # each of the query's substrings finds them all, so range_search
        # is exact for radius k with nflip = k // nhash (bits left out of
        # the substrings, d - nhash * b, only make the codes closer there)
        index.nflip = k // nhash

    # --- IndexBinaryFlat ---
    r0 = rss_bytes()
    t0 = time.perf_counter()
    flat = faiss.IndexBinaryFlat(d)
    flat.add(codes)
    flat_build = time.perf_counter() - t0
    flat_rss = rss_bytes() - r0
    build_rows.append(["FAISS IndexBinaryFlat", Num(flat_build, 2), None,
                       Num(n * nb / 1048576, 1), Num(nb, 1), Num(flat_rss / n, 1)])
    radius_method(lambda k: "FAISS IndexBinaryFlat", flat, "all")
    knn_method("FAISS IndexBinaryFlat", flat, None)
    del flat

    # --- IndexBinaryMultiHash ---
    r0 = rss_bytes()
    t0 = time.perf_counter()
    mh = faiss.IndexBinaryMultiHash(d, nhash, b)
    mh.add(codes)
    mh_build = time.perf_counter() - t0
    mh_rss = rss_bytes() - r0
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mh.index")
        faiss.write_index_binary(mh, path)
        mh_bytes = os.path.getsize(path)
    mh_label = f"FAISS IndexBinaryMultiHash({d}, {nhash}, {b})"
    build_rows.append([mh_label, Num(mh_build, 2), None, Num(mh_bytes / 1048576, 1),
                       Num(mh_bytes / n, 1), Num(mh_rss / n, 1)])
    radius_method(lambda k: f"FAISS MultiHash nflip={k // nhash}", mh, "stats")
    # nearest neighbours with the probes of the largest radius: exact only
    # where the 10th neighbour lies within (nflip + 1) * nhash - 1 bits
    knn_flip = max(klist) // nhash
    mh.nflip = knn_flip
    knn_method(f"FAISS MultiHash nflip={knn_flip}", mh, (knn_flip + 1) * nhash - 1)
    del mh

    # --- the SQL methods of this run, for the side-by-side tables ---
    sql_lat = psql_rows("SELECT m.label, l.k, l.n, l.p50, l.p95, l.p50_centre, l.p50_random, l.cand, "
                        "l.answers, l.checked, l.wrong FROM lat l JOIN method m USING (ord) ORDER BY l.k, m.ord")
    sql_knn = psql_rows("SELECT m.label, l.kind, l.n, l.p50, l.p95, l.tenth, l.checked, l.wrong "
                        "FROM knn_lat l JOIN method m USING (ord) ORDER BY l.kind, m.ord")
    sql_build = psql_rows("SELECT m.label, b.secs, s.bytes FROM method m JOIN build b USING (ord) "
                          "JOIN index_size s USING (ord) ORDER BY m.ord")
    stock = [float(r[1]) for r in psql_rows(
        "SELECT m.name, b.secs FROM method m JOIN build b USING (ord)") if r[0] == "gin_stock"]

    def f(x):
        return None if x is None else float(x)

    print()
    print(f"==================== FAISS {faiss.__version__} beside the SQL methods: radius search "
          f"fp <-> q <= k, {d} bits, {n} rows")
    print("FAISS: wall time of one in-process call (range_search on one query, one thread, "
          "numpy arrays in and out; no SQL, no parse/plan);")
    print("the SQL methods: executor time (EXPLAIN (ANALYZE, TIMING OFF)).  Per query the median of "
          f"{args.rounds} rounds, then p50/p95 over the queries;")
    print("x seq: the SQL seq scan's p50 at that k in this run / this p50 (all, centres, random).  "
          "candidates: codes compared.")
    print("checked: answers compared with the brute-force ones (FAISS: every checked query); "
          "mismatches must be 0.")
    rows = []
    for k in klist:
        for r in sql_lat:
            if int(r[1]) == k:
                p50, pc, pr = f(r[3]), f(r[5]), f(r[6])
                rows.append([r[0], k, int(r[2]), p50, f(r[4]), pc, pr, num(f(r[7]), 0),
                             num(f(r[8]), 2), ratio(ref.get(k), p50), ratio(ref.get(k), pc),
                             ratio(ref.get(k), pr), int(r[9]), int(r[10])])
        rows += [x for x in radius_rows if x[1] == k]
    table(["method", "k", "queries", "p50 ms", "p95 ms", "centres p50", "random p50", "candidates",
           "avg rows", "x seq", "x seq centres", "x seq random", "checked", "mismatches"], rows)

    print(f"==================== Nearest neighbours, n = 10, with FAISS (ms per query)")
    print("FAISS: search(q, 10), one in-process call; the SQL methods: executor time.  The queries: "
          "the seq scan's nearest-neighbour queries.")
    print("x seq: the SQL seq scan's p50 for that kind / this p50.  short: fewer than 10 answers.  "
          "certified: the 10th distance lies within the")
    print("radius the probes cover ((nflip + 1) * nhash - 1 bits), so the answer is exact by "
          "pigeonhole (Flat: always).  Answers are")
    print("checked as sorted distance lists; a multi-hash search with too few flips may miss "
          "the true neighbours, and this says so.")
    rows = []
    for kind in ("centre", "random"):
        for r in sql_knn:
            if r[1] == kind:
                p50 = f(r[3])
                rows.append([r[0], kind, int(r[2]), p50, f(r[4]), ratio(knn_seq.get(kind), p50),
                             num(f(r[5]), 1), None, None, int(r[6]), int(r[7])])
        rows += [x for x in knn_rows if x[1] == kind]
    table(["method", "queries", "n", "p50 ms", "p95 ms", "x seq", "avg 10th distance", "short",
           "certified", "checked", "mismatches"], rows)

    print("==================== Index build (one core) and size, with FAISS")
    print("FAISS bytes/row: the codes (Flat) or write_index_binary's file (MultiHash, whose ids "
          "are bit-packed there); rss bytes/row:")
    print("what the process grew by while building, the in-memory cost (hash tables of "
          "std::vector per bucket).")
    rows = []
    for r in sql_build:
        s = f(r[1])
        rows.append([r[0], Num(s, 2), Num(s / stock[0], 2) if stock else None,
                     Num(int(r[2]) / 1048576, 1), Num(int(r[2]) / n, 1), None])
    for r in build_rows:
        r[2] = Num(r[1] / stock[0], 2) if stock else None
        rows.append(r)
    table(["index", "build s", "build vs gin_stock", "size MB", "bytes/row", "rss bytes/row"], rows)

    scan_ms = n * nb / bw * 1000
    print(f"memory-bound anchor: the codes are {n * nb / 1048576:.1f} MB; a memcpy here runs at "
          f"{bw / 1e9:.1f} GB/s, so reading every code once takes about {scan_ms:.2f} ms")
    print(f"(FAISS Flat p50 at k={klist[0]}: "
          f"{fmt(next(x[3] for x in radius_rows if x[1] == klist[0]))} ms)")
    total = sum(x[12] for x in radius_rows) + sum(x[9] for x in knn_rows)
    bad_radius = sum(x[13] for x in radius_rows)
    bad_knn = {x[0]: 0 for x in knn_rows}
    for x in knn_rows:
        bad_knn[x[0]] += x[10]
    print(f"FAISS: {total} answers checked; radius search mismatches: {bad_radius}; nearest "
          "neighbour mismatches: " + ", ".join(f"{k}: {v}" for k, v in bad_knn.items()))
    # like bench_wide.sql, wrong answers are reported, not an error
    return 0


if __name__ == "__main__":
    sys.exit(main())
