/*
 * P12LargeLiveSet — probes/12_large_live_set.c in Java: a large live structure that every
 * collection must trace again. Same shape, sizes and checksum as the C probe.
 *
 * A table of small nodes (next; key, value, check): a directory of chunks of CHUNK_SLOTS
 * bucket heads, bucket b a list of the nodes numbered b * NODES_PER_BUCKET onwards, a node's
 * key a bijective hash of its number, lists built bucket by bucket. Then CHURN_PER_NODE churn
 * steps per node each allocate a short-lived request (the directory; five words), and every
 * UPDATE_EVERY-th step replaces a random node with a new one (a store into an old list or
 * chunk). The table is verified at the end and stays reachable from a static field through
 * the final full collection, so heap_used_after_full_bytes must count it.
 *
 * Premise: a collector that collects must collect more than once once the set is built (the
 * final full collection is one), and heap_used_after_full_bytes, where reported, must be at
 * least the C probe's payload figure for the set (a Java node is larger than its payload).
 *
 * Sizes (nodes): ci 200 000, default 3 200 000, large 30 000 000. A node is 40 bytes with
 * compressed oops: ~9 MB live at ci, 136 MB at default, 1.3 GB at large.
 *
 * Checksum: every request's value read back, then the whole table walked bucket by bucket.
 * A node out of place, with a bad check word, or a wrong node count throws Corrupt.
 */
public final class P12LargeLiveSet extends Probe {
	static final int CHUNK_SLOTS = 512;
	static final int NODES_PER_BUCKET = 4;
	static final int CHURN_PER_NODE = 4;
	static final int UPDATE_EVERY = 32;
	static final long CHECK_MUL = 0xd6e8feb86659fd93L;

	static final class Node {
		Node next;
		long key, value, check;
	}

	/* A short-lived request pointing into the old set; five words, one object as in C. */
	static final class Request {
		Node[][] dir;
		long w0, w1, w2, w3, w4;

		long word(int k) {
			switch (k) {
			case 0:
				return w0;
			case 1:
				return w1;
			case 2:
				return w2;
			case 3:
				return w3;
			default:
				return w4;
			}
		}
	}

	/* Keeps the table reachable after run() returns, through the final full collection. */
	static Node[][] dir;

	private long payloadBytes, collectionsAtBuilt;
	private boolean countsKnown = true;

	String name() {
		return "12_large_live_set";
	}

	String premise() {
		return "a large live set stays reachable while garbage churns: every collection "
		    + "traces it again";
	}

	long[] iterations() {
		return new long[] {200000, 3200000, 30000000};
	}

	static long key(long i) {
		long z = i + 0x9e3779b97f4a7c15L;
		z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
		z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
		return z ^ (z >>> 31);
	}

	static void setNode(Node node, long key, long value) {
		node.key = key;
		node.value = value;
		node.check = value ^ (key * CHECK_MUL);
	}

	static Corrupt fail(long bucket, String what, long found, long expected) {
		return new Corrupt("bucket " + bucket + ": " + what + " is " + hex(found) + ", expected "
		                   + hex(expected));
	}

	static long replace(Node fresh, long j, long step) {
		long key = key(j);
		long b = j / NODES_PER_BUCKET;
		Node[] chunk = dir[(int)(b / CHUNK_SLOTS)];
		int slot = (int)(b % CHUNK_SLOTS);
		Node prev = null, n = chunk[slot];

		while (n != null && n.key != key) {
			prev = n;
			n = n.next;
		}
		if (n == null)
			throw fail(b, "missing key", 0, key);
		long value = mix(n.value, step);
		setNode(fresh, key, value);
		fresh.next = n.next;
		if (prev != null)
			prev.next = fresh;
		else
			chunk[slot] = fresh;
		return value;
	}

	static long verify(long h, long nodes, long nbuckets) {
		long j = 0;
		for (long b = 0; b < nbuckets; b++) {
			Node[] chunk = dir[(int)(b / CHUNK_SLOTS)];
			for (Node n = chunk[(int)(b % CHUNK_SLOTS)]; n != null; n = n.next, j++) {
				if (j >= nodes || j / NODES_PER_BUCKET != b)
					throw fail(b, "a node's index (a list too long)", j, b * NODES_PER_BUCKET);
				if (n.key != key(j))
					throw fail(b, "a node's key", n.key, key(j));
				if (n.check != (n.value ^ (n.key * CHECK_MUL)))
					throw fail(b, "a node's check word", n.check, n.value ^ (n.key * CHECK_MUL));
				h = mix(h, n.key);
				h = mix(h, n.value);
			}
		}
		if (j != nodes)
			throw fail(nbuckets, "the node count", j, nodes);
		return h;
	}

	long run(long nodes) {
		long[] rng = {0x5851f42d4c957f2dL};
		long h = 12;

		if (nodes > Integer.MAX_VALUE)
			throw new Corrupt(nodes + " nodes is too many (at most " + Integer.MAX_VALUE + ")");
		long nbuckets = (nodes + NODES_PER_BUCKET - 1) / NODES_PER_BUCKET;
		long nchunks = (nbuckets + CHUNK_SLOTS - 1) / CHUNK_SLOTS;
		/* The C probe's figure: 32 bytes per node, 8 per slot and directory entry. */
		payloadBytes = nodes * 32 + nchunks * CHUNK_SLOTS * 8 + nchunks * 8;

		dir = new Node[(int)nchunks][];
		for (int c = 0; c < nchunks; c++)
			dir[c] = new Node[CHUNK_SLOTS];
		for (long b = 0; b < nbuckets; b++) {
			long first = b * NODES_PER_BUCKET;
			long end = Math.min(first + NODES_PER_BUCKET, nodes);
			for (long j = end; j-- > first;) {
				long key = key(j);
				Node node = new Node();
				setNode(node, key, key >>> 7);
				long bj = j / NODES_PER_BUCKET;
				Node[] ch = dir[(int)(bj / CHUNK_SLOTS)];
				int slot = (int)(bj % CHUNK_SLOTS);
				node.next = ch[slot];
				ch[slot] = node;
			}
		}
		collectionsAtBuilt = JvmCensus.collectionsSoFar();
		if (collectionsAtBuilt < 0)
			countsKnown = false;

		for (long step = 0; step < nodes * CHURN_PER_NODE; step++) {
			long r = rand(rng);
			Request req = new Request();
			req.dir = dir;
			req.w0 = r;
			req.w1 = r + 1;
			req.w2 = r + 2;
			req.w3 = r + 3;
			req.w4 = r + 4;
			h = mix(h, req.word((int)(step % 5)));
			if (step % UPDATE_EVERY == UPDATE_EVERY - 1)
				h = mix(h, replace(new Node(), Long.remainderUnsigned(r, nodes), step));
		}
		return verify(h, nodes, nbuckets);
	}

	Integer premiseMet(JvmCensus c, StringBuilder why) {
		if (collectionsCounted(c, countsKnown, why) != 0)
			return -1;
		long n = c.minor + c.major - collectionsAtBuilt;
		if (n <= 1) {
			why.append("the " + payloadBytes + "-byte live set was traced by " + n
			           + " collection(s) once built, with the final full one: churn never "
			           + "collected");
			return 0;
		}
		if (c.usedAfterFull >= 0 && c.usedAfterFull < payloadBytes) {
			why.append("heap_used_after_full_bytes " + c.usedAfterFull
			           + " is below the live set's " + payloadBytes + " bytes of payload");
			return 0;
		}
		why.append(n + " collections traced the " + payloadBytes + "-byte live set once built"
		           + (c.usedAfterFull >= 0 ? "; heap used after the full collection covers it"
		                                   : ""));
		return 1;
	}

	public static void main(String[] args) {
		Probe.main(args, new P12LargeLiveSet());
	}
}
