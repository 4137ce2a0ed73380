#!/usr/bin/env python3
"""The probes' checksums, ported from docs/probes.md alone (issue 40, item 7).

Each function below follows its probe's "checksum recipe" in docs/probes.md, line by line; it
was written from that page without reading the C probes, as a port to another runtime would be.
tests/cli/t188-port-from-docs.sh compares what it prints with the C probes. It computes the
checksum only: the objects a real port allocates (docs/porting.md) are left out, since all this
checks is that the recipes are complete and right.

    python3 tests/port/probes.py PROBE [ci|default|large | --size X | --iterations N]

PROBE is a number (01 or 1) or a full name (01_nursery_churn). It prints what the C probe
prints on stdout: `checksum 0x` and 16 lowercase hex digits. Exit 2 on a bad command line.
"""

import sys
from collections import deque

M = 0xFFFFFFFFFFFFFFFF


def probe_mix(h, v):
    """h ^= v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2), the sum taken with the old h."""
    return h ^ ((v + 0x9E3779B97F4A7C15 + (h << 6) + (h >> 2)) & M)


class Rand:
    """xorshift64*: each call updates the state and returns the product."""

    __slots__ = ("s",)

    def __init__(self, seed):
        self.s = seed

    def __call__(self):
        x = self.s
        x ^= x >> 12
        x ^= (x << 25) & M
        x ^= x >> 27
        self.s = x
        return (x * 0x2545F4914F6CDD1D) & M


def splitmix_fin(x):
    z = (x + 0x9E3779B97F4A7C15) & M
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def p01(n):
    mix = probe_mix
    h = 1
    rand = Rand(0x0123456789ABCDEF)
    keep_value = [(i * 1000003) & M for i in range(16)]
    keep_index = list(range(16))
    for it in range(n):
        value = [rand() >> 8 for _ in range(5)]
        s = 0
        for j in range(5):
            s = (s + value[j] * (j + 1)) & M
        h = mix(h, s)
        h = mix(h, 4)
        h = mix(h, keep_value[it % 16])
        h = mix(h, it)
        if it % 1024 == 1023:
            k = (it // 1024) % 16
            keep_value[k] = value[4]
            keep_index[k] = 4
    for i in range(16):
        h = mix(h, keep_value[i])
        h = mix(h, keep_index[i])
    return h


def p02(n):
    mix = probe_mix
    h = 2
    rand = Rand(0x2545F4914F6CDD1D)
    W = 65536

    def pw(value, seq, k):
        return (value * (k + 3) + seq * (0x100000001B3 + k)) & M

    def take(h, seq, value):
        h = mix(h, seq)
        h = mix(h, value)
        for k in range(4):
            h = mix(h, pw(value, seq, k))
        return h

    queue = deque()
    queued = 0
    for seq in range(n):
        value = rand()
        h = mix(h, pw(value, seq, 0))
        queue.append((seq, value))
        queued += 1
        if queued > W:
            hs, hv = queue.popleft()
            h = take(h, hs, hv)
            queued -= 1
    for seq, value in queue:
        h = take(h, seq, value)
    return h


def p03(n):
    mix = probe_mix
    h = 3
    rand = Rand(0x3C6EF372FE94F82B)
    stamp_of = [0] * 8192
    key_of = [0] * 8192

    def check(h, slot):
        key = key_of[slot]
        h = mix(h, stamp_of[slot])
        h = mix(h, key)
        h = mix(h, (key * 0x100000001B3 & M) ^ 1)
        h = mix(h, (key * 0x100000001B4 & M) ^ 2)
        return h

    for slot in range(8192):
        stamp_of[slot] = 0
        key_of[slot] = rand()
    lag = [0] * 64
    for it in range(n):
        r = rand()
        slot = r % 8192
        stamp_of[slot] = it + 1
        key_of[slot] = r >> 13
        lag[it % 64] = slot
        h = mix(h, it + 1)
        h = mix(h, it + 1)
        if it >= 64:
            h = check(h, lag[(it + 1) % 64])
    for slot in range(8192):
        h = check(h, slot)
    return h


def p04(n):
    mix = probe_mix
    h = 4

    def tag(rnd, d):
        return ((((rnd << 32) | d) * 0xC2B2AE3D27D4EB4F) + 0x27D4EB2F) & M

    def node(h, rnd, d):
        t = tag(rnd, d)
        for k in range(6):
            h = mix(h, t ^ ((0x165667B19E3779F9 * (k + 1)) & M))
        return mix(h, d)

    for rnd in range(n):
        D = 4000 - (((n - 1 - rnd) % 4) * 1000)
        for d in range(D):
            h = mix(h, d)
        for _ in range(2):
            for d in range(D - 1, -1, -1):
                h = node(h, rnd, d)
        rand = Rand(rnd * 2 + 1)
        for _ in range(64):
            s = 0
            for _ in range(256):
                w0 = rand() >> 20
                rand()
                w2 = rand() >> 20
                s = s + w0 + 3 * w2
            h = mix(h, s & M)
    return h


def p05(n):
    h = 5
    N = n
    order = 0

    # A node: [left, right, word]; word = (height << 32) | order.
    def new_node(height):
        nonlocal order
        nd = [None, None, (height << 32) | order]
        order += 1
        return nd

    def bottom_up(height):
        if height == 0:
            return new_node(0)
        left = bottom_up(height - 1)
        right = bottom_up(height - 1)
        nd = new_node(height)
        nd[0] = left
        nd[1] = right
        return nd

    def populate(nd, height):
        if height == 0:
            return
        nd[0] = new_node(height - 1)
        nd[1] = new_node(height - 1)
        populate(nd[0], height - 1)
        populate(nd[1], height - 1)

    def top_down(height):
        root = new_node(height)
        populate(root, height)
        return root

    def walk(h, nd):
        # Depth first, iteratively (a depth-27 recursion is fine, but a stack is faster).
        stack = [nd]
        pop = stack.pop
        push = stack.append
        while stack:
            x = pop()
            h = h ^ (((x[2] & 0xFFFFFFFF) + 0x9E3779B97F4A7C15 + (h << 6) + (h >> 2)) & M)
            if x[0] is not None:
                push(x[1])
                push(x[0])
        return h

    def check(h, tree, height):
        h = walk(h, tree)
        return probe_mix(h, (2 << height) - 1)

    order = 0
    t = bottom_up(N + 1)
    h = check(h, t, N + 1)
    t = None
    order = 0
    long_lived = top_down(N)
    array = [(((i + 1) * 0x9FB21C651E98DF25) & M) >> 11 for i in range(1 << (N - 1))]
    d = 4
    while d <= N:
        for _ in range(1 << (N - d)):
            order = 0
            t = top_down(d)
            h = check(h, t, d)
            order = 0
            t = bottom_up(d)
            h = check(h, t, d)
        h = probe_mix(h, d)
        d += 2
    h = check(h, long_lived, N)
    for w in array:
        h = probe_mix(h, w)
    return h


def p06(n):
    mix = probe_mix
    h = 6
    rand = Rand(0x6A09E667F3BCC909)
    LO = [24, 48, 160, 640, 2032]
    HI = [48, 160, 640, 2032, 4088]
    WEIGHT = [[40, 16, 6, 2, 0], [8, 16, 28, 10, 2], [20, 8, 8, 24, 4]]
    key_of = [0] * 16384
    bytes_of = [0] * 16384

    def size(r, step):
        p = (step // 16384) % 3
        w = r % 64
        c = 0
        wt = WEIGHT[p]
        while w >= wt[c]:
            w -= wt[c]
            c += 1
        return LO[c] + ((r >> 8) % (((HI[c] - LO[c]) // 8) + 1)) * 8

    def fill(h, slot, key, step):
        nbytes = size(rand(), step)
        tbytes = size(rand(), step)
        h = mix(h, (key + tbytes) & M)
        key_of[slot] = key
        bytes_of[slot] = nbytes
        return h

    for slot in range(16384):
        h = fill(h, slot, rand(), 0)
    for step in range(n):
        r = rand()
        if (r & 3) != 0:
            slot = (r >> 2) % 2048
        else:
            slot = (r >> 2) % 16384
        h = mix(h, key_of[slot])
        h = mix(h, bytes_of[slot])
        h = fill(h, slot, ((r >> 11) | (step << 53)) & M, step)
    for slot in range(16384):
        h = mix(h, key_of[slot])
        h = mix(h, bytes_of[slot])
    return h


def p07(n):
    mix = probe_mix
    h = 7
    rand = Rand(0xBB67AE8584CAA73B)

    def value(run, i):
        return ((((run << 32) | i) * 0xD1342543DE82EF95) & M) >> 7

    runs = 0
    target = [0] * 4
    run = [0] * 4
    length = [0] * 4

    def start(v):
        nonlocal runs
        target[v] = 1 << (8 + (rand() % 10))
        run[v] = runs
        runs += 1
        length[v] = 0

    for v in range(4):
        start(v)
    for push in range(n):
        v = push % 4
        L = length[v]
        length[v] = L + 1
        if L >= 7:
            h = mix(h, value(run[v], L - 7))
        else:
            h = mix(h, value(run[v], 0))
        if push % 64 == 0:
            h = mix(h, value(run[v], rand() % (L + 1)))
        if L + 1 == target[v]:
            for i in range(L + 1):
                h = mix(h, value(run[v], i))
            h = mix(h, L + 1)
            start(v)
    for v in range(4):
        for i in range(length[v]):
            h = mix(h, value(run[v], i))
        h = mix(h, length[v])
    return h


def p08(n):
    mix = probe_mix
    h = 8
    rand = Rand(0x3C6EF372FE94F82B)
    INSERT, LOOKUP, DELETE = 0, 1, 2
    keys = [[splitmix_fin((t << 32) | i) for i in range(8192)] for t in range(4)]
    nb = [64] * 4
    count = [0] * 4
    # A chain is a list, head first; an entry is (key, id).
    chain = [[[] for _ in range(64)] for _ in range(4)]
    version = [[0] * 8192 for _ in range(4)]
    for step in range(n):
        r = rand()
        t = r % 4
        ident = (r >> 8) % 8192
        k = keys[t][ident]
        p = (r >> 24) % 100
        if (step // 131072) % 2 == 0:
            op = INSERT if p < 65 else (LOOKUP if p < 95 else DELETE)
        else:
            op = INSERT if p < 5 else (LOOKUP if p < 35 else DELETE)
        bucket = chain[t][(k >> 17) & (nb[t] - 1)]
        present = 0
        for e in bucket:
            if e[0] == k:
                present = 1
                break
        h = mix(h, (op << 1) | present)
        if op == LOOKUP and present:
            h = mix(h, version[t][ident])
        if op == DELETE and present:
            h = mix(h, version[t][ident])
            for idx, e in enumerate(bucket):
                if e[0] == k:
                    del bucket[idx]
                    break
            count[t] -= 1
        if op == INSERT:
            v = version[t][ident] + 1
            if not present:
                bucket.insert(0, (k, ident))
                count[t] += 1
            version[t][ident] = v
            h = mix(h, v)
        new = 0
        if count[t] > nb[t]:
            new = nb[t] * 2
        elif count[t] < (nb[t] // 4) and nb[t] > 64:
            new = nb[t] // 2
        if new != 0:
            fresh = [[] for _ in range(new)]
            for b in range(nb[t]):
                for e in chain[t][b]:
                    fresh[(e[0] >> 17) & (new - 1)].insert(0, e)
            chain[t] = fresh
            nb[t] = new
            h = mix(h, new)
    for t in range(4):
        for b in range(nb[t]):
            for e in chain[t][b]:
                h = mix(h, e[0])
                h = mix(h, version[t][e[1]])
        h = mix(h, count[t])
    return h


def p09(n):
    mix = probe_mix
    h = 9
    rand = Rand(0xA54FF53A5F1D36F1)

    def word(ident, g, k):
        return ((((g << 20) | ident) + k) * 0xF1357AEA2E62A9C5) & M

    def finalizable(ident, g):
        return ((g * 7) + ident) % 4 == 0

    gen = [0] * 4096
    cache = [None] * 8192  # an entry is (id, g)
    queue = deque()
    for step in range(n):
        ident = rand() % 4096
        if step % 8 == 7:
            if finalizable(ident, gen[ident]):
                queue.appendleft((ident, gen[ident]))
            gen[ident] += 1
        elif step % 2 == 0:
            slot = (((ident * 0x9E3779B97F4A7C15) & M) >> 51) % 8192
            g = gen[ident]
            if cache[slot] == (ident, g):
                h = mix(h, 1)
            else:
                cache[slot] = (ident, g)
                h = mix(h, 2)
            h = mix(h, word(ident, g, 1) >> 1)
        if step % 4096 == 4095:
            h = collect(h, cache, gen, queue)
    h = collect(h, cache, gen, queue)
    for ident in range(4096):
        h = mix(h, gen[ident])
    for i in range(8192):
        h = mix(h, (cache[i][0] + 1) if cache[i] is not None else 0)
    return h


def collect(h, cache, gen, queue):
    """09's clearing pass and finalization queue, as a collector would run them."""
    cleared = 0
    finalized = 0
    for i in range(8192):
        e = cache[i]
        if e is not None and gen[e[0]] != e[1]:
            cache[i] = None
            cleared += 1
    for qid, qg in queue:
        h = probe_mix(h, qid)
        h = probe_mix(h, qg)
        finalized += 1
    queue.clear()
    h = probe_mix(h, cleared)
    h = probe_mix(h, finalized)
    return h


def p10(n):
    mix = probe_mix
    h = 10
    rand = Rand(0x510E527FADE682D1)

    def word(ident, off):
        return ((((ident << 32) ^ off) * 0x2127599BF4325C37) + 1) & M

    def make(ident):
        r = rand()
        if r % 4 != 3:
            band = 65536 << ((r >> 2) % 6)
            size = (band + ((r >> 16) % band)) & (M ^ 7)
            return ("buffer", ident, size)
        band = 8192 << ((r >> 2) % 4)
        nptrs = band + ((r >> 16) % band)
        return ("array", ident, nptrs)

    def check(h, obj):
        kind, ident, size = obj
        if kind == "buffer":
            off = 4096
            while off + 16 <= size:
                h = mix(h, word(ident, off))
                off += 4096
            h = mix(h, size)
        else:
            i = 0
            while i < size:
                h = mix(h, i)
                i += 256
            h = mix(h, size)
        return h

    keep = [None] * 8
    prev = None
    for ident in range(1, n + 1):
        obj = make(ident)
        if prev is not None:
            r = rand()
            h = check(h, prev)
            if r % 4 == 0:
                k = (r >> 8) % 8
                if keep[k] is not None:
                    h = check(h, keep[k])
                keep[k] = prev
        prev = obj
    h = check(h, prev)
    for k in range(8):
        if keep[k] is not None:
            h = check(h, keep[k])
        else:
            h = mix(h, 0)
    return h


def p11(n):
    mix = probe_mix
    h = 11

    def node(h, e, d):
        t = ((((e << 32) | d) * 0xFF51AFD7ED558CCD) + 0x5BD1E995) & M
        for k in range(5):
            h = mix(h, t ^ ((0xC4CEB9FE1A85EC53 * (k + 1)) & M))
        return mix(h, d)

    for e in range(n):
        D = 2000 - ((e % 4) * 500)
        rand = Rand(e * 2 + 1)
        for _ in range(300):
            s = 0
            for _ in range(64):
                w0 = rand() >> 16
                rand()
                rand()
                rand()
                w4 = rand() >> 16
                s = s + (w0 ^ w4)
            h = mix(h, s & M)
        for _ in range(2):
            for d in range(D - 1, -1, -1):
                h = node(h, e, d)
    return h


def p12(n):
    mix = probe_mix
    h = 12
    rand = Rand(0x5851F42D4C957F2D)
    value = [splitmix_fin(i) >> 7 for i in range(n)]
    for step in range(4 * n):
        r = rand()
        h = mix(h, (r + (step % 5)) & M)
        if step % 32 == 31:
            j = r % n
            value[j] = probe_mix(value[j], step)
            h = mix(h, value[j])
    for i in range(n):
        h = mix(h, splitmix_fin(i))
        h = mix(h, value[i])
    return h


def p13(n):
    mix = probe_mix
    h = 13
    m = n

    def word(ident, k):
        return ((((ident * 15) + k) * 0x9E6C63D0676A9A99) & M) >> 3

    chunks = 4 * m
    ident = 0
    for c in range(chunks):
        for slot in range(128):
            for i in range(16):
                if ident % 8 == 0:
                    h = mix(h, ident ^ c)
                ident += 1
    for c in range(chunks):
        for slot in range(128):
            first = ((c * 128) + slot) * 16
            for ident in range(first + 15, first - 1, -1):
                h = mix(h, word(ident, 1))
    for b in range(m):
        for p in range(256):
            h = mix(h, word(b, p))
    return h


def p14(n):
    mix = probe_mix
    h = 14
    rand = Rand(0x1F83D9ABFB41BD6B)
    stamp_of = [0] * n

    def vw(key, stamp, k):
        return (((key << 24) ^ stamp) * (0xC4CEB9FE1A85EC53 + k)) & M

    def pick(r, present):
        if (r & 7) < 7 and present > 4096:
            return (r >> 3) % 4096
        return (r >> 3) % present

    def request(h, key):
        st = stamp_of[key]
        h = mix(h, st)
        return mix(h, vw(key, st, 1))

    stamp = 0
    for key in range(n):
        stamp += 1
        stamp_of[key] = stamp
        h = request(h, pick(rand(), key + 1))
    for step in range(3 * n):
        r = rand()
        stamp += 1
        stamp_of[r % n] = stamp
        h = request(h, pick(rand(), n))
    for key in range(n):
        h = mix(h, stamp_of[key])
    return h


def p15(n):
    mix = probe_mix
    h = 15
    rand = Rand(0x6A09E667F3BCC909)
    hits = [0] * 16384
    sums = [0] * 16384
    ring = [[None] * 8 for _ in range(16384)]
    for seq in range(n):
        sid = rand() % 16384
        value = 0
        for f in range(4):
            base = (((seq * 4) + f) * 0x9E3779B97F4A7C15) & M
            for k in range(4):
                value = value + base + k
        value &= M
        hits[sid] += 1
        sums[sid] ^= value
        if seq % 4 == 0:
            ring[sid][hits[sid] % 8] = (seq, value)
        h = mix(h, value ^ ((hits[sid] << 32) & M))
    for sid in range(16384):
        h = mix(h, sid)
        h = mix(h, hits[sid])
        h = mix(h, sums[sid])
        for k in range(8):
            e = ring[sid][k]
            h = mix(h, (e[0] ^ e[1]) if e is not None else 0)
    return h


# name, function, iterations at ci, default, large (docs/probes.md, "Sizes")
PROBES = [
    ("01_nursery_churn", p01, (500000, 8000000, 80000000)),
    ("02_survivor_promotion", p02, (300000, 6000000, 60000000)),
    ("03_cross_gen_writes", p03, (600000, 16000000, 160000000)),
    ("04_deep_stack_garbage", p04, (60, 1000, 10000)),
    ("05_binary_trees", p05, (16, 19, 22)),
    ("06_fragmentation", p06, (100000, 5000000, 50000000)),
    ("07_array_growth", p07, (600000, 10000000, 100000000)),
    ("08_hash_side_tables", p08, (1000000, 16000000, 160000000)),
    ("09_weak_finalize", p09, (1000000, 40000000, 400000000)),
    ("10_large_objects", p10, (50, 450, 4500)),
    ("11_collect_at_depth", p11, (50, 1000, 10000)),
    ("12_large_live_set", p12, (200000, 3200000, 30000000)),
    ("13_memory_return", p13, (16, 128, 1280)),
    ("14_grow_then_churn", p14, (80000, 500000, 5000000)),
    ("15_request_latency", p15, (50000, 500000, 2000000)),
]
SIZES = ("ci", "default", "large")


def usage(msg):
    sys.stderr.write("probes.py: %s\n" % msg)
    sys.stderr.write("usage: probes.py PROBE [ci|default|large | --size X | --iterations N]\n")
    sys.exit(2)


def find_probe(arg):
    for name, fn, counts in PROBES:
        if arg == name or (arg.isdigit() and int(arg) == int(name[:2])):
            return name, fn, counts
    usage("no probe '%s' (01 to 15, or a name like 01_nursery_churn)" % arg)
    return None


def main(argv):
    if not argv:
        usage("no probe given")
    name, fn, counts = find_probe(argv[0])
    rest = argv[1:]
    n = counts[SIZES.index("default")]
    if len(rest) == 1 and rest[0] in SIZES:
        n = counts[SIZES.index(rest[0])]
    elif len(rest) == 2 and rest[0] == "--size":
        if rest[1] not in SIZES:
            usage("--size: '%s' is not ci, default or large" % rest[1])
        n = counts[SIZES.index(rest[1])]
    elif len(rest) == 2 and rest[0] == "--iterations":
        if not rest[1].isdigit() or int(rest[1]) < 1:
            usage("--iterations: '%s' is not a positive whole number" % rest[1])
        n = int(rest[1])
    elif rest:
        usage("unexpected argument '%s'" % " ".join(rest))
    sys.stdout.write("checksum 0x%016x\n" % fn(n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
